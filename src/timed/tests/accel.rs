//! The accelerated semantics on general MAPT (deadlines that may decrease
//! along a path, the shape of the models of issue 19) against the plain
//! semantics, the reference: both must reach the same untimed states
//! (localities and V), the same states right after every reset, and give
//! the same answers to untimed queries.

use crate::lang::{Source, Span, Value};
use crate::timed::check::graph::Graph;
use crate::timed::check::{run_query, QueryResult, RunOptions};
use crate::timed::explore::{Memory, Options, Search};
use crate::timed::semantics::{Semantics, SemanticsKind, Step};
use crate::timed::tests::{model, options, ON_THE_FLY_QUERIES};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// A random MAPT whose bounds obey only the validation (liveness: an upper
/// bound never exceeds the deadline of the target locality), so deadlines
/// may decrease. Localities `l0..l{len}` with skip edges; V = (x, y) mod 3.
pub(super) fn random_general_model() -> impl Strategy<Value = String> {
    let agent = (
        2u64..9,
        1usize..4,
        prop::collection::vec((0usize..3, 0u64..100, 0u64..100, 0u8..6), 1..6),
        0u64..100,
    );
    prop::collection::vec(agent, 1..4).prop_map(|agents| {
        let mut text = String::from("var x: int = 0;\nvar y: int = 1;\n");
        for (i, (period, len, edges, clock)) in agents.into_iter().enumerate() {
            let mut all: Vec<(usize, usize, u8, u64, u64)> = Vec::new();
            for (from, a, b, up) in edges {
                let from = from % len;
                let to = (from + 1 + (a as usize % (len - from))).min(len);
                all.push((from, to, up, a, b));
            }
            for l in 0..len {
                if !all.iter().any(|e| e.0 == l && e.1 == l + 1) {
                    all.push((l, l + 1, 9, 7, 50));
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
            let clock = clock % (deadline[0] + 1);
            text.push_str(&format!(
                "agent g{i} period {period} clock {clock} {{\n{}\n}}\n",
                lines.join("\n")
            ));
        }
        text
    })
}

type Untimed = (Vec<u32>, Vec<Value>);

/// The untimed states reached, and the untimed states right after each reset.
fn untimed_sets(
    m: &crate::timed::front::model::Model,
    kind: SemanticsKind,
) -> (BTreeSet<Untimed>, BTreeSet<(usize, Untimed)>) {
    let sem = Semantics::new(m, kind, None);
    let g = Graph::build(&sem, 2_000_000, None).unwrap();
    assert!(g.complete);
    let states = g.states.iter().map(|s| (s.locs.clone(), s.vars.clone()));
    let mut resets = BTreeSet::new();
    let mut succ = Vec::new();
    for s in &g.states {
        sem.successors(s, &mut succ).unwrap();
        for (step, t) in &succ {
            if let Step::Reset { agent } = step {
                resets.insert((*agent, (t.locs.clone(), t.vars.clone())));
            }
        }
    }
    (states.collect(), resets)
}

fn answer(m: &crate::timed::front::model::Model, q: &str, kind: SemanticsKind) -> String {
    let opts = RunOptions {
        semantics: kind,
        horizon: None,
        explore: Options {
            max_states: 2_000_000,
            ..options(Search::Bfs, Memory::default())
        },
    };
    let r = query_result(m, q, &opts);
    format!("{:?} {:?}", r.verdict, r.value)
}

/// Query `q` (text) on `m` under `opts`; `run_query` replays every witness
/// through the semantics (an error if it does not).
pub(super) fn query_result(
    m: &crate::timed::front::model::Model,
    q: &str,
    opts: &RunOptions,
) -> QueryResult {
    let src = Source::new("<q>", q);
    let loc = crate::timed::front::ast::Loc::new(&src, Span::new(0, q.len()));
    run_query(m, "q", &loc, opts).unwrap()
}

/// Untimed queries: state conditions over V and localities, numerical
/// ([`ON_THE_FLY_QUERIES`]), and these, `EF` nested in `EF` (a property of
/// single runs). Not `AG(p => EF q)`: plain
/// time may wait into a state where only a deadlock follows, which the
/// accelerated semantics skips (no jump when no lower bound lies ahead), so
/// branching properties mixing `AG` and `EF` may differ (found by this test
/// on a model with monotone deadlines: it is the seed's acceleration, not
/// its extension).
const NESTED_QUERIES: &[&str] = &["EF(x = 1 & EF y = 2)", "EF(g0@l0 & EF(x = 0 & EF y = 0))"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn accelerated_equals_plain_on_general_models(text in random_general_model()) {
        let m = model(&text);
        let (plain_states, plain_resets) = untimed_sets(&m, SemanticsKind::Plain);
        let (accel_states, accel_resets) = untimed_sets(&m, SemanticsKind::Accelerated);
        prop_assert_eq!(&plain_states, &accel_states, "{}", text);
        prop_assert_eq!(&plain_resets, &accel_resets, "{}", text);
        for q in ON_THE_FLY_QUERIES.iter().chain(NESTED_QUERIES) {
            prop_assert_eq!(
                answer(&m, q, SemanticsKind::Plain),
                answer(&m, q, SemanticsKind::Accelerated),
                "{}\n{}", q, text
            );
        }
    }
}

/// The generator does produce decreasing deadlines (most of its models).
#[test]
fn the_general_generator_leaves_the_monotone_family() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let general = (0..100)
        .filter(|_| {
            let text = random_general_model()
                .new_tree(&mut runner)
                .unwrap()
                .current();
            model(&text).acceleration_obstacle().is_some()
        })
        .count();
    assert!(general >= 30, "{general} of 100");
}
