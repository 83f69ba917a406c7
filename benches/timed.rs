//! The CAV platoon (examples/cav): state-space sizes and times for plain
//! against accelerated semantics and bfs/dfs/layered search. Run with
//! `cargo bench --bench timed`; the sizes are printed once per configuration.
//! Group `timed_many_ef`: queries of 1 to 400 nested `EF` pairs on one graph.

use criterion::{criterion_group, criterion_main, Criterion};
use mavis::timed::check::{run_query, RunOptions};
use mavis::timed::explore::{Heuristic, Memory, Options, Search};
use mavis::timed::semantics::SemanticsKind;
use mavis::timed::{ast::Loc, load_str};
use std::collections::HashMap;
use std::time::Duration;

fn platoon(n: usize) -> mavis::timed::model::Model {
    let path = format!("examples/cav/platoon{n}.mapt");
    let text = std::fs::read_to_string(&path).expect("run from the crate root");
    load_str(&path, &text, HashMap::new()).expect("valid model")
}

fn options(kind: SemanticsKind, search: Search, horizon: u64, heuristic: Heuristic) -> RunOptions {
    RunOptions {
        semantics: kind,
        horizon: Some(horizon),
        explore: Options {
            search,
            memory: Memory::Border,
            heuristic,
            pacemaker: 0,
            recent_states: 100_000,
            max_states: 20_000_000,
            deadline: None,
        },
    }
}

fn query(
    m: &mavis::timed::model::Model,
    q: &str,
    o: &RunOptions,
) -> mavis::timed::check::QueryResult {
    let src = mavis::lang::Source::new("<q>", q);
    run_query(
        m,
        "q",
        &Loc::new(&src, mavis::lang::Span::new(0, q.len())),
        o,
    )
    .expect("query runs")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("timed");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(300));
    // Full exploration (a query that never stops early) up to 3 periods (300 ms).
    for n in [2usize, 3, 4, 6] {
        let m = platoon(n);
        for (kind, kname) in [
            (SemanticsKind::Plain, "plain"),
            (SemanticsKind::Accelerated, "accel"),
        ] {
            if kind == SemanticsKind::Plain && n > 3 {
                continue;
            }
            for (search, sname) in [
                (Search::Bfs, "bfs"),
                (Search::Dfs, "dfs"),
                (Search::Layered, "layered"),
            ] {
                let o = options(kind, search, 300, Heuristic::None);
                let r = query(&m, "AG x1 - x2 > -1000", &o);
                eprintln!(
                    "platoon{n} {kname} {sname}: states {} peak_stored {}",
                    r.stats.expanded, r.stats.peak_stored
                );
                g.bench_function(format!("platoon{n}/{kname}/{sname}"), |b| {
                    b.iter(|| query(&m, "AG x1 - x2 > -1000", &o))
                });
            }
        }
    }
    // Time to the first collision witness, with and without a heuristic.
    let m = platoon(3);
    let gap =
        mavis::lang::parse_expr(&mavis::lang::Source::new("<h>", "min(x1 - x2, x2 - x3)")).unwrap();
    let gap = mavis::lang::check(
        &mavis::lang::Source::new("<h>", "min(x1 - x2, x2 - x3)"),
        &gap,
        &mavis::timed::model::StateScope { model: &m },
    )
    .unwrap();
    for (h, hname) in [
        (Heuristic::None, "plain-order"),
        (Heuristic::Minimize(gap), "min-gap"),
    ] {
        let o = options(SemanticsKind::Accelerated, Search::Layered, 600, h);
        let r = query(&m, "EF x1 - x2 <= 0 | x2 - x3 <= 0", &o);
        eprintln!(
            "platoon3 first witness {hname}: states {} found {:?}",
            r.stats.expanded, r.verdict
        );
        g.bench_function(format!("platoon3/first-witness/{hname}"), |b| {
            b.iter(|| query(&m, "EF x1 - x2 <= 0 | x2 - x3 <= 0", &o))
        });
    }
    g.finish();
}

/// A query of many `EF(p & EF q)` pairs over one state graph (the graph is
/// built once and every sub-formula evaluated once), against a single pair.
fn many_ef(c: &mut Criterion) {
    let mut g = c.benchmark_group("timed_many_ef");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(300));
    let m = platoon(3);
    let o = options(
        SemanticsKind::Accelerated,
        Search::Bfs,
        600,
        Heuristic::None,
    );
    for pairs in [1usize, 100, 400] {
        let q: Vec<String> = (0..pairs)
            .map(|i| {
                format!(
                    "EF(x1 - x2 <= {} & EF x2 - x3 <= {})",
                    i % 20,
                    (i / 20) % 20
                )
            })
            .collect();
        let q = q.join(" | ");
        let r = query(&m, &q, &o);
        eprintln!(
            "platoon3 many-EF {pairs} pairs: states {} verdict {:?}",
            r.stats.expanded, r.verdict
        );
        g.bench_function(format!("platoon3/pairs{pairs}"), |b| {
            b.iter(|| query(&m, &q, &o))
        });
    }
    g.finish();
}

criterion_group!(benches, bench, many_ef);
criterion_main!(benches);
