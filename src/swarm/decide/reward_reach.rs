//! Expected reward until reaching a target, `Rmin=? [ F psi ]` and
//! `Rmax=? [ F psi ]`, soundly (PRISM's and Storm's conventions: a
//! scheduler that misses the target with positive probability earns
//! infinity). The states of infinite value are found on the graph: for
//! Rmin those where no scheduler reaches the target almost surely (Pmax < 1),
//! for Rmax those where some scheduler misses it (Pmin < 1); the choices
//! that can enter them are never taken by an optimal finite scheduler.
//!
//! f64: a lower iterate from 0 (value iteration, monotone) and an upper
//! bound found as in optimistic value iteration (Hartmanns and Kaminski,
//! CAV 2020): a guess above the lower iterate is accepted only when it is
//! inductive, T(u) <= u, with a proper scheduler attaining it (every state
//! reaches the target under it), which makes u at least the value of that
//! scheduler and so of the optimum (for Rmax every scheduler is proper on
//! the finite states, so T(u) <= u bounds them all). Both iterates then
//! move towards each other until they are within the precision. For Rmin
//! the end components of zero-reward choices are collapsed first (as Storm
//! does): inside one a scheduler may stay for free, which gives the Bellman
//! equations spurious fixed points.
//!
//! Exact: policy iteration over the rationals from the f64 scheduler
//! (Puterman, Section 7.2; for stochastic shortest paths, Bertsekas and
//! Tsitsiklis 1991), each scheduler's rewards solved exactly. From a proper
//! scheduler a strict improvement stays proper: a closed class C of the new
//! chain without the target would have, under its stationary distribution,
//! sum r + V = V with r >= 0 and a strict decrease at a changed state.

use super::graph::{mecs_over, zero_one, Mecs, Preds};
use super::mdp::Mdp;
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;

/// Sound bounds of the expected reward at every state.
#[derive(Clone, Debug)]
pub struct RewardInterval {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// States of infinite value (`lo` and `hi` are infinite there).
    pub infinite: Vec<bool>,
    pub iterations: usize,
    /// A proper scheduler that attains `hi` (one choice per finite state
    /// that is not a target, `u32::MAX` elsewhere).
    pub scheduler: Vec<u32>,
}

/// The graph facts and step rewards the iterations read.
pub(super) struct Setup<'a> {
    pub mdp: &'a Mdp,
    pub target: &'a [bool],
    pub infinite: Vec<bool>,
    /// Finite states that are not targets.
    pub maybe: Vec<usize>,
    /// Choices whose successors are all finite.
    pub usable: Vec<bool>,
    pub step: &'a [f64],
    pub opt: Opt,
    /// Rmin: the end components of zero-reward choices, collapsed.
    pub collapse: Option<Mecs>,
}

impl<'a> Setup<'a> {
    pub fn new(mdp: &'a Mdp, step: &'a [f64], target: &'a [bool], opt: Opt) -> Self {
        let n = mdp.num_states();
        let preds = Preds::new(mdp);
        let all = vec![true; n];
        // Rmin is finite where Pmax = 1, Rmax where Pmin = 1.
        let finite = zero_one(mdp, &preds, target, &all, opt.flip()).one;
        let infinite: Vec<bool> = (0..n).map(|s| !finite[s] && !target[s]).collect();
        let usable: Vec<bool> = (0..mdp.num_choices())
            .map(|c| mdp.entries(c).all(|e| !infinite[mdp.targets[e] as usize]))
            .collect();
        let maybe: Vec<usize> = (0..n).filter(|&s| !infinite[s] && !target[s]).collect();
        let collapse = (opt == Opt::Min).then(|| {
            let within: Vec<bool> = (0..n).map(|s| !infinite[s] && !target[s]).collect();
            let free: Vec<bool> = (0..mdp.num_choices())
                .map(|c| usable[c] && step[c] == 0.0)
                .collect();
            mecs_over(mdp, &within, &free)
        });
        Setup {
            mdp,
            target,
            infinite,
            maybe,
            usable,
            step,
            opt,
            collapse,
        }
    }

    fn in_mec(&self, s: usize) -> bool {
        self.collapse.as_ref().is_some_and(|m| m.mec[s] != u32::MAX)
    }

    /// The value of choice `c` under `v`.
    pub fn choice(&self, c: usize, v: &[f64]) -> f64 {
        self.step[c]
            + self
                .mdp
                .entries(c)
                .map(|e| self.mdp.probs[e] * v[self.mdp.targets[e] as usize])
                .sum::<f64>()
    }

    /// The best usable choice of `s` under `v`: (value, choice).
    fn best(&self, s: usize, v: &[f64]) -> (f64, u32) {
        self.best_of(self.mdp.choices(s).filter(|&c| self.usable[c]), v)
    }

    fn best_of(&self, cs: impl Iterator<Item = usize>, v: &[f64]) -> (f64, u32) {
        let mut out: Option<(f64, u32)> = None;
        for c in cs {
            let x = self.choice(c, v);
            let better = match (out, self.opt) {
                (None, _) => true,
                (Some((b, _)), Opt::Max) => x > b,
                (Some((b, _)), Opt::Min) => x < b,
            };
            if better {
                out = Some((x, c as u32));
            }
        }
        out.unwrap_or((f64::INFINITY, u32::MAX))
    }

