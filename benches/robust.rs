//! Robust engine benchmarks: reachability opt* on random sparse automata and
//! parity solving on random games. `cargo bench --bench robust`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use mavis::robust::front::{Automaton, Metric, MetricKind, NewMove, Objective, Points};
use mavis::robust::parity::game::{verify, Game};
use mavis::robust::{parity::spm, parity::zielonka, synth::reach};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// n states on random points of a 1000 x 1000 square; 2 inputs per state whose
/// nominal successor is a nearby index, and 2 disturbances landing near it; |F| = 10.
pub fn random_automaton(n: usize, seed: u64) -> Automaton {
    let mut r = StdRng::seed_from_u64(seed);
    let points: Vec<Vec<f64>> = (0..n)
        .map(|_| vec![r.gen_range(0.0..1000.0), r.gen_range(0.0..1000.0)])
        .collect();
    let near =
        |r: &mut StdRng, q: usize| ((q as i64 + r.gen_range(-50..=50)).rem_euclid(n as i64)) as u32;
    let moves: Vec<Vec<NewMove>> = (0..n)
        .map(|q| {
            (0..2)
                .map(|a| {
                    let nominal = near(&mut r, q);
                    let disturbed = (1..=2)
                        .map(|x| (x as u32, near(&mut r, nominal as usize)))
                        .collect();
                    NewMove {
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
            points: Points::from_rows(&points),
        },
        init: 0,
        inputs: vec!["a".into(), "b".into()],
        disturbances: vec!["eps".into(), "x".into(), "y".into()],
        moves: moves.into(),
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
    // Progress measures are exponential in the number of priorities and lift slowly
    // on random games: small games with 4 priorities here.
    let mut group = c.benchmark_group("parity_spm_4prio");
    group.sample_size(10);
    for n in [500usize, 2_000] {
        let g = random_game(n, 4, 2);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| spm::solve(&g))
        });
    }
    group.finish();
}

/// The dense `.ma` text of a w x h grid as `examples/robust/gen_grid.py` writes
/// it (without the walls): N/S/E/W moves, a gust pushing east moves one row down,
/// the dock at the east end of row 1.
pub fn grid_text(w: usize, h: usize) -> String {
    use std::fmt::Write;
    let mut t = String::with_capacity(w * h * 160);
    t.push_str("automaton grid;\nmetric manhattan;\ninputs N, S, E, W;\ndisturbances gust;\n");
    for y in 0..h {
        for x in 0..w {
            let _ = writeln!(t, "state c{x}_{y} at ({x}, {y});");
        }
    }
    t.push_str("init c0_1;\n");
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            for (inp, dx, dy) in [("N", 0, 1), ("S", 0, -1), ("E", 1, 0), ("W", -1, 0)] {
                let (tx, ty) = (x + dx, y + dy);
                if tx < 0 || ty < 0 || tx >= w as i64 || ty >= h as i64 {
                    continue;
                }
                let _ = write!(t, "trans c{x}_{y} {inp} -> c{tx}_{ty}");
                if inp == "E" && ty > 0 {
                    let _ = write!(t, " | gust -> c{tx}_{}", ty - 1);
                }
                t.push_str(";\n");
            }
        }
    }
    let _ = writeln!(t, "reach c{}_1;", w - 1);
    t
}

/// Issue 19's goals: a 10^6-state `.ma` parsed and solved; Zielonka with the
/// solution verified on 10^6 nodes and 10^3 priorities; progress measures on
/// 10^4 nodes with 3 priorities.
fn goals(c: &mut Criterion) {
    use mavis::lang::{Constants, Source};
    let mut group = c.benchmark_group("goals");
    group.sample_size(10);
    let text = grid_text(1000, 1000);
    let src = Source::new("grid.ma", text);
    group.bench_function("ma_parse_1e6_states", |b| {
        b.iter(|| mavis::robust::load_source(&src, &mut Constants::default()).expect("valid"))
    });
    let (a, _) = mavis::robust::load_source(&src, &mut Constants::default()).expect("valid");
    let Objective::Reach(f) = a.objective.clone() else {
        unreachable!()
    };
    group.bench_function("ma_solve_1e6_states", |b| b.iter(|| reach::solve(&a, &f)));
    // The same automaton in the binary form of `mavis robust convert`.
    let bytes = mavis::robust::export::binary::write(&a).expect("coordinates");
    group.bench_function("mab_parse_1e6_states", |b| {
        b.iter(|| mavis::robust::read::binary::read("grid.mab", &bytes).expect("valid"))
    });
    let g = random_game(1_000_000, 1000, 3);
    group.bench_function("zielonka_verified_1e6_nodes_1e3_prio", |b| {
        b.iter(|| {
            let sol = zielonka::solve(&g);
            verify(&g, &sol).expect("verified");
        })
    });
    let sol = zielonka::solve(&g);
    group.bench_function("verify_1e6_nodes_1e3_prio", |b| {
        b.iter(|| verify(&g, &sol).expect("verified"))
    });
    let g = random_game(10_000, 3, 4);
    group.bench_function("spm_1e4_nodes_3_prio", |b| b.iter(|| spm::solve(&g)));
    // The held-out shape of issue 36 (random games with 50 to 1000
    // priorities, up to 10^4 nodes; goal: each under 1 s).
    for top in [100u32, 1000] {
        let g = random_game(10_000, top, 36);
        group.bench_function(format!("spm_1e4_nodes_{top}_prio"), |b| {
            b.iter(|| spm::solve(&g))
        });
    }
    group.finish();
}

criterion_group!(benches, reachability, parity, goals);
criterion_main!(benches);
