//! Expected rewards: hand-computed values (a choice between a slow cheap
//! loop and a dear direct move; a free end component that only the
//! collapse keeps Rmin out of), and a brute force over every memoryless
//! deterministic scheduler of small random MDPs with random state and
//! action rewards (optimal expected total rewards have such a scheduler),
//! each chain solved by plain value iteration, against the certified
//! interval and exact policy iteration.

use super::mdp::Mdp;
use super::reward::{reach_values, step_bounded, Bounded, RewardVectors};
use super::test_mdps::{assert_certified, every_scheduler, mdp, optimum, r, random_mdp};
use crate::lang::{num, Rat};
use crate::report::meter::Meter;
use crate::report::Deadline;
use crate::swarm::front::props::Opt;

/// Reward vectors from exact state and action rewards.
fn rewards(state: &[Rat], action: &[Rat]) -> RewardVectors {
    RewardVectors {
        state: state.iter().map(num::to_f64).collect(),
        action: action.iter().map(num::to_f64).collect(),
        exact: Some((state.to_vec(), action.to_vec())),
    }
}

/// `R_opt[ F target ]` at the initial state: the interval and the exact value
/// (`None` when infinite).
fn reach(m: &Mdp, rw: &RewardVectors, target: &[bool], opt: Opt) -> ((f64, f64), Option<Rat>) {
    let v = reach_values(
        m,
        opt,
        rw,
        target,
        true,
        1e-9,
        (Deadline::NONE, &Meter::none()),
    )
    .unwrap();
    let b = v.bounds.unwrap()[0];
    (b, v.exact.map(|e| e[0].clone()))
}

/// State 0 earns 1 per step; choice a returns to 0 with 1/2 (else the
/// target 1), choice b goes to the target for an action reward of 3. Via a
/// the reward x solves x = 1 + x/2, so 2; via b it is 1 + 3 = 4.
fn slow_or_dear() -> (Mdp, RewardVectors) {
    let states = vec![
        vec![vec![(0, r(1, 2)), (1, r(1, 2))], vec![(1, r(1, 1))]],
        vec![vec![(1, r(1, 1))]],
    ];
    let rw = rewards(&[r(1, 1), r(0, 1)], &[r(0, 1), r(3, 1), r(0, 1)]);
    (mdp(&states, 0), rw)
}

#[test]
fn the_slow_loop_and_the_dear_move_have_their_hand_values() {
    let (m, rw) = slow_or_dear();
    let target = [false, true];
    let ((lo, hi), e) = reach(&m, &rw, &target, Opt::Min);
    assert_eq!(e, Some(r(2, 1)));
    assert!(lo <= 2.0 && 2.0 <= hi && hi - lo <= 1e-9, "[{lo}, {hi}]");
    let ((lo, hi), e) = reach(&m, &rw, &target, Opt::Max);
    assert_eq!(e, Some(r(4, 1)));
    assert!(lo <= 4.0 && 4.0 <= hi && hi - lo <= 1e-9, "[{lo}, {hi}]");
    // C<=2: max takes b at once (4); min takes a twice: 1 + (1/2)(1) = 3/2.
    let c = |opt| {
        step_bounded::<Rat>(
            &m,
            &rw,
            Bounded::Cumulative,
            2,
            opt,
            (Deadline::NONE, &Meter::none()),
        )
        .unwrap()[0]
            .clone()
    };
    assert_eq!((c(Opt::Max), c(Opt::Min)), (r(4, 1), r(3, 2)));
    // I=1: the state reward after one step, 1/2 by a and 0 by b.
    let i = |opt| {
        step_bounded::<Rat>(
            &m,
            &rw,
            Bounded::Instant,
            1,
            opt,
            (Deadline::NONE, &Meter::none()),
        )
        .unwrap()[0]
            .clone()
    };
    assert_eq!((i(Opt::Max), i(Opt::Min)), (r(1, 2), r(0, 1)));
    let f = step_bounded::<f64>(
        &m,
        &rw,
        Bounded::Cumulative,
        2,
        Opt::Min,
        (Deadline::NONE, &Meter::none()),
    )
    .unwrap()[0];
    assert_eq!(f, 1.5);
}

