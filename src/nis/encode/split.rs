//! Input splitting for a universal sentence over an interval of initial
//! environment states (VerticalCAS: h in H0 +- 2).
//!
//! One MILP over all initial states finds a counterexample from any of them
//! ([`super::starts`]), but its network copies get the bounds propagated
//! from the whole interval: many unstable ReLUs, advisories left open. As
//! `mavis nn verify` does ([`crate::milp::verify`]), the MILP over a box of
//! initial states gets a budget ([`SplitOptions::budget`]); when it ends
//! undetermined within it (not at the run's deadline) the box is halved
//! along the interval variable of largest width relative to its initial
//! interval, and both halves are decided depth-first. Only a box whose
//! halves' MILPs have fewer binaries (encoded, not solved) gets a budget and
//! may be halved; another is decided whole, within the run's deadline, as
//! without splitting: where the spread of the states comes from the
//! agents' choices rather than from the initial interval (VerticalCAS from
//! k = 7), halving would only double the work. A half is the same
//! unrolling from a narrower start ([`StartVar::Within`]): its bounds are
//! propagated by the same code, only tighter, and often pin the networks'
//! outputs so that no MILP is solved at all.
//!
//! A variable initialised by a list (`in {a, b, ..}`) is a side too, its
//! members split into two runs (a run of one is a fixed value). Lists are
//! halved first, and without trying the box's MILP when the halves have
//! fewer binaries: their members are separate starts.
//!
//! Soundness: the halves cover the box (real halves share the midpoint,
//! integer ones and lists part between two consecutive integers or members); the sentence holds
//! when every leaf's MILP is infeasible (each infeasibility confirmed by the
//! second opinion of [`super::confirm`], or the goal pinned to 0 by the
//! bounds); a counterexample from any leaf is replayed by the caller like the
//! one of the unsplit MILP. A box at [`SplitOptions::max_depth`], or too
//! narrow to halve, is decided by its MILP within the run's deadline alone.

use super::concrete::{Concrete, F64};
use super::cover::solve_from;
use super::decide::{binaries, Answer};
use super::initial::{Start, StartVar};
use super::options::{MilpOptions, SplitOptions};
use super::slots::SlotUnrolling;
use super::stats::{Sizes, SplitStats};
use crate::lang::{num, DeclType};
use crate::nis::front::core::Core;
use crate::nis::front::model::{InitSpec, Model};
use crate::nis::witness::replay::real::RealTree;
use crate::report::{Deadline, RunError};
use std::time::{Duration, Instant};

/// One initial variable's interval in a box of initial states.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Side {
    pub lo: f64,
    pub hi: f64,
    /// The variable is an integer: the box holds the integers in `[lo, hi]`.
    pub integer: bool,
    /// The variable's initial set is a list (`in {a, b, ..}`): the box holds
    /// its members `lo..=hi` (positions in the list; `integer` is true).
    pub members: bool,
}

impl Side {
    /// The two halves, whose union is this side; `None` when it has no two.
    pub fn halves(&self) -> Option<(Side, Side)> {
        let (lo, hi) = (self.lo, self.hi);
        if self.integer {
            let mid = ((lo + hi) / 2.0).floor();
            let parts = (
                Side { hi: mid, ..*self },
                Side {
                    lo: mid + 1.0,
                    ..*self
                },
            );
            return (hi - lo >= 1.0).then_some(parts);
        }
        let mid = lo + (hi - lo) / 2.0;
        let parts = (Side { hi: mid, ..*self }, Side { lo: mid, ..*self });
        (lo < mid && mid < hi).then_some(parts)
    }
}

/// A box of initial environment states: per variable its interval (or its
/// run of list members), or `None` for a variable whose initial set is a
/// point.
pub type InitialBox = Vec<Option<Side>>;

/// The whole initial set's box, with the bounds the unsplit MILP gives its
/// initial variables ([`super::initial`]).
pub fn initial_box(model: &Model) -> InitialBox {
    let env = &model.env;
    let side = |ty: &DeclType, lo, hi| {
        let (lo, hi) = (num::to_f64(lo), num::to_f64(hi));
        match ty {
            DeclType::Real { .. } => Side {
                lo,
                hi,
                integer: false,
                members: false,
            },
            _ => Side {
                lo: lo.ceil(),
                hi: hi.floor(),
                integer: true,
                members: false,
            },
        }
    };
    env.vars
        .iter()
        .zip(&env.init)
        .map(|(v, spec)| match spec {
            InitSpec::Range(lo, hi) => Some(side(&v.ty, lo, hi)),
            InitSpec::List(xs) if xs.len() > 1 => Some(Side {
                lo: 0.0,
                hi: (xs.len() - 1) as f64,
                integer: true,
                members: true,
            }),
            _ => None,
        })
        .collect()
}

