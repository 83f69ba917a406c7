//! M(0) as a game of the named agents (strategic sentences, ATL over named
//! agents, [`crate::nis::front::strategic`]): a state is an environment
//! state (named agents included), a move the joint environment-side action;
//! the coalition's part of a move, the enabled moves grouped by that part,
//! and the goal psi (propositional over environment labels) at a state.

use super::concrete::{CMove, CState};
use super::{bits, EnvId, SemResult, Semantics};
use crate::nis::front::core::{Core, Node};

/// psi (propositional over environment labels) at `e`.
pub fn holds_at(sem: &mut Semantics, goal: &Core, node: usize, e: EnvId) -> SemResult<bool> {
    Ok(match &goal.nodes[node] {
        &Node::Lit { label, negated, .. } => sem.literal(label, None, e)? != negated,
        Node::And(cs) => {
            for &c in cs {
                if !holds_at(sem, goal, c, e)? {
                    return Ok(false);
                }
            }
            true
        }
        Node::Or(cs) => {
            for &c in cs {
                if holds_at(sem, goal, c, e)? {
                    return Ok(true);
                }
            }
            false
        }
        Node::EX(_) | Node::AX(_) => false,
    })
}

/// The coalition's part of a joint environment-side action.
pub fn coalition_part(sem: &Semantics, coalition: &[usize], joint: usize) -> Vec<usize> {
    let (_, named) = sem.model.split_env_action(joint);
    coalition.iter().map(|&j| named[j]).collect()
}

/// The enabled joint actions at `e`, grouped by the coalition's choice.
pub fn by_choice(
    sem: &mut Semantics,
    coalition: &[usize],
    e: EnvId,
) -> SemResult<Vec<(Vec<usize>, Vec<usize>)>> {
    let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for joint in bits(sem.env_protocol(e)?) {
        let g = coalition_part(sem, coalition, joint);
        match groups.iter_mut().find(|(h, _)| *h == g) {
            Some((_, js)) => js.push(joint),
            None => groups.push((g, vec![joint])),
        }
    }
    Ok(groups)
}

/// A state of M(0): the environment state alone.
pub fn m0_state(env: EnvId) -> CState {
    CState {
        indexed: Vec::new(),
        others: Vec::new(),
        env,
    }
}

/// A move of M(0): the joint environment-side action alone.
pub fn m0_move(joint: usize) -> CMove {
    CMove {
        env_action: joint,
        indexed: Vec::new(),
        others: Vec::new(),
    }
}
