//! Unbounded reachability: hand-computed values (a gambler's walk, an end
//! component that only the collapse lets the upper bound leave), and a
//! brute force over every memoryless deterministic scheduler of small
//! random MDPs (optimal reachability has such a scheduler), each chain
//! solved by plain value iteration, against interval iteration and exact
//! policy iteration.

use super::graph::{zero_one, Preds};
use super::mdp::{Mdp, StateTable};
use super::policy::policy_iteration;
use super::unbounded::interval_iteration;
use crate::lang::{num, Rat};
use crate::report::Deadline;
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

/// Both ways of computing `P_opt[ F target ]` from state `init`.
fn both(m: &Mdp, target: &[bool], opt: Opt) -> ((f64, f64), Rat) {
    let all = vec![true; m.num_states()];
    let iv = interval_iteration(m, target, &all, opt, 1e-9, Deadline::NONE).unwrap();
    let base: Vec<Rat> = (0..m.num_states())
        .map(|s| {
            if iv.fixed[s] && iv.lo[s] == 1.0 {
                r(1, 1)
            } else {
                r(0, 1)
            }
        })
        .collect();
    let ex = policy_iteration(
        m,
        &iv.fixed,
        &base,
        iv.scheduler.clone(),
        opt,
        Deadline::NONE,
    )
    .unwrap();
    let i = m.initial[0] as usize;
    ((iv.lo[i], iv.hi[i]), ex.values[i].clone())
}

/// States 0..=4, absorbing at 0 and 4: from s, a fair step (1/2 up) or an
/// unfair one (1/3 up). From 2, Pmax[F 4] = 1/2 (fair: s/4) and Pmin[F 4]
/// = (1 - 2^2)/(1 - 2^4) = 1/5 (ratio q/p = 2).
#[test]
fn a_gamblers_walk_has_its_textbook_values() {
    let mut states = vec![vec![vec![(0, r(1, 1))]]];
    for s in 1..4u32 {
        states.push(vec![
            vec![(s + 1, r(1, 2)), (s - 1, r(1, 2))],
            vec![(s + 1, r(1, 3)), (s - 1, r(2, 3))],
        ]);
    }
    states.push(vec![vec![(4, r(1, 1))]]);
    let m = mdp(&states, 2);
    let target = [false, false, false, false, true];
    for (opt, want) in [(Opt::Max, r(1, 2)), (Opt::Min, r(1, 5))] {
        let ((lo, hi), exact) = both(&m, &target, opt);
        assert_eq!(exact, want, "{opt:?}");
        let w = num::to_f64(&want);
        assert!(
            lo <= w && w <= hi && hi - lo <= 1e-9,
            "{opt:?}: [{lo}, {hi}]"
        );
    }
}

/// States 1 and 2 form an end component (1 -> 2, 2 -> 1) with one way
/// out, from 2: 1/2 to the target 3, 1/2 to the sink 0. Pmax[F 3] = 1/2
/// everywhere in it, yet 1 is a fixed point of the upper iterate there:
/// only collapsing the component brings it down. For Pmin, 1 may stay in
/// the component forever (Pmin = 0, found by the graph alone).
#[test]
fn an_end_component_is_collapsed_for_pmax() {
    let states = vec![
        vec![vec![(0, r(1, 1))]],
        vec![vec![(2, r(1, 1))], vec![(1, r(1, 1))]],
        vec![vec![(1, r(1, 1))], vec![(3, r(1, 2)), (0, r(1, 2))]],
        vec![vec![(3, r(1, 1))]],
    ];
    let m = mdp(&states, 1);
    let target = [false, false, false, true];
    let ((lo, hi), exact) = both(&m, &target, Opt::Max);
    assert_eq!(exact, r(1, 2));
    assert!(lo <= 0.5 && 0.5 <= hi && hi - lo <= 1e-9, "[{lo}, {hi}]");
    let ((lo, hi), exact) = both(&m, &target, Opt::Min);
    assert_eq!(exact, r(0, 1));
    assert_eq!((lo, hi), (0.0, 0.0));
    let zo = zero_one(&m, &Preds::new(&m), &target, &[true; 4], Opt::Min);
    assert_eq!(zo.zero, [true, true, true, false]);
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

/// The value of the chain that `sigma` induces, by plain value iteration
/// from 0 (converges from below; 20,000 sweeps of a 6-state chain leave an
/// error far below the tolerance of the comparison for these chains, whose
/// probabilities are multiples of 1/6).
fn chain_value(m: &Mdp, sigma: &[usize], target: &[bool]) -> f64 {
    let mut v: Vec<f64> = target.iter().map(|&t| if t { 1.0 } else { 0.0 }).collect();
    for _ in 0..20_000 {
        for s in 0..m.num_states() {
            if !target[s] {
                let c = m.row_start[s] + sigma[s];
                v[s] = m
                    .entries(c)
                    .map(|e| m.probs[e] * v[m.targets[e] as usize])
                    .sum();
            }
        }
    }
    v[m.initial[0] as usize]
}

#[test]
fn every_memoryless_scheduler_agrees_with_the_optimum() {
    let mut seed = 7u64;
    for case in 0..40 {
        let n = 3 + case % 4;
        let m = random_mdp(&mut seed, n);
        let target: Vec<bool> = (0..n).map(|s| s == n - 1).collect();
        let arity: Vec<usize> = (0..n).map(|s| m.choices(s).len()).collect();
        let mut values = Vec::new();
        let mut sigma = vec![0usize; n];
        loop {
            values.push(chain_value(&m, &sigma, &target));
            let Some(s) = (0..n).find(|&s| sigma[s] + 1 < arity[s]) else {
                break;
            };
            sigma[s] += 1;
            sigma[..s].iter_mut().for_each(|x| *x = 0);
        }
        for opt in [Opt::Max, Opt::Min] {
            let brute = match opt {
                Opt::Max => values.iter().cloned().fold(0.0, f64::max),
                Opt::Min => values.iter().cloned().fold(1.0, f64::min),
            };
            let ((lo, hi), exact) = both(&m, &target, opt);
            let e = num::to_f64(&exact);
            assert!(
                (e - brute).abs() < 1e-7,
                "case {case} {opt:?}: exact {exact}, brute {brute}"
            );
            assert!(
                lo - 1e-12 <= e && e <= hi + 1e-12 && hi - lo <= 1e-9,
                "case {case} {opt:?}: {e} not in [{lo}, {hi}]"
            );
        }
    }
}
