//! The layered search's memory policies on concrete models: expansions
//! against the distinct states (the reachable set computed independently by
//! the plain breadth-first graph), what each policy holds against bfs (never
//! more, on the CAV platoons and on random models) and the verdicts (the
//! same under every policy).

use super::accel::{query_result, random_general_model};
use crate::timed::check::graph::Graph;
use crate::timed::check::RunOptions;
use crate::timed::explore::progress::Measure;
use crate::timed::explore::search::explore;
use crate::timed::explore::{Control, Memory, Options, Search, Stats};
use crate::timed::front::model::Model;
use crate::timed::semantics::{Semantics, SemanticsKind, State};
use crate::timed::tests::{model, REEXPANDING_MODEL};
use crate::timed::verbs::check::default_pacemaker_for;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

fn options(m: &Model, search: Search, memory: Memory, recent: usize) -> Options {
    Options {
        pacemaker: default_pacemaker_for(m, memory),
        max_states: 5_000_000,
        recent_states: recent,
        ..crate::timed::tests::options(search, memory)
    }
}

fn layered(
    m: &Model,
    memory: Memory,
    recent: usize,
    horizon: Option<u64>,
) -> (Stats, HashSet<State>) {
    let sem = Semantics::new(m, SemanticsKind::Accelerated, horizon);
    let opts = options(m, Search::Layered, memory, recent);
    let mut seen = HashSet::new();
    let stats = explore(&sem, &opts, &mut |s, _| {
        seen.insert(s.clone());
        Ok(Control::Continue)
    })
    .unwrap();
    assert!(stats.complete);
    (stats, seen)
}

/// Every state reachable in the accelerated semantics (bfs over the graph).
pub(super) fn reachable(m: &Model, horizon: Option<u64>) -> HashSet<State> {
    let sem = Semantics::new(m, SemanticsKind::Accelerated, horizon);
    let g = Graph::build(&sem, 5_000_000, None).unwrap();
    assert!(g.complete);
    g.states.into_iter().collect()
}

fn platoon(n: usize) -> Model {
    cav(&format!("platoon{n}"))
}

