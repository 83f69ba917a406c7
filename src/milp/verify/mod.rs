//! Deciding a VNN-LIB property of a network (`mavis nn verify`).
//!
//! In order, within one deadline:
//! 1. falsification of each case over its whole box (`nn::falsify`:
//!    seeded sampling and a local search, exact in f64);
//! 2. per case, a depth-first branch and bound over sub-boxes of the input
//!    box. Each box: interval and symbolic bounds of the specification
//!    network ([`spec::Spec`]) refute the disjuncts they can; a short
//!    falsification of the sub-box; then, when the box has few unstable
//!    ReLUs, LP tightening and one MILP encoding with one
//!    feasibility problem per open disjunct, within a time budget; what the
//!    MILP leaves open (stalled) is split in two along the input of largest
//!    influence (width times the gradient of the open atoms at the centre)
//!    or the widest one.
//!
//! A MILP point is replayed in f64 ([`Network::eval`]) and accepted when its
//! disjunct's atoms hold within [`tolerance::COUNTEREXAMPLE`]; one that does
//! not replay leaves the box open (it is split further), never reported.

mod spec;
mod gradient;

use super::model::MilpError;
use super::solve::SolveOptions;
use super::tolerance;
use crate::nn::vnnlib::{Case, Property};
use crate::nn::{
    falsify, interval_bounds, symbolic_bounds, symbolic_bounds_within, FalsifyOptions, InputBox,
    Network, NetworkBounds,
};
pub use spec::MilpCounts;
use spec::{milp_box, BoxAnswer, Spec};
pub use gradient::SplitRule;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// How to decide.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// HiGHS options; their deadline is the run's.
    pub solve: SolveOptions,
    /// The first falsification, over each whole box.
    pub falsify: FalsifyOptions,
    /// The falsification of each sub-box of the branch and bound.
    pub box_falsify: FalsifyOptions,
    /// LP tightening before each MILP.
    pub lp_tighten: bool,
    /// Time for the MILPs of one box before it is split.
    pub milp_budget: Duration,
    /// Boxes with at most this many unstable ReLUs (by symbolic bounds) go
    /// to LP tightening and the MILP; others are split first.
    pub milp_unstable: usize,
    pub split: SplitRule,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            solve: SolveOptions::default(),
            falsify: FalsifyOptions::default(),
            box_falsify: FalsifyOptions {
                samples: 20,
                starts: 1,
                steps: 40,
                seed: 1,
            },
            lp_tighten: true,
            milp_budget: Duration::from_secs(2),
            milp_unstable: 4,
            split: SplitRule::Influence,
        }
    }
}

/// Where a counterexample came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Sampling,
    LocalSearch,
    Milp,
}

/// An input in a case's box whose f64 output satisfies a disjunct.
#[derive(Clone, Debug)]
pub struct Counterexample {
    pub case: usize,
    pub disjunct: usize,
    pub input: Vec<f64>,
    pub output: Vec<f64>,
    pub source: Source,
    /// The largest excess of the disjunct's atoms at the replayed point
    /// (`<= 0` for sampled points; within [`tolerance::COUNTEREXAMPLE`] for MILP points).
    pub excess: f64,
}

/// The verdict on the property.
#[derive(Clone, Debug)]
pub enum Answer {
    /// No input of any case reaches its unsafe outputs (VNN-COMP `unsat`).
    Holds,
    Violated(Counterexample),
    /// Undecided, with the reason (the deadline, or points that do not replay).
    Unknown(String),
}

/// What the decision cost. Times in seconds.
#[derive(Clone, Debug, Default)]
pub struct VerifyStats {
    pub falsify_s: f64,
    pub evaluations: usize,
    pub bounds_s: f64,
    pub lp_s: f64,
    pub milp: MilpCounts,
    /// Boxes examined by the branch and bound (its nodes).
    pub boxes: usize,
    pub splits: usize,
    /// Unstable ReLUs of the root boxes by interval, symbolic and LP bounds
    /// (summed over cases; LP only when `root_lp`: a root box with more
    /// than [`VerifyOptions::milp_unstable`] is split without LP tightening).
    pub root_unstable: [usize; 3],
    pub root_lp: bool,
    /// MILP points that did not replay within tolerance.
    pub unreplayed: usize,
}

