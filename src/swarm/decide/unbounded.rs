//! Unbounded reachability `P_opt[ allowed U target ]`, soundly: interval
//! iteration in f64 (Haddad and Monmege; Baier, Klein, Leuschner, Parker
//! and Wunderlich, CAV 2017), a lower iterate from 0 and an upper iterate
//! from 1, both monotone, stopped when they are within the precision at the
//! initial states; one strongly connected component at a time, in reverse
//! topological order ([`super::topological`]). The graph preprocessing ([`super::graph`]) fixes the
//! states of probability 0 and 1, so that the upper iterate has a unique
//! fixed point to fall to: for Pmin every end component among the other
//! states has probability 0 (a scheduler may stay in it), so none is left;
//! for Pmax each maximal end component is collapsed, its states sharing the
//! best value of the choices that leave it (in both iterates: that value is
//! the component's, so the lower iterate stays below it too).

use super::graph::{mecs, zero_one, Mecs, Preds};
use super::mdp::Mdp;
use super::optimistic::narrow;
use super::topological::{initial_gap, rounding_error, step_trivial, Bellman, Blocks};
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;

/// Sound bounds at every state, and the optimal choices found.
#[derive(Clone, Debug)]
pub struct Interval {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// The most sweeps one component took, summed over the passes.
    pub iterations: usize,
    /// States whose value is fixed by the graph preprocessing (0 or 1).
    pub fixed: Vec<bool>,
    /// Per state, a choice optimal for the lower iterate (`u32::MAX` for
    /// fixed states).
    pub scheduler: Vec<u32>,
}

/// The value of choice `c` under `v`.
pub(super) fn choice_value(mdp: &Mdp, c: usize, v: &[f64]) -> f64 {
    mdp.entries(c)
        .map(|e| mdp.probs[e] * v[mdp.targets[e] as usize])
        .sum()
}

/// The best choice of `s` under `v` and its value.
pub(super) fn best(mdp: &Mdp, s: usize, v: &[f64], opt: Opt) -> (f64, u32) {
    let mut out: Option<(f64, u32)> = None;
    for c in mdp.choices(s) {
        let x = choice_value(mdp, c, v);
        let better = match (out, opt) {
            (None, _) => true,
            (Some((b, _)), Opt::Max) => x > b,
            (Some((b, _)), Opt::Min) => x < b,
        };
        if better {
            out = Some((x, c as u32));
        }
    }
    out.unwrap_or((0.0, u32::MAX))
}

/// The reachability operator: the best choice, and Pmax's collapse.
struct Reach<'a> {
    mdp: &'a Mdp,
    opt: Opt,
    collapse: Option<Mecs>,
    delta: f64,
}

impl Bellman for Reach<'_> {
    fn mdp(&self) -> &Mdp {
        self.mdp
    }

    fn delta(&self) -> f64 {
        self.delta
    }

    fn best(&self, s: usize, v: &[f64]) -> (f64, u32) {
        best(self.mdp, s, v, self.opt)
    }

    fn collapse(&self) -> Option<&Mecs> {
        self.collapse.as_ref()
    }

    fn exit_value(&self, m: usize, v: &[f64]) -> f64 {
        let exits = &self.collapse.as_ref().expect("collapsed").exits[m];
        exits
            .iter()
            .map(|&c| choice_value(self.mdp, c as usize, v))
            .fold(0.0, f64::max)
    }
}

/// Topological interval iteration until the bounds at the initial states
/// are within `precision` of each other; the states updated go to `at`'s
/// meter.
pub fn interval_iteration(
    mdp: &Mdp,
    target: &[bool],
    allowed: &[bool],
    opt: Opt,
    precision: f64,
    at: (Deadline, &crate::report::meter::Meter),
) -> Result<Interval, Expired> {
    let n = mdp.num_states();
    let preds = Preds::new(mdp);
    let zo = zero_one(mdp, &preds, target, allowed, opt);
    drop(preds);
    let one = |s: usize| target[s] || zo.one[s];
    let fixed: Vec<bool> = (0..n).map(|s| one(s) || zo.zero[s]).collect();
    let mut lo: Vec<f64> = (0..n).map(|s| if one(s) { 1.0 } else { 0.0 }).collect();
    let mut hi: Vec<f64> = (0..n).map(|s| if zo.zero[s] { 0.0 } else { 1.0 }).collect();
    let maybe: Vec<bool> = fixed.iter().map(|f| !f).collect();
    let op = Reach {
        mdp,
        opt,
        collapse: (opt == Opt::Max).then(|| mecs(mdp, &maybe)),
        delta: rounding_error(mdp),
    };
    let blocks = Blocks::new(&op, &maybe);
    let mut eps = precision / 4.0;
    let mut iterations = 0;
    loop {
        let before = initial_gap(mdp, &lo, &hi);
        let mut most = 0;
        for k in 0..blocks.comps.len() {
            if blocks.comps.trivial(mdp, k) {
                step_trivial(&op, blocks.comps.get(k)[0] as usize, &mut lo, &mut hi);
                at.1.add(2);
            } else {
                let accept = &mut |_: &[f64]| true;
                let swept = narrow(&op, &blocks, k, &mut lo, &mut hi, eps, accept, at)?;
                most = most.max(swept);
            }
        }
        iterations += most;
        let after = initial_gap(mdp, &lo, &hi);
        if after <= precision || after >= before {
            break;
        }
        eps /= 10.0;
    }
    let mut scheduler = vec![u32::MAX; n];
    for s in (0..n).filter(|&s| maybe[s]) {
        scheduler[s] = best(mdp, s, &lo, opt).1;
    }
    Ok(Interval {
        lo,
        hi,
        iterations,
        fixed,
        scheduler,
    })
}
