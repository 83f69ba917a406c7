//! Unbounded reachability: hand-computed values (a gambler's walk, an end
//! component that only the collapse lets the upper bound leave), and a
//! brute force over every memoryless deterministic scheduler of small
//! random MDPs (optimal reachability has such a scheduler), each chain
//! solved by plain value iteration, against interval iteration and exact
//! policy iteration.

use super::graph::{zero_one, Preds};
use super::mdp::Mdp;
use super::policy::exact_reachability;
use super::test_mdps::{assert_certified, every_scheduler, mdp, optimum, r, random_mdp};
use super::unbounded::interval_iteration;
use crate::lang::{num, Rat};
use crate::report::meter::Meter;
use crate::report::Deadline;
use crate::swarm::front::props::Opt;

/// Both ways of computing `P_opt[ F target ]` from state `init`.
fn both(m: &Mdp, target: &[bool], opt: Opt) -> ((f64, f64), Rat) {
    let all = vec![true; m.num_states()];
    let iv =
        interval_iteration(m, target, &all, opt, 1e-9, (Deadline::NONE, &Meter::none())).unwrap();
    let ex = exact_reachability(m, &iv, opt, (Deadline::NONE, &Meter::none())).unwrap();
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
        let values = every_scheduler(&m, |sigma| chain_value(&m, sigma, &target));
        for opt in [Opt::Max, Opt::Min] {
            let (interval, exact) = both(&m, &target, opt);
            let what = format!("case {case} {opt:?}");
            assert_certified(&what, &exact, optimum(&values, opt), interval);
        }
    }
}

/// Delay, as in the swarm's large components: from 1, choice A ends at
/// once (1/2 to the target 2, 1/2 to the sink 0), choice B stays with
/// probability 999/1000 (else to the sink). Pmax[F 2] = 1/2 (B only loses),
/// and the lower iterate is there after one sweep, but the upper iterate
/// from 1 falls by 999/1000 per sweep under B: about 700 sweeps of interval
/// iteration. The optimistic phase guesses 1/2 + a margin, which B keeps
/// inductive, so the solver stops after a handful of sweeps; the plain
/// interval iteration (the second decider) takes the 700.
#[test]
fn the_optimistic_phase_skips_a_slow_upper_descent() {
    let states = vec![
        vec![vec![(0, r(1, 1))]],
        vec![
            vec![(2, r(1, 2)), (0, r(1, 2))],
            vec![(1, r(999, 1000)), (0, r(1, 1000))],
        ],
        vec![vec![(2, r(1, 1))]],
    ];
    let m = mdp(&states, 1);
    let target = [false, false, true];
    let all = [true; 3];
    let iv = interval_iteration(
        &m,
        &target,
        &all,
        Opt::Max,
        1e-9,
        (Deadline::NONE, &Meter::none()),
    )
    .unwrap();
    let plain =
        super::plain::plain_interval_iteration(&m, &target, &all, Opt::Max, 1e-9, Deadline::NONE)
            .unwrap();
    for (what, v) in [("optimistic", &iv), ("plain", &plain)] {
        let (lo, hi) = (v.lo[1], v.hi[1]);
        assert!(
            lo <= 0.5 && 0.5 <= hi && hi - lo <= 1e-9,
            "{what}: [{lo}, {hi}]"
        );
    }
    assert!(iv.iterations <= 10, "{} sweeps", iv.iterations);
    assert!(plain.iterations >= 500, "{} sweeps", plain.iterations);
    assert_eq!(iv.scheduler[1], m.row_start[1] as u32);
}

/// Policy iteration's meter (issue 34): on the gambler's walk of
/// [`a_gamblers_walk_has_its_textbook_values`], started from the unfair
/// step everywhere for Pmax, the exact values of that scheduler make the
/// fair step strictly better at 1, 2 and 3 (the values grow with s), so
/// the second scheduler is the fair one and is not improved: 2 schedulers
/// evaluated, each solving the 3 free states (all reach 4), so 6 states
/// eliminated, and the value 1/2.
#[test]
fn policy_iteration_counts_its_eliminations_and_schedulers() {
    use crate::report::meter::{MeterGuard, Show};
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
    let all = vec![true; 5];
    let at = (Deadline::NONE, &Meter::none());
    let mut iv = interval_iteration(&m, &target, &all, Opt::Max, 1e-9, at).unwrap();
    assert_eq!(iv.fixed, [true, false, false, false, true]);
    for s in 1..4 {
        // The unfair step: each state's second choice.
        iv.scheduler[s] = m.choices(s).nth(1).unwrap() as u32;
    }
    let guard = MeterGuard::start(
        crate::report::meter::Counting {
            label: "t".into(),
            unit: "states eliminated",
            level: Some("schedulers evaluated"),
            total: None,
        },
        Some(Show::Bar),
    );
    let meter = guard.meter();
    let ex = exact_reachability(&m, &iv, Opt::Max, (Deadline::NONE, &meter)).unwrap();
    assert_eq!(ex.rounds, 2);
    assert_eq!(ex.values[2], r(1, 2));
    assert_eq!(meter.read(), Some((6, 2)));
    assert!(!meter.was_cut());
    // A deadline already past cuts it: the meter says so.
    let past = Deadline::after(std::time::Duration::ZERO);
    assert!(exact_reachability(&m, &iv, Opt::Max, (past, &meter)).is_err());
    assert!(meter.was_cut());
}
