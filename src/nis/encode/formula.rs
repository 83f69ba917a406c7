//! The existential fragment of bICTL (Definition 7) over any [`Unrolling`]:
//! each formula node gets a 0/1 expression "holds here"; each `EX`
//! occurrence adds its own successor state, so a conjunction of `EX`
//! subformulas gets one successor per branch and the witness is a tree.
//! Universal sentences arrive as their existential dual (`Core::negate`).

use super::encoded::Encoded;
use super::unrolling::{Step, Unrolled, Unrolling};
use crate::milp::not;
use crate::nis::front::core::{Core, Node};
use crate::report::RunError;

/// Whether the formula `node` may read the agents' percepts at the state
/// it is evaluated in: it has a next step (whose protocols read them) or a
/// literal of an agent's label. Environment labels read the environment's
/// variables (and, on models with named agents, which the unrollings that
/// skip observations do not take, those agents' states).
pub fn reads_percepts(core: &Core, node: usize) -> bool {
    match &core.nodes[node] {
        Node::Lit { agent, .. } => agent.is_some(),
        Node::And(cs) | Node::Or(cs) => cs.iter().any(|&c| reads_percepts(core, c)),
        Node::EX(_) | Node::AX(_) => true,
    }
}

/// Encodes `node` of an existential core formula at unrolling state `at`.
pub fn encode<U: Unrolling>(
    u: &mut U,
    core: &Core,
    node: usize,
    at: usize,
    tree: &mut Unrolled<U::State, U::Round>,
) -> Result<Encoded, RunError> {
    Ok(match &core.nodes[node] {
        &Node::Lit {
            label,
            agent,
            negated,
        } => {
            let holds = u.label(&tree.states[at], label, agent)?;
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
                children.push(encode(u, core, c, at, tree)?);
            }
            let values = children.iter().map(Encoded::value).collect();
            if matches!(core.nodes[node], Node::And(_)) {
                let v = u.milp().and("and", values);
                Encoded::And(children, v)
            } else {
                let v = u.milp().or("or", values);
                Encoded::Or(children, v)
            }
        }
        &Node::EX(c) => {
            let tag = format!("s{}", tree.states.len());
            let unread = !reads_percepts(core, c);
            let skipped = match unread {
                true => u.round_unobserved(&tree.states[at], &tag)?,
                false => None,
            };
            if skipped.is_some() {
                tree.unobserved.push(tree.states.len());
            }
            let (round, next) = match skipped {
                Some(r) => r,
                None => u.round(&tree.states[at], &tag)?,
            };
            tree.states.push(next);
            tree.steps.push(Some(Step { from: at, round }));
            let to = tree.states.len() - 1;
            let child = encode(u, core, c, to, tree)?;
            Encoded::Next {
                to,
                child: Box::new(child),
            }
        }
        Node::AX(_) => {
            return Err(RunError::Internal(
                "the MILP encoder got a universal formula; it encodes the existential dual".into(),
            ))
        }
    })
}

/// Whether every solution of the existential formula `core` is one path
/// of the unrolling with atoms along it: no conjunction joins two
/// subformulas that each take a step. Only then does pinning the
/// environment's action by depth ([`super::split`]) cut the solutions
/// into parts without losing one (a conjunction of two `EX` may need two
/// successors by different actions).
pub fn one_path(core: &Core) -> bool {
    let depth = node_steps(core);
    core.nodes.iter().all(|n| match n {
        Node::And(cs) => cs.iter().filter(|&&c| depth[c] > 0).count() <= 1,
        _ => true,
    })
}

/// The most rounds along any path of the formula (its temporal depth).
pub fn steps(core: &Core) -> usize {
    node_steps(core)[core.root]
}

/// Per node the most rounds along any path below it (memoized: nodes are
/// shared, [`Core`] pushes a node after its children, but the order is not
/// relied on).
fn node_steps(core: &Core) -> Vec<usize> {
    fn at(core: &Core, i: usize, memo: &mut Vec<Option<usize>>) -> usize {
        if let Some(d) = memo[i] {
            return d;
        }
        let d = match &core.nodes[i] {
            Node::Lit { .. } => 0,
            Node::And(cs) | Node::Or(cs) => {
                cs.iter().map(|&c| at(core, c, memo)).max().unwrap_or(0)
            }
            Node::EX(c) | Node::AX(c) => 1 + at(core, *c, memo),
        };
        memo[i] = Some(d);
        d
    }
    let mut memo = vec![None; core.nodes.len()];
    (0..core.nodes.len())
        .map(|i| at(core, i, &mut memo))
        .collect()
}
