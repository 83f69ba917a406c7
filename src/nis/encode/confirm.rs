//! The second opinion on an infeasibility claim of the deciders' MILPs.

use super::options::milp_error;
use super::stats::SolveCounts;
use crate::milp::{tolerance, Model as Milp, Objective, Outcome, SolveOptions, Status};
use crate::report::RunError;

/// Solves a feasibility MILP of the deciders. A tight feasibility tolerance
/// keeps solutions close to the semantics (they are replayed) and avoids wrong
/// infeasibility claims of HiGHS's presolve seen on these models; an
/// infeasibility is a verdict no replay can check, so it gets a second
/// opinion ([`crate::milp::SolveOptions::second_opinion`]: no presolve, a
/// looser tolerance).
pub fn solve_confirmed(
    milp: &Milp,
    opts: &SolveOptions,
    counts: &mut SolveCounts,
) -> Result<Outcome, RunError> {
    let mut solve = opts.clone();
    solve
        .feasibility_tolerance
        .get_or_insert(tolerance::FEASIBILITY);
    let mut out = milp
        .solve(&Objective::Feasibility, &solve)
        .map_err(milp_error)?;
    counts.solve_s += out.time.as_secs_f64();
    counts.effort += out.effort;
    if out.status == Status::Infeasible {
        solve = solve.second_opinion();
        out = milp
            .solve(&Objective::Feasibility, &solve)
            .map_err(milp_error)?;
        counts.solve_s += out.time.as_secs_f64();
        counts.effort += out.effort;
        counts.confirmations += 1;
        if out.status != Status::Infeasible {
            counts.presolve_disagreements += 1;
        }
    }
    Ok(out)
}
