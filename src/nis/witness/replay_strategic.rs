//! The replay of every decider's strategic trees: strategy trees
//! ([`super::strategic::strategy_branches`] at each node) and refutations
//! ([`super::refutation::refutation_branches`]), the goal after the last
//! round, then each branch as a run of M(0) ([`super::replay::replay_concrete`]).

use super::refutation::refutation_branches;
use super::replay::{replay_concrete, ConcreteTrace};
use super::replay_strategy_f64::Shape;
use super::semantics::{SemResult, Semantics};
use super::strategic::{last_round, strategy_branches, StrategyTree};
use crate::nis::front::core::{Core, StrategicGoal};
use crate::nis::witness::internal;
use crate::report::RunError;

/// Replays every tree of a decider against its sentence `atl`, as strategy
/// trees or as refutations of `<<G>>` (`shape`): the runs shown. A tree
/// that fails is an internal error of `what`.
pub fn replay_strategic_trees(
    sem: &mut Semantics,
    trees: &[StrategyTree],
    (atl, shape): (&StrategicGoal, Shape),
    what: &str,
) -> Result<Vec<ConcreteTrace>, RunError> {
    let mut traces = Vec::new();
    for t in trees {
        let claim = (shape, &atl.coalition[..], &atl.goal);
        if let Err(why) = replay_tree(sem, t, claim, atl.strategy.steps)? {
            return Err(internal(what, why));
        }
        match replay_concrete(sem, t)? {
            Ok(trace) => traces.push(trace),
            Err(why) => return Err(internal(what, why)),
        }
    }
    Ok(traces)
}

/// Checks that `tree` is what `shape` claims for `<<G>> X^k psi` (G the
/// `coalition`, psi the `goal`): a strategy (psi holds after round k) or
/// a refutation (psi fails there). `Err(reason)` in the inner result when
/// it is not.
pub fn replay_tree(
    sem: &mut Semantics,
    tree: &StrategyTree,
    (shape, coalition, goal): (Shape, &[usize], &Core),
    k: u32,
) -> SemResult<Result<(), String>> {
    if k == 0 {
        return last_round(sem, tree, goal, shape == Shape::Strategy);
    }
    let branches = match shape {
        Shape::Strategy => strategy_branches(sem, tree, coalition)?,
        Shape::Refutation => refutation_branches(sem, tree, coalition)?,
    };
    if let Err(why) = branches {
        return Ok(Err(why));
    }
    for (_, child) in &tree.children {
        if let Err(why) = replay_tree(sem, child, (shape, coalition, goal), k - 1)? {
            return Ok(Err(why));
        }
    }
    Ok(Ok(()))
}
