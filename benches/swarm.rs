//! Swarm engine benchmarks: build + check Pmax[F<20 "deposited2"] on the
//! seed's foraging swarm (examples/foraging/foraging.swarm, 14 local states
//! per robot; n = 3, 4, 5) and on its set abstraction (pf = 0.4), in f64 and
//! exactly (n = 3); and the unbounded until of issue 35,
//! Pmax[!"deposited1" U state_1_1=6] (n = 3, 4, pf = 2/5), by topological
//! interval iteration with the optimistic phase.
//! `benches/swarm_storm.py` times Storm on the same exported models.

use criterion::{criterion_group, criterion_main, Criterion};
use mavis::swarm::Inputs;
use mavis::swarm::{check, CheckOptions};
use std::path::PathBuf;

fn inputs() -> Inputs {
    inputs_with("Pmax=? [ F<20 \"deposited2\" ]", "0.4")
}

fn inputs_with(prop: &str, pf: &str) -> Inputs {
    let ex = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/foraging");
    Inputs {
        model: ex.join("foraging.swarm"),
        faults: Some(ex.join("foraging.faults")),
        props: None,
        prop_texts: vec![prop.into()],
        sets: vec![("pf".into(), mavis::lang::parse_value_text(pf).unwrap())],
        faulty_fraction: None,
        keep_fault_flags: false,
    }
}

fn bench(c: &mut Criterion) {
    let ctx = mavis::report::RunContext::default();
    let mut g = c.benchmark_group("swarm");
    g.sample_size(10);
    for n in [3usize, 4, 5] {
        g.bench_function(format!("foraging_n{n}_build_check_F20"), |b| {
            b.iter(|| {
                check(
                    &inputs(),
                    &CheckOptions {
                        agents: Some(vec![n]),
                        ..Default::default()
                    },
                    &ctx,
                )
                .unwrap()
            })
        });
    }
    let until = inputs_with("Pmax=? [ !\"deposited1\" U state_1_1=6 ]", "2/5");
    for n in [3usize, 4] {
        g.bench_function(format!("foraging_n{n}_build_check_unbounded_until"), |b| {
            b.iter(|| {
                check(
                    &until,
                    &CheckOptions {
                        agents: Some(vec![n]),
                        ..Default::default()
                    },
                    &ctx,
                )
                .unwrap()
            })
        });
    }
    g.bench_function("foraging_n3_build_check_F20_exact", |b| {
        b.iter(|| {
            check(
                &inputs(),
                &CheckOptions {
                    agents: Some(vec![3]),
                    exact: true,
                    ..Default::default()
                },
                &ctx,
            )
            .unwrap()
        })
    });
    g.bench_function("foraging_abstract_pf0.4_F20", |b| {
        b.iter(|| {
            check(
                &inputs(),
                &CheckOptions {
                    threshold: Some(1),
                    ..Default::default()
                },
                &ctx,
            )
            .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
