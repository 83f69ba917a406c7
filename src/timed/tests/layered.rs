//! The layered search's memory policies on concrete models: expansions
//! against the distinct states (the reachable set computed independently by
//! the plain breadth-first graph), and what each policy holds.

use crate::timed::check::graph::Graph;
use crate::timed::explore::search::explore;
use crate::timed::explore::{Control, Heuristic, Memory, Options, Search, Stats};
use crate::timed::front::model::Model;
use crate::timed::semantics::{Semantics, SemanticsKind, State};
use crate::timed::tests::{model, REEXPANDING_MODEL};
use std::collections::{HashMap, HashSet};

fn layered(
    m: &Model,
    memory: Memory,
    recent: usize,
    horizon: Option<u64>,
) -> (Stats, HashSet<State>) {
    let sem = Semantics::new(m, SemanticsKind::Accelerated, horizon);
    let opts = Options {
        search: Search::Layered,
        memory,
        heuristic: Heuristic::None,
        pacemaker: crate::timed::verbs::check::default_pacemaker(m),
        max_states: 5_000_000,
        recent_states: recent,
        deadline: None,
    };
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
    let path = format!(
        "{}/examples/cav/platoon{n}.mapt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    super::load_str(&path, &text, HashMap::new()).unwrap()
}

/// REEXPANDING_MODEL (7920 states, a long-period pacemaker): layers from
/// sibling borders overlap. Without the recent-layer cache border memory
/// expands 118115 states (14.9x); a cache of 10000 inside states brings it to
/// the distinct count; full memory never expands a state twice.
#[test]
fn recent_layers_stop_the_reexpansion() {
    let m = model(REEXPANDING_MODEL);
    let all = reachable(&m, None);
    assert_eq!(all.len(), 7920);
    let (full, seen) = layered(&m, Memory::Full, 0, None);
    assert_eq!((full.expanded, full.distinct, &seen), (7920, 7920, &all));
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
    let (full, seen) = layered(&m, Memory::Full, 0, h);
    assert_eq!(
        (full.expanded, full.distinct, &seen),
        (all.len(), all.len(), &all)
    );
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
