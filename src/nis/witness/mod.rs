//! Witnesses and counterexamples of every decider: the tree the deciders
//! produce ([`WitnessTree`]), their replays through the semantics (one
//! walker, [`replay`], in each number domain), the
//! replayed witness as a typed value ([`shown`]: [`Trace`], [`Witness`]),
//! and the error of a witness that does not replay; [`trace`] turns
//! replayed traces into typed steps. Only the verb layer renders them.

pub mod replay;
pub mod shown;
pub mod trace;
mod views;

pub use shown::{Trace, Witness};

use crate::report::RunError;

/// A witness (or counterexample) as a tree: at each node the literals that
/// must hold there (label, agent or `None` for the environment, negated),
/// and the successor steps that the path quantifiers chose.
#[derive(Clone, Debug)]
pub struct WitnessTree<St, Mv> {
    pub state: St,
    pub obligations: Vec<(usize, Option<usize>, bool)>,
    pub children: Vec<(Mv, WitnessTree<St, Mv>)>,
}

impl<St, Mv> WitnessTree<St, Mv> {
    /// A node without obligations or children.
    pub fn leaf(state: St) -> Self {
        WitnessTree {
            state,
            obligations: Vec::new(),
            children: Vec::new(),
        }
    }
}

impl<St: Clone, Mv: Clone> WitnessTree<St, Mv> {
    /// Root-to-leaf paths: (state, move that led there) lists.
    pub fn branches(&self) -> Vec<Vec<(Option<Mv>, St)>> {
        let mut out = Vec::new();
        let mut prefix = vec![(None, self.state.clone())];
        self.collect(&mut prefix, &mut out);
        out
    }

    fn collect(&self, prefix: &mut Vec<(Option<Mv>, St)>, out: &mut Vec<Vec<(Option<Mv>, St)>>) {
        if self.children.is_empty() {
            out.push(prefix.clone());
            return;
        }
        for (mv, child) in &self.children {
            prefix.push((Some(mv.clone()), child.state.clone()));
            child.collect(prefix, out);
            prefix.pop();
        }
    }
}

/// A decider's witness that failed its replay: an internal error (exit 3).
pub fn internal(what: &str, why: String) -> RunError {
    RunError::Internal(format!(
        "a {what} did not replay through the semantics: {why}"
    ))
}
