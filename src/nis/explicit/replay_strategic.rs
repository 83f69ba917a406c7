//! The replay of every decider's strategic trees: strategy trees
//! ([`super::strategic::replay_strategy`]) and refutations
//! ([`super::refutation::replay_refutation`]), then each branch as a run of
//! M(0) ([`super::replay::replay_concrete`]).

use super::refutation::replay_refutation;
use super::replay::{replay_concrete, ConcreteTrace};
use super::semantics::Semantics;
use super::strategic::{replay_strategy, StrategyTree};
use crate::nis::front::core::StrategicGoal;
use crate::nis::witness::internal;
use crate::report::RunError;

/// Replays every tree of a decider against its sentence `atl`, as strategy
/// trees or (`refuted`) as refutations of `<<G>>`: the runs shown. A tree
/// that fails is an internal error of `what`.
pub fn replay_strategic_trees(
    sem: &mut Semantics,
    trees: &[StrategyTree],
    (atl, refuted): (&StrategicGoal, bool),
    what: &str,
) -> Result<Vec<ConcreteTrace>, RunError> {
    let coalition_goal = (&atl.coalition[..], &atl.goal);
    let k = atl.strategy.steps;
    let mut traces = Vec::new();
    for t in trees {
        let checked = if refuted {
            replay_refutation(sem, t, coalition_goal, k)?
        } else {
            replay_strategy(sem, t, coalition_goal, k)?
        };
        if let Err(why) = checked {
            return Err(internal(what, why));
        }
        match replay_concrete(sem, t)? {
            Ok(trace) => traces.push(trace),
            Err(why) => return Err(internal(what, why)),
        }
    }
    Ok(traces)
}
