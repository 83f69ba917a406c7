//! What `nn verify` answers: the verdict, a replayed counterexample, the
//! statistics.

use super::spec::MilpCounts;
use crate::nn::vnnlib::Case;
use crate::nn::Network;
use crate::search::{SearchStats, Source};

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
    /// The shared search's own counters (parts, leaves, ReLU splits, threads).
    pub search: SearchStats,
}

/// An answer and its cost.
#[derive(Clone, Debug)]
pub struct Verification {
    pub answer: Answer,
    pub stats: VerifyStats,
}

/// `x` as a counterexample of disjunct `d` if the network's f64 output there
/// satisfies the disjunct within `tol` (scaled by each atom's right-hand side).
pub(super) fn replayed(
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