/// The halves of `b`: along a list while one has two members or more (its
/// members are separate starts that one MILP only joins, with bounds over
/// all of them: ARCH-COMP's VCAS lists four climbrates, each decided by the
/// bounds alone), else along the side whose width is the largest fraction
/// of the same side of `root` (the first on a tie); `None` when no side
/// halves.
pub fn halve(b: &InitialBox, root: &InitialBox) -> Option<(InitialBox, InitialBox)> {
    // (side, rank: a list first, then the share of the root's width, halves)
    type Best = (usize, (bool, f64), (Side, Side));
    let mut best: Option<Best> = None;
    for (i, (s, r)) in b.iter().zip(root).enumerate() {
        let (Some(s), Some(r)) = (s, r) else { continue };
        let Some(parts) = s.halves() else { continue };
        let rank = (s.members, (s.hi - s.lo) / (r.hi - r.lo));
        if best.as_ref().is_none_or(|&(_, most, _)| rank > most) {
            best = Some((i, rank, parts));
        }
    }
    let (i, _, (lo, hi)) = best?;
    let (mut lower, mut upper) = (b.clone(), b.clone());
    lower[i] = Some(lo);
    upper[i] = Some(hi);
    Some((lower, upper))
}

/// The start of the unrolling from the states of `b`.
fn start_of(b: &InitialBox) -> Vec<StartVar> {
    let start = |s: &Side| match s.members {
        true => StartVar::Among(s.lo as usize, s.hi as usize),
        false => StartVar::Within(s.lo, s.hi),
    };
    b.iter()
        .map(|s| s.as_ref().map_or(StartVar::Free, start))
        .collect()
}

/// What the search found: a counterexample (still to be replayed), or none
/// from any initial state (the universal sentence holds).
pub struct Split {
    pub counterexample: Option<RealTree>,
    pub stats: SplitStats,
}

/// Whether [`decide_split`] would halve the initial box of `model`.
pub fn splits(model: &Model, opts: &SplitOptions) -> bool {
    let root = initial_box(model);
    opts.max_depth > 0 && halve(&root, &root).is_some()
}

/// Halving a box must leave each half's MILP at least this fraction (1/8)
/// of the box's binaries fewer (and at least one fewer): halves whose bounds
/// are no tighter would only double the work.
const MIN_GAIN_DIVISOR: usize = 8;

/// A box still to decide: its states, its depth, its MILP's binaries.
struct Pending {
    b: InitialBox,
    depth: usize,
    binaries: usize,
}

/// The sentence's dual goal on one system, what every box's MILP solves.
struct Job<'a> {
    model: &'a Model,
    goal: &'a Core,
    nm: (usize, usize),
    zero_one: bool,
    opts: &'a MilpOptions,
}

impl Job<'_> {
    /// The binaries of the MILP from the states of `b` (as [`solve_from`]
    /// builds it, not solved; without OBBT, whose LPs would cost their
    /// budget for every count).
    fn binaries(&self, b: &InitialBox) -> Result<usize, RunError> {
        let model = self.model;
        let mut opts = self.opts.clone();
        opts.encode.obbt_budget = Duration::ZERO;
        let opts = &opts;
        let start = Start::Vars(start_of(b));
        if !self.zero_one {
            let mut u = Concrete::new(model, opts, self.nm, start, F64);
            return binaries(&mut u, self.goal);
        }
        let branching = crate::nis::explicit::branching::zero_one_branching(model);
        let mut u = SlotUnrolling::new(model, self.nm.1, start, branching, opts);
        binaries(&mut u, self.goal)
    }

    /// The halves of `p` if it may be halved and their MILPs have fewer
    /// binaries (see [`MIN_GAIN_DIVISOR`]).
    fn useful_halves(
        &self,
        p: &Pending,
        root: &InitialBox,
        stats: &mut SplitStats,
    ) -> Result<Option<(Pending, Pending)>, RunError> {
        if p.depth >= self.opts.split.max_depth || p.binaries == 0 {
            return Ok(None);
        }
        let Some((lower, upper)) = halve(&p.b, root) else {
            return Ok(None);
        };
        let (lo_bin, hi_bin) = (self.binaries(&lower)?, self.binaries(&upper)?);
        let gain = (p.binaries / MIN_GAIN_DIVISOR).max(1);
        if lo_bin.max(hi_bin) + gain > p.binaries {
            stats.refused += 1;
            return Ok(None);
        }
        let half = |b, binaries| Pending {
            b,
            depth: p.depth + 1,
            binaries,
        };
        Ok(Some((half(lower, lo_bin), half(upper, hi_bin))))
    }
}

