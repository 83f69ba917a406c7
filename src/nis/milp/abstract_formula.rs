//! The existential formula over the abstract unrolling (as
//! [`super::formula`] does for M(n)): each node a 0/1 expression "holds
//! here", each `EX` its own round and successor, so the witness is a tree;
//! literals are read on the m concrete agents only (Definition 13).

use super::abstract_unroll::{AbsEnc, AbsUnrolling};
use crate::milp::LinExpr;
use crate::nis::core::{Core, Node};
use crate::report::RunError;

/// A formula node as encoded, mirrored for decoding.
pub enum AbsEncoded {
    Lit {
        label: usize,
        agent: usize,
        negated: bool,
        value: LinExpr,
    },
    And(Vec<AbsEncoded>, LinExpr),
    Or(Vec<AbsEncoded>, LinExpr),
    Next {
        to: usize,
        child: Box<AbsEncoded>,
    },
}

impl AbsEncoded {
    /// The 0/1 expression "this node holds at its state".
    pub fn value(&self) -> LinExpr {
        match self {
            AbsEncoded::Lit { value, .. }
            | AbsEncoded::And(_, value)
            | AbsEncoded::Or(_, value) => value.clone(),
            AbsEncoded::Next { child, .. } => child.value(),
        }
    }
}

impl AbsEnc<'_, '_, '_> {
    /// Encodes `node` of an existential core formula at state `at`; labels
    /// are read on the m concrete agents only (Definition 13).
    pub fn formula(
        &mut self,
        core: &Core,
        node: usize,
        at: usize,
        u: &mut AbsUnrolling,
    ) -> Result<AbsEncoded, RunError> {
        Ok(match &core.nodes[node] {
            &Node::Lit {
                label,
                agent,
                negated,
            } => {
                let mut holds = LinExpr::constant(0.0);
                for (l, x) in &u.states[at].agents[agent] {
                    if self.sem.labels(*l)? >> label & 1 == 1 {
                        holds += x.clone();
                    }
                }
                AbsEncoded::Lit {
                    label,
                    agent,
                    negated,
                    value: if negated {
                        LinExpr::constant(1.0) - holds
                    } else {
                        holds
                    },
                }
            }
            Node::And(cs) | Node::Or(cs) => {
                let mut children = Vec::with_capacity(cs.len());
                for &c in cs {
                    children.push(self.formula(core, c, at, u)?);
                }
                let values = children.iter().map(AbsEncoded::value).collect();
                if matches!(core.nodes[node], Node::And(_)) {
                    let v = self.enc.and(values)?;
                    AbsEncoded::And(children, v)
                } else {
                    let v = self.enc.or(values)?;
                    AbsEncoded::Or(children, v)
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
                AbsEncoded::Next {
                    to,
                    child: Box::new(child),
                }
            }
            Node::AX(_) => {
                return Err(RunError::Internal(
                    "the M_ab(m) encoder got a universal formula; it encodes the existential dual"
                        .into(),
                ))
            }
        })
    }
}
