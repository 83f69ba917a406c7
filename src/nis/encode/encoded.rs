//! A formula as encoded over an unrolling ([`super::formula::encode`]):
//! per node its 0/1 expression, mirrored so that a solution is read back
//! as a witness tree.

use crate::milp::{LinExpr, Solution};
use crate::nis::witness::WitnessTree;

/// A formula node as encoded, mirrored for decoding the witness.
#[derive(Clone)]
pub enum Encoded {
    Lit {
        label: usize,
        /// `None`: an environment label.
        agent: Option<usize>,
        negated: bool,
        value: LinExpr,
    },
    And(Vec<Encoded>, LinExpr),
    Or(Vec<Encoded>, LinExpr),
    /// `EX`: the child holds at successor `to`.
    Next {
        to: usize,
        child: Box<Encoded>,
    },
}

impl Encoded {
    /// The 0/1 expression "this node holds at its state".
    pub fn value(&self) -> LinExpr {
        match self {
            Encoded::Lit { value, .. } | Encoded::And(_, value) | Encoded::Or(_, value) => {
                value.clone()
            }
            Encoded::Next { child, .. } => child.value(),
        }
    }

    /// The witness tree of this node (which holds under `sol`) at unrolling
    /// state `at`: literals become obligations, an OR follows a disjunct the
    /// solution makes true (the OR row guarantees one), an `EX` adds the
    /// child step that `step(from, to)` decodes (move, state).
    pub fn witness<S, M>(
        &self,
        sol: &Solution,
        at: usize,
        t: &mut WitnessTree<S, M>,
        step: &mut dyn FnMut(usize, usize) -> (M, S),
    ) {
        match self {
            &Encoded::Lit {
                label,
                agent,
                negated,
                ..
            } => t.obligations.push((label, agent, negated)),
            Encoded::And(cs, _) => cs.iter().for_each(|c| c.witness(sol, at, t, step)),
            Encoded::Or(cs, _) => {
                if let Some(c) = cs.iter().find(|c| sol.eval(&c.value()) > 0.5) {
                    c.witness(sol, at, t, step);
                }
            }
            Encoded::Next { to, child } => {
                let (mv, state) = step(at, *to);
                let mut sub = WitnessTree::leaf(state);
                child.witness(sol, *to, &mut sub, step);
                t.children.push((mv, sub));
            }
        }
    }

    /// The witness tree of the root node: `state(s)` decodes unrolling
    /// state `s`, `step(from, to)` the move into `to` and its state.
    pub fn tree<S, M>(
        &self,
        sol: &Solution,
        root_state: S,
        step: &mut dyn FnMut(usize, usize) -> (M, S),
    ) -> WitnessTree<S, M> {
        let mut t = WitnessTree::leaf(root_state);
        self.witness(sol, 0, &mut t, step);
        t
    }
}
