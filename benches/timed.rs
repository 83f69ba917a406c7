//! The CAV platoon (examples/cav): state-space sizes and times for plain
//! against accelerated semantics and bfs/dfs/layered search. Run with
//! `cargo bench --bench timed`; the sizes are printed once per configuration.
//! Group `timed_many_ef`: queries of 1 to 400 nested `EF` pairs on one graph.
//! Group `timed_layered_random`: layered search against breadth-first search
//! on seeded random MAPT of the general shape (deadlines that may decrease,
//! as in the models of issue 19), not the CAV family: expansions against
//! distinct states, and the states held at the peak. With
//! `TIMED_RANDOM_MODELS_DIR=DIR` it also writes the models there as
//! `random<seed>.mapt`, for `mavis timed check` under `/usr/bin/time`.

use criterion::{criterion_group, criterion_main, Criterion};
use mavis::timed::check::{run_query, RunOptions};
use mavis::timed::explore::{Heuristic, Memory, Options, Search};
use mavis::timed::semantics::SemanticsKind;
use mavis::timed::{front::ast::Loc, load_str};
use std::collections::HashMap;
use std::time::Duration;

fn platoon(n: usize) -> mavis::timed::front::model::Model {
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
            meter: Default::default(),
        },
    }
}

fn query(
    m: &mavis::timed::front::model::Model,
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
        &mavis::timed::front::model::StateScope { model: &m },
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

/// A seeded random MAPT of the general shape: `agents` agents, each with
/// localities `l0..l{len}`, a chain plus random skip edges, bounds that obey
/// only liveness (an upper bound never exceeds the deadline of its target, so
/// deadlines may decrease along a path), and updates of two variables mod 3.
pub fn random_mapt(seed: u64, agents: usize, len: usize, period: std::ops::Range<u64>) -> String {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let mut text = String::from("var x: int = 0;\nvar y: int = 1;\n");
    for i in 0..agents {
        let period = r.gen_range(period.clone());
        let mut all: Vec<(usize, usize, u8, u64, u64)> = Vec::new();
        for _ in 0..r.gen_range(len..2 * len + 1) {
            let from = r.gen_range(0..len);
            let to = r.gen_range(from + 1..=len);
            all.push((
                from,
                to,
                r.gen_range(0..6),
                r.gen_range(0..period),
                r.gen_range(0..period),
            ));
        }
        for l in 0..len {
            if !all.iter().any(|e| e.0 == l && e.1 == l + 1) {
                all.push((l, l + 1, 9, 0, period));
            }
        }
        // From the final locality backwards, so that each target's deadline is known.
        all.sort_by_key(|e| std::cmp::Reverse(e.0));
        let mut deadline = vec![0u64; len + 1];
        deadline[len] = period;
        let mut lines = Vec::new();
        for (from, to, up, a, b) in all {
            let b = b % (deadline[to] + 1);
            let a = a % (b + 1);
            deadline[from] = deadline[from].max(b);
            let update = match up {
                0 => " do x := mod(x + 1, 3)",
                1 => " do y := x",
                2 => " do x := mod(x + y, 3), y := mod(y + 2, 3)",
                3 => " when x = 0 do y := mod(y + 1, 3)",
                _ => "",
            };
            lines.push(format!("  l{from} -> l{to} in [{a}, {b}]{update};"));
        }
        lines.reverse();
        let clock = r.gen_range(0..=deadline[0]);
        text.push_str(&format!(
            "agent g{i} period {period} clock {clock} {{\n{}\n}}\n",
            lines.join("\n")
        ));
    }
    text
}

/// Layered search (border memory with a recent-layer cache of 10^4
/// states; the sweep-line search with three progress measures) against
/// breadth-first search on random MAPT (3 agents, periods 5..25,
/// accelerated semantics, no horizon) of 2e3-4e5 states: prints expansions
/// / distinct states and the peak held against bfs's, checks that every
/// search finds the distinct states bfs finds, and times bfs and the sweep.
fn layered_random(c: &mut Criterion) {
    use mavis::timed::explore::progress::Measure;
    use mavis::timed::explore::search::explore;
    use mavis::timed::explore::{Control, Stats};
    use mavis::timed::semantics::Semantics;
    let mut g = c.benchmark_group("timed_layered_random");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(300));
    let options = |search, memory, pacemaker, cap| Options {
        search,
        memory,
        heuristic: Heuristic::None,
        pacemaker,
        recent_states: 10_000,
        max_states: cap,
        deadline: None,
        meter: Default::default(),
    };
    let kind = SemanticsKind::Accelerated;
    let run = |m: &mavis::timed::front::model::Model, search, memory, cap| -> Stats {
        let sem = Semantics::new(m, kind, None);
        let o = options(
            search,
            memory,
            mavis::timed::verbs::check::default_pacemaker(m),
            cap,
        );
        explore(&sem, &o, &mut |_, _| Ok(Control::Continue)).expect("explores")
    };
    let run_sweep = |m: &mavis::timed::front::model::Model, measure, pacemaker| -> Stats {
        let sem = Semantics::new(m, kind, None);
        let o = options(
            Search::Layered,
            Memory::Sweep(measure),
            pacemaker,
            20_000_000,
        );
        explore(&sem, &o, &mut |_, _| Ok(Control::Continue)).expect("explores")
    };
    let mut timed = 0;
    for seed in 1..=12u64 {
        let text = random_mapt(seed, 3, 3, 5..25);
        let m = load_str("random.mapt", &text, HashMap::new()).expect("valid model");
        if let Some(dir) = std::env::var_os("TIMED_RANDOM_MODELS_DIR") {
            // For measuring the CLI's peak memory on the same models.
            let path = std::path::Path::new(&dir).join(format!("random{seed}.mapt"));
            std::fs::write(path, &text).expect("the models' directory is writable");
        }
        // Models of 2e3 to 4e5 states (the others are skipped, and said so).
        let bfs = run(&m, Search::Bfs, Memory::default(), 400_000);
        if !bfs.complete || bfs.expanded < 2_000 {
            eprintln!(
                "random{seed}: skipped ({} states, complete {})",
                bfs.expanded, bfs.complete
            );
            continue;
        }
        let shortest = mavis::timed::verbs::check::default_pacemaker(&m);
        let longest = mavis::timed::verbs::check::default_sweep_pacemaker(&m);
        let variants = [
            (
                "border-10000",
                run(&m, Search::Layered, Memory::Border, 20_000_000),
            ),
            (
                "sweep-shortest",
                run_sweep(&m, Measure::Pacemaker, shortest),
            ),
            ("sweep-longest", run_sweep(&m, Measure::Pacemaker, longest)),
            (
                "sweep-hyperperiod",
                run_sweep(&m, Measure::Hyperperiod, shortest),
            ),
        ];
        for (name, l) in variants {
            assert!(l.complete);
            assert_eq!(
                l.distinct, bfs.expanded,
                "seed {seed} {name}: distinct states"
            );
            eprintln!(
                "random{seed} {name}: distinct {} expansions {} ({:.2}x) peak held {} against bfs {} (1/{:.1}), links {}, layers {} sweeps {}",
                bfs.expanded,
                l.expanded,
                l.expanded as f64 / bfs.expanded as f64,
                l.peak_stored,
                bfs.peak_stored,
                bfs.peak_stored as f64 / l.peak_stored.max(1) as f64,
                l.peak_links,
                l.layers,
                l.sweeps
            );
        }
        if timed < 2 && bfs.expanded < 50_000 {
            timed += 1;
            g.bench_function(format!("random{seed}/bfs"), |b| {
                b.iter(|| run(&m, Search::Bfs, Memory::default(), 20_000_000))
            });
            g.bench_function(format!("random{seed}/sweep"), |b| {
                b.iter(|| run_sweep(&m, Measure::Pacemaker, longest))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench, many_ef, layered_random);
criterion_main!(benches);
