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
//! Where halving is refused, a part may be split over the environment's
//! choices instead (VerticalCAS: the pilot's acceleration): one part per
//! action of the environment in its next unpinned round
//! ([`choice_parts`]), each an unrolling whose rounds at that depth take
//! that action ([`super::expr::Enc::env_pins`]), up to
//! [`SplitOptions::choice_rounds`] rounds, under the same rules (a budget
//! first, then the parts, only if their MILPs have fewer binaries). A
//! universal sentence fails iff some run violates it, and every run takes
//! one action per round; so when every solution of the dual goal is one
//! path ([`super::formula::one_path`]: no conjunction of two steps, which
//! could need successors by different actions at the same depth), the
//! goal has a solution iff one of the parts' MILPs has one.
//!
//! Parts are decided in waves of [`WAVE`] from the top of the stack, each
//! on its own thread ([`SplitOptions::threads`], one HiGHS thread each
//! then); the results are taken in stack order, so the parts visited and
//! the verdict do not depend on the number of threads (the budgets and the
//! deadline aside), and the counterexample reported is the first in that
//! order.
//!
//! Soundness: the halves cover the box (real halves share the midpoint,
//! integer ones and lists part between two consecutive integers or members)
//! and the choice parts cover the runs; the sentence holds
//! when every leaf's MILP is infeasible (each infeasibility confirmed by the
//! second opinion of [`super::confirm`], or the goal pinned to 0 by the
//! bounds); a counterexample from any leaf is replayed by the caller like the
//! one of the unsplit MILP. A part at [`SplitOptions::max_depth`], or that
//! cannot be cut, is decided by its MILP within the run's deadline alone.

