//! Strategic sentences (ATL over named agents, [`super::front::strategic`])
//! by the explicit decider: M(0) expanded within the k rounds (an update
//! that leaves its range there is a model error, as for the MILP decider),
//! then `<<G>> X^k psi` searched from every initial state
//! ([`super::explicit::strategic`]) with psi = phi for `<<G>>` and
//! psi = !phi for `[[G]]`. `<<G>>` holds when G wins from every initial
//! state (the strategy trees are the witnesses; where it fails, the
//! refutation from that state is the counterexample,
//! [`super::explicit::refutation`]); `[[G]]` fails when G wins against phi
//! from some initial state (that strategy is the counterexample).
//! Every tree is replayed before it is shown.

use super::explicit::checker::Graph;
use super::explicit::strategic::{Strategic, MAX_SHOWN_STRATEGY};
use super::front::core::{strategic_goal, Lowered};
use super::front::model::Model;
use super::outcome::{ExplicitOutcome, ExplicitStats, Explored};
use super::semantics::concrete::Concrete;
use super::semantics::Semantics;
use super::witness::replay::strategic_exact::replay_strategic_trees;
use super::witness::replay::Shape;
use super::witness::trace::strategic_shown;
use crate::report::{Deadline, Outcome, RunError};

/// Decides a strategic sentence on M(0) explicitly; the statistics are the
/// states expanded and the network evaluations.
pub fn check_explicit(
    model: &Model,
    sentence: &Lowered,
    deadline: Deadline,
) -> Result<ExplicitOutcome, RunError> {
    let atl = strategic_goal(sentence, model)?;
    let sem = Semantics::new(model).map_err(|why| {
        RunError::input(format!(
            "the explicit decider cannot take this model: {why}"
        ))
    })?;
    let mut g = Graph::new(Concrete::new(sem, 0, 0))?.with_deadline(deadline);
    let k = atl.strategy.steps;
    g.layers(k)?;
    if g.expired() {
        return Err(RunError::TimedOut(format!(
            "the time-out was reached while exploring M(0) ({} states)",
            g.states.len()
        )));
    }
    let states = g.states.len();
    let sem = &mut g.sys.sem;
    let envs = sem.initial_envs()?;
    let mut search = Strategic::new(sem, atl.coalition.clone(), &atl.goal);
    let (mut holds, mut trees) = (true, Vec::new());
    let (mut too_large, mut shape) = (false, Shape::Strategy);
    for e in envs {
        let wins = search.can(e, k)?;
        if wins {
            let size = search.strategy_size(e, k)?;
            if size > MAX_SHOWN_STRATEGY {
                // The verdict stands; a strategy this large is not shown.
                too_large = true;
            } else {
                trees.push(search.strategy(e, k)?);
            }
        }
        if wins == atl.universal {
            holds = false;
            if !atl.universal {
                // <<G>> fails from e: its counterexample is the refutation.
                trees.clear();
                match search.refutation(e, k)? {
                    Some(t) => trees.push(t),
                    None => too_large = true,
                }
                shape = Shape::Refutation;
            }
            break;
        }
    }
    let sem = &mut g.sys.sem;
    let mut traces = replay_strategic_trees(sem, &trees, (&atl, shape), "strategy")?;
    let stats = ExplicitStats {
        explored: Explored::States(states),
        network_evaluations: sem.cache_sizes(),
        strategy_not_shown_over: too_large.then_some(MAX_SHOWN_STRATEGY),
    };
    if too_large {
        traces.clear();
    }
    let witness = strategic_shown(sem, &traces, atl.universal, shape);
    Ok(Outcome::decided(holds, witness, stats))
}
