//! Strategic sentences on real-valued models (ATL over named agents whose
//! variables are reals, or whose initial values form an interval): the
//! encoding of [`super::strategic`] with the initial environment state in
//! the MILP ([`super::initial`]), and every tree replayed in f64
//! ([`crate::nis::explicit::replay_real`]) with its shape checked
//! ([`crate::nis::explicit::replay_strategy_f64`]). Definition 8 asks the
//! sentence to hold from every initial state:
//!
//! - `[[G]] X^k phi` fails when G has a strategy against phi from SOME
//!   initial state: one MILP over the whole initial set; a solution is that
//!   strategy (the counterexample).
//! - `<<G>> X^k phi` with finitely many initial states: one MILP per state,
//!   each solution G's strategy from it (the witnesses).
//! - `<<G>> X^k phi` over an interval: "from every initial state" cannot be
//!   one existential MILP, but its negation can: from some initial state,
//!   every move of G answered by the others (the environment included)
//!   leads to !phi within k rounds ([`Play::refuting`]). Infeasible: the
//!   sentence holds from every initial state (no strategy is shown); a
//!   solution is the refutation, the counterexample.
//!
//! Argmax ties: the solver picks a successor's percepts, which favours
//! whoever the MILP's movers are. A refutation may use any percept the
//! observation allows; a strategy may not rely on a near-tie (its replay
//! rejects it, exit 3: undetermined, never a verdict).

use super::concrete::{Concrete, F64};
use super::decide::{decide, solve_goal, Answer, Goal};
use super::expr::Enc;
use super::initial::{Start, StartVar};
use super::options::{MilpOptions, MilpOutcome};
use super::starts::{finite_starts, replay_f64};
use super::stats::{unrolling_stats, Sizes};
use super::strategic::Play;
use crate::nis::explicit::replay_real::RealTree;
use crate::nis::explicit::replay_strategy_f64::{check_shape, Rejected, Shape};
use crate::nis::front::core::{lower, Core};
use crate::nis::front::formula::Sentence;
use crate::nis::front::model::Model;
use crate::nis::witness::internal;
use crate::report::RunError;
use std::time::Instant;

/// Decides a strategic sentence on M(0) of a real-valued model (see the
/// module documentation); every tree is replayed in f64 before it counts.
pub fn check_strategic_f64(
    model: &Model,
    sentence: &Sentence,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    let start = Instant::now();
    let Some(strategy) = &sentence.strategy else {
        return Err(RunError::Internal("not a strategic sentence".into()));
    };
    let g = strategy.resolve(&sentence.source, model)?;
    let others: Vec<usize> = (0..model.named.len()).filter(|j| !g.contains(j)).collect();
    let core = lower(sentence, model)?;
    let k = strategy.steps;
    let mut sizes = Sizes::default();
    let free = vec![StartVar::Free; model.env.vars.len()];
    let mut solve = |goal: &Core, play: Play, at: &[StartVar]| {
        solve_strategy(model, (goal, play, k), at, opts, &mut sizes)
    };
    // (verdict, trees, what the trees are, the goal at their leaves)
    let not_phi = core.negate();
    let (holds, trees, shape, goal, method) = if !strategy.can {
        let ans = solve(&not_phi, Play::coalition(&g), &free)?;
        let trees = witness(ans);
        (
            trees.is_empty(),
            trees,
            Shape::Strategy,
            &not_phi,
            "one MILP over the initial set",
        )
    } else if let Some(starts) = finite_starts(model) {
        let d = decide(starts, false, |s| solve(&core, Play::coalition(&g), &s))?;
        if !d.started {
            return Err(RunError::input("the environment has no initial state"));
        }
        (
            d.holds,
            d.witnesses,
            Shape::Strategy,
            &core,
            "one MILP per initial state",
        )
    } else {
        let ans = solve(&not_phi, Play::refuting(&others), &free)?;
        let trees = witness(ans);
        let method = "one MILP over the initial interval for a refutation (G's every move answered by the others)";
        (trees.is_empty(), trees, Shape::Refutation, &not_phi, method)
    };
    let root_unique = strategy.can && shape == Shape::Strategy;
    for t in &trees {
        match check_shape(model, t, (shape, &g), (goal, k), root_unique) {
            Ok(()) => {}
            Err(Rejected::Wrong(why)) => return Err(internal("MILP strategy (f64 replay)", why)),
            Err(Rejected::NearTie(why)) => {
                return Err(RunError::Undetermined(format!(
                    "the MILP's strategy cannot be confirmed in f64: {why}"
                )))
            }
        }
    }
    let (json, text) = replay_f64(model, &trees, !holds)?;
    let text = text.map(|t| match shape {
        Shape::Refutation => format!(
            "a refutation: every move of the coalition, answered by the others (the environment included), reaches the negated goal:\n{t}"
        ),
        Shape::Strategy => t,
    });
    let mut stats = unrolling_stats(&sizes, start);
    stats.insert("strategic_method".into(), method.into());
    Ok(MilpOutcome::new(holds, (json, text), stats))
}

/// The tree of an answer (none when infeasible or no initial state).
fn witness(ans: Answer<RealTree>) -> Vec<RealTree> {
    match ans {
        Answer::Witness(t) => vec![t],
        Answer::Infeasible | Answer::NoStart => Vec::new(),
    }
}

/// One strategic MILP on M(0) from the start `at` (variables fixed or free).
fn solve_strategy(
    model: &Model,
    (goal, play, steps): (&Core, Play, u32),
    at: &[StartVar],
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer<RealTree>, RunError> {
    let mut u = Concrete {
        enc: Enc::new(model, opts.encode.clone()),
        agents: 0,
        m: 0,
        start: Start::Vars(at.to_vec()),
        decoding: F64,
    };
    let spec = Goal::Strategy { goal, play, steps };
    solve_goal(&mut u, &spec, opts, sizes)
}
