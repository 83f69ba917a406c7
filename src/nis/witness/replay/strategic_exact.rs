//! The exact domain of the strategy walker ([`super::check_strategy`]) on
//! M(0), and the replay of every decider's strategic trees: strategy trees
//! ([`strategy_branches`] at each node) and refutations
//! ([`refutation_branches`], the trees of [`crate::nis::explicit::refutation`]),
//! the goal after the last round, then each branch as a run of M(0)
//! ([`super::exact::replay_concrete`]).

use super::exact::{replay_concrete, ConcreteTrace};
use super::{check_strategy, mismatch, Shape, Stop, StrategyRules};
use crate::lang::SourceError;
use crate::nis::front::core::{Core, StrategicGoal};
use crate::nis::semantics::concrete::{CMove, CState};
use crate::nis::semantics::game::{by_choice, coalition_part, holds_at};
use crate::nis::semantics::{EnvId, Semantics};
use crate::nis::witness::{internal, WitnessTree};
use crate::report::RunError;

/// A strategy tree of M(0) (or a refutation): at each node before round k
/// the coalition's choice is the same in every child and the children are
/// exactly the enabled joint actions with that choice times their
/// successors; at round k psi holds (fails, for a refutation).
pub type StrategyTree = WitnessTree<CState, CMove>;

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
        let mut rules = ExactRules {
            sem: &mut *sem,
            shape,
            coalition: &atl.coalition,
            goal: &atl.goal,
        };
        if let Err(why) = Stop::nested(check_strategy(&mut rules, t, atl.strategy.steps))? {
            return Err(internal(what, why));
        }
        match replay_concrete(sem, t)? {
            Ok(trace) => traces.push(trace),
            Err(why) => return Err(internal(what, why)),
        }
    }
    Ok(traces)
}

/// A tree that is not what it claims, or an evaluation error.
type Fail = Stop<Box<SourceError>>;

/// The rules of a strategy tree of M(0) in the exact domain.
struct ExactRules<'s, 'm, 'g> {
    sem: &'s mut Semantics<'m>,
    shape: Shape,
    coalition: &'g [usize],
    goal: &'g Core,
}

impl StrategyRules for ExactRules<'_, '_, '_> {
    type State = CState;
    type Move = CMove;
    type Error = Fail;

    fn branches(&mut self, node: &StrategyTree, _round: u32, _k: u32) -> Result<(), Fail> {
        let (sem, coalition) = (&mut *self.sem, self.coalition);
        match self.shape {
            Shape::Strategy => strategy_branches(sem, node, coalition),
            Shape::Refutation => refutation_branches(sem, node, coalition),
        }
    }

    fn last_round(&mut self, node: &StrategyTree, _k: u32) -> Result<(), Fail> {
        let wanted = self.shape == Shape::Strategy;
        last_round(self.sem, node, self.goal, wanted)
    }
}

/// The branches of one node of a strategy tree of `<<G>> X^k psi` (see the
/// module documentation): the coalition's one choice, with every enabled
/// move of the others and every successor.
fn strategy_branches(
    sem: &mut Semantics,
    tree: &StrategyTree,
    coalition: &[usize],
) -> Result<(), Fail> {
    let e = tree.state.env;
    let Some((first, _)) = tree.children.first() else {
        return Err(Stop::Wrong(
            "the strategy stops before its last round".into(),
        ));
    };
    let choice = coalition_part(sem, coalition, first.env_action);
    let mut expected: Vec<(usize, EnvId)> = Vec::new();
    for (g, joints) in by_choice(sem, coalition, e)? {
        if g != choice {
            continue;
        }
        for joint in joints {
            for next in sem.env_successors(e, joint, 0)?.iter().copied() {
                expected.push((joint, next));
            }
        }
    }
    let got = tree
        .children
        .iter()
        .map(|(mv, c)| (mv.env_action, c.state.env));
    if let Some((got, expected)) = mismatch(got.collect(), expected) {
        return Err(Stop::Wrong(format!(
            "at {} the strategy's branches are not every enabled move of the others and every successor of the coalition's choice ({got} branches, {expected} expected)",
            sem.describe_env(e),
        )));
    }
    Ok(())
}

/// The branches of one node of a refutation of `<<G>> X^k psi` (see the
/// module documentation): every enabled choice of the coalition once, each
/// answered by a move and a successor the semantics has.
fn refutation_branches(
    sem: &mut Semantics,
    tree: &StrategyTree,
    coalition: &[usize],
) -> Result<(), Fail> {
    let e = tree.state.env;
    let groups = by_choice(sem, coalition, e)?;
    let expected = groups.iter().map(|(g, _)| g.clone()).collect();
    let got = tree
        .children
        .iter()
        .map(|(mv, _)| coalition_part(sem, coalition, mv.env_action));
    if let Some((got, expected)) = mismatch(got.collect(), expected) {
        return Err(Stop::Wrong(format!(
            "at {} the refutation's branches are not every enabled choice of the coalition, each once ({got} branches, {expected} choices)",
            sem.describe_env(e),
        )));
    }
    for (mv, child) in &tree.children {
        let enabled = groups.iter().any(|(_, js)| js.contains(&mv.env_action));
        if !enabled
            || !sem
                .env_successors(e, mv.env_action, 0)?
                .contains(&child.state.env)
        {
            return Err(Stop::Wrong(format!(
                "at {} the refutation answers with a move or successor the semantics does not have",
                sem.describe_env(e)
            )));
        }
    }
    Ok(())
}

/// The last round of a strategy tree (`wanted`: the goal holds there) or
/// of a refutation (it fails): no further rounds, and the goal as wanted.
fn last_round(
    sem: &mut Semantics,
    tree: &StrategyTree,
    goal: &Core,
    wanted: bool,
) -> Result<(), Fail> {
    if !tree.children.is_empty() {
        return Err(Stop::Wrong("the tree goes on after its last round".into()));
    }
    let e = tree.state.env;
    if holds_at(sem, goal, goal.root, e)? != wanted {
        let verb = if wanted { "fails" } else { "holds" };
        return Err(Stop::Wrong(format!(
            "the goal {verb} at {} after the last round",
            sem.describe_env(e)
        )));
    }
    Ok(())
}