/// Searches for a counterexample (a solution of the dual goal `goal`) from
/// the initial box of `model`, depth-first over its halves (module docs).
pub fn decide_split(
    model: &Model,
    goal: &Core,
    nm: (usize, usize),
    zero_one: bool,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Split, RunError> {
    let job = Job {
        model,
        goal,
        nm,
        zero_one,
        opts,
    };
    let root = initial_box(model);
    let mut stats = SplitStats::default();
    let binaries = job.binaries(&root)?;
    let mut stack = vec![Pending {
        b: root.clone(),
        depth: 0,
        binaries,
    }];
    while let Some(p) = stack.pop() {
        if opts.solve.deadline.expired() {
            return Err(at_deadline(opts, &p.b, &stats));
        }
        stats.boxes += 1;
        stats.depth = stats.depth.max(p.depth);
        let halves = job.useful_halves(&p, &root, &mut stats)?;
        let halves = match halves {
            Some((lower, upper)) if parts_a_list(&p.b, &lower.b) => {
                // A list's members are separate starts: their MILPs are
                // smaller and the box's would only join them.
                stats.splits += 1;
                stack.extend([upper, lower]);
                continue;
            }
            other => other,
        };
        let attempt = match halves {
            Some(_) => budgeted(opts),
            None => opts.clone(),
        };
        let t = Instant::now();
        match solve_from(model, goal, nm, zero_one, &start_of(&p.b), &attempt, sizes) {
            Ok(Answer::Witness(tree)) => {
                return Ok(Split {
                    counterexample: Some(tree),
                    stats,
                })
            }
            Ok(Answer::NoStart | Answer::Infeasible) => {}
            Err(RunError::TimedOut(why)) => {
                if opts.solve.deadline.expired() {
                    return Err(at_deadline(opts, &p.b, &stats));
                }
                let Some((lower, upper)) = halves else {
                    return Err(RunError::TimedOut(why));
                };
                stats.splits += 1;
                stats.stalled_s += t.elapsed().as_secs_f64();
                stack.push(upper);
                stack.push(lower);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Split {
        counterexample: None,
        stats,
    })
}

/// Whether `half` is `b` with fewer members of a list.
fn parts_a_list(b: &InitialBox, half: &InitialBox) -> bool {
    b.iter()
        .zip(half)
        .any(|(s, h)| matches!((s, h), (Some(s), Some(h)) if s.members && s != h))
}

/// `opts` with the solves' deadline at the split budget (or the run's
/// deadline, if sooner).
fn budgeted(opts: &MilpOptions) -> MilpOptions {
    let budget = opts.split.budget;
    let limit = opts
        .solve
        .deadline
        .remaining()
        .map_or(budget, |r| r.min(budget));
    let mut attempt = opts.clone();
    attempt.solve.deadline = Deadline::starting_at(Instant::now(), Some(limit));
    attempt
}

/// The run's deadline passed while box `b` was being decided: the partial
/// report says how far the splitting got.
fn at_deadline(opts: &MilpOptions, b: &InitialBox, stats: &SplitStats) -> RunError {
    let expired = match opts.solve.deadline.expiry() {
        Some(e) => e.to_string(),
        None => "the deadline was reached".into(),
    };
    let sides: Vec<String> = b
        .iter()
        .flatten()
        .map(|s| match s.members {
            true => format!("members {}..{} of a list", s.lo + 1.0, s.hi + 1.0),
            false => format!("[{}, {}]", s.lo, s.hi),
        })
        .collect();
    RunError::TimedOut(format!(
        "{expired} while HiGHS was solving a MILP of the decider over the initial box {} (input splitting: {} boxes tried, {} halved, depth {}, {} not halved for want of tighter bounds)",
        sides.join(" x "),
        stats.boxes,
        stats.splits,
        stats.depth,
        stats.refused
    ))
}

#[cfg(test)]
#[path = "split_tests.rs"]
mod tests;
