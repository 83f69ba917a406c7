//! NIS deciders on the guarding game (seed Tables 1 and 2, and `verify`):
//! explicit search, and the MILP decider on Table 1.
//! The network is a fixture shaped like the guarding policy (1 -> 4 -> 4 -> 2)
//! with the same argmax pattern (rest_only at h = 1, 2; volunteer at h = 3, 4).

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use mavis::lang::Source;
use mavis::nis::engine::{decide, EngineChoice, Target};
use mavis::nis::procedures::{verify, VerifyOptions};
use mavis::nis::{parse_model, parse_sentence, LoadOptions, Model};
use mavis::nn::{Activation, Layer, Network};
use mavis::report::RunContext;
use ndarray::{array, Array1, Array2};
use std::path::Path;
use std::time::Duration;

fn guarding() -> Model {
    let mut w1 = Array2::zeros((4, 1));
    w1[[0, 0]] = 1.0;
    let mut w3 = Array2::zeros((2, 4));
    w3[[1, 0]] = 1.0;
    let net = Network::from_layers(vec![
        Layer {
            weights: w1,
            bias: Array1::zeros(4),
            activation: Activation::Relu,
        },
        Layer {
            weights: Array2::eye(4),
            bias: Array1::zeros(4),
            activation: Activation::Relu,
        },
        Layer {
            weights: w3,
            bias: array![0.6, 0.0],
            activation: Activation::Identity,
        },
    ])
    .unwrap();
    let opts = LoadOptions {
        in_memory: [("policy".to_string(), net)].into_iter().collect(),
        ..Default::default()
    };
    let text = include_str!("../examples/guarding/guarding.nis");
    parse_model(&Source::new("guarding.nis", text), Path::new("."), &opts).unwrap()
}

fn table1(c: &mut Criterion) {
    let model = guarding();
    let specs: Vec<_> = (1..=6)
        .map(|k| {
            parse_sentence(&format!("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)")).unwrap()
        })
        .collect();
    c.bench_function("nis/table1_grid_explicit (k=1..6, n=2..6)", |b| {
        b.iter(|| {
            for s in &specs {
                for n in 2..=6 {
                    decide(
                        EngineChoice::Explicit,
                        &model,
                        s,
                        Target::Concrete { agents: n },
                    )
                    .unwrap();
                }
            }
        })
    });
    c.bench_function("nis/table1_hardest_query_explicit (k=6, n=6)", |b| {
        b.iter(|| {
            decide(
                EngineChoice::Explicit,
                &model,
                &specs[5],
                Target::Concrete { agents: 6 },
            )
            .unwrap()
        })
    });
}

fn table2(c: &mut Criterion) {
    let model = guarding();
    let mut specs = Vec::new();
    for k in 1..=6 {
        specs.push(
            parse_sentence(&format!("forall v1, v2: AX^{k} (alive, v1) & (alive, v2)")).unwrap(),
        );
        specs.push(
            parse_sentence(&format!(
                "forall v1, v2, v3: AX^{k} (alive, v1) & (alive, v2) & (alive, v3)"
            ))
            .unwrap(),
        );
    }
    c.bench_function("nis/table2_grid_explicit (m=2,3, k=1..6)", |b| {
        b.iter(|| {
            for s in &specs {
                decide(EngineChoice::Explicit, &model, s, Target::Abstract).unwrap();
            }
        })
    });
}

fn verify_all(c: &mut Criterion) {
    let model = guarding();
    let ctx = RunContext::default();
    let opts = VerifyOptions {
        engine: EngineChoice::Explicit,
        cap: None,
        milp: Default::default(),
    };
    let mut group = c.benchmark_group("nis/verify");
    group.sample_size(10);
    for k in [1u32, 3, 6] {
        let s =
            parse_sentence(&format!("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)")).unwrap();
        group.bench_function(format!("EX^{k} existential (Corollary 2)"), |b| {
            b.iter(|| verify(&model, &s, &opts, &ctx).unwrap())
        });
        let u =
            parse_sentence(&format!("forall v1, v2: AX^{k} (alive, v1) & (alive, v2)")).unwrap();
        group.bench_function(format!("AX^{k} universal (Corollary 1)"), |b| {
            b.iter(|| verify(&model, &u, &opts, &ctx).unwrap())
        });
    }
    group.finish();
}

/// The MILP decider on Table 1: the whole grid and its hardest query
/// (k = 6, n = 6, the largest MILP), small samples so the bench stays short.
fn table1_milp(c: &mut Criterion) {
    let model = guarding();
    let specs: Vec<_> = (1..=6)
        .map(|k| {
            parse_sentence(&format!("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)")).unwrap()
        })
        .collect();
    let universal = parse_sentence("forall v1, v2: AX^6 (alive, v1) & (alive, v2)").unwrap();
    let mut group = c.benchmark_group("nis/milp");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.warm_up_time(Duration::from_secs(1));
    group.sampling_mode(SamplingMode::Flat);
    group.bench_function("table1_grid (k=1..6, n=2..6)", |b| {
        b.iter(|| {
            for s in &specs {
                for n in 2..=6 {
                    decide(
                        EngineChoice::Milp,
                        &model,
                        s,
                        Target::Concrete { agents: n },
                    )
                    .unwrap();
                }
            }
        })
    });
    group.bench_function("table1_hardest_query (k=6, n=6)", |b| {
        b.iter(|| {
            decide(
                EngineChoice::Milp,
                &model,
                &specs[5],
                Target::Concrete { agents: 6 },
            )
            .unwrap()
        })
    });
    group.bench_function("AX^6 counterexample (n=6)", |b| {
        b.iter(|| {
            decide(
                EngineChoice::Milp,
                &model,
                &universal,
                Target::Concrete { agents: 6 },
            )
            .unwrap()
        })
    });
    group.finish();
}