use super::concrete::{Concrete, F64};
use super::decide::{binaries, solve, Answer};
use super::formula::{one_path, steps};
use super::initial::{Start, StartVar};
use super::options::{MilpOptions, SplitOptions};
use super::slots::SlotUnrolling;
use super::stats::{Sizes, SplitStats};
use crate::lang::{num, DeclType};
use crate::nis::front::core::Core;
use crate::nis::front::model::{InitSpec, Model};
use crate::nis::witness::replay::real::RealTree;
use crate::report::{Deadline, RunError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
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

/// Whether [`decide_split`] would split the initial box of `model`, or its
/// runs over the environment's choices, for the dual goal `goal`.
pub fn splits(model: &Model, goal: &Core, opts: &SplitOptions) -> bool {
    let root = initial_box(model);
    let choices = opts.choice_rounds > 0 && choice_actions(model).len() > 1;
    opts.max_depth > 0
        && (halve(&root, &root).is_some() || (choices && one_path(goal) && steps(goal) > 0))
}

/// The environment's actions some protocol case may enable: one part each
/// in a choice split.
pub fn choice_actions(model: &Model) -> Vec<usize> {
    let mut out: Vec<usize> = model
        .env
        .protocol
        .iter()
        .flat_map(|c| c.actions.iter().copied())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The parts of a choice split of the part whose first rounds' actions are
/// `pins`: one per action of `actions`, each pinning it in the next round.
/// Over all sequences of the environment's actions, those that begin with
/// `pins` are exactly those of the parts, each in one part.
pub fn choice_parts(pins: &[usize], actions: &[usize]) -> Vec<Vec<usize>> {
    actions
        .iter()
        .map(|&a| {
            let mut p = pins.to_vec();
            p.push(a);
            p
        })
        .collect()
}

/// Halving a box must leave each half's MILP at least this fraction (1/8)
/// of the box's binaries fewer (and at least one fewer): halves whose bounds
/// are no tighter would only double the work.
const MIN_GAIN_DIVISOR: usize = 8;

/// Parts decided at once (a wave), whatever the number of threads: the
/// parts visited and the verdict do not depend on it (unless a budget or
/// the deadline cuts in).
const WAVE: usize = 8;

/// The stack of a worker thread (HiGHS and deep recursion in the solver).
const WORKER_STACK: usize = 8 << 20;

/// A part still to decide: its box of initial states, the environment's
/// actions pinned in its first rounds, its depth, its MILP's binaries.
#[derive(Clone)]
struct Pending {
    b: InitialBox,
    pins: Vec<usize>,
    depth: usize,
    binaries: usize,
}

/// How a part is cut.
#[derive(Clone, Copy, PartialEq)]
enum Cut {
    /// A list's members (without trying the part's MILP).
    List,
    /// The box halved along an interval.
    Box,
    /// The environment's action in the next unpinned round.
    Choice,
}

/// The sentence's dual goal on one system, what every part's MILP solves.
struct Job<'a> {
    model: &'a Model,
    goal: &'a Core,
    nm: (usize, usize),
    zero_one: bool,
    opts: &'a MilpOptions,
    root: InitialBox,
    /// The actions a choice split pins, and the most rounds it may pin
    /// (0: the goal's solutions are not single paths, no choice split).
    actions: Vec<usize>,
    rounds: usize,
}

impl Job<'_> {
    /// The binaries of the MILP of part `(b, pins)` (as [`Job::solve`]
    /// builds it, not solved; without OBBT, whose LPs would cost their
    /// budget for every count).
    fn binaries(&self, b: &InitialBox, pins: &[usize]) -> Result<usize, RunError> {
        let model = self.model;
        let mut opts = self.opts.clone();
        opts.encode.obbt_budget = Duration::ZERO;
        let opts = &opts;
        let start = Start::Vars(start_of(b));
        if !self.zero_one {
            let mut u = Concrete::new(model, opts, self.nm, start, F64);
            u.enc.env_pins = pins.to_vec();
            return binaries(&mut u, self.goal);
        }
        let branching = crate::nis::explicit::branching::zero_one_branching(model);
        let mut u = SlotUnrolling::new(model, self.nm.1, start, branching, opts);
        u.enc.env_pins = pins.to_vec();
        binaries(&mut u, self.goal)
    }

    /// The MILP of part `p` ([`super::cover::solve_from`] with its pins).
    fn solve(
        &self,
        p: &Pending,
        opts: &MilpOptions,
        sizes: &mut Sizes,
    ) -> Result<Answer<RealTree>, RunError> {
        let (model, goal, (n, m)) = (self.model, self.goal, self.nm);
        let start = Start::Vars(start_of(&p.b));
        if !self.zero_one {
            let mut u = Concrete::new(model, opts, (n, m), start, F64);
            u.enc.env_pins = p.pins.clone();
            return solve(&mut u, goal, opts, sizes);
        }
        let b = crate::nis::explicit::branching::zero_one_branching(model);
        if b > 1 {
            let mut u = SlotUnrolling::new(model, m, start.clone(), 1, opts);
            u.enc.env_pins = p.pins.clone();
            if let Answer::Witness(t) = solve(&mut u, goal, opts, sizes)? {
                return Ok(Answer::Witness(t));
            }
        }
        let mut u = SlotUnrolling::new(model, m, start, b, opts);
        u.enc.env_pins = p.pins.clone();
        solve(&mut u, goal, opts, sizes)
    }

    /// The parts of `p` and how it is cut: its box's halves if their MILPs
    /// have fewer binaries (see [`MIN_GAIN_DIVISOR`]), else one part per
    /// choice of the environment in its next unpinned round on the same
    /// condition; `None` when `p` is decided whole.
    fn parts(
        &self,
        p: &Pending,
        stats: &mut SplitStats,
    ) -> Result<Option<(Cut, Vec<Pending>)>, RunError> {
        if p.depth >= self.opts.split.max_depth || p.binaries == 0 {
            return Ok(None);
        }
        let gain = (p.binaries / MIN_GAIN_DIVISOR).max(1);
        if let Some((lower, upper)) = halve(&p.b, &self.root) {
            let (lo_bin, hi_bin) = (
                self.binaries(&lower, &p.pins)?,
                self.binaries(&upper, &p.pins)?,
            );
            if lo_bin.max(hi_bin) + gain <= p.binaries {
                let cut = match parts_a_list(&p.b, &lower) {
                    true => Cut::List,
                    false => Cut::Box,
                };
                let half = |b, binaries| Pending {
                    b,
                    pins: p.pins.clone(),
                    depth: p.depth + 1,
                    binaries,
                };
                return Ok(Some((cut, vec![half(lower, lo_bin), half(upper, hi_bin)])));
            }
            stats.refused += 1;
        }
        if p.pins.len() >= self.rounds || self.actions.len() < 2 {
            return Ok(None);
        }
        let mut parts = Vec::with_capacity(self.actions.len());
        for pins in choice_parts(&p.pins, &self.actions) {
            let binaries = self.binaries(&p.b, &pins)?;
            parts.push(Pending {
                b: p.b.clone(),
                pins,
                depth: p.depth + 1,
                binaries,
            });
        }
        let most = parts.iter().map(|q| q.binaries).max().unwrap_or(0);
        if !self.opts.split.eager_choices && most + gain > p.binaries {
            stats.choices_refused += 1;
            return Ok(None);
        }
        Ok(Some((Cut::Choice, parts)))
    }

    /// Decides part `p` on the calling thread: its MILP (within the split
    /// budget when it may be cut), or its parts.
    fn decide(&self, p: Pending, opts: &MilpOptions) -> Done {
        let mut d = Done {
            step: Ok(Step::Closed),
            sizes: Sizes::default(),
            stats: SplitStats::default(),
        };
        d.step = self.step(p, opts, &mut d.sizes, &mut d.stats);
        d
    }

    fn step(
        &self,
        p: Pending,
        opts: &MilpOptions,
        sizes: &mut Sizes,
        stats: &mut SplitStats,
    ) -> Result<Step, RunError> {
        if opts.solve.deadline.expired() {
            return Err(at_deadline(opts, &p, stats));
        }
        stats.boxes += 1;
        stats.depth = stats.depth.max(p.depth);
        stats.pinned_rounds = stats.pinned_rounds.max(p.pins.len());
        let parts = self.parts(&p, stats)?;
        let eager = self.opts.split.eager_choices;
        match parts {
            // A list's members are separate starts: their MILPs are
            // smaller and the box's would only join them. Eager choices
            // are pinned before any MILP.
            Some((cut @ (Cut::List | Cut::Choice), parts)) if cut == Cut::List || eager => {
                count_cut(stats, cut);
                return Ok(Step::Parts(parts));
            }
            _ => {}
        }
        let attempt = match parts {
            Some(_) => budgeted(opts),
            None => opts.clone(),
        };
        let t = Instant::now();
        match self.solve(&p, &attempt, sizes) {
            Ok(Answer::Witness(tree)) => Ok(Step::Witness(tree)),
            Ok(Answer::NoStart | Answer::Infeasible) => Ok(Step::Closed),
            Err(RunError::TimedOut(why)) => {
                if opts.solve.deadline.expired() {
                    return Err(at_deadline(opts, &p, stats));
                }
                let Some((cut, parts)) = parts else {
                    return Err(RunError::TimedOut(why));
                };
                count_cut(stats, cut);
                stats.stalled_s += t.elapsed().as_secs_f64();
                Ok(Step::Parts(parts))
            }
            Err(e) => Err(e),
        }
    }
}

