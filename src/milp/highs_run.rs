//! Runs a HiGHS problem built by good_lp and reads back, besides the status
//! and the primal solution good_lp gives, HiGHS's proven objective bound
//! (its MIP dual bound), which good_lp's solution type does not expose.
//! The status mapping is good_lp's own (`HighsProblem::solve`), so the
//! rest of [`super::solve`] reads the answer as before.

use good_lp::solvers::highs::{HighsOptionValue, HighsProblem};
use good_lp::{ResolutionError, SolutionStatus};
use highs::{HighsModelStatus, HighsSolutionStatus};

/// A solved problem: good_lp's status and every column's value.
pub(super) struct Solved {
    pub status: SolutionStatus,
    pub columns: Vec<f64>,
}

/// The answer of [`run`]: the solution (or why there is none) and HiGHS's
/// proven bound on the objective, in the objective's own sense and without
/// its constant term (an upper bound when maximising). The bound is present
/// for MILPs that HiGHS ended with a finite dual bound, and for LPs solved
/// to optimality (where it is the optimum).
pub(super) struct Run {
    pub result: Result<Solved, ResolutionError>,
    pub bound: Option<f64>,
}

fn apply(model: &mut highs::Model, key: &str, value: &HighsOptionValue) -> Result<(), String> {
    let r = match value {
        HighsOptionValue::String(v) => model.try_set_option(key, v.as_str()),
        HighsOptionValue::Float(v) => model.try_set_option(key, *v),
        HighsOptionValue::Bool(v) => model.try_set_option(key, *v),
        HighsOptionValue::Int(v) => model.try_set_option(key, *v),
    };
    r.map_err(|_| format!("HiGHS error while setting option {key}"))
}

/// Solves `problem` with `options` set; `integer` says whether it has
/// integer columns (a MIP, whose bound is HiGHS's `mip_dual_bound`).
pub(super) fn run(
    problem: HighsProblem,
    options: &[(&str, HighsOptionValue)],
    integer: bool,
) -> Run {
    let fail = |e: ResolutionError| Run {
        result: Err(e),
        bound: None,
    };
    let mut model = match problem.try_into_inner() {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    for (key, value) in options {
        if let Err(why) = apply(&mut model, key, value) {
            return fail(ResolutionError::Str(why));
        }
    }
    let solved = match model.try_solve() {
        Ok(s) => s,
        Err(e) => {
            return fail(ResolutionError::Str(format!(
                "HiGHS error while solving model: {e:?}"
            )))
        }
    };
    let status = match solved.status() {
        HighsModelStatus::NotSet => return fail(ResolutionError::Other("NotSet")),
        HighsModelStatus::LoadError => return fail(ResolutionError::Other("LoadError")),
        HighsModelStatus::ModelError => return fail(ResolutionError::Other("ModelError")),
        HighsModelStatus::PresolveError => return fail(ResolutionError::Other("PresolveError")),
        HighsModelStatus::SolveError => return fail(ResolutionError::Other("SolveError")),
        HighsModelStatus::PostsolveError => return fail(ResolutionError::Other("PostsolveError")),
        HighsModelStatus::ModelEmpty => return fail(ResolutionError::Other("ModelEmpty")),
        HighsModelStatus::Infeasible | HighsModelStatus::UnboundedOrInfeasible => {
            return fail(ResolutionError::Infeasible)
        }
        HighsModelStatus::Unbounded => return fail(ResolutionError::Unbounded),
        HighsModelStatus::ReachedTimeLimit
        | HighsModelStatus::ReachedSolutionLimit
        | HighsModelStatus::ReachedInterrupt
        | HighsModelStatus::ReachedIterationLimit
        | HighsModelStatus::ReachedMemoryLimit => SolutionStatus::TimeLimit,
        HighsModelStatus::Optimal
        | HighsModelStatus::ObjectiveBound
        | HighsModelStatus::ObjectiveTarget => {
            let gap = solved.mip_gap();
            if gap.is_finite() && gap > 0.0 {
                SolutionStatus::GapLimit
            } else {
                SolutionStatus::Optimal
            }
        }
        _ => return fail(ResolutionError::Other("Unknown")),
    };
    let bound = if integer {
        solved
            .double_info_value(c"mip_dual_bound")
            .ok()
            .filter(|b| b.is_finite())
    } else if matches!(status, SolutionStatus::Optimal) {
        Some(solved.objective_value())
    } else {
        None
    };
    if solved.primal_solution_status() != HighsSolutionStatus::Feasible {
        return Run {
            result: Err(ResolutionError::Other("NoSolutionFound")),
            bound,
        };
    }
    Run {
        result: Ok(Solved {
            status,
            columns: solved.get_solution().columns().to_vec(),
        }),
        bound,
    }
}
