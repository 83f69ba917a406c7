//! The deadlock count (issue 33, item 12): distinct deadlock states, not
//! expansions, under every search; under the accelerated semantics the
//! states a blocked state waits into, not the blocked state itself. Checked
//! against a brute force over the plain semantics (every state with no
//! successor before the horizon) and by hand.

use super::accel::random_general_model;
use crate::timed::explore::progress::Measure;
use crate::timed::explore::search::explore;
use crate::timed::explore::{Control, Heuristic, Memory, Options, Search, Stats};
use crate::timed::front::model::Model;
use crate::timed::semantics::{Semantics, SemanticsKind, State};
use crate::timed::tests::model;
use proptest::prelude::*;
use std::collections::{HashSet, VecDeque};

/// Every reachable state of `sem`, by its successor function alone.
fn reachable(sem: &Semantics) -> HashSet<State> {
    let init = sem.initial();
    let mut seen = HashSet::from([init.clone()]);
    let mut queue = VecDeque::from([init]);
    let mut succ = Vec::new();
    while let Some(s) = queue.pop_front() {
        sem.successors(&s, &mut succ).unwrap();
        for (_, t) in succ.drain(..) {
            if seen.insert(t.clone()) {
                queue.push_back(t);
            }
        }
    }
    seen
}

/// The plain semantics' deadlocks: reachable states with no successor,
/// before the horizon.
fn plain_deadlocks(m: &Model, horizon: Option<u64>) -> HashSet<State> {
    let sem = Semantics::new(m, SemanticsKind::Plain, horizon);
    let mut succ = Vec::new();
    reachable(&sem)
        .into_iter()
        .filter(|s| {
            sem.successors(s, &mut succ).unwrap();
            let none = succ.is_empty();
            succ.clear();
            none && horizon.is_none_or(|h| s.time < h)
        })
        .collect()
}

/// The accelerated semantics' deadlocks by brute force: each reachable
/// state without successors waits as long as time may pass (one tick at a
/// time, by the plain semantics, until it cannot) into a plain deadlock or
/// the horizon.
fn accelerated_deadlocks(m: &Model, horizon: Option<u64>) -> HashSet<State> {
    let accel = Semantics::new(m, SemanticsKind::Accelerated, horizon);
    let plain = Semantics::new(m, SemanticsKind::Plain, horizon);
    let mut succ = Vec::new();
    let mut out = HashSet::new();
    for s in reachable(&accel) {
        accel.successors(&s, &mut succ).unwrap();
        if !succ.is_empty() {
            succ.clear();
            continue;
        }
        let mut at = s;
        loop {
            plain.successors(&at, &mut succ).unwrap();
            // Only time may pass here (nothing fires while waiting).
            assert!(succ.len() <= 1, "{at:?}");
            match succ.pop() {
                Some((_, next)) => at = next,
                None => break,
            }
        }
        if horizon.is_none_or(|h| at.time < h) {
            out.insert(at);
        }
    }
    out
}

fn options(search: Search, memory: Memory, pacemaker: usize) -> Options {
    Options {
        search,
        memory,
        heuristic: Heuristic::None,
        pacemaker,
        // Small, so that the layered search expands states again.
        recent_states: 16,
        max_states: 200_000,
        deadline: None,
        meter: Default::default(),
    }
}

/// The statistics of every search on `m` that ends within its budget (a
/// layered search with little memory may expand states again and again).
fn every_search(m: &Model, kind: SemanticsKind, horizon: Option<u64>) -> Vec<(String, Stats)> {
    let sem = Semantics::new(m, kind, horizon);
    let short = crate::timed::verbs::check::default_pacemaker(m);
    let long = crate::timed::verbs::check::default_sweep_pacemaker(m);
    [
        (Search::Bfs, Memory::Border, short),
        (Search::Dfs, Memory::Border, short),
        (Search::Layered, Memory::Border, short),
        (Search::Layered, Memory::Layer, short),
        (Search::Layered, Memory::Sweep(Measure::Pacemaker), long),
        (Search::Layered, Memory::Sweep(Measure::Hyperperiod), long),
    ]
    .into_iter()
    .filter_map(|(search, memory, pacemaker)| {
        let opts = options(search, memory, pacemaker);
        let stats = explore(&sem, &opts, &mut |_, _| Ok(Control::Continue)).unwrap();
        assert!(stats.complete || search == Search::Layered, "{search:?}");
        stats
            .complete
            .then(|| (format!("{search:?} {memory:?}"), stats))
    })
    .collect()
}

/// One agent blocked in `l0` until its deadline 5 (its guard is never true).
const BLOCKED: &str = "var x: int = 0;\nagent a period 10 {\n  l0 -> l1 in [0, 5] when x = 1;\n}\n";

#[test]
fn a_blocked_agent_deadlocks_once_at_its_deadline() {
    let m = model(BLOCKED);
    // Plain: clock 0..5 in l0, stuck at 5: one deadlock.
    assert_eq!(plain_deadlocks(&m, None).len(), 1);
    for kind in [SemanticsKind::Plain, SemanticsKind::Accelerated] {
        let all = every_search(&m, kind, None);
        assert_eq!(all.len(), 6);
        for (name, stats) in all {
            assert_eq!(stats.deadlocks, 1, "{kind:?} {name}");
        }
    }
    // With the horizon at 3 time runs into the horizon first: no deadlock.
    // The accelerated semantics stays at clock 0 (no lower bound ahead),
    // where time could still pass; it was counted as a deadlock.
    assert!(plain_deadlocks(&m, Some(3)).is_empty());
    for kind in [SemanticsKind::Plain, SemanticsKind::Accelerated] {
        for (name, stats) in every_search(&m, kind, Some(3)) {
            assert_eq!(stats.deadlocks, 0, "{kind:?} {name}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every search counts the brute force's deadlocks, each once (the
    /// layered searches with a small memory expand states again); the
    /// accelerated semantics' are deadlocks of the plain semantics.
    #[test]
    fn every_search_counts_the_distinct_deadlocks(text in random_general_model(), h in 0u64..3) {
        let m = model(&text);
        let horizon = [None, Some(7), Some(40)][h as usize];
        let plain = plain_deadlocks(&m, horizon);
        let accel = accelerated_deadlocks(&m, horizon);
        prop_assert!(accel.is_subset(&plain), "{}", text);
        for (kind, expected) in [(SemanticsKind::Plain, &plain), (SemanticsKind::Accelerated, &accel)] {
            for (name, stats) in every_search(&m, kind, horizon) {
                prop_assert_eq!(stats.deadlocks, expected.len(), "{:?} {} {}", kind, name, text);
            }
        }
    }
}