fn count_cut(stats: &mut SplitStats, cut: Cut) {
    match cut {
        Cut::Choice => stats.choice_splits += 1,
        Cut::List | Cut::Box => stats.splits += 1,
    }
}

/// What deciding one part gave.
enum Step {
    Witness(RealTree),
    Closed,
    /// Its parts, to decide in this order.
    Parts(Vec<Pending>),
    /// Not decided: an earlier part of its wave has a counterexample.
    Skipped,
}

/// One part's step with its counters.
struct Done {
    step: Result<Step, RunError>,
    sizes: Sizes,
    stats: SplitStats,
}

/// Searches for a counterexample (a solution of the dual goal `goal`) from
/// the initial box of `model`, depth-first over its parts (module docs),
/// in waves of [`WAVE`] parts on `opts.split.threads` threads.
pub fn decide_split(
    model: &Model,
    goal: &Core,
    nm: (usize, usize),
    zero_one: bool,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Split, RunError> {
    let single = one_path(goal);
    let job = Job {
        model,
        goal,
        nm,
        zero_one,
        opts,
        root: initial_box(model),
        actions: choice_actions(model),
        rounds: match single {
            true => opts.split.choice_rounds.min(steps(goal)),
            false => 0,
        },
    };
    let mut stats = SplitStats::default();
    let binaries = job.binaries(&job.root, &[])?;
    let mut stack = vec![Pending {
        b: job.root.clone(),
        pins: Vec::new(),
        depth: 0,
        binaries,
    }];
    let threads = opts.split.threads.max(1);
    // Parallel parts' MILPs run on one HiGHS thread each.
    let mut part_opts = opts.clone();
    if threads > 1 {
        part_opts.solve.threads = 1;
        part_opts.encode.lp.threads = 1;
    }
    while !stack.is_empty() {
        let wave: Vec<Pending> = (0..WAVE).map_while(|_| stack.pop()).collect();
        let done = run_wave(&job, wave, &part_opts, threads);
        let mut next = Vec::new();
        let mut end = None;
        for d in done {
            sizes.merge(&d.sizes);
            stats.merge(&d.stats);
            if end.is_some() {
                continue;
            }
            match d.step {
                Ok(Step::Witness(tree)) => end = Some(Ok(Some(tree))),
                Ok(Step::Parts(parts)) => next.extend(parts),
                Ok(Step::Closed | Step::Skipped) => {}
                Err(e) => end = Some(Err(e)),
            }
        }
        match end {
            Some(Ok(counterexample)) => {
                return Ok(Split {
                    counterexample,
                    stats,
                })
            }
            Some(Err(e)) => return Err(e),
            None => stack.extend(next.into_iter().rev()),
        }
    }
    Ok(Split {
        counterexample: None,
        stats,
    })
}

/// Decides the parts of `wave` (in its order: the first is the top of the
/// stack) on `threads` threads; a part after one with a counterexample is
/// skipped if not started yet.
fn run_wave(job: &Job, wave: Vec<Pending>, opts: &MilpOptions, threads: usize) -> Vec<Done> {
    if threads == 1 || wave.len() == 1 {
        let mut out = Vec::with_capacity(wave.len());
        let mut found = false;
        for p in wave {
            let d = match found {
                true => skipped(),
                false => job.decide(p, opts),
            };
            found |= matches!(d.step, Ok(Step::Witness(_)) | Err(_));
            out.push(d);
        }
        return out;
    }
    let n = wave.len();
    let jobs: Mutex<std::vec::IntoIter<(usize, Pending)>> =
        Mutex::new(wave.into_iter().enumerate().collect::<Vec<_>>().into_iter());
    let results: Mutex<Vec<Option<Done>>> = Mutex::new((0..n).map(|_| None).collect());
    let cut = AtomicUsize::new(usize::MAX);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(n) {
            let (jobs, results, cut) = (&jobs, &results, &cut);
            std::thread::Builder::new()
                .name("split".into())
                .stack_size(WORKER_STACK)
                .spawn_scoped(scope, move || loop {
                    let next = jobs.lock().expect("no part panics holding it").next();
                    let Some((i, p)) = next else { return };
                    let d = match i > cut.load(Ordering::SeqCst) {
                        true => skipped(),
                        false => job.decide(p, opts),
                    };
                    if matches!(d.step, Ok(Step::Witness(_)) | Err(_)) {
                        cut.fetch_min(i, Ordering::SeqCst);
                    }
                    results.lock().expect("no part panics holding it")[i] = Some(d);
                })
                .expect("spawn a split worker");
        }
    });
    let results = results.into_inner().expect("the workers ended");
    results
        .into_iter()
        .map(|d| d.unwrap_or_else(skipped))
        .collect()
}

fn skipped() -> Done {
    Done {
        step: Ok(Step::Skipped),
        sizes: Sizes::default(),
        stats: SplitStats::default(),
    }
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

/// The run's deadline passed while part `p` was being decided: the partial
/// report says how far the splitting got.
fn at_deadline(opts: &MilpOptions, p: &Pending, stats: &SplitStats) -> RunError {
    let b = &p.b;
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
    let pinned = match p.pins.is_empty() {
        true => String::new(),
        false => format!(
            " with the environment's actions of the first {} rounds pinned",
            p.pins.len()
        ),
    };
    RunError::TimedOut(format!(
        "{expired} while HiGHS was solving a MILP of the decider over the initial box {}{pinned} (input splitting: {} parts tried, {} halved, {} split over the environment's choices, depth {}, {} not halved for want of tighter bounds)",
        sides.join(" x "),
        stats.boxes,
        stats.splits,
        stats.choice_splits,
        stats.depth,
        stats.refused
    ))
}

#[cfg(test)]
#[path = "split_tests.rs"]
mod tests;
