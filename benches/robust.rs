//! Robust engine benchmarks: reachability opt* on random sparse automata and
//! parity solving on random games. `cargo bench --bench robust`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use mavis::robust::game::Game;
use mavis::robust::model::{Automaton, Metric, MetricKind, Move, Objective};
use mavis::robust::{reach, spm, zielonka};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// n states on random points of a 1000 x 1000 square; 2 inputs per state whose
/// nominal successor is a nearby index, and 2 disturbances landing near it; |F| = 10.
pub fn random_automaton(n: usize, seed: u64) -> Automaton {
    let mut r = StdRng::seed_from_u64(seed);
    let points = (0..n)
        .map(|_| vec![r.gen_range(0.0..1000.0), r.gen_range(0.0..1000.0)])
        .collect();
    let near =
        |r: &mut StdRng, q: usize| ((q as i64 + r.gen_range(-50..=50)).rem_euclid(n as i64)) as u32;
    let moves = (0..n)
        .map(|q| {
            (0..2)
                .map(|a| {
                    let nominal = near(&mut r, q);
                    let disturbed = (1..=2)
                        .map(|x| (x as u32, near(&mut r, nominal as usize)))
                        .collect();
                    Move {
                        input: a,
                        nominal,
                        disturbed,
                    }
                })
                .collect()
        })
        .collect();
    let f = (0..10).map(|_| r.gen_range(0..n) as u32).collect();
    let mut a = Automaton {
        name: "bench".into(),
        states: (0..n).map(|i| format!("q{i}")).collect(),
        metric: Metric::Coords {
            kind: MetricKind::Euclidean,
            points,
        },
        init: 0,
        inputs: vec!["a".into(), "b".into()],
        disturbances: vec!["eps".into(), "x".into(), "y".into()],
        moves,
        gamma: Vec::new(),
        gamma_declared: false,
        objective: Objective::Reach(f),
    };
    a.gamma = a.least_gamma();
    a
}

/// PGSolver-style random game: priorities 0..top, out-degree 2..4.
pub fn random_game(n: usize, top: u32, seed: u64) -> Game {
    let mut r = StdRng::seed_from_u64(seed);
    let prio = (0..n).map(|_| r.gen_range(0..top)).collect();
    let owner = (0..n).map(|_| r.gen_range(0..2u8)).collect();
    let succs = (0..n)
        .map(|_| {
            let k = r.gen_range(2..=4);
            let mut s: Vec<u32> = (0..k).map(|_| r.gen_range(0..n) as u32).collect();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    Game::from_lists(prio, owner, succs).expect("every node has a successor")
}

fn reachability(c: &mut Criterion) {
    let mut group = c.benchmark_group("reach_opt");
    group.sample_size(10);
    for n in [10_000usize, 100_000, 1_000_000] {
        let a = random_automaton(n, 1);
        let Objective::Reach(f) = a.objective.clone() else {
            unreachable!()
        };
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| reach::solve(&a, &f))
        });
    }
    group.finish();
}

fn parity(c: &mut Criterion) {
    let mut group = c.benchmark_group("parity_zielonka");
    group.sample_size(10);
    for n in [10_000usize, 100_000, 200_000] {
        let g = random_game(n, (n as u32 / 10).min(1000), 2);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| zielonka::solve(&g))
        });
    }
    group.finish();
    // Progress measures are exponential in the number of priorities: 8 priorities here.
    let mut group = c.benchmark_group("parity_spm_8prio");
    group.sample_size(10);
    for n in [10_000usize, 50_000] {
        let g = random_game(n, 8, 2);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| spm::solve(&g))
        });
    }
    group.finish();
}

criterion_group!(benches, reachability, parity);
criterion_main!(benches);
