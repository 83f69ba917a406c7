//! Reachability robustness: brute force over memoryless strategies, the plain
//! iteration against the Dijkstra-like computation, and the structural laws.

mod robust_common;

use mavis::robust::front::{MoveTable, Objective};
use mavis::robust::{synth::clf, synth::minmax, synth::reach};
use robust_common::*;

fn target(a: &mavis::robust::front::Automaton) -> Vec<u32> {
    match &a.objective {
        Objective::Reach(f) => f.clone(),
        _ => unreachable!(),
    }
}

#[test]
fn brute_force_small_automata() {
    let mut r = rng(7);
    for case in 0..400 {
        let n = 2 + case % 5;
        let a = random_automaton(&mut r, n, 2, 2);
        let f = target(&a);
        let sol = reach::solve(&a, &f);
        let opt0 = sol.opt[a.init as usize];
        let best = all_strategies(&a)
            .iter()
            .map(|s| bound_by_definition(&a, &f, s))
            .fold(f64::INFINITY, f64::min);
        assert_eq!(
            opt0, best,
            "case {case}: opt*(q0) is not the best memoryless bound"
        );
        let mine = bound_by_definition(&a, &f, &sol.strategy);
        assert_eq!(
            mine, opt0,
            "case {case}: the recovered strategy does not attain opt*(q0)"
        );
        assert_eq!(
            reach::strategy_values(&a, &f, &sol.strategy)[a.init as usize],
            mine,
            "case {case}"
        );
        assert_eq!(
            sol.sigma,
            reach::sigma_of(mine, a.gamma_bar()),
            "case {case}: sigma is not the strategy's"
        );
        // Every memoryless strategy's bound by the fixed point on A|_S equals the definition.
        for s in all_strategies(&a).iter().take(16) {
            assert_eq!(
                reach::strategy_values(&a, &f, s)[a.init as usize],
                bound_by_definition(&a, &f, s),
                "case {case}"
            );
        }
    }
}

#[test]
fn dijkstra_matches_plain_iteration() {
    let mut r = rng(11);
    for case in 0..200 {
        let a = random_automaton(&mut r, 3 + case % 23, 3, 2);
        let f = target(&a);
        let dist = a.dist_to_set(&f);
        let g = reach::game_graph(&a);
        let fast = minmax::solve(&g, &dist).value;
        let (slow, rounds) = minmax::iterate(&g, &dist);
        assert_eq!(fast, slow, "case {case}");
        assert!(
            rounds < a.len().max(1),
            "at most |Q| - 1 improving rounds (seed Sec. 3.2)"
        );
    }
}

/// The same moves without their disturbed successors.
fn without_disturbances(t: &MoveTable) -> MoveTable {
    let mut lists = t.to_lists();
    lists.iter_mut().flatten().for_each(|m| m.disturbed.clear());
    MoveTable::from_lists(lists)
}

#[test]
fn no_disturbance_is_the_classical_attractor() {
    let mut r = rng(3);
    for case in 0..100 {
        let mut a = random_automaton(&mut r, 4 + case % 15, 2, 0);
        a.moves = without_disturbances(&a.moves);
        let f = target(&a);
        let sol = reach::solve(&a, &f);
        let steps = reach::nominal_steps(&a, &f);
        for (q, &st) in steps.iter().enumerate() {
            assert_eq!(sol.opt[q] == 0.0, st != u32::MAX, "case {case} state {q}");
        }
        if sol.opt[a.init as usize] == 0.0 {
            assert!(
                reach::nominally_winning(&a, &f, &sol.strategy),
                "case {case}: attractor strategy must reach F"
            );
            assert_eq!(sol.sigma, 0.0);
        }
    }
}

#[test]
fn scaling_the_metric_scales_every_bound() {
    let mut r = rng(5);
    for case in 0..100 {
        let a = random_automaton(&mut r, 3 + case % 12, 2, 2);
        let f = target(&a);
        let base = reach::solve(&a, &f);
        for c in [0.5, 3.0] {
            let s = reach::solve(&a.scaled(c), &f);
            for q in 0..a.len() {
                assert!((s.opt[q] - c * base.opt[q]).abs() < 1e-9, "case {case}");
            }
            assert!(
                (s.sigma - base.sigma).abs() < 1e-9 || s.sigma == base.sigma,
                "sigma is scale-free"
            );
        }
    }
}

