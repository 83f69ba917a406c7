//! Witnesses and counterexamples of every decider: the tree the deciders
//! produce ([`WitnessTree`]), the replayed trace shown to the user
//! ([`Trace`], one JSON form and one text form), and the error of a
//! witness that does not replay; [`trace`] turns replayed
//! traces into step tables and JSON.

pub mod render;
pub mod replay;
pub mod replay_real;
pub mod replay_strategic;
pub mod replay_strategy_f64;
pub mod shown;
pub mod trace;
mod views;

use crate::report::{RunError, Table, TableFormat};
use serde_json::{json, Value};

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

/// A replayed witness as shown: its kind ("witness", "counterexample",
/// "abstract trace"), how many initial states it covers, and per branch of
/// the first tree its JSON form and its step table.
#[derive(Clone, Debug)]
pub struct Trace {
    pub kind: &'static str,
    pub initial_states: usize,
    pub branches: Vec<(Value, Table)>,
}

impl Trace {
    /// The report's witness JSON and its text (one table per branch).
    pub fn render(&self) -> (Value, String) {
        let mut text = String::new();
        let count = self.branches.len();
        let mut jsons = Vec::with_capacity(count);
        for (i, (j, table)) in self.branches.iter().enumerate() {
            text.push_str(&format!("{}, branch {} of {count}:\n", self.kind, i + 1));
            text.push_str(&table.render(TableFormat::Text));
            jsons.push(j.clone());
        }
        let json = json!({
            "kind": self.kind,
            "initial_states": self.initial_states,
            "branches": jsons,
        });
        (json, text)
    }
}

impl Trace {
    /// The shown form of replayed traces, one per initial state, each a
    /// list of branches: the first trace's branches as `show` renders them.
    pub fn of<B>(
        kind: &'static str,
        traces: &[Vec<B>],
        show: impl Fn(&B) -> (Value, Table),
    ) -> Option<Trace> {
        let first = traces.first()?;
        Some(Trace {
            kind,
            initial_states: traces.len(),
            branches: first.iter().map(show).collect(),
        })
    }
}

/// "witness" or "counterexample".
pub fn kind_word(counterexample: bool) -> &'static str {
    if counterexample {
        "counterexample"
    } else {
        "witness"
    }
}

/// A decider's witness that failed its replay: an internal error (exit 3).
pub fn internal(what: &str, why: String) -> RunError {
    RunError::Internal(format!(
        "a {what} did not replay through the semantics: {why}"
    ))
}

/// The text of a refutation of `<<G>> X^k phi`, said as such: its branches
/// are the coalition's choices, not the others'.
pub fn refutation_text(t: &str) -> String {
    format!(
        "a refutation: every move of the coalition, answered by the others (the environment included), reaches the negated goal:\n{t}"
    )
}