/// An answer and its cost.
#[derive(Clone, Debug)]
pub struct Verification {
    pub answer: Answer,
    pub stats: VerifyStats,
}

/// Decides `prop` for `net` (the sizes must match: the caller checks).
pub fn verify(
    net: &Network,
    prop: &Property,
    opts: &VerifyOptions,
) -> Result<Verification, MilpError> {
    assert_eq!(
        (prop.inputs, prop.outputs),
        (net.input_size(), net.output_size())
    );
    let mut stats = VerifyStats::default();
    let stop = || opts.solve.deadline.expired();
    for (ci, case) in prop.cases.iter().enumerate() {
        if let Some(d) = case.disjuncts.iter().position(|d| d.is_empty()) {
            // An empty conjunction: every input of the box is unsafe.
            let x = case.input.lo.clone();
            let cex = replayed(net, case, ci, d, x, Source::Sampling, 0.0);
            return Ok(done(
                Answer::Violated(cex.expect("no atom to violate")),
                stats,
            ));
        }
    }
    let t = Instant::now();
    for (ci, case) in prop.cases.iter().enumerate() {
        let f = falsify(net, case, &case.input, &opts.falsify, &stop);
        stats.evaluations += f.evaluations;
        if let Some(hit) = f.hit {
            stats.falsify_s += t.elapsed().as_secs_f64();
            return Ok(done(Answer::Violated(from_hit(net, case, ci, hit)), stats));
        }
    }
    stats.falsify_s += t.elapsed().as_secs_f64();
    for (ci, case) in prop.cases.iter().enumerate() {
        if let Some(answer) = branch_and_bound(net, case, ci, opts, &mut stats)? {
            return Ok(done(answer, stats));
        }
    }
    Ok(done(Answer::Holds, stats))
}

fn done(answer: Answer, stats: VerifyStats) -> Verification {
    Verification { answer, stats }
}

fn from_hit(net: &Network, case: &Case, ci: usize, hit: crate::nn::Hit) -> Counterexample {
    let source = if hit.by_local_search {
        Source::LocalSearch
    } else {
        Source::Sampling
    };
    let d = case
        .satisfied_disjunct(&hit.input, &hit.output, 0.0)
        .expect("falsify reports only points with excess <= 0");
    replayed(net, case, ci, d, hit.input, source, 0.0).expect("checked exactly above")
}

/// `x` as a counterexample of disjunct `d` if the network's f64 output there
/// satisfies the disjunct within `tol` (scaled by each atom's right-hand side).
fn replayed(
    net: &Network,
    case: &Case,
    ci: usize,
    d: usize,
    x: Vec<f64>,
    source: Source,
    tol: f64,
) -> Option<Counterexample> {
    let y = net.eval(&x);
    let one = Case {
        input: case.input.clone(),
        disjuncts: vec![case.disjuncts[d].clone()],
    };
    one.satisfied_disjunct(&x, &y, tol)?;
    let excess = one.disjuncts[0]
        .iter()
        .map(|a| a.excess(&x, &y))
        .fold(f64::NEG_INFINITY, f64::max);
    Some(Counterexample {
        case: ci,
        disjunct: d,
        input: x,
        output: y,
        source,
        excess,
    })
}

