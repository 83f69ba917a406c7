//! Solving a [`Model`] with HiGHS (through good_lp) and reading the solution back.

use super::expr::{LinExpr, Var};
use super::highs_run::Effort;
use super::model::{MilpError, Model, Sense, VarKind};
use super::tolerance;
use crate::report::Deadline;
use good_lp::solvers::highs::{highs, HighsOptionValue, HighsProblem};
use good_lp::{
    variable, Expression, ProblemVariables, ResolutionError, SolutionStatus, SolverModel, Variable,
};
use std::time::{Duration, Instant};

/// HiGHS options.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveOptions {
    /// HiGHS threads (HiGHS fixes its thread pool at the first solve of a process).
    pub threads: usize,
    /// Give up at this deadline: each solve gets only the time left, and the
    /// status is then `Feasible` (a solution, not proven optimal) or
    /// `Unknown` (no solution yet; also without calling HiGHS once expired).
    pub deadline: Deadline,
    /// Relative MIP gap at which HiGHS may stop and call the point optimal
    /// (HiGHS's default 1e-4 when `None`; exact bounds use 0).
    pub mip_gap: Option<f64>,
    /// Absolute MIP gap (HiGHS's `mip_abs_gap`; its default 1e-6 when `None`).
    pub mip_abs_gap: Option<f64>,
    /// HiGHS's `output_flag`: its log goes to standard error through
    /// HiGHS's logging callback (its console is stdout, which carries the
    /// report); `-vv` sets it.
    pub verbose: bool,
    /// HiGHS's `mip_feasibility_tolerance` (its default 1e-6 when `None`).
    /// A tighter value also works around wrong "infeasible" answers of HiGHS's
    /// MIP presolve seen on big-M models (HiGHS issues 1958, 2446).
    pub feasibility_tolerance: Option<f64>,
    /// Run HiGHS's presolve (the default); off for a second opinion on
    /// an infeasibility claim. Off means off everywhere: besides the
    /// global presolve, HiGHS's MIP solver would solve its root LP (and its
    /// sub-MIPs) with the LP presolve on unless `mip_root_presolve_only`
    /// is set, and with that LP presolve HiGHS 1.16 proved wrong optima on
    /// tiny big-M ReLU models even with the global presolve off (docs/nn.md,
    /// "HiGHS's wrong optima").
    pub presolve: bool,
    /// Counts the solves (LPs and MILPs); its level counts HiGHS's
    /// branch-and-bound nodes, read as they grow during a MILP when the
    /// meter is shown (`-v`).
    pub meter: crate::report::meter::Meter,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            threads: 1,
            deadline: Deadline::NONE,
            mip_gap: None,
            mip_abs_gap: None,
            verbose: false,
            feasibility_tolerance: None,
            presolve: true,
            meter: crate::report::meter::Meter::none(),
        }
    }
}

impl SolveOptions {
    /// These options for a second opinion on an infeasibility claim or a
    /// proven bound: no presolve anywhere (see [`SolveOptions::presolve`])
    /// and a MIP feasibility tolerance no tighter than
    /// [`tolerance::SECOND_OPINION_FEASIBILITY`].
    pub fn second_opinion(&self) -> SolveOptions {
        let floor = tolerance::SECOND_OPINION_FEASIBILITY;
        SolveOptions {
            presolve: false,
            feasibility_tolerance: Some(self.feasibility_tolerance.map_or(floor, |t| t.max(floor))),
            ..self.clone()
        }
    }

    /// Default options with `threads` HiGHS threads, stopping at `deadline`,
    /// with HiGHS's `output_flag` set when `verbose` (see its field).
    pub fn new(threads: usize, deadline: Deadline, verbose: bool) -> Self {
        SolveOptions {
            threads,
            deadline,
            verbose,
            ..SolveOptions::default()
        }
    }
}

/// What to solve for.
#[derive(Clone, Debug, PartialEq)]
pub enum Objective {
    /// Any feasible point.
    Feasibility,
    Maximise(LinExpr),
    Minimise(LinExpr),
}

/// The answer, mapped from HiGHS's model status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Optimal within HiGHS's MIP gap tolerances (relative: [`SolveOptions::mip_gap`],
    /// absolute: 1e-6); for [`Objective::Feasibility`], a feasible point was found.
    Optimal,
    /// A feasible point, optimality not proven (time limit).
    Feasible,
    /// Proven infeasible.
    Infeasible,
    /// No answer: time-out before any solution, unbounded objective, or numerical trouble.
    Unknown,
}

