//! Runs a HiGHS problem built by good_lp and reads back, besides the status
//! and the primal solution good_lp gives, HiGHS's proven objective bound
//! (its MIP dual bound) and its work (branch-and-bound nodes, LP
//! iterations), which good_lp's solution type does not expose.
//! The status mapping is good_lp's own (`HighsProblem::solve`), so the
//! rest of [`super::solve`] reads the answer as before.

use crate::report::meter::Meter;
use good_lp::solvers::highs::{HighsOptionValue, HighsProblem};
use good_lp::{ResolutionError, SolutionStatus};
use highs::{HighsModelStatus, HighsSolutionStatus, SolvedModel};
use std::sync::atomic::{AtomicU64, Ordering};

/// HiGHS's work on one or more solves: branch-and-bound nodes and LP
/// (simplex) iterations, every node's included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effort {
    /// Branch-and-bound nodes (0 for an LP, or a MIP presolve decided).
    pub nodes: u64,
    pub lp_iterations: u64,
}

impl std::ops::AddAssign for Effort {
    fn add_assign(&mut self, other: Effort) {
        self.nodes += other.nodes;
        self.lp_iterations += other.lp_iterations;
    }
}

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
    /// What HiGHS did; zero when it did not solve (an option or load error).
    pub effort: Effort,
}

/// HiGHS's `mip_node_count`, an int64 info value: the highs crate reads only
/// HighsInt and double ones, so it is read through the C API.
fn mip_node_count(solved: &SolvedModel) -> Option<i64> {
    let mut value: i64 = -1;
    // SAFETY: `solved.as_ptr()` is the live Highs instance owned by `solved`
    // (borrowed for the call); the key is a NUL-terminated C string; `value`
    // is a valid, aligned i64 that HiGHS writes only on success; the call
    // only reads the instance's info.
    let status = unsafe {
        highs_sys::Highs_getInt64InfoValue(solved.as_ptr(), c"mip_node_count".as_ptr(), &mut value)
    };
    (status == highs_sys::STATUS_OK).then_some(value)
}

/// What HiGHS's callback serves during one solve: its log to stderr, and
/// the branch-and-bound nodes counted so far, added to a meter's level as
/// they grow (HiGHS calls the MIP interrupt callback as it checks its
/// limits, between nodes).
struct Watch {
    meter: Meter,
    /// The solve's `mip_node_count` already added to the meter.
    nodes: AtomicU64,
}

impl Watch {
    /// Adds the nodes past those already added (the count only grows).
    fn nodes_now(&self, count: u64) {
        let before = self.nodes.fetch_max(count, Ordering::Relaxed);
        if count > before {
            self.meter.add_level(count - before);
        }
    }
}

/// HiGHS's callback: writes each log message to stderr (HiGHS's console is
/// stdout, which carries mavis's report, and a log file opened by HiGHS
/// (`/dev/stderr`) would truncate a redirected stderr file); on a MIP
/// interrupt check, reads the nodes so far into the [`Watch`] that `user` points to.
unsafe extern "C" fn callback(
    kind: std::os::raw::c_int,
    message: *const std::os::raw::c_char,
    out: *const highs_sys::HighsCallbackDataOut,
    _in: *mut highs_sys::HighsCallbackDataIn,
    user: *mut std::os::raw::c_void,
) {
    if kind == highs_sys::kHighsCallbackLogging as std::os::raw::c_int && !message.is_null() {
        // SAFETY: HiGHS passes a NUL-terminated message valid for the call.
        let text = unsafe { std::ffi::CStr::from_ptr(message) };
        eprint!("{}", text.to_string_lossy());
    } else if kind == highs_sys::kHighsCallbackMipInterrupt as std::os::raw::c_int
        && !out.is_null()
        && !user.is_null()
    {
        // SAFETY: `user` is the `Watch` given to `Highs_setCallback` by
        // `set_callback`, alive until the solved model is dropped; `out` is
        // HiGHS's output data, valid for the call; only shared access.
        let (watch, count) = unsafe { (&*(user as *const Watch), (*out).mip_node_count) };
        if let Ok(count) = u64::try_from(count) {
            watch.nodes_now(count);
        }
    }
}

