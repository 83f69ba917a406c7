//! Unbounded reachability `P_opt[ allowed U target ]`, soundly: interval
//! iteration in f64 (Haddad and Monmege; Baier, Klein, Leuschner, Parker
//! and Wunderlich, CAV 2017), a lower iterate from 0 and an upper iterate
//! from 1, both monotone, stopped when they are within the precision at the
//! initial states. The graph preprocessing ([`super::graph`]) fixes the
//! states of probability 0 and 1, so that the upper iterate has a unique
//! fixed point to fall to: for Pmin every end component among the other
//! states has probability 0 (a scheduler may stay in it), so none is left;
//! for Pmax each maximal end component is collapsed, its states sharing the
//! best value of the choices that leave it.

use super::graph::{mecs, zero_one, Mecs, Preds};
use super::mdp::Mdp;
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;

/// Sound bounds at every state, and the optimal choices found.
#[derive(Clone, Debug)]
pub struct Interval {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// Sweeps over the states until the bounds met the precision.
    pub iterations: usize,
    /// States whose value is fixed by the graph preprocessing (0 or 1).
    pub fixed: Vec<bool>,
    /// Per state, a choice optimal for the lower iterate (`u32::MAX` for
    /// fixed states).
    pub scheduler: Vec<u32>,
}

/// States between two looks at the clock.
const STATES_PER_CHECK: usize = 4096;

/// The value of choice `c` under `v`.
fn choice_value(mdp: &Mdp, c: usize, v: &[f64]) -> f64 {
    mdp.entries(c)
        .map(|e| mdp.probs[e] * v[mdp.targets[e] as usize])
        .sum()
}

/// The best choice of `s` under `v` and its value.
fn best(mdp: &Mdp, s: usize, v: &[f64], opt: Opt) -> (f64, u32) {
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

/// Interval iteration until the bounds at the initial states are within
/// `precision` of each other (Gauss-Seidel: each sweep uses the values of
/// the same sweep where it has them, which keeps both iterates monotone).
pub fn interval_iteration(
    mdp: &Mdp,
    target: &[bool],
    allowed: &[bool],
    opt: Opt,
    precision: f64,
    deadline: Deadline,
) -> Result<Interval, Expired> {
    let n = mdp.num_states();
    let preds = Preds::new(mdp);
    let zo = zero_one(mdp, &preds, target, allowed, opt);
    let one = |s: usize| target[s] || zo.one[s];
    let fixed: Vec<bool> = (0..n).map(|s| one(s) || zo.zero[s]).collect();
    let mut lo: Vec<f64> = (0..n).map(|s| if one(s) { 1.0 } else { 0.0 }).collect();
    let mut hi: Vec<f64> = (0..n).map(|s| if zo.zero[s] { 0.0 } else { 1.0 }).collect();
    let maybe: Vec<usize> = (0..n).filter(|&s| !fixed[s]).collect();
    let collapse = match opt {
        Opt::Max => Some(mecs(mdp, &(0..n).map(|s| !fixed[s]).collect::<Vec<_>>())),
        Opt::Min => None,
    };
    let mut iterations = 0;
    while mdp
        .initial
        .iter()
        .any(|&i| hi[i as usize] - lo[i as usize] > precision)
    {
        deadline.check()?;
        iterations += 1;
        for (k, &s) in maybe.iter().enumerate() {
            if k % STATES_PER_CHECK == STATES_PER_CHECK - 1 {
                deadline.check()?;
            }
            lo[s] = lo[s].max(best(mdp, s, &lo, opt).0);
            if collapse.as_ref().is_none_or(|m| m.mec[s] == u32::MAX) {
                hi[s] = hi[s].min(best(mdp, s, &hi, opt).0);
            }
        }
        if let Some(m) = &collapse {
            collapsed_upper(mdp, m, &mut hi);
        }
    }
    let mut scheduler = vec![u32::MAX; n];
    for &s in &maybe {
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

/// The upper iterate on the collapsed end components: every state of a
/// component gets the best value of a choice that leaves it.
fn collapsed_upper(mdp: &Mdp, m: &Mecs, hi: &mut [f64]) {
    let values: Vec<f64> = m
        .exits
        .iter()
        .map(|exits| {
            exits
                .iter()
                .map(|&c| choice_value(mdp, c as usize, hi))
                .fold(0.0, f64::max)
        })
        .collect();
    for (s, &k) in m.mec.iter().enumerate() {
        if k != u32::MAX {
            hi[s] = hi[s].min(values[k as usize]);
        }
    }
}