/// Values of every variable of the model, as HiGHS returned them (within its
/// tolerances: read binaries with [`Solution::is_set`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    values: Vec<f64>,
}

impl Solution {
    pub fn value(&self, v: Var) -> f64 {
        self.values[v.0]
    }

    /// A binary read as a Boolean (value > 0.5).
    pub fn is_set(&self, v: Var) -> bool {
        self.values[v.0] > 0.5
    }

    pub fn eval(&self, e: &LinExpr) -> f64 {
        e.value(|v| self.values[v.0])
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }
}

/// The outcome of [`Model::solve`].
#[derive(Clone, Debug)]
pub struct Outcome {
    pub status: Status,
    /// Present for `Optimal` and `Feasible`.
    pub solution: Option<Solution>,
    /// The objective's value at the solution.
    pub objective: Option<f64>,
    /// HiGHS's proven bound on the objective, constant included: no
    /// feasible point is better than it (up to HiGHS's LP tolerances, see
    /// [`super::tolerance::OUTER_WIDENING`]). For a MILP its dual bound,
    /// also when a time limit stopped it; for an LP its optimum.
    pub bound: Option<f64>,
    /// Why the status is `Unknown` or `Feasible`.
    pub reason: Option<String>,
    pub time: Duration,
    /// HiGHS's work, summed over every solve behind this outcome (the
    /// repetition without presolve, the unboundedness check).
    pub effort: Effort,
}

/// The reason of an answer cut by [`SolveOptions::deadline`].
pub const TIME_LIMIT: &str = "time limit";

/// The start of the reason of an `Unknown` that HiGHS ended with an error.
const HIGHS_STOPPED: &str = "HiGHS stopped: ";

impl Model {
    /// Solves the model for `objective` with HiGHS.
    ///
    /// HiGHS sometimes ends in an error status on small, degenerate MILPs:
    /// its presolve (seen on 2-input ReLU networks), or its final check,
    /// which found the optimum it claimed 1.15e-7 outside a row at a MIP
    /// feasibility tolerance of 1e-9 (HiGHS's LP tolerance is 1e-7; a
    /// random 2-6-4-2 network of tests/nn_bounds.rs, with and without
    /// presolve; and at 1e-7 without presolve, as a second opinion). Such
    /// a solve is repeated without presolve, then (when a tolerance was
    /// given) with the presolve asked for at a feasibility tolerance ten
    /// times looser and at least [`tolerance::SECOND_OPINION_FEASIBILITY`]
    /// (a looser tolerance only adds points, so a proven bound stays safe,
    /// and every solution is replayed anyway), before the answer is `Unknown`.
    /// A model with a building error ([`Model::validate`]) is not solved: the
    /// error is the answer.
    pub fn solve(&self, objective: &Objective, opts: &SolveOptions) -> Result<Outcome, MilpError> {
        self.validate()?;
        let mut outcome = self.solve_with(objective, opts, true)?;
        // (No tolerance given is HiGHS's default, 1e-6: no third try.)
        let floor = tolerance::SECOND_OPINION_FEASIBILITY;
        let looser = SolveOptions {
            feasibility_tolerance: opts.feasibility_tolerance.map(|t| (10.0 * t).max(floor)),
            ..opts.clone()
        };
        let mut retries = vec![(opts, false)];
        if opts.feasibility_tolerance.is_some() {
            retries.push((&looser, true));
        }
        for (retry, presolve) in retries {
            let stopped = outcome.status == Status::Unknown
                && outcome
                    .reason
                    .as_deref()
                    .is_some_and(|r| r.starts_with(HIGHS_STOPPED));
            if !stopped {
                break;
            }
            let mut again = self.solve_with(objective, retry, presolve)?;
            again.time += outcome.time;
            again.effort += outcome.effort;
            outcome = again;
        }
        Ok(outcome)
    }

