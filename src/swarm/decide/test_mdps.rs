//! Small MDPs for the unbounded and reward tests: written out by hand or
//! drawn at random, every memoryless deterministic scheduler of one
//! enumerated (optimal reachability and optimal expected total rewards both
//! have such a scheduler), and the check each brute-force comparison makes.

use super::mdp::{Mdp, StateTable};
use crate::lang::{num, Rat};
use crate::swarm::front::props::Opt;

/// An MDP from its choices: per state, per choice, (target, probability).
pub(super) fn mdp(states: &[Vec<Vec<(u32, Rat)>>], initial: u32) -> Mdp {
    let (mut row_start, mut choice_start) = (vec![0], vec![0]);
    let (mut targets, mut probs, mut exact, mut labels) = (vec![], vec![], vec![], vec![]);
    for choices in states {
        for c in choices {
            for (t, p) in c {
                targets.push(*t);
                probs.push(num::to_f64(p));
                exact.push(p.clone());
            }
            choice_start.push(targets.len());
            labels.push(0);
        }
        row_start.push(labels.len());
    }
    Mdp {
        states: StateTable::new(1),
        initial: vec![initial],
        row_start,
        choice_label: labels,
        choice_start,
        targets,
        probs,
        exact: Some(exact),
    }
}

pub(super) fn r(n: i64, d: i64) -> Rat {
    num::rat(n, d)
}

/// A small pseudo-random MDP: each state has one or two choices of one to
/// three successors with probabilities k/6.
pub(super) fn random_mdp(seed: &mut u64, n: usize) -> Mdp {
    let mut next = |m: u64| {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) % m
    };
    let states: Vec<Vec<Vec<(u32, Rat)>>> = (0..n)
        .map(|_| {
            (0..1 + next(2))
                .map(|_| {
                    let k = 1 + next(3) as i64;
                    let mut left = 6i64;
                    (0..k)
                        .map(|j| {
                            // Each later successor still needs at least 1/6.
                            let rest = k - j - 1;
                            let p = if rest == 0 {
                                left
                            } else {
                                1 + next((left - rest) as u64) as i64
                            };
                            left -= p;
                            (next(n as u64) as u32, r(p, 6))
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    mdp(&states, 0)
}

/// The value of every memoryless deterministic scheduler of `m` (per state
/// the index of its choice), each computed by `chain`.
pub(super) fn every_scheduler(m: &Mdp, mut chain: impl FnMut(&[usize]) -> f64) -> Vec<f64> {
    let n = m.num_states();
    let arity: Vec<usize> = (0..n).map(|s| m.choices(s).len()).collect();
    let mut values = Vec::new();
    let mut sigma = vec![0usize; n];
    loop {
        values.push(chain(&sigma));
        let Some(s) = (0..n).find(|&s| sigma[s] + 1 < arity[s]) else {
            return values;
        };
        sigma[s] += 1;
        sigma[..s].iter_mut().for_each(|x| *x = 0);
    }
}

/// The best of the schedulers' values.
pub(super) fn optimum(values: &[f64], opt: Opt) -> f64 {
    match opt {
        Opt::Max => values.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        Opt::Min => values.iter().cloned().fold(f64::INFINITY, f64::min),
    }
}

/// The exact value equals the brute force's (up to its value iteration's
/// error) and lies in the certified interval, which is at most 1e-9 wide.
pub(super) fn assert_certified(what: &str, exact: &Rat, brute: f64, (lo, hi): (f64, f64)) {
    let e = num::to_f64(exact);
    assert!(
        (e - brute).abs() < 1e-7,
        "{what}: exact {exact}, brute {brute}"
    );
    assert!(
        lo - 1e-12 <= e && e <= hi + 1e-12 && hi - lo <= 1e-9,
        "{what}: {e} not in [{lo}, {hi}]"
    );
}