#[test]
fn adding_a_disturbance_never_lowers_the_bound() {
    let mut r = rng(9);
    use rand::Rng;
    for case in 0..150 {
        let mut a = random_automaton(&mut r, 3 + case % 10, 2, 1);
        let f = target(&a);
        let before = reach::solve(&a, &f).opt;
        let q = r.gen_range(0..a.len());
        if a.moves[q].is_empty() {
            continue;
        }
        let i = r.gen_range(0..a.moves[q].len());
        let t = r.gen_range(0..a.len()) as u32;
        a.disturbances.push("extra".into());
        let x = (a.disturbances.len() - 1) as u32;
        let mut lists = a.moves.to_lists();
        lists[q][i].disturbed.push((x, t));
        a.moves = MoveTable::from_lists(lists);
        a.gamma = a.least_gamma();
        let after = reach::solve(&a, &f).opt;
        for s in 0..a.len() {
            assert!(
                after[s] >= before[s],
                "case {case}: state {s} improved from {} to {}",
                before[s],
                after[s]
            );
        }
    }
}

#[test]
fn lyapunov_sigma_bounds_the_optimum() {
    // Theorem 3.2 with linear f: outcomes reach distance K * gamma / c of F, so opt*(q0)
    // can be no larger (gamma taken as its largest value, the constant-bound case).
    let mut r = rng(13);
    for case in 0..150 {
        let a = random_automaton(&mut r, 3 + case % 10, 2, 2);
        let f = target(&a);
        let rank = clf::cost_to_go(&a, &f);
        let chk = clf::check(&a, &f, &rank);
        if chk.failure.is_some() {
            continue;
        }
        assert!(
            chk.c >= 1.0 - 1e-9,
            "cost-to-go decreases by at least d(q, F): c >= 1"
        );
        let gmax = a.gamma.iter().copied().fold(0.0, f64::max);
        let opt = reach::solve(&a, &f).opt[a.init as usize];
        assert!(
            opt <= chk.lipschitz * gmax / chk.c + 1e-9,
            "case {case}: opt {opt} above K gamma / c"
        );
    }
}

#[test]
fn hand_computed_corridor() {
    // A corridor q0 - q1 - q2 = F on a line; at q1 input `fast` jumps to q2 but a gust
    // can throw it back to q0; `slow` steps to q2 and a gust leaves it at q1.
    let text = r#"
        metric euclidean;
        inputs fast, slow;
        disturbances gust;
        state q0 at (0); state q1 at (1); state q2 at (2);
        init q0;
        trans q0 fast -> q2 | gust -> q0;
        trans q0 slow -> q1;
        trans q1 fast -> q2 | gust -> q0;
        trans q1 slow -> q2 | gust -> q1;
        reach q2;
    "#;
    let src = mavis::lang::Source::new("corridor.ma", text);
    let (a, warnings) =
        mavis::robust::load_source(&src, &mut Default::default()).expect("valid model");
    assert!(warnings.is_empty());
    let f = target(&a);
    let sol = reach::solve(&a, &f);
    // opt*(q1) = 1 (slow: the gust leaves it at q1), opt*(q0) = 1 (slow to q1, no disturbance).
    assert_eq!(sol.opt, vec![1.0, 1.0, 0.0]);
    // gamma(q2) = d(q2, q0) = 2 from `fast`; gamma-bar = 2; sigma = 1/2.
    assert_eq!(a.gamma_bar(), 2.0);
    assert_eq!(sol.sigma, 0.5);
    assert_eq!(a.input_name(&a.moves[0][sol.strategy[0][0]]), "slow");
    // The naive shortest path (fast, fast) has bound 2: the gust can always throw it back.
    let naive = vec![vec![0], vec![0], vec![]];
    assert_eq!(reach::strategy_values(&a, &f, &naive)[0], 2.0);
}