/// The MILP decider of M_ab(m) (finite-template encoding): the Table-2 grid,
/// single abstract queries, and `verify` with every check by MILP.
fn abstract_milp(c: &mut Criterion) {
    let model = guarding();
    let conj = |m: usize| -> (String, String) {
        let vars: Vec<String> = (1..=m).map(|i| format!("v{i}")).collect();
        let atoms: Vec<String> = vars.iter().map(|v| format!("(alive, {v})")).collect();
        (vars.join(", "), atoms.join(" & "))
    };
    let mut grid = Vec::new();
    for k in 1..=6 {
        for m in [2, 3] {
            let (v, b) = conj(m);
            grid.push(parse_sentence(&format!("forall {v}: AX^{k} {b}")).unwrap());
        }
    }
    let (v3, b3) = conj(3);
    let ex6 = parse_sentence(&format!("forall {v3}: EX^6 {b3}")).unwrap();
    // Valid, so its dual MILP is infeasible: the solver must prove it.
    let taut = parse_sentence(
        "forall v1, v2, v3: AX^6 ((alive, v1) | (dead, v1)) & ((alive, v2) | (dead, v2)) & ((alive, v3) | (dead, v3))",
    )
    .unwrap();
    let mut group = c.benchmark_group("nis/milp-abstract");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.warm_up_time(Duration::from_secs(1));
    group.sampling_mode(SamplingMode::Flat);
    group.bench_function("table2_grid (m=2,3, k=1..6)", |b| {
        b.iter(|| {
            for s in &grid {
                decide(EngineChoice::Milp, &model, s, Target::Abstract).unwrap();
            }
        })
    });
    group.bench_function("EX^6 witness on M_ab(3)", |b| {
        b.iter(|| decide(EngineChoice::Milp, &model, &ex6, Target::Abstract).unwrap())
    });
    group.bench_function("AX^6 valid on M_ab(3) (infeasible dual)", |b| {
        b.iter(|| decide(EngineChoice::Milp, &model, &taut, Target::Abstract).unwrap())
    });
    let ctx = RunContext::default();
    let opts = VerifyOptions {
        engine: EngineChoice::Milp,
        cap: None,
        milp: Default::default(),
    };
    for k in 1..=6u32 {
        let s =
            parse_sentence(&format!("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)")).unwrap();
        group.bench_function(
            format!("verify EX^{k} (Corollary 2, all checks MILP)"),
            |b| b.iter(|| verify(&model, &s, &opts, &ctx).unwrap()),
        );
    }
    group.finish();
}

/// The real-valued guarding example (examples/guarding_real, the bundled
/// network): M_ab(2) by the slot encoding, only the MILP decider applies.
fn slots_milp(c: &mut Criterion) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding_real/guarding_real.nis");
    let model = mavis::nis::load_model(&path, &LoadOptions::default()).unwrap();
    let mut group = c.benchmark_group("nis/milp-slots (guarding_real, M_ab(2))");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.warm_up_time(Duration::from_secs(1));
    group.sampling_mode(SamplingMode::Flat);
    for k in 1..=3 {
        for q in ["EX", "AX"] {
            let s = parse_sentence(&format!("forall v1, v2: {q}^{k} (alive, v1) & (alive, v2)"))
                .unwrap();
            group.bench_function(format!("{q}^{k}"), |b| {
                b.iter(|| decide(EngineChoice::Milp, &model, &s, Target::Abstract).unwrap())
            });
        }
    }
    group.finish();
}

/// VerticalCAS (examples/vcas/single_agent.nis, the nine VENMAS networks):
/// VENMAS's default query AX^k safe for k = 1..10 (since 2026-12-07 proved
/// by boxes before any MILP), and the steep descent (V0 = -35) whose
/// counterexample the falsifier finds and the replay checks.
fn vcas(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vcas/single_agent.nis");
    let load = |v0: &str| {
        let constants = [("V0".to_string(), mavis::lang::parse_value_text(v0).unwrap())];
        let opts = LoadOptions {
            constants: constants.into_iter().collect(),
            ..Default::default()
        };
        mavis::nis::load_model(&path, &opts).unwrap()
    };
    let (safe, steep) = (load("-19.5"), load("-35"));
    let mut group = c.benchmark_group("nis/vcas (single agent, M(1), MILP)");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.sampling_mode(SamplingMode::Flat);
    for k in 1..=10 {
        let s = parse_sentence(&format!("AX^{k} safe")).unwrap();
        group.bench_function(format!("AX^{k} safe (holds)"), |b| {
            b.iter(|| {
                let r = decide(
                    EngineChoice::Milp,
                    &safe,
                    &s,
                    Target::Concrete { agents: 1 },
                );
                assert!(r.unwrap().holds);
            })
        });
        if k <= 4 {
            group.bench_function(format!("AX^{k} safe, V0 = -35 (violated)"), |b| {
                b.iter(|| {
                    let r = decide(
                        EngineChoice::Milp,
                        &steep,
                        &s,
                        Target::Concrete { agents: 1 },
                    );
                    assert!(k == 1 || !r.unwrap().holds);
                })
            });
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    table1,
    table2,
    verify_all,
    table1_milp,
    abstract_milp,
    slots_milp,
    vcas
);
criterion_main!(benches);