    fn solve_with(
        &self,
        objective: &Objective,
        opts: &SolveOptions,
        presolve: bool,
    ) -> Result<Outcome, MilpError> {
        let start = Instant::now();
        if opts.deadline.expired() {
            let none = Effort::default();
            return Ok(Outcome::unknown(
                TIME_LIMIT.into(),
                None,
                Duration::ZERO,
                none,
            ));
        }
        let (vars, handles) = self.columns();
        let to_good_lp = |e: &LinExpr| -> Expression {
            let mut out = Expression::from(e.constant);
            for (v, c) in e.merged_terms() {
                out.add_mul(c, handles[v.0]);
            }
            out
        };
        let (problem, objective_expr) = match objective {
            Objective::Feasibility => (vars.minimise(Expression::from(0.0)), None),
            Objective::Maximise(e) => (vars.maximise(to_good_lp(e)), Some(e)),
            Objective::Minimise(e) => (vars.minimise(to_good_lp(e)), Some(e)),
        };
        let mut p = highs(problem);
        let mut options = highs_options(opts, presolve);
        self.add_rows(&mut p, &handles);
        // What is left now, after building: never the whole budget again.
        if let Some(left) = opts.deadline.remaining() {
            options.push(("time_limit", left.as_secs_f64().max(1e-3).into()));
        }
        let integer = self.vars.iter().any(|v| v.kind != VarKind::Continuous);
        let run = super::highs_run::run(p, &options, integer, &opts.meter);
        let bound = match (run.bound, objective_expr) {
            (Some(b), Some(e)) => Some(b + e.constant),
            _ => None,
        };
        let time = start.elapsed();
        let effort = run.effort;
        let unknown = |reason: String, effort| Outcome::unknown(reason, bound, time, effort);
        Ok(match run.result {
            Ok(sol) => {
                // Columns are in the order the variables were added (`handles`).
                let values: Vec<f64> = sol.columns[..handles.len()].to_vec();
                Outcome {
                    effort,
                    ..solved(Solution { values }, sol.status, objective, bound, time)
                }
            }
            Err(ResolutionError::Infeasible) => {
                self.infeasible_or_unbounded(objective, opts, (bound, time), effort)?
            }
            Err(ResolutionError::Unbounded) => unknown("the objective is unbounded".into(), effort),
            Err(ResolutionError::Other("NoSolutionFound")) => {
                unknown("time limit before any solution".into(), effort)
            }
            Err(ResolutionError::Other(what)) => unknown(format!("{HIGHS_STOPPED}{what}"), effort),
            Err(ResolutionError::Str(what)) => unknown(format!("{HIGHS_STOPPED}{what}"), effort),
        })
    }

    /// HiGHS may say "unbounded or infeasible"; good_lp reports both as
    /// infeasible. Only an optimisation over an unbounded variable can be
    /// unbounded: decide it by a feasibility solve.
    fn infeasible_or_unbounded(
        &self,
        objective: &Objective,
        opts: &SolveOptions,
        (bound, time): (Option<f64>, Duration),
        mut effort: Effort,
    ) -> Result<Outcome, MilpError> {
        let may_be_unbounded = !matches!(objective, Objective::Feasibility)
            && self
                .vars
                .iter()
                .any(|v| !v.lo.is_finite() || !v.hi.is_finite());
        let feasible = if may_be_unbounded {
            let check = self.solve(&Objective::Feasibility, opts)?;
            effort += check.effort;
            check.status != Status::Infeasible
        } else {
            false
        };
        if feasible {
            return Ok(Outcome::unknown(
                "the objective is unbounded".into(),
                bound,
                time,
                effort,
            ));
        }
        Ok(Outcome {
            status: Status::Infeasible,
            solution: None,
            objective: None,
            bound: None,
            reason: None,
            time,
            effort,
        })
    }

    /// Every row, over the columns `handles`.
    fn add_rows(&self, p: &mut HighsProblem, handles: &[Variable]) {
        for row in &self.rows {
            let mut lhs = Expression::from(0.0);
            for &(v, c) in &row.terms {
                lhs.add_mul(c, handles[v.0]);
            }
            let c = match row.sense {
                Sense::Le => lhs.leq(row.rhs),
                Sense::Ge => lhs.geq(row.rhs),
                Sense::Eq => lhs.eq(row.rhs),
            };
            p.add_constraint(c);
        }
    }

    /// The good_lp columns of the variables, in their order (and a fixed
    /// dummy column in an empty model, which HiGHS would refuse).
    fn columns(&self) -> (ProblemVariables, Vec<Variable>) {
        let mut vars = ProblemVariables::new();
        let mut handles = Vec::with_capacity(self.vars.len());
        for info in &self.vars {
            let mut def = variable().name(info.name.clone());
            if info.lo.is_finite() {
                def = def.min(info.lo);
            }
            if info.hi.is_finite() {
                def = def.max(info.hi);
            }
            if info.kind != VarKind::Continuous {
                def = def.integer();
            }
            handles.push(vars.add(def));
        }
        if handles.is_empty() {
            // A fixed dummy column keeps constant rows checkable.
            vars.add(variable().min(0.0).max(0.0));
        }
        (vars, handles)
    }

