//! Random metric automata for the robust engine's tests.
#![allow(dead_code)]

pub mod parity;

use mavis::robust::front::{Automaton, Metric, MetricKind, NewMove, Objective, Points};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// n states on distinct grid points (Manhattan), `inputs` inputs available with
/// probability 0.8, each of `dists` disturbances defined with probability 0.5.
pub fn random_automaton(r: &mut StdRng, n: usize, inputs: usize, dists: usize) -> Automaton {
    let mut points: Vec<Vec<f64>> = Vec::new();
    while points.len() < n {
        let p = vec![r.gen_range(0..5) as f64, r.gen_range(0..5) as f64];
        if !points.contains(&p) {
            points.push(p);
        }
    }
    let mut moves = Vec::new();
    for _ in 0..n {
        let mut ms = Vec::new();
        for a in 0..inputs {
            if r.gen_bool(0.8) {
                let nominal = r.gen_range(0..n) as u32;
                let mut disturbed = Vec::new();
                for x in 1..=dists {
                    if r.gen_bool(0.5) {
                        disturbed.push((x as u32, r.gen_range(0..n) as u32));
                    }
                }
                ms.push(NewMove {
                    input: a as u32,
                    nominal,
                    disturbed,
                });
            }
        }
        moves.push(ms);
    }
    let mut f: Vec<u32> = (0..n as u32).filter(|_| r.gen_bool(0.25)).collect();
    if f.is_empty() {
        f.push(r.gen_range(0..n) as u32);
    }
    let mut a = Automaton {
        name: "random".into(),
        states: (0..n).map(|i| format!("q{i}")).collect(),
        metric: Metric::Coords {
            kind: MetricKind::Manhattan,
            points: Points::from_rows(&points),
        },
        init: 0,
        inputs: (0..inputs).map(|i| format!("a{i}")).collect(),
        disturbances: std::iter::once("eps".to_string())
            .chain((1..=dists).map(|i| format!("x{i}")))
            .collect(),
        moves: moves.into(),
        gamma: Vec::new(),
        gamma_declared: false,
        objective: Objective::Reach(f),
    };
    a.gamma = a.least_gamma();
    a
}

/// Every deterministic memoryless strategy (one input per state with inputs).
pub fn all_strategies(a: &Automaton) -> Vec<Vec<Vec<usize>>> {
    let mut out = vec![Vec::new()];
    for q in 0..a.len() {
        let k = a.moves[q].len();
        let mut next = Vec::new();
        for s in &out {
            if k == 0 {
                let mut s2: Vec<Vec<usize>> = s.clone();
                s2.push(Vec::new());
                next.push(s2);
            }
            for i in 0..k {
                let mut s2 = s.clone();
                s2.push(vec![i]);
                next.push(s2);
            }
        }
        out = next;
    }
    out
}

/// The bound of a strategy straight from the definition: the largest theta such that
/// some maximal outcome from q0 (infinite, or stopping where S allows nothing) keeps
/// every state at distance >= theta from F. Decided per theta by graph search.
pub fn bound_by_definition(a: &Automaton, f: &[u32], s: &[Vec<usize>]) -> f64 {
    let d = a.dist_to_set(f);
    let mut thetas = d.clone();
    thetas.sort_by(f64::total_cmp);
    thetas.dedup();
    let mut best = 0.0;
    for &theta in &thetas {
        let ok: Vec<bool> = d.iter().map(|&x| x >= theta).collect();
        if !ok[a.init as usize] {
            continue;
        }
        let succ = |q: usize| -> Vec<usize> {
            s[q].iter()
                .flat_map(|&i| a.post(&a.moves[q][i]).map(|t| t as usize))
                .filter(|&t| ok[t])
                .collect()
        };
        // States of the theta-subgraph reachable from q0; is there a dead end or a cycle?
        let mut seen = vec![false; a.len()];
        let mut stack = vec![a.init as usize];
        seen[a.init as usize] = true;
        let mut found = false;
        while let Some(q) = stack.pop() {
            if s[q].is_empty() {
                found = true;
            }
            for t in succ(q) {
                if !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
        if !found {
            // Cycle detection among seen states by repeatedly removing sinks.
            let mut alive = seen.clone();
            loop {
                let mut changed = false;
                for q in 0..a.len() {
                    if alive[q] && !succ(q).iter().any(|&t| alive[t]) {
                        alive[q] = false;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            found = alive.iter().any(|&x| x);
        }
        if found {
            best = theta;
        }
    }
    best
}