    /// One Gauss-Seidel sweep of `v` towards the value, keeping the better
    /// of old and new (`up`: a lower iterate rises, an upper one falls);
    /// returns the largest change. The states go in the reverse of their
    /// exploration order: values flow backwards from the targets, which
    /// breadth-first exploration numbers late, so one sweep carries them
    /// along every path that follows the numbering.
    fn sweep(&self, v: &mut [f64], up: bool, deadline: Deadline) -> Result<f64, Expired> {
        let mut change: f64 = 0.0;
        for (k, &s) in self.maybe.iter().rev().enumerate() {
            if k % 4096 == 4095 {
                deadline.check()?;
            }
            if !self.in_mec(s) {
                change = change.max(self.keep(v, s, self.best(s, v).0, up));
            }
        }
        if let Some(m) = &self.collapse {
            let values: Vec<f64> = m
                .exits
                .iter()
                .map(|ex| {
                    let usable = ex.iter().map(|&c| c as usize).filter(|&c| self.usable[c]);
                    self.best_of(usable, v).0
                })
                .collect();
            for &s in &self.maybe {
                if m.mec[s] != u32::MAX {
                    change = change.max(self.keep(v, s, values[m.mec[s] as usize], up));
                }
            }
        }
        Ok(change)
    }

    fn keep(&self, v: &mut [f64], s: usize, x: f64, up: bool) -> f64 {
        let old = v[s];
        v[s] = if up { old.max(x) } else { old.min(x) };
        (v[s] - old).abs()
    }
}

/// Interval iteration for `R_opt[ F target ]` with the per-choice step
/// rewards `step`, until the bounds at the initial states are within
/// `precision`.
pub fn reward_interval(
    mdp: &Mdp,
    step: &[f64],
    target: &[bool],
    opt: Opt,
    precision: f64,
    deadline: Deadline,
) -> Result<RewardInterval, Expired> {
    let st = Setup::new(mdp, step, target, opt);
    let n = mdp.num_states();
    let init = |s: usize| if st.infinite[s] { f64::INFINITY } else { 0.0 };
    let mut lo: Vec<f64> = (0..n).map(init).collect();
    let mut iterations = 0;
    let mut threshold = 1e-3_f64;
    let (mut hi, mut scheduler) = loop {
        iterations += 1;
        let change = st.sweep(&mut lo, true, deadline)?;
        if change > threshold {
            continue;
        }
        if let Some(found) = guess_upper(&st, &lo, threshold, iterations, deadline)? {
            break found;
        }
        threshold /= 10.0;
    };
    let width = |lo: &[f64], hi: &[f64]| {
        mdp.initial
            .iter()
            .map(|&i| hi[i as usize] - lo[i as usize])
            .filter(|w| !w.is_nan())
            .fold(0.0, f64::max)
    };
    while width(&lo, &hi) > precision {
        iterations += 1;
        st.sweep(&mut lo, true, deadline)?;
        st.sweep(&mut hi, false, deadline)?;
    }
    if let Some(s) = inductive(&st, &hi) {
        scheduler = s;
    }
    Ok(RewardInterval {
        lo,
        hi,
        infinite: st.infinite,
        iterations,
        scheduler,
    })
}

/// An inductive upper bound and the proper scheduler that attains it.
type Upper = (Vec<f64>, Vec<u32>);

/// Guesses an upper bound a little above `lo` and iterates it down for up
/// to `rounds` sweeps, until it is inductive with a proper scheduler.
fn guess_upper(
    st: &Setup,
    lo: &[f64],
    eps: f64,
    rounds: usize,
    deadline: Deadline,
) -> Result<Option<Upper>, Expired> {
    let mut u: Vec<f64> = lo.iter().map(|&x| x + (x.abs() + 1.0) * eps).collect();
    for (s, x) in u.iter_mut().enumerate() {
        if st.target[s] {
            *x = 0.0;
        }
    }
    for _ in 0..rounds.max(8) {
        deadline.check()?;
        if let Some(sched) = inductive(st, &u) {
            return Ok(Some((u, sched)));
        }
        let next: Vec<f64> = (0..u.len())
            .map(|s| {
                if st.target[s] || st.infinite[s] {
                    u[s]
                } else {
                    st.best(s, &u).0
                }
            })
            .collect();
        u = next;
    }
    Ok(None)
}

/// Whether `u` is an inductive upper bound: a proper scheduler whose one
/// step from `u` stays at or below `u` everywhere (Rmax: every usable
/// choice must). Returns that scheduler.
fn inductive(st: &Setup, u: &[f64]) -> Option<Vec<u32>> {
    let mdp = st.mdp;
    let n = mdp.num_states();
    let ok = |c: usize, s: usize| st.usable[c] && st.choice(c, u) <= u[s];
    if st.opt == Opt::Max {
        let all_ok = st
            .maybe
            .iter()
            .all(|&s| mdp.choices(s).all(|c| ok(c, s) || !st.usable[c]));
        if !all_ok {
            return None;
        }
        let mut sched = vec![u32::MAX; n];
        for &s in &st.maybe {
            sched[s] = st.best(s, u).1;
        }
        return Some(sched);
    }
    // Rmin: states join backwards from the target by a choice that is
    // within the bound and enters the states already joined.
    let mut joined: Vec<bool> = st.target.to_vec();
    let mut sched = vec![u32::MAX; n];
    let mut left = st.maybe.len();
    let mut changed = true;
    while changed && left > 0 {
        changed = false;
        for &s in &st.maybe {
            if joined[s] {
                continue;
            }
            let enter = mdp
                .choices(s)
                .find(|&c| ok(c, s) && mdp.entries(c).any(|e| joined[mdp.targets[e] as usize]));
            if let Some(c) = enter {
                joined[s] = true;
                sched[s] = c as u32;
                left -= 1;
                changed = true;
            }
        }
    }
    (left == 0).then_some(sched)
}
