//! One solve of an [`Unrolling`] and the loop over initial states shared by
//! every MILP decider: encode the goal, run the final checks, solve with a
//! second opinion on infeasibility, decode; existential sentences need a
//! witness from every initial state, universal ones fail at the first
//! counterexample.

use super::confirm::solve_confirmed;
use super::encoded::Encoded;
use super::formula::encode;
use super::options::MilpOptions;
use super::ranges::Breach;
use super::stats::Sizes;
use super::strategic::{encode_strategy, Play, StrategyEncoded};
use super::ties::MAX_TIE_CUTS;
use super::unrolling::{Solved, Unrolled, Unrolling};
use crate::lang::error_at;
use crate::milp::{constant, tolerance, LinExpr, Outcome, Solution, Status};
use crate::nis::front::core::Core;
use crate::report::RunError;
use std::borrow::Cow;

/// The error of a solve that ended without a verdict: the run's deadline
/// passing (verdict unknown, the procedures keep what they found), or else a
/// failure of HiGHS on `what`.
pub fn undetermined(what: &str, reason: Option<String>, opts: &MilpOptions) -> RunError {
    match opts.solve.deadline.expiry() {
        Some(e) => RunError::TimedOut(format!("{e} while HiGHS was solving a MILP of the decider")),
        None => RunError::Internal(format!(
            "{what}: {}",
            reason.unwrap_or_else(|| "no answer from HiGHS".into())
        )),
    }
}

/// The solution of a decider's MILP; `None` when it is infeasible, an error
/// when HiGHS ended without an answer ([`undetermined`]).
pub fn solution(out: Outcome, opts: &MilpOptions) -> Result<Option<Solution>, RunError> {
    match (out.status, out.solution) {
        (Status::Infeasible, _) => Ok(None),
        (Status::Optimal | Status::Feasible, Some(sol)) => Ok(Some(sol)),
        _ => Err(undetermined(
            "the MILP decider is undetermined",
            out.reason,
            opts,
        )),
    }
}

/// What one MILP answered.
pub enum Answer<W> {
    /// The start is not an initial state (no MILP was solved).
    NoStart,
    Infeasible,
    Witness(W),
}

/// What a MILP asks of an unrolling: an existential formula, or that the
/// movers of `play` can play `steps` rounds after which `goal` holds
/// ([`super::strategic`]).
pub enum Goal<'g> {
    Formula(&'g Core),
    Strategy {
        goal: &'g Core,
        play: Play<'g>,
        steps: u32,
    },
}

/// A goal as encoded.
enum Root {
    Formula(Encoded),
    Strategy(StrategyEncoded),
}

impl Root {
    fn value(&self) -> LinExpr {
        match self {
            Root::Formula(e) => e.value(),
            Root::Strategy(s) => s.value(),
        }
    }

    /// The formula tree a solution is decoded along.
    fn under(&self, sol: &Solution) -> Cow<'_, Encoded> {
        match self {
            Root::Formula(e) => Cow::Borrowed(e),
            Root::Strategy(s) => Cow::Owned(s.under(sol)),
        }
    }
}

