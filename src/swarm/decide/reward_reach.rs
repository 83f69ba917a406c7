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
//! move towards each other until they are within the precision. All this
//! is done one strongly connected component at a time, in reverse
//! topological order ([`super::topological`]): a component's upper bound is
//! guessed and checked with the upper bounds of the states it leaves to
//! already found, which is sound because a proper scheduler inside the
//! component, followed by optimal ones after it, is proper. For Rmin
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
use super::optimistic::narrow;
use super::topological::{
    initial_gap, outward, rounding_error, step_trivial, sweep, Bellman, Blocks,
};
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
    /// The choices entering every state (the proper-scheduler search).
    pub preds: Preds,
    /// The relative rounding error of a computed Bellman value
    /// ([`rounding_error`]).
    pub delta: f64,
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
            preds,
            delta: rounding_error(mdp),
        }
    }

    /// Whether choice `c` of `s` keeps `u` inductive, on the exact model:
    /// its value under `u`, moved up by its rounding error, is at most
    /// `u[s]`; or its step reward plus its successors' largest bound is (the
    /// exact probabilities sum to 1, so the exact value is at most that).
    /// The second holds with equality where the first cannot: a zero-reward
    /// choice among states of one bound (inside a collapsed end component).
    pub(super) fn within(&self, c: usize, s: usize, u: &[f64]) -> bool {
        if !self.usable[c] {
            return false;
        }
        if outward(self.choice(c, u), self.delta, false) <= u[s] {
            return true;
        }
        let most = self
            .mdp
            .entries(c)
            .map(|e| u[self.mdp.targets[e] as usize])
            .fold(f64::NEG_INFINITY, f64::max);
        let step = self.step[c];
        let x = if step == 0.0 {
            most
        } else {
            outward(step + most, self.delta, false)
        };
        x <= u[s]
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
    pub(super) fn best(&self, s: usize, v: &[f64]) -> (f64, u32) {
        self.best_of(self.mdp.choices(s).filter(|&c| self.usable[c]), v)
    }

    pub(super) fn best_of(&self, cs: impl Iterator<Item = usize>, v: &[f64]) -> (f64, u32) {
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
}

impl Bellman for Setup<'_> {
    fn mdp(&self) -> &Mdp {
        self.mdp
    }

    fn delta(&self) -> f64 {
        self.delta
    }

    fn best(&self, s: usize, v: &[f64]) -> (f64, u32) {
        Setup::best(self, s, v)
    }

    fn collapse(&self) -> Option<&Mecs> {
        self.collapse.as_ref()
    }

    fn exit_value(&self, m: usize, v: &[f64]) -> f64 {
        let exits = &self.collapse.as_ref().expect("collapsed").exits[m];
        let usable = exits
            .iter()
            .map(|&c| c as usize)
            .filter(|&c| self.usable[c]);
        self.best_of(usable, v).0
    }
}