fn cav(name: &str) -> Model {
    let path = format!("{}/examples/cav/{name}.mapt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    super::load_str(&path, &text, HashMap::new()).unwrap()
}

/// REEXPANDING_MODEL (7920 states, a long-period pacemaker): layers from
/// sibling borders overlap. Without the recent-layer cache border memory
/// expands 118115 states (14.9x, measured 2026-12-03); a cache of 10000
/// inside states brings it to at most 2x the distinct count.
#[test]
fn recent_layers_stop_the_reexpansion() {
    let m = model(REEXPANDING_MODEL);
    let all = reachable(&m, None);
    assert_eq!(all.len(), 7920);
    let (bare, seen) = layered(&m, Memory::Border, 0, None);
    assert_eq!((bare.distinct, &seen), (7920, &all));
    assert!(bare.expanded > 10 * all.len(), "{}", bare.expanded);
    let (cached, seen) = layered(&m, Memory::Border, 10_000, None);
    assert_eq!(&seen, &all);
    assert!(cached.expanded <= 2 * all.len(), "{}", cached.expanded);
}

/// platoon3 up to 6 periods (22151 states): border memory with a cache of
/// 1000 states expands at most 2x the distinct states and holds at most
/// 1/10 of them; layer memory holds no more than border memory.
#[test]
fn memory_policies_on_the_platoon() {
    let m = platoon(3);
    let h = Some(600);
    let all = reachable(&m, h);
    assert_eq!(all.len(), 22151);
    let (border, seen) = layered(&m, Memory::Border, 1000, h);
    assert_eq!((border.distinct, &seen), (all.len(), &all));
    assert!(border.expanded <= 2 * all.len(), "{}", border.expanded);
    assert!(
        border.peak_stored <= all.len() / 10,
        "{}",
        border.peak_stored
    );
    let (layer, seen) = layered(&m, Memory::Layer, 1000, h);
    assert_eq!((layer.distinct, &seen), (all.len(), &all));
    assert!(
        layer.peak_stored <= border.peak_stored,
        "{} > {}",
        layer.peak_stored,
        border.peak_stored
    );
}

/// Every memory policy of the layered search (border with the default and a
/// small recent-layer cache, layer, both sweeps), and what it holds against
/// bfs's stored states. The distinct states must be bfs's.
fn held_against_bfs(m: &Model, horizon: Option<u64>) -> Vec<(Memory, usize, usize)> {
    let sem = Semantics::new(m, SemanticsKind::Accelerated, horizon);
    let run = |search, memory, recent, max_states| {
        let opts = Options {
            max_states,
            ..options(m, search, memory, recent)
        };
        explore(&sem, &opts, &mut |_, _| Ok(Control::Continue)).unwrap()
    };
    let bfs = run(Search::Bfs, Memory::default(), 0, 5_000_000);
    assert!(bfs.complete);
    let mut policies = vec![
        (Memory::Border, 100_000),
        (Memory::Border, 1000),
        (Memory::Sweep(Measure::Pacemaker), 0),
        (Memory::Sweep(Measure::Hyperperiod), 0),
    ];
    if horizon.is_some() {
        policies.push((Memory::Layer, 1000));
    }
    let mut out = Vec::new();
    for (memory, recent) in policies {
        // Layer explores finished borders again, so its expansions can grow
        // exponentially with the horizon (seed 2468 found a 3-agent model
        // past 5 million at horizon 56); it is compared where it finishes
        // within 20 times bfs's expansions. Every other policy must finish.
        let cap = 20 * bfs.expanded.max(1000);
        let stats = run(Search::Layered, memory, recent, cap);
        if memory == Memory::Layer && !stats.complete {
            continue;
        }
        assert!(stats.complete, "{memory:?} {recent}");
        assert_eq!(stats.distinct, bfs.expanded, "{memory:?} {recent}");
        out.push((memory, stats.peak_stored, bfs.peak_stored));
    }
    out
}

/// The answer to `q` under the search `search` with `memory`.
fn verdict(m: &Model, q: &str, horizon: Option<u64>, search: Search, memory: Memory) -> String {
    let opts = RunOptions {
        semantics: SemanticsKind::Accelerated,
        horizon,
        explore: options(m, search, memory, 1000),
    };
    let r = query_result(m, q, &opts);
    assert!(r.stats.complete || r.stats.stopped, "{q} {memory:?}");
    format!("{:?} {:?}", r.verdict, r.value)
}

/// The CAV platoons of examples/cav (plain and with V2V delay): no memory
/// policy holds more states at once than bfs stores, and each finds bfs's
/// distinct states; the files' `collision` and `min_gap` queries get the
/// same answer under every policy as under bfs.
#[test]
fn no_policy_holds_more_than_bfs_on_the_platoons() {
    let cases = [
        ("platoon2", 500),
        ("platoon2_delay", 300),
        ("platoon3", 400),
        ("platoon3_delay", 200),
        ("platoon4", 300),
    ];
    let queries = ["EF x1 - x2 <= 0", "min x1 - x2", "AG x2 - x1 < 4"];
    for (name, horizon) in cases {
        let m = cav(name);
        for (memory, held, bfs) in held_against_bfs(&m, Some(horizon)) {
            assert!(held <= bfs, "{name} {memory:?}: {held} > {bfs}");
        }
        for q in queries {
            let expected = verdict(&m, q, Some(horizon), Search::Bfs, Memory::default());
            for memory in [
                Memory::Border,
                Memory::Layer,
                Memory::Sweep(Measure::Pacemaker),
            ] {
                let got = verdict(&m, q, Some(horizon), Search::Layered, memory);
                assert_eq!(got, expected, "{name} {q} {memory:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Random models of the general shape (as the sweep's tests): no policy
    /// holds more states than bfs stores, with or without a horizon.
    #[test]
    fn no_policy_holds_more_than_bfs_on_random_models(
        text in random_general_model(), h in prop::option::of(5u64..60),
    ) {
        let m = model(&text);
        for (memory, held, bfs) in held_against_bfs(&m, h) {
            prop_assert!(held <= bfs, "{:?}: {} > {}", memory, held, bfs);
        }
    }
}