/// Sets [`callback`] on `model` with `watch` as its user data, started for
/// the log (`logs`) and the MIP interrupt checks (`nodes`).
fn set_callback(
    model: &mut highs::Model,
    watch: &Watch,
    logs: bool,
    nodes: bool,
) -> Result<(), String> {
    // SAFETY: `model.as_mut_ptr()` is the live Highs instance owned by
    // `model`; `watch` outlives every solve of `model` (see `run`: it is
    // declared before the model and dropped after it); HiGHS only passes
    // the pointer back to `callback`, which reads it through `&`.
    let ok = unsafe {
        let ptr = model.as_mut_ptr();
        let user = watch as *const Watch as *mut std::os::raw::c_void;
        let start = |kind| highs_sys::Highs_startCallback(ptr, kind) == highs_sys::STATUS_OK;
        highs_sys::Highs_setCallback(ptr, Some(callback), user) == highs_sys::STATUS_OK
            && (!logs || start(highs_sys::kHighsCallbackLogging))
            && (!nodes || start(highs_sys::kHighsCallbackMipInterrupt))
    };
    ok.then_some(())
        .ok_or_else(|| "HiGHS error while setting its callback".to_string())
}

/// The nodes and LP iterations of a solve. For a MIP, HiGHS stores the MIP
/// solver's `total_lp_iterations` in `simplex_iteration_count` (HiGHS 1.16,
/// `solveMip` in `HighsSolve.cpp`; there is no `mip_total_lp_iterations`
/// info key); for an LP that count is the LP's own and there are no nodes. HiGHS writes -1 for
/// "not available" (no MIP run, a count past HighsInt): read as 0.
fn effort(solved: &SolvedModel, integer: bool) -> Effort {
    let count = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok()).unwrap_or(0);
    Effort {
        nodes: if integer {
            count(mip_node_count(solved))
        } else {
            0
        },
        lp_iterations: count(solved.int_info_value(c"simplex_iteration_count").ok()),
    }
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
/// `meter` counts the solve; its level, the branch-and-bound nodes, grows
/// during the solve (read through HiGHS's MIP interrupt callback, only
/// when someone reads the meter).
pub(super) fn run(
    problem: HighsProblem,
    options: &[(&str, HighsOptionValue)],
    integer: bool,
    meter: &Meter,
) -> Run {
    let watch = Watch {
        meter: meter.clone(),
        nodes: AtomicU64::new(0),
    };
    let run = run_watched(problem, options, integer, &watch);
    watch.nodes_now(run.effort.nodes);
    meter.add(1);
    run
}

/// [`run`] with its [`Watch`].
fn run_watched(
    problem: HighsProblem,
    options: &[(&str, HighsOptionValue)],
    integer: bool,
    watch: &Watch,
) -> Run {
    let fail = |e: ResolutionError| Run {
        result: Err(e),
        bound: None,
        effort: Effort::default(),
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
    let logs = options
        .iter()
        .any(|(key, value)| *key == "output_flag" && matches!(value, HighsOptionValue::Bool(true)));
    let nodes = integer && watch.meter.is_live();
    if logs || nodes {
        if let Err(why) = set_callback(&mut model, watch, logs, nodes) {
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
    let effort = effort(&solved, integer);
    let fail = |e: ResolutionError| Run {
        result: Err(e),
        bound: None,
        effort,
    };
    let status = match status_of(&solved) {
        Ok(status) => status,
        Err(e) => return fail(e),
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
            effort,
        };
    }
    Run {
        result: Ok(Solved {
            status,
            columns: solved.get_solution().columns().to_vec(),
        }),
        bound,
        effort,
    }
}

/// HiGHS's model status as a solution status, or why there is no solution.
fn status_of(solved: &SolvedModel) -> Result<SolutionStatus, ResolutionError> {
    Ok(match solved.status() {
        HighsModelStatus::NotSet => return Err(ResolutionError::Other("NotSet")),
        HighsModelStatus::LoadError => return Err(ResolutionError::Other("LoadError")),
        HighsModelStatus::ModelError => return Err(ResolutionError::Other("ModelError")),
        HighsModelStatus::PresolveError => return Err(ResolutionError::Other("PresolveError")),
        HighsModelStatus::SolveError => return Err(ResolutionError::Other("SolveError")),
        HighsModelStatus::PostsolveError => return Err(ResolutionError::Other("PostsolveError")),
        HighsModelStatus::ModelEmpty => return Err(ResolutionError::Other("ModelEmpty")),
        HighsModelStatus::Infeasible | HighsModelStatus::UnboundedOrInfeasible => {
            return Err(ResolutionError::Infeasible)
        }
        HighsModelStatus::Unbounded => return Err(ResolutionError::Unbounded),
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
        _ => return Err(ResolutionError::Other("Unknown")),
    })
}
