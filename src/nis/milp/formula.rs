//! The existential fragment of bICTL (Definition 7) over the unrolling: each
//! formula node gets a 0/1 expression "holds here"; each `EX` occurrence adds
//! its own successor state, so a conjunction of `EX` subformulas gets one
//! successor per branch and the witness is a tree. Symmetry breaking orders
//! the interchangeable agents m+1..n by their first-round choices.

use super::encode::{milp_error, not};
use super::unroll::{Round, State};
use super::Enc;
use crate::milp::{LinExpr, Solution};
use crate::nis::core::{Core, Node};
use crate::nis::witness::WitnessTree;
use crate::report::RunError;

/// The states of the unrolling as a tree: `rounds[i]` led to `states[i]`
/// from `rounds[i].from` (none for the initial state 0).
pub struct Unrolling {
    pub states: Vec<State>,
    pub rounds: Vec<Option<Round>>,
}

/// A formula node as encoded, mirrored for decoding the witness.
pub enum Encoded {
    Lit {
        label: usize,
        agent: usize,
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
                let mut sub = WitnessTree {
                    state,
                    obligations: Vec::new(),
                    children: Vec::new(),
                };
                child.witness(sol, *to, &mut sub, step);
                t.children.push((mv, sub));
            }
        }
    }

    /// The 0/1 expression "this node holds at its state".
    pub fn value(&self) -> LinExpr {
        match self {
            Encoded::Lit { value, .. } | Encoded::And(_, value) | Encoded::Or(_, value) => {
                value.clone()
            }
            Encoded::Next { child, .. } => child.value(),
        }
    }
}

impl Enc<'_> {
    /// Encodes `node` of an existential core formula at state `at`.
    pub fn formula(
        &mut self,
        core: &Core,
        node: usize,
        at: usize,
        u: &mut Unrolling,
    ) -> Result<Encoded, RunError> {
        Ok(match &core.nodes[node] {
            &Node::Lit {
                label,
                agent,
                negated,
            } => {
                let expr = &self.model.labels[label].expr;
                let holds = self.label(expr, &u.states[at].agents[agent])?;
                Encoded::Lit {
                    label,
                    agent,
                    negated,
                    value: if negated { not(holds) } else { holds },
                }
            }
            Node::And(cs) | Node::Or(cs) => {
                let mut children = Vec::with_capacity(cs.len());
                for &c in cs {
                    children.push(self.formula(core, c, at, u)?);
                }
                let values = children.iter().map(Encoded::value).collect();
                if matches!(core.nodes[node], Node::And(_)) {
                    let v = self.and(values)?;
                    Encoded::And(children, v)
                } else {
                    let v = self.or(values)?;
                    Encoded::Or(children, v)
                }
            }
            &Node::EX(c) => {
                let tag = format!("s{}", u.states.len());
                let (mut round, next) = self.round(&u.states[at], &tag)?;
                round.from = at;
                u.states.push(next);
                u.rounds.push(Some(round));
                let to = u.states.len() - 1;
                let child = self.formula(core, c, to, u)?;
                Encoded::Next {
                    to,
                    child: Box::new(child),
                }
            }
            Node::AX(_) => {
                return Err(RunError::Internal(
                    "the MILP encoder got a universal formula; it encodes the existential dual"
                        .into(),
                ))
            }
        })
    }

    /// Lexicographic order of agents `m..n` by (first action, percept after
    /// the first round) in the root's first successor: these agents start in
    /// the same local state and no formula names them, so sorting them in any
    /// solution gives another solution of the whole tree.
    pub fn break_symmetry(&mut self, u: &Unrolling, m: usize) -> Result<usize, RunError> {
        let Some(first) =
            (1..u.states.len()).find(|&i| u.rounds[i].as_ref().is_some_and(|r| r.from == 0))
        else {
            return Ok(0);
        };
        let round = u.rounds[first].as_ref().expect("checked");
        let percepts = self.model.template.percepts.len() as f64;
        let code = |i: usize| -> LinExpr {
            let mut e = LinExpr::constant(0.0);
            for (a, x) in round.actions[i].iter().enumerate() {
                e += x.clone() * (a as f64 * percepts);
            }
            for (p, x) in u.states[first].agents[i].percept.iter().enumerate() {
                e += x.clone() * p as f64;
            }
            e
        };
        let n = round.actions.len();
        let mut rows = 0;
        for i in m..n.saturating_sub(1) {
            self.milp
                .le(&format!("sym.{}", i + 1), code(i), code(i + 1))
                .map_err(milp_error)?;
            rows += 1;
        }
        Ok(rows)
    }
}