/// Encodes the goal on `u`, checks what every run must satisfy, solves and
/// decodes a solution.
pub fn solve<U: Unrolling>(
    u: &mut U,
    goal: &Core,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer<U::Witness>, RunError> {
    solve_goal(u, &Goal::Formula(goal), opts, sizes)
}

/// [`solve`] for any [`Goal`].
pub fn solve_goal<U: Unrolling>(
    u: &mut U,
    goal: &Goal,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer<U::Witness>, RunError> {
    let Some(init) = u.initial()? else {
        return Ok(Answer::NoStart);
    };
    let mut tree = Unrolled::new(init);
    let root = match goal {
        Goal::Formula(core) => Root::Formula(encode(u, core, core.root, 0, &mut tree)?),
        &Goal::Strategy { goal, play, steps } => {
            let at = (0, &LinExpr::constant(1.0));
            Root::Strategy(encode_strategy(u, (goal, play), steps, at, &mut tree)?)
        }
    };
    let holds = root.value();
    sizes.milps += 1;
    // Spent building, also when no MILP is solved.
    sizes.obbt.add(&u.obbt());
    // Before the goal is looked at: a run that leaves a declared range makes
    // the model an error whatever the sentence, also when the bounds alone
    // pin the goal to false (a universal sentence would otherwise hold over
    // a system whose out-of-range runs were silently cut, issue 33).
    if let Some(breach) = u.final_checks(opts, &mut sizes.solving)? {
        return Err(breach_error(breach, u, &tree));
    }
    if constant(&holds) == Some(0.0) {
        return Ok(Answer::Infeasible);
    }
    u.milp().ge("goal", holds, 1.0);
    if opts.symmetry_breaking {
        sizes.symmetry_rows += u.break_symmetry(&tree);
    }
    sizes.record(u.milp());
    u.measure(sizes);
    for _ in 0..=MAX_TIE_CUTS {
        let out = solve_confirmed(u.milp(), &opts.solve, &mut sizes.solving)?;
        let Some(sol) = solution(out, opts)? else {
            return Ok(Answer::Infeasible);
        };
        if let Err(why) = u.milp().check(&sol, tolerance::SOLUTION_CHECK) {
            return Err(RunError::Internal(format!(
                "HiGHS returned a point that violates the MILP: {why}"
            )));
        }
        let along = root.under(&sol);
        let solved = Solved {
            sol: &sol,
            tree: &tree,
            root: &along,
        };
        if u.cut_near_tie(&solved)? {
            sizes.tie_cuts += 1;
            continue;
        }
        return Ok(Answer::Witness(u.decode(solved)?));
    }
    Err(RunError::Internal(format!(
        "the MILP decider is undetermined: its solutions took {} argmax near-ties that the f64 network breaks",
        MAX_TIE_CUTS + 1
    )))
}

/// A [`Breach`] as the error the user sees: with the run from the initial
/// state to the round of the update when `u` can describe its states.
fn breach_error<U: Unrolling>(b: Breach, u: &U, tree: &Unrolled<U::State, U::Round>) -> RunError {
    let run =
        b.at.filter(|&i| i > 0 && i < tree.states.len())
            .and_then(|at| run_to(u, tree, at, &b.sol));
    let message = match run {
        Some(run) => format!("{}; {run}", b.message),
        None => b.message,
    };
    match b.span {
        Some(span) => RunError::from(error_at(&b.source, span, message)),
        None => RunError::input(message),
    }
}

/// "the run to it: step 0: …; step 1: …, then the update" along the tree
/// from the initial state to the state before `at`.
fn run_to<U: Unrolling>(
    u: &U,
    tree: &Unrolled<U::State, U::Round>,
    at: usize,
    sol: &Solution,
) -> Option<String> {
    let mut path = Vec::new();
    let mut i = tree.step(at).from;
    loop {
        path.push(i);
        match &tree.steps[i] {
            Some(step) => i = step.from,
            None => break,
        }
    }
    let mut steps = Vec::with_capacity(path.len());
    for (j, &i) in path.iter().rev().enumerate() {
        steps.push(format!("step {j}: {}", u.describe(&tree.states[i], sol)?));
    }
    Some(format!(
        "the run to it: {}, then the update",
        steps.join("; ")
    ))
}

/// Encodes the goal on `u` without solving and runs its final checks: a
/// declared range left from any state of a set of starts is an error of the
/// model even where no witness MILP looks.
pub fn check_runs<U: Unrolling>(
    u: &mut U,
    goal: &Core,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<(), RunError> {
    sizes.milps += 1;
    match runs_checked(u, goal, opts, sizes)? {
        true => Ok(()),
        false => Err(RunError::input("the environment has no initial state")),
    }
}

/// The checks [`solve`] makes before it looks at the goal, without solving
/// it: an error when a run of the unrolling leaves a declared range;
/// `false` when `u` has no start.
pub fn runs_checked<U: Unrolling>(
    u: &mut U,
    goal: &Core,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<bool, RunError> {
    let Some(init) = u.initial()? else {
        return Ok(false);
    };
    let mut tree = Unrolled::new(init);
    encode(u, goal, goal.root, 0, &mut tree)?;
    sizes.obbt.add(&u.obbt());
    match u.final_checks(opts, &mut sizes.solving)? {
        Some(breach) => Err(breach_error(breach, u, &tree)),
        None => Ok(true),
    }
}

/// The binaries of the MILP that [`solve`] would solve for `goal` on `u`,
/// encoded but not solved: 0 when the bounds pin the goal to false or `u`
/// has no start (a measure of the MILP's difficulty, [`super::split`]).
pub fn binaries<U: Unrolling>(u: &mut U, goal: &Core) -> Result<usize, RunError> {
    let Some(init) = u.initial()? else {
        return Ok(0);
    };
    let mut tree = Unrolled::new(init);
    let root = encode(u, goal, goal.root, 0, &mut tree)?;
    if constant(&root.value()) == Some(0.0) {
        return Ok(0);
    }
    Ok(u.milp().stats().binaries)
}

/// Whether the bounds propagated through the unrolling alone pin `goal` to
/// false on `u` (or `u` has no start): no MILP is needed to know that the
/// goal has no solution.
pub fn pinned<U: Unrolling>(u: &mut U, goal: &Core) -> Result<bool, RunError> {
    let Some(init) = u.initial()? else {
        return Ok(true);
    };
    let mut tree = Unrolled::new(init);
    let root = encode(u, goal, goal.root, 0, &mut tree)?;
    Ok(constant(&root.value()) == Some(0.0))
}

/// The verdict over a set of starts and the witnesses found.
pub struct Decided<W> {
    pub holds: bool,
    /// Existential: one per start (when it holds); universal: the counterexample.
    pub witnesses: Vec<W>,
    /// Some start was an initial state.
    pub started: bool,
}

/// Definition 8 over the starts: an existential goal needs a witness from
/// every start, a universal sentence (whose dual is the goal) fails at the
/// first counterexample.
pub fn decide<S, W>(
    starts: impl IntoIterator<Item = S>,
    universal: bool,
    mut solve: impl FnMut(S) -> Result<Answer<W>, RunError>,
) -> Result<Decided<W>, RunError> {
    let mut out = Decided {
        holds: true,
        witnesses: Vec::new(),
        started: false,
    };
    for start in starts {
        match solve(start)? {
            Answer::NoStart => continue,
            Answer::Infeasible if !universal => {
                return Ok(Decided {
                    holds: false,
                    witnesses: Vec::new(),
                    started: true,
                })
            }
            Answer::Witness(w) if universal => {
                return Ok(Decided {
                    holds: false,
                    witnesses: vec![w],
                    started: true,
                })
            }
            Answer::Witness(w) => out.witnesses.push(w),
            Answer::Infeasible => {}
        }
        out.started = true;
    }
    Ok(out)
}