/// Topological interval iteration for `R_opt[ F target ]` with the
/// per-choice step rewards `step`, until the bounds at the initial states
/// are within `precision`. `iterations` is the most sweeps one component
/// took, summed over the passes.
pub fn reward_interval(
    mdp: &Mdp,
    step: &[f64],
    target: &[bool],
    opt: Opt,
    precision: f64,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<RewardInterval, Expired> {
    let st = Setup::new(mdp, step, target, opt);
    let n = mdp.num_states();
    let mut lo: Vec<f64> = (0..n)
        .map(|s| if st.infinite[s] { f64::INFINITY } else { 0.0 })
        .collect();
    // Upper bounds are found component by component: unknown until then.
    let mut hi: Vec<f64> = (0..n)
        .map(|s| if st.target[s] { 0.0 } else { f64::INFINITY })
        .collect();
    let mut is_maybe = vec![false; n];
    st.maybe.iter().for_each(|&s| is_maybe[s] = true);
    let blocks = Blocks::new(&st, &is_maybe);
    let mut solver = BlockSolver {
        st: &st,
        blocks: &blocks,
        scheduler: vec![u32::MAX; n],
        joined: vec![false; n],
        deadline,
        meter,
    };
    let mut eps = precision / 4.0;
    let mut iterations = 0;
    loop {
        let before = initial_gap(mdp, &lo, &hi);
        let mut most = 0;
        for k in 0..blocks.comps.len() {
            most = most.max(solver.solve(k, &mut lo, &mut hi, eps)?);
        }
        iterations += most;
        let after = initial_gap(mdp, &lo, &hi);
        if after <= precision || after >= before {
            break;
        }
        eps /= 10.0;
    }
    let scheduler = solver.scheduler;
    Ok(RewardInterval {
        lo,
        hi,
        infinite: st.infinite,
        iterations,
        scheduler,
    })
}

/// Solves the components of a reward iteration one at a time.
struct BlockSolver<'a> {
    st: &'a Setup<'a>,
    blocks: &'a Blocks,
    scheduler: Vec<u32>,
    /// Scratch of the proper-scheduler search, false between searches.
    joined: Vec<bool>,
    deadline: Deadline,
    /// Counts the states updated.
    meter: &'a crate::report::meter::Meter,
}

/// The smallest change of a lower-bound sweep waited for before guessing.
const THRESHOLD_FLOOR: f64 = 1e-13;

/// The fewest sweeps of value iteration a guessed upper bound gets to
/// become inductive (it gets as many as the lower bound took, if more).
const GUESS_ROUNDS: usize = 8;

