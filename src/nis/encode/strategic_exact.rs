//! Strategic sentences on finite models by MILP: one MILP per initial state
//! for the coalition's strategy ([`super::strategic`]). `<<G>> X^k phi`
//! holds when every initial state has one (the trees are the witnesses);
//! where one has none, the refutation MILP from that state (every move of
//! G answered by the others, [`Play::refuting`]) gives the counterexample.
//! `[[G]] X^k phi` solves `<<G>> X^k !phi`, whose first solution is the
//! counterexample. Every tree is replayed through the finite semantics.

use super::concrete::{Concrete, Exact};
use super::decide::{self, decide, Answer};
use super::finite::semantics;
use super::initial::Start;
use super::options::{MilpOptions, MilpOutcome};
use super::stats::{MilpForm, MilpStats, Sizes};
use super::strategic::Play;
use crate::nis::explicit::strategic::StrategyTree;
use crate::nis::front::core::{strategic_goal, Lowered};
use crate::nis::front::model::Model;
use crate::nis::semantics::{EnvId, Semantics};
use crate::nis::witness::internal;
use crate::nis::witness::replay::strategic_exact::replay_strategic_trees;
use crate::nis::witness::replay::Shape;
use crate::nis::witness::trace::strategic_shown;
use crate::report::{Outcome, RunError};
use std::time::Instant;

/// Decides a strategic sentence on M(0) by MILP (see the module
/// documentation); real-valued models go to [`super::strategic_f64`].
pub fn check_strategic(
    model: &Model,
    sentence: &Lowered,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    let start = Instant::now();
    if model.explicit_obstacle().is_some() {
        return super::strategic_f64::check_strategic_f64(model, sentence, opts);
    }
    let atl = strategic_goal(sentence, model)?;
    let (coalition, goal, universal) = (&atl.coalition, &atl.goal, atl.universal);
    let mut sem = semantics(
        model,
        "the MILP decider replays every strategy through the finite semantics, which",
    )?;
    let envs = sem.initial_envs()?;
    let mut sizes = Sizes::default();
    let k = atl.strategy.steps;
    let spec = decide::Goal::Strategy {
        goal,
        play: Play::coalition(coalition),
        steps: k,
    };
    let mut last = None;
    let d = decide(envs, universal, |env| {
        last = Some(env);
        solve_from(model, &mut sem, env, &spec, opts, &mut sizes)
    })?;
    // decide stops at the first initial state without a strategy.
    let refuted_at = last.filter(|_| !universal && !d.holds);
    let trees = match refuted_at {
        Some(env) => {
            let negated = goal.negate();
            let others: Vec<usize> = (0..model.named.len())
                .filter(|j| !coalition.contains(j))
                .collect();
            let refute = decide::Goal::Strategy {
                goal: &negated,
                play: Play::refuting(&others),
                steps: k,
            };
            match solve_from(model, &mut sem, env, &refute, opts, &mut sizes)? {
                Answer::Witness(t) => vec![t],
                _ => {
                    return Err(internal(
                        "MILP refutation",
                        "the coalition has no strategy from an initial state, yet no refutation was found there".into(),
                    ))
                }
            }
        }
        None => d.witnesses,
    };
    let shape = match refuted_at {
        Some(_) => Shape::Refutation,
        None => Shape::Strategy,
    };
    let traces = replay_strategic_trees(&mut sem, &trees, (&atl, shape), "MILP strategy")?;
    Ok(Outcome::decided(
        d.holds,
        strategic_shown(&sem, &traces, universal, shape),
        MilpStats::new(MilpForm::Unrolling, sizes, start),
    ))
}

/// One strategic MILP on M(0) from the initial environment state `env`.
fn solve_from(
    model: &Model,
    sem: &mut Semantics,
    env: EnvId,
    spec: &decide::Goal,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer<StrategyTree>, RunError> {
    let start = Start::Codes(sem.env_codes(env).to_vec());
    let mut u = Concrete::m0(model, opts, start, Exact { sem });
    decide::solve_goal(&mut u, spec, opts, sizes)
}