    /// Checks a solution against every bound and row, within `tol` (absolute,
    /// scaled by the row's magnitude); returns the first violation.
    pub fn check(&self, s: &Solution, tol: f64) -> Result<(), String> {
        for (i, info) in self.vars.iter().enumerate() {
            let x = s.values[i];
            let slack = tol * (1.0 + x.abs());
            if x < info.lo - slack || x > info.hi + slack {
                return Err(format!(
                    "{} = {x} is outside [{}, {}]",
                    info.name, info.lo, info.hi
                ));
            }
            if info.kind != VarKind::Continuous && (x - x.round()).abs() > tol.max(1e-6) {
                return Err(format!("{} = {x} is not integral", info.name));
            }
        }
        for row in &self.rows {
            let lhs: f64 = row.terms.iter().map(|&(v, c)| c * s.values[v.0]).sum();
            let scale: f64 = 1.0
                + row.rhs.abs()
                + row
                    .terms
                    .iter()
                    .map(|&(v, c)| (c * s.values[v.0]).abs())
                    .sum::<f64>();
            let ok = match row.sense {
                Sense::Le => lhs <= row.rhs + tol * scale,
                Sense::Ge => lhs >= row.rhs - tol * scale,
                Sense::Eq => (lhs - row.rhs).abs() <= tol * scale,
            };
            if !ok {
                return Err(format!("row {}: {lhs} {} {}", row.name, row.sense, row.rhs));
            }
        }
        Ok(())
    }
}

impl Outcome {
    /// No answer, for `reason`.
    fn unknown(reason: String, bound: Option<f64>, time: Duration, effort: Effort) -> Self {
        Outcome {
            status: Status::Unknown,
            solution: None,
            objective: None,
            bound,
            reason: Some(reason),
            time,
            effort,
        }
    }
}

/// The options [`Model::solve`] hands to HiGHS, but the time limit (set
/// after building); `presolve` false turns HiGHS's presolve off.
fn highs_options(opts: &SolveOptions, presolve: bool) -> Vec<(&'static str, HighsOptionValue)> {
    // Options go straight to HiGHS in `highs_run`, which also reads the proven bound.
    let mut options: Vec<(&str, HighsOptionValue)> = vec![
        ("threads", (opts.threads.max(1) as i32).into()),
        ("output_flag", opts.verbose.into()),
    ];
    if !presolve || !opts.presolve {
        options.push(("presolve", "off".into()));
        // Off everywhere: the MIP solver's own root LP too (see `SolveOptions::presolve`).
        options.push(("mip_root_presolve_only", true.into()));
    }
    if let Some(t) = opts.feasibility_tolerance {
        options.push(("mip_feasibility_tolerance", t.into()));
    }
    if let Some(g) = opts.mip_gap {
        options.push(("mip_rel_gap", g.max(0.0).into()));
    }
    if let Some(g) = opts.mip_abs_gap {
        options.push(("mip_abs_gap", g.max(0.0).into()));
    }
    options
}

/// The outcome of a solution HiGHS found, with HiGHS's status.
fn solved(
    solution: Solution,
    highs_status: SolutionStatus,
    objective: &Objective,
    bound: Option<f64>,
    time: Duration,
) -> Outcome {
    let value = match objective {
        Objective::Feasibility => None,
        Objective::Maximise(e) | Objective::Minimise(e) => Some(solution.eval(e)),
    };
    let (status, reason) = match highs_status {
        SolutionStatus::Optimal => (Status::Optimal, None),
        // HiGHS's own status is Optimal here: the gap is within its tolerances.
        SolutionStatus::GapLimit => (Status::Optimal, None),
        SolutionStatus::TimeLimit => (Status::Feasible, Some(TIME_LIMIT.to_string())),
    };
    let status = if matches!(objective, Objective::Feasibility) {
        Status::Optimal
    } else {
        status
    };
    Outcome {
        status,
        solution: Some(solution),
        objective: value,
        bound,
        reason,
        time,
        effort: Effort::default(),
    }
}