impl BlockSolver<'_> {
    /// Component k: both bounds within its exits' gap plus `eps` (an upper
    /// bound guessed first if it has none), and a proper scheduler. Returns
    /// the sweeps taken.
    fn solve(
        &mut self,
        k: usize,
        lo: &mut [f64],
        hi: &mut [f64],
        eps: f64,
    ) -> Result<usize, Expired> {
        let (st, blocks) = (self.st, self.blocks);
        let states = blocks.comps.get(k);
        if blocks.comps.trivial(st.mdp, k) {
            let s = states[0] as usize;
            self.scheduler[s] = step_trivial(st, s, lo, hi);
            self.meter.add(2);
            return Ok(0);
        }
        let mut sweeps = 0;
        if hi[states[0] as usize].is_infinite() {
            sweeps += self.find_upper(k, lo, hi)?;
        }
        let at = (self.deadline, self.meter);
        let accept = &mut |u: &[f64]| self.inductive(k, u).is_some();
        sweeps += narrow(st, blocks, k, lo, hi, eps, accept, at)?;
        if let Some(choices) = self.inductive(k, hi) {
            for (&s, c) in states.iter().zip(choices) {
                self.scheduler[s as usize] = c;
            }
        }
        Ok(sweeps)
    }

    /// Raises the lower bound until a sweep changes it by at most a
    /// threshold, then guesses an upper bound a little above it and checks
    /// it; on failure the threshold falls tenfold, down to a floor where
    /// the lower bound has stopped moving in f64; from there the guess's
    /// margin grows tenfold instead (a wider guess is inductive once the
    /// rounding is inside it). Returns the sweeps taken.
    fn find_upper(&mut self, k: usize, lo: &mut [f64], hi: &mut [f64]) -> Result<usize, Expired> {
        let (st, blocks) = (self.st, self.blocks);
        let states = blocks.comps.get(k);
        let mecs = blocks.mecs_of(st, k);
        let exits = blocks.exit_gap(st.mdp, k, lo, hi);
        let (mut threshold, mut margin) = (1e-3_f64, 1e-3_f64);
        let mut sweeps = 0;
        loop {
            self.deadline.check()?;
            sweeps += 1;
            self.meter.add(states.len() as u64);
            if sweep(st, blocks, states, &mecs, lo, true) > threshold {
                continue;
            }
            if let Some(choices) = self.guess(k, lo, hi, margin, exits, sweeps)? {
                for (&s, c) in states.iter().zip(choices) {
                    self.scheduler[s as usize] = c;
                }
                return Ok(sweeps);
            }
            if threshold > THRESHOLD_FLOOR {
                threshold /= 10.0;
                margin = threshold;
            } else {
                margin *= 10.0;
            }
        }
    }

    /// Puts a guess `lo + exits + (|lo| + 1) eps` into `hi` on component k
    /// and iterates it down (Jacobi, up to `rounds` sweeps) until it is inductive with a proper
    /// scheduler, which it returns; `hi` goes back to infinity on failure.
    /// The lower bound converges to the values with the exits at their
    /// lower bounds; the upper fixed point is at most `exits` (their
    /// largest gap) above it, so the guess adds that first.
    fn guess(
        &mut self,
        k: usize,
        lo: &[f64],
        hi: &mut [f64],
        eps: f64,
        exits: f64,
        rounds: usize,
    ) -> Result<Option<Vec<u32>>, Expired> {
        let st = self.st;
        let states = self.blocks.comps.get(k);
        for &s in states {
            let x = lo[s as usize];
            hi[s as usize] = x + exits + (x.abs() + 1.0) * eps;
        }
        for _ in 0..rounds.max(GUESS_ROUNDS) {
            self.deadline.check()?;
            if let Some(choices) = self.inductive(k, hi) {
                return Ok(Some(choices));
            }
            let next: Vec<f64> = states.iter().map(|&s| st.best(s as usize, hi).0).collect();
            self.meter.add(states.len() as u64);
            for (&s, x) in states.iter().zip(next) {
                hi[s as usize] = x;
            }
        }
        states.iter().for_each(|&s| hi[s as usize] = f64::INFINITY);
        Ok(None)
    }

    /// Whether `u` is an inductive upper bound on component k (the states
    /// it leaves to keep theirs): one step from `u` stays at or below `u`
    /// under a proper scheduler, and for Rmax under every usable choice.
    /// Returns that scheduler's choices, in the component's order.
    fn inductive(&mut self, k: usize, u: &[f64]) -> Option<Vec<u32>> {
        let (st, blocks) = (self.st, self.blocks);
        let mdp = st.mdp;
        let states = blocks.comps.get(k);
        let ok = |c: usize, s: usize| st.within(c, s, u);
        if st.opt == Opt::Max {
            let all = states.iter().all(|&s| {
                let s = s as usize;
                mdp.choices(s).all(|c| !st.usable[c] || ok(c, s))
            });
            return all.then(|| states.iter().map(|&s| st.best(s as usize, u).1).collect());
        }
        // Rmin: states join backwards from the states outside the component
        // (targets, or finite states with proper schedulers of their own)
        // by a choice within the bound that enters a state already joined.
        let inside = |t: usize| blocks.block_of[t] == k as u32;
        let mut pick: Vec<(u32, u32)> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        for &s in states {
            let s = s as usize;
            let leaves = |c: usize| mdp.entries(c).any(|e| !inside(mdp.targets[e] as usize));
            if let Some(c) = mdp.choices(s).find(|&c| ok(c, s) && leaves(c)) {
                self.joined[s] = true;
                pick.push((s as u32, c as u32));
                stack.push(s);
            }
        }
        while let Some(t) = stack.pop() {
            for &c in st.preds.of(t) {
                let s = st.preds.owner[c as usize] as usize;
                if inside(s) && !self.joined[s] && ok(c as usize, s) {
                    self.joined[s] = true;
                    pick.push((s as u32, c));
                    stack.push(s);
                }
            }
        }
        states.iter().for_each(|&s| self.joined[s as usize] = false);
        if pick.len() < states.len() {
            return None;
        }
        // In the component's order.
        pick.sort_unstable();
        Some(
            states
                .iter()
                .map(|s| pick[pick.binary_search_by_key(s, |p| p.0).expect("joined")].1)
                .collect(),
        )
    }
}