/// The branch and bound over one case: `Some(answer)` when it ends the
/// run (a counterexample, or the deadline), `None` when the case is safe.
fn branch_and_bound(
    net: &Network,
    case: &Case,
    ci: usize,
    opts: &VerifyOptions,
    stats: &mut VerifyStats,
) -> Result<Option<Answer>, MilpError> {
    let spec = Spec::new(net, case);
    let all: Vec<usize> = (0..case.disjuncts.len()).collect();
    // Each box with the bounds of the box it was split from.
    let mut stack: Vec<(InputBox, Vec<usize>, Option<Rc<NetworkBounds>>)> =
        vec![(case.input.clone(), all, None)];
    let stop = || opts.solve.deadline.expired();
    let mut root = true;
    while let Some((region, open, parent)) = stack.pop() {
        if stop() {
            return Ok(Some(Answer::Unknown(super::TIME_LIMIT.into())));
        }
        stats.boxes += 1;
        let t = Instant::now();
        if root {
            stats.root_unstable[0] += interval_bounds(&spec.net, &region).unstable_count();
        }
        let bounds = box_bounds(&spec.net, &region, parent.as_deref());
        stats.bounds_s += t.elapsed().as_secs_f64();
        let mut open = spec.unrefuted(&bounds, &open);
        if root {
            stats.root_unstable[1] += bounds.unstable_count();
        }
        if open.is_empty() {
            root = false;
            continue;
        }
        if !root {
            let t = Instant::now();
            let f = falsify(net, case, &region, &opts.box_falsify, &stop);
            stats.evaluations += f.evaluations;
            stats.falsify_s += t.elapsed().as_secs_f64();
            if let Some(hit) = f.hit {
                return Ok(Some(Answer::Violated(from_hit(net, case, ci, hit))));
            }
        }
        let splittable = gradient::can_split(&region);
        if bounds.unstable_count() <= opts.milp_unstable || !splittable {
            let job = BoxJob {
                net,
                spec: &spec,
                ci,
                root,
            };
            match milp_stage(&job, bounds.clone(), open, opts, stats)? {
                Ok(still) => open = still,
                Err(answer) => return Ok(Some(answer)),
            }
        }
        root = false;
        if open.is_empty() {
            continue;
        }
        if !splittable {
            let why = if stop() {
                super::TIME_LIMIT.to_string()
            } else {
                format!(
                    "a box too small to split stays undecided (MILP points that do not replay: {})",
                    stats.unreplayed
                )
            };
            return Ok(Some(Answer::Unknown(why)));
        }
        let (a, b) = gradient::halves(&spec, &region, &open, opts.split);
        stats.splits += 1;
        let bounds = Rc::new(bounds);
        stack.push((b, open.clone(), Some(bounds.clone())));
        stack.push((a, open, Some(bounds)));
    }
    Ok(None)
}

/// Symbolic bounds of a box, from those of the box it was split from when
/// there is one.
fn box_bounds(net: &Network, region: &InputBox, parent: Option<&NetworkBounds>) -> NetworkBounds {
    match parent {
        Some(p) => symbolic_bounds_within(net, region, p),
        None => symbolic_bounds(net, region),
    }
}

/// One box of the branch and bound, for [`milp_stage`].
struct BoxJob<'a> {
    net: &'a Network,
    spec: &'a Spec<'a>,
    ci: usize,
    root: bool,
}

/// LP tightening and the MILP of one box: the disjuncts still open, or the
/// answer (a replayed counterexample) that ends the run.
fn milp_stage(
    job: &BoxJob,
    mut bounds: crate::nn::NetworkBounds,
    mut open: Vec<usize>,
    opts: &VerifyOptions,
    stats: &mut VerifyStats,
) -> Result<Result<Vec<usize>, Answer>, MilpError> {
    let spec = job.spec;
    if opts.lp_tighten && bounds.unstable_count() > 0 {
        let t = Instant::now();
        bounds = super::lp_tighten(&spec.net, &bounds, &opts.solve)?;
        stats.lp_s += t.elapsed().as_secs_f64();
        open = spec.unrefuted(&bounds, &open);
    }
    if job.root {
        stats.root_unstable[2] += bounds.unstable_count();
        stats.root_lp = true;
    }
    if open.is_empty() {
        return Ok(Ok(open));
    }
    let budget = opts.milp_budget;
    match milp_box(spec, bounds, &open, &opts.solve, budget, &mut stats.milp)? {
        BoxAnswer::Refuted => Ok(Ok(Vec::new())),
        BoxAnswer::Point { disjunct, input } => {
            let tol = tolerance::COUNTEREXAMPLE;
            match replayed(
                job.net,
                spec.case,
                job.ci,
                disjunct,
                input,
                Source::Milp,
                tol,
            ) {
                Some(cex) => Ok(Err(Answer::Violated(cex))),
                None => {
                    stats.unreplayed += 1;
                    Ok(Ok(open))
                }
            }
        }
        BoxAnswer::Stalled(still) => Ok(Ok(still)),
    }
}

#[cfg(test)]
mod tests;