/// States 0 and 1 move to each other for free, or leave to the target 2 at
/// cost 10 (from 0) and 4 (from 1). Rmin from 0 is 4 (go to 1, leave); a
/// scheduler that cycles for ever never reaches the target, so Rmax is
/// infinite. Without the collapse the lower iterate would stay at 0.
#[test]
fn a_free_cycle_is_collapsed_for_rmin_and_makes_rmax_infinite() {
    let states = vec![
        vec![vec![(1, r(1, 1))], vec![(2, r(1, 1))]],
        vec![vec![(0, r(1, 1))], vec![(2, r(1, 1))]],
        vec![vec![(2, r(1, 1))]],
    ];
    let zero = r(0, 1);
    let rw = rewards(
        &[zero.clone(), zero.clone(), zero.clone()],
        &[zero.clone(), r(10, 1), zero.clone(), r(4, 1), zero],
    );
    let m = mdp(&states, 0);
    let target = [false, false, true];
    let ((lo, hi), e) = reach(&m, &rw, &target, Opt::Min);
    assert_eq!(e, Some(r(4, 1)));
    assert!(lo <= 4.0 && 4.0 <= hi && hi - lo <= 1e-9, "[{lo}, {hi}]");
    let ((lo, hi), e) = reach(&m, &rw, &target, Opt::Max);
    assert_eq!((lo, hi, e), (f64::INFINITY, f64::INFINITY, None));
}

/// The expected reward of the chain `sigma` induces from the initial
/// state: infinite when some state it reaches cannot reach the target,
/// else plain value iteration from 0 (20,000 sweeps).
fn chain_reward(m: &Mdp, rw: &RewardVectors, sigma: &[usize], target: &[bool]) -> f64 {
    let n = m.num_states();
    let choice = |s: usize| m.row_start[s] + sigma[s];
    let succ = |s: usize| m.entries(choice(s)).map(|e| m.targets[e] as usize);
    let mut reach = vec![false; n];
    let mut stack = vec![m.initial[0] as usize];
    while let Some(s) = stack.pop() {
        if !std::mem::replace(&mut reach[s], true) && !target[s] {
            stack.extend(succ(s));
        }
    }
    let mut good = target.to_vec();
    for _ in 0..n {
        for s in 0..n {
            good[s] = good[s] || succ(s).any(|t| good[t]);
        }
    }
    if (0..n).any(|s| reach[s] && !good[s]) {
        return f64::INFINITY;
    }
    let mut v = vec![0.0; n];
    for _ in 0..20_000 {
        for s in (0..n).filter(|&s| !target[s] && good[s]) {
            let c = choice(s);
            v[s] = rw.step_f64(s, c)
                + m.entries(c)
                    .map(|e| m.probs[e] * v[m.targets[e] as usize])
                    .sum::<f64>();
        }
    }
    v[m.initial[0] as usize]
}

#[test]
fn every_memoryless_scheduler_agrees_with_the_optimal_reward() {
    let mut seed = 11u64;
    let mut pick = |k: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (seed >> 33) % k
    };
    let mut gen = 3u64;
    for case in 0..60 {
        let n = 3 + case % 4;
        let m = random_mdp(&mut gen, n);
        let state: Vec<Rat> = (0..n).map(|_| r(pick(2) as i64, 1)).collect();
        let action: Vec<Rat> = (0..m.num_choices()).map(|_| r(pick(3) as i64, 2)).collect();
        let rw = rewards(&state, &action);
        let target: Vec<bool> = (0..n).map(|s| s == n - 1).collect();
        let values = every_scheduler(&m, |sigma| chain_reward(&m, &rw, sigma, &target));
        for opt in [Opt::Max, Opt::Min] {
            let brute = optimum(&values, opt);
            let ((lo, hi), exact) = reach(&m, &rw, &target, opt);
            let what = format!("case {case} {opt:?}");
            match exact {
                None => assert!(
                    brute.is_infinite() && lo.is_infinite(),
                    "{what}: brute {brute}, [{lo}, {hi}]"
                ),
                Some(e) => assert_certified(&what, &e, brute, (lo, hi)),
            }
        }
    }
}
