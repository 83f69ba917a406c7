//! Strategic sentences on real-valued models (ATL over named agents whose
//! variables are reals, or whose initial values form an interval): the
//! encoding of [`super::strategic`] with the initial environment state in
//! the MILP ([`super::initial`]), and every tree replayed in f64
//! ([`crate::nis::witness::replay::real`]) with its shape checked
//! ([`crate::nis::witness::replay::strategic_real`]). Definition 8 asks the
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
use super::initial::{Start, StartVar};
use super::options::{MilpOptions, MilpOutcome};
use super::starts::{finite_starts, replay_f64};
use super::stats::{MilpForm, MilpStats, Sizes};
use super::strategic::Play;
use crate::nis::front::core::{Core, Lowered};
use crate::nis::front::model::Model;
use crate::nis::witness::internal;
use crate::nis::witness::replay::real::RealTree;
use crate::nis::witness::replay::strategic_real::{check_shape, Rejected};
use crate::nis::witness::replay::Shape;
use crate::nis::witness::shown::Witness;
use crate::report::Outcome;
use crate::report::RunError;
use std::time::Instant;

/// Decides a strategic sentence on M(0) of a real-valued model (see the
/// module documentation); every tree is replayed in f64 before it counts.
pub fn check_strategic_f64(
    model: &Model,
    sentence: &Lowered,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    let start = Instant::now();
    let Some(strategy) = &sentence.strategy else {
        return Err(RunError::Internal("not a strategic sentence".into()));
    };
    let g = strategy.resolve(&sentence.source, model)?;
    let others: Vec<usize> = (0..model.named.len()).filter(|j| !g.contains(j)).collect();
    let core = &sentence.core;
    let k = strategy.steps;
    let mut sizes = Sizes::default();
    let free = vec![StartVar::Free; model.env.vars.len()];
    let mut solve = |goal: &Core, (play, shape): (Play, Shape), at: &[StartVar]| {
        let root_unique = strategy.can && shape == Shape::Strategy;
        let spec = Spec {
            goal,
            play,
            shape,
            g: &g,
            k,
            root_unique,
        };
        checked(model, &spec, at, opts, &mut sizes)
    };
    let not_phi = core.negate();
    let strategy_of_g = (Play::coalition(&g), Shape::Strategy);
    let (holds, trees, shape, method) = if !strategy.can {
        let trees = witness(solve(&not_phi, strategy_of_g, &free)?);
        let method = "one MILP over the initial set";
        (trees.is_empty(), trees, Shape::Strategy, method)
    } else if let Some(starts) = finite_starts(model) {
        let d = decide(starts, false, |s| solve(core, strategy_of_g, &s))?;
        if !d.started {
            return Err(RunError::input("the environment has no initial state"));
        }
        let method = "one MILP per initial state";
        (d.holds, d.witnesses, Shape::Strategy, method)
    } else {
        let refute = (Play::refuting(&others), Shape::Refutation);
        let trees = witness(solve(&not_phi, refute, &free)?);
        let method = "one MILP over the initial interval for a refutation (G's every move answered by the others)";
        (trees.is_empty(), trees, Shape::Refutation, method)
    };
    let witness = replay_f64(model, &trees, !holds)?.map(|w| match (w, shape) {
        (Witness::Trace(t), Shape::Refutation) => Witness::Refutation(t),
        (w, _) => w,
    });
    let mut stats = MilpStats::new(MilpForm::Unrolling, sizes, start);
    stats.strategic_method = Some(method);
    Ok(Outcome::decided(holds, witness, stats))
}

/// The tree of an answer (none when infeasible or no initial state).
fn witness(ans: Answer<RealTree>) -> Vec<RealTree> {
    match ans {
        Answer::Witness(t) => vec![t],
        Answer::Infeasible | Answer::NoStart => Vec::new(),
    }
}

/// How much an argmax must win by when a strategy is re-solved after a
/// near-tie (outputs of the networks are O(1) to O(100); the replay's tie
/// tolerance is [`crate::milp::tolerance::REPLAY_TIE`], relative).
const STRICT_MARGIN: f64 = 1e-3;

/// One strategic MILP and what its tree must be.
struct Spec<'a> {
    goal: &'a Core,
    play: Play<'a>,
    shape: Shape,
    g: &'a [usize],
    k: u32,
    root_unique: bool,
}

/// Solves one strategic MILP from `at` and checks the tree's shape. A
/// strategy that relies on an argmax near-tie is solved again with every
/// argmax won by [`STRICT_MARGIN`]; if none is found then, or it still
/// relies on a near-tie, the verdict is undetermined (exit 3).
fn checked(
    model: &Model,
    spec: &Spec,
    at: &[StartVar],
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer<RealTree>, RunError> {
    let mut first_tie = None;
    for margin in [0.0, STRICT_MARGIN] {
        let Answer::Witness(t) = solve_strategy(model, spec, at, margin, opts, sizes)? else {
            return match first_tie {
                None => Ok(Answer::Infeasible),
                Some(why) => Err(near_tie(why)),
            };
        };
        let shape = (spec.shape, spec.g);
        match check_shape(model, &t, shape, (spec.goal, spec.k), spec.root_unique) {
            Ok(()) => return Ok(Answer::Witness(t)),
            Err(Rejected::Wrong(why)) => return Err(internal("MILP strategy (f64 replay)", why)),
            Err(Rejected::NearTie(why)) => first_tie = Some(why),
        }
    }
    Err(near_tie(first_tie.unwrap_or_default()))
}

fn near_tie(why: String) -> RunError {
    RunError::Undetermined(format!(
        "the MILP's strategies cannot be confirmed in f64 (also with every argmax won by {STRICT_MARGIN}): {why}"
    ))
}

/// One strategic MILP on M(0) from the start `at` (variables fixed or free).
fn solve_strategy(
    model: &Model,
    spec: &Spec,
    at: &[StartVar],
    margin: f64,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer<RealTree>, RunError> {
    let mut u = Concrete::m0(model, opts, Start::Vars(at.to_vec()), F64);
    u.enc.argmax_margin = margin;
    let (goal, play, steps) = (spec.goal, spec.play, spec.k);
    solve_goal(&mut u, &Goal::Strategy { goal, play, steps }, opts, sizes)
}
