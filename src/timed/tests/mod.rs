//! Unit and property tests of the timed engine. Expected numbers are
//! computed by hand in the comments, or by a second decider.

pub mod accel;
mod deadlocks;
pub mod layered;
pub mod queries;
pub mod sweep;

use super::check::{run_query, RunOptions};
use super::explore::{Control, Heuristic, Memory, Options, Search};
use super::semantics::{Semantics, SemanticsKind, State, Step};
use super::*;
use crate::lang::{Source, Span, Value};
use crate::report::Verdict;
use crate::timed::check::graph::Graph;
use crate::timed::explore::search::explore;
use crate::timed::front::json;
use crate::timed::front::model::Model;
use crate::timed::front::query;

use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};

pub(super) fn model(text: &str) -> Model {
    load_str("t.mapt", text, HashMap::new()).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> String {
    match load_str("t.mapt", text, HashMap::new()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => format!("{}: {}", e.location, e.message),
    }
}

fn state_count(m: &Model, kind: SemanticsKind, horizon: Option<u64>) -> usize {
    let sem = Semantics::new(m, kind, horizon);
    let g = Graph::build(&sem, 1_000_000, None).unwrap();
    assert!(g.complete);
    g.states.len()
}

/// One agent, period 4, one transition in [1, 2] flipping x.
const FLIP: &str = "var x: int = 0;\nagent a period 4 {\n  l0 -> l1 in [1, 2] do x := 1 - x;\n}\n";

#[test]
fn plain_and_accelerated_sizes_by_hand() {
    let m = model(FLIP);
    // Plain: at l0 the clock is 0..2 (deadline 2), at l1 it is 1..4, x in {0, 1}: 2*3 + 2*4.
    assert_eq!(state_count(&m, SemanticsKind::Plain, None), 14);
    // Accelerated: (l0,0) -jump 2-> (l0,2) -fire-> (l1,2) -jump 2-> (l1,4) -reset-> (l0,0), for x = 0, 1.
    assert_eq!(state_count(&m, SemanticsKind::Accelerated, None), 8);
    // Twice the timing constants: plain grows (2*5 + 2*7), accelerated does not.
    let m2 = model("var x: int = 0;\nagent a period 8 {\n  l0 -> l1 in [2, 4] do x := 1 - x;\n}\n");
    assert_eq!(state_count(&m2, SemanticsKind::Plain, None), 24);
    assert_eq!(state_count(&m2, SemanticsKind::Accelerated, None), 8);
}

#[test]
fn zone_jump_follows_the_seed_example() {
    // Seed, Fig. 4 at time 1: t1 [0,3], t2 [1,5] in A1; t3 [0,6], t4 [2,4] in A2.
    // The next maximal zone is [a4, b1] = [2, 3]: the jump ends at 3, i.e. by 2.
    let text = |t4: &str| {
        format!(
            "agent a1 period 10 clock 1 {{ p -> q in [0, 3]; p -> q in [1, 5]; q -> r in [5, 10]; }}\n\
             agent a2 period 10 clock 1 {{ m -> n in [0, 6]; m -> n in {t4}; n -> o in [8, 10]; }}\n"
        )
    };
    let m = model(&text("[2, 4]"));
    let sem = Semantics::new(&m, SemanticsKind::Accelerated, None);
    assert_eq!(sem.zone_jump(&sem.initial()), 2);
    // Variant t4' = [4, 6]: the zone [a4', b2] = [4, 5] is next: jump to 5, by 4.
    let m = model(&text("[4, 6]"));
    let sem = Semantics::new(&m, SemanticsKind::Accelerated, None);
    assert_eq!(sem.zone_jump(&sem.initial()), 4);
    // Variant t4'' = [6, 8]: a4'' = 6 lies beyond B = 5 - 1 = 4 (A1 must leave p by 5): no jump.
    let m = model(&text("[6, 8]"));
    let sem = Semantics::new(&m, SemanticsKind::Accelerated, None);
    assert_eq!(sem.budget(&sem.initial()), 4);
    assert_eq!(sem.zone_jump(&sem.initial()), 0);
}

#[test]
fn validation_errors_are_located() {
    let cyc = error(
        "agent a period 5 {\n  p -> q in [0, 1];\n  q -> p in [1, 2];\n  q -> r in [1, 2];\n}\n",
    );
    assert!(
        cyc.starts_with("t.mapt:3:3: ") && cyc.contains("not a DAG"),
        "{cyc}"
    );
    let two_init = error("agent a period 5 {\n  p -> r in [0, 1];\n  q -> r in [0, 1];\n}\n");
    assert!(
        two_init.starts_with("t.mapt:1:7: ") && two_init.contains("unique initial"),
        "{two_init}"
    );
    let two_final = error("agent a period 5 {\n  p -> q in [0, 1];\n  p -> r in [0, 1];\n}\n");
    assert!(
        two_final.contains("unique final") && two_final.contains("`q`, `r`"),
        "{two_final}"
    );
    let empty = error("agent a period 5 {\n  p -> q in [3, 1];\n}\n");
    assert!(
        empty.starts_with("t.mapt:2:14: ") && empty.contains("a <= b"),
        "{empty}"
    );
    let late = error("agent a period 5 {\n  p -> q in [3, 6];\n}\n");
    assert!(
        late.starts_with("t.mapt:2:17: ") && late.contains("exceeds the period"),
        "{late}"
    );
    let live = error("agent a period 9 {\n  p -> q in [0, 5];\n  q -> r in [1, 3];\n}\n");
    assert!(
        live.starts_with("t.mapt:2:3: ")
            && live.contains("liveness")
            && live.contains("`q`")
            && live.contains("`a`"),
        "{live}"
    );
    let unknown =
        error("var x: real = 0;\nagent a period 5 {\n  p -> q in [0, 1] do x := y + 1;\n}\n");
    assert!(
        unknown.starts_with("t.mapt:3:28: ") && unknown.contains("unknown name `y`"),
        "{unknown}"
    );
    let syntax = error("agent a period 5 {\n  p -> q [0, 1];\n}\n");
    assert!(
        syntax.starts_with("t.mapt:2:10: ") && syntax.contains("expected `in`"),
        "{syntax}"
    );
    let int_real =
        error("var n: int = 0;\nagent a period 5 {\n  p -> q in [0, 1] do n := n + 1/2;\n}\n");
    assert!(int_real.contains("`n` is int"), "{int_real}");
}

#[test]
fn decreasing_deadlines_are_accelerated_with_downstream_cuts() {
    // `q -> r in [0, 3]` ends before `p -> q in [2, 5]` may arrive. The seed's
    // jump from (p, 0) goes to 5 (the only b-point after a = 2) and loses
    // x = 1; the downstream cut 3 stops it there: (p,0) -3-> (p,3) -fire->
    // (q,3), both firings of q (x := 1 or not) -> (r,3) -6-> (r,9) -reset->
    // (p,0), for x = 0 and x = 1: (p,0),(p,3),(q,3) twice each, (r,3),(r,9)
    // twice each = 10 states (and (r,3,x=1) from x=1 is the same state).
    let m = model(
        "var x: int = 0;\nagent a period 9 {\n  p -> q in [2, 5];\n  q -> r in [0, 3] do x := 1;\n  q -> r in [1, 6];\n}\n",
    );
    assert!(m.acceleration_obstacle().is_some());
    assert_eq!(m.agents[0].downstream_cuts[0], vec![3, 6]);
    assert!(
        verbs::acceleration_warning(&m).is_some_and(|w| w.contains("`q -> r [0, 3]` ends at 3"))
    );
    assert_eq!(state_count(&m, SemanticsKind::Accelerated, None), 10);
    for kind in [SemanticsKind::Plain, SemanticsKind::Accelerated] {
        let r = ask(&m, "EF x = 1", kind, None, Search::Bfs);
        assert_eq!(r.verdict, Some(Verdict::Holds), "{kind:?}");
    }
    assert!(verbs::acceleration_warning(&model(FLIP)).is_none());
}

/// Exploration options without a heuristic, pacemaker or deadline, up to
/// a million states; the other tests change a field or two of them.
pub(super) fn options(search: Search, memory: Memory) -> Options {
    Options {
        search,
        memory,
        heuristic: Heuristic::None,
        pacemaker: 0,
        recent_states: 100_000,
        max_states: 1_000_000,
        deadline: None,
        meter: Default::default(),
    }
}

/// Queries answered on the fly (state conditions and extrema, answered by
/// the search itself).
pub(super) const ON_THE_FLY_QUERIES: &[&str] = &[
    "EF x = 2 & y = 0",
    "EF g0@l1 & x = 1",
    "AG x + y <= 3",
    "AG y != 2 | x != 2",
    "max x + 3 * y",
    "min x - y",
];

fn ask(
    m: &Model,
    query: &str,
    kind: SemanticsKind,
    horizon: Option<u64>,
    search: Search,
) -> check::QueryResult {
    let src = Source::new("<q>", query);
    let loc = ast::Loc::new(&src, Span::new(0, query.len()));
    let opts = RunOptions {
        semantics: kind,
        horizon,
        explore: options(search, Memory::Border),
    };
    run_query(m, "q", &loc, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Two agents changing x: `a` adds 1/2 once per period 4 (in [1, 3]), `b`
/// subtracts 1/3 once per period 6 (in [2, 5]). Up to time 12 the firings are
/// a1 in [1,3], a2 in [5,7], a3 in [9,11], b1 in [2,5], b2 in [8,11]; a1/b1,
/// a2/b1 (both at 5) and a3/b2 may come in either order, a2 precedes b2.
/// Hence max x = 1/2 + 1/2 - 1/3 + 1/2 = 7/6, min x = -1/3 (b1 first).
const COUNTERS: &str = "var x: real = 0;\nagent a period 4 { p -> q in [1, 3] do x := x + 1/2; }\n\
                        agent b period 6 { r -> s in [2, 5] do x := x - 1/3; }\n";

fn rat(n: i64, d: i64) -> Value {
    Value::Num(crate::lang::num::rat(n, d))
}

#[test]
fn queries_have_the_hand_computed_answers() {
    let m = model(COUNTERS);
    for kind in [SemanticsKind::Plain, SemanticsKind::Accelerated] {
        for search in [Search::Bfs, Search::Dfs, Search::Layered, Search::BestFirst] {
            let max = ask(&m, "max x", kind, Some(12), search);
            assert_eq!(max.value, Some(rat(7, 6)), "{kind:?} {search:?}");
            assert_eq!(max.witness.as_ref().unwrap().last().vars[0], rat(7, 6));
            let min = ask(&m, "min V.x", kind, Some(12), search);
            assert_eq!(min.value, Some(rat(-1, 3)), "{kind:?} {search:?}");
            let ef = ask(&m, "EF x = 1/2 + 1/2 - 1/3", kind, Some(12), search);
            assert_eq!(ef.verdict, Some(Verdict::Holds));
            assert_eq!(ef.witness.unwrap().last().vars[0], rat(2, 3));
            let ag = ask(&m, "AG x >= -1/3", kind, Some(12), search);
            assert_eq!(ag.verdict, Some(Verdict::Holds));
            assert!(ag.witness.is_none());
            let ag2 = ask(&m, "AG x < 7/6", kind, Some(12), search);
            assert_eq!(ag2.verdict, Some(Verdict::Violated));
            assert_eq!(
                ag2.witness.expect("counterexample").last().vars[0],
                rat(7, 6)
            );
            let never = ask(&m, "EF x > 7/6", kind, Some(12), search);
            assert_eq!(never.verdict, Some(Verdict::Violated));
            // Localities and clocks in conditions: b sits in s after b1 until its reset at 6.
            let loc = ask(&m, "EF b@s & a@p & x = 1/6", kind, Some(12), search);
            assert_eq!(loc.verdict, Some(Verdict::Holds), "{kind:?} {search:?}");
            // Instants inside a zone are visited by the plain semantics only: from time 0
            // the accelerated one jumps to 3, the end of the zone [1, 3] (B = 3).
            let clock = ask(&m, "EF time = 1 & a.clock = 1", kind, Some(12), search);
            let expected = if kind == SemanticsKind::Plain {
                Verdict::Holds
            } else {
                Verdict::Violated
            };
            assert_eq!(clock.verdict, Some(expected), "{kind:?} {search:?}");
        }
    }
}

#[test]
fn nested_queries_on_the_graph() {
    let m = model(COUNTERS);
    let h = Some(12);
    for kind in [SemanticsKind::Plain, SemanticsKind::Accelerated] {
        // From x = -1/3 (b1 first) every run ends with all five firings: 5/6.
        let r = ask(&m, "EF(x = -1/3 & EF x = 5/6)", kind, h, Search::Bfs);
        assert_eq!((r.mode, r.verdict), ("graph", Some(Verdict::Holds)));
        assert_eq!(r.witness.unwrap().last().vars[0], rat(-1, 3));
        let r = ask(&m, "EF(x = 7/6 & AG x <= 7/6)", kind, h, Search::Bfs);
        assert_eq!(r.verdict, Some(Verdict::Holds));
        // x = 1/2 only after a1 alone; b1 can always come next: 1/6.
        let r = ask(&m, "AG(x = 1/2 => EF x = 1/6)", kind, h, Search::Bfs);
        assert_eq!(r.verdict, Some(Verdict::Holds));
        // x = 7/6 means a3 fired before b2: 1/3 (a1 a2 b1 b2) is out of reach.
        let r = ask(&m, "AG(x = 7/6 => EF x = 1/3)", kind, h, Search::Bfs);
        assert_eq!(r.verdict, Some(Verdict::Violated));
        assert_eq!(r.witness.unwrap().last().vars[0], rat(7, 6));
        // States that can still reach 1/3 come before a3; the largest is a1 a2: 1.
        let r = ask(&m, "max x subject to EF x = 1/3", kind, h, Search::Bfs);
        assert_eq!(r.value, Some(rat(1, 1)));
        let r = ask(&m, "min x subject to EF(x = 7/6)", kind, h, Search::Bfs);
        // Before a3 with a3 ahead of b2 possible: b1 a1 gives 1/6, and -1/3 (b1 alone) can still reach 7/6.
        assert_eq!(r.value, Some(rat(-1, 3)));
        let r = ask(&m, "!EF x > 7/6 & AG x >= -1/3", kind, h, Search::Bfs);
        assert_eq!(r.verdict, Some(Verdict::Holds));
    }
}

/// A random MAPT as text: agents with a chain of localities plus skip edges,
/// upper bounds non-decreasing along paths (so acceleration is exact), V a
/// pair of integers kept in 0..2 by `mod`, optional guards.
pub(super) fn random_model() -> impl Strategy<Value = String> {
    let agent = (
        2u64..7,                                                                // period
        1usize..4,                                                              // chain length
        prop::collection::vec((0usize..3, 0u64..100, 0u64..100, 0u8..6), 1..6), // edges
        0u64..100,                                                              // initial clock
    );
    prop::collection::vec(agent, 1..4).prop_map(|agents| {
        let mut text = String::from("var x: int = 0;\nvar y: int = 1;\n");
        for (i, (period, len, edges, clock)) in agents.into_iter().enumerate() {
            // incoming[l]: the largest upper bound entering l so far.
            let mut incoming = vec![0u64; len + 1];
            let mut lines = Vec::new();
            let mut deadline0 = 0;
            let mut all: Vec<(usize, usize, u8, u64, u64)> = Vec::new();
            for (from, a, b, up) in edges {
                let from = from % len;
                let to = from + 1 + (a as usize % (len - from));
                all.push((from, to.min(len), up, a, b));
            }
            // Every chain step exists so that the final locality is unique and reachable.
            for l in 0..len {
                if !all.iter().any(|e| e.0 == l && e.1 == l + 1) {
                    all.push((l, l + 1, 0, 0, 50));
                }
            }
            all.sort_by_key(|e| e.0);
            for (from, to, up, a, b) in all {
                let lo_b = incoming[from];
                let b = lo_b + b % (period - lo_b + 1);
                let a = a % (b + 1);
                incoming[to] = incoming[to].max(b);
                if from == 0 {
                    deadline0 = deadline0.max(b);
                }
                let update = match up {
                    0 => " do x := mod(x + 1, 3)".to_string(),
                    1 => " do y := x".to_string(),
                    2 => " do x := mod(x + y, 3), y := mod(y + 2, 3)".to_string(),
                    3 => " when x = 0 do y := mod(y + 1, 3)".to_string(),
                    _ => String::new(),
                };
                lines.push(format!("  l{from} -> l{to} in [{a}, {b}]{update};"));
            }
            let clock = clock % (deadline0 + 1);
            text.push_str(&format!(
                "agent g{i} period {period} clock {clock} {{\n{}\n}}\n",
                lines.join("\n")
            ));
        }
        text
    })
}

/// An agent, and the localities and V right after its reset.
type ResetPoint = (usize, Vec<u32>, Vec<Value>);

/// The set of (agent, localities, V) right after each reset of each agent.
fn reset_points(m: &Model, kind: SemanticsKind) -> (BTreeSet<ResetPoint>, usize) {
    let sem = Semantics::new(m, kind, None);
    let g = Graph::build(&sem, 2_000_000, None).unwrap();
    assert!(g.complete);
    let mut out = BTreeSet::new();
    let mut succ = Vec::new();
    for s in &g.states {
        sem.successors(s, &mut succ).unwrap();
        for (step, t) in &succ {
            if let Step::Reset { agent } = step {
                out.insert((*agent, t.locs.clone(), t.vars.clone()));
            }
        }
    }
    (out, g.states.len())
}

fn scaled(text: &str, k: u64) -> String {
    // Multiplies every timing constant: periods, clocks and interval bounds.
    let mut out = String::new();
    for line in text.lines() {
        let mut l = line.to_string();
        if let (Some(i), Some(j)) = (l.find('['), l.find(']')) {
            let inner: Vec<u64> = l[i + 1..j]
                .split(',')
                .map(|n| n.trim().parse().unwrap())
                .collect();
            l = format!(
                "{}[{}, {}]{}",
                &l[..i],
                inner[0] * k,
                inner[1] * k,
                &l[j + 1..]
            );
        }
        if let Some(rest) = l.strip_prefix("agent ") {
            let w: Vec<&str> = rest.split_whitespace().collect();
            let (p, c): (u64, u64) = (w[2].parse().unwrap(), w[4].parse().unwrap());
            l = format!("agent {} period {} clock {} {{", w[0], p * k, c * k);
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Found by the property test below: with the period-5 agent as pacemaker,
/// border-only memory re-expanded over a million states of a 7920-state
/// space. With the default (shortest-period) pacemaker it completes.
pub(super) const REEXPANDING_MODEL: &str = "var x: int = 0;\nvar y: int = 1;
agent g0 period 5 clock 0 {
  l0 -> l1 in [0, 0] do x := mod(x + 1, 3);
  l0 -> l1 in [0, 4] do x := mod(x + 1, 3);
  l0 -> l1 in [1, 1] do x := mod(x + 1, 3);
}
agent g1 period 2 clock 2 {
  l0 -> l3 in [2, 2] do y := x;
  l0 -> l2 in [1, 1] do x := mod(x + 1, 3);
  l0 -> l1 in [0, 2] do x := mod(x + 1, 3);
  l1 -> l3 in [2, 2] do x := mod(x + 1, 3);
  l1 -> l2 in [0, 2] do x := mod(x + 1, 3);
  l2 -> l3 in [0, 2] do x := mod(x + 1, 3);
}
agent g2 period 2 clock 2 {
  l0 -> l1 in [0, 2] do x := mod(x + 1, 3);
  l1 -> l2 in [0, 2] do x := mod(x + 1, 3);
  l2 -> l3 in [0, 2] do x := mod(x + y, 3), y := mod(y + 2, 3);
  l2 -> l3 in [0, 2] when x = 0 do y := mod(y + 1, 3);
}
";

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn accelerated_reaches_the_same_reset_points(text in random_model()) {
        let m = model(&text);
        prop_assert!(m.acceleration_obstacle().is_none(), "{}", text);
        let (plain, n_plain) = reset_points(&m, SemanticsKind::Plain);
        let (accel, n_accel) = reset_points(&m, SemanticsKind::Accelerated);
        prop_assert_eq!(&plain, &accel, "{}", text);
        prop_assert!(n_accel <= n_plain, "{} > {}\n{}", n_accel, n_plain, text);
    }

    #[test]
    fn scaling_time_leaves_the_accelerated_space_unchanged(text in random_model(), k in 2u64..4) {
        let m = model(&text);
        let big = model(&scaled(&text, k));
        let n = state_count(&m, SemanticsKind::Accelerated, None);
        prop_assert_eq!(n, state_count(&big, SemanticsKind::Accelerated, None), "{}", text);
        let p = state_count(&m, SemanticsKind::Plain, None);
        prop_assert!(state_count(&big, SemanticsKind::Plain, None) >= p);
    }

    #[test]
    fn every_search_visits_the_same_states(text in random_model()) {
        let m = model(&text);
        let sem = Semantics::new(&m, SemanticsKind::Accelerated, None);
        let g = Graph::build(&sem, 1_000_000, None).unwrap();
        let reference: HashSet<State> = g.states.iter().cloned().collect();
        for (search, memory) in [(Search::Bfs, Memory::default()), (Search::Dfs, Memory::default()),
                                 (Search::BestFirst, Memory::default()), (Search::Layered, Memory::Border)] {
            let mut seen = HashSet::new();
            let mut opts = options(search, memory);
            opts.pacemaker = crate::timed::verbs::check::default_pacemaker(&m);
            let stats = explore(&sem, &opts, &mut |s, trace| {
                seen.insert(s.clone());
                if seen.len() % 64 == 1 {
                    assert_eq!(trace().last(), s);
                }
                Ok(Control::Continue)
            }).unwrap();
            if memory == Memory::Border && !stats.complete {
                // Remembering only borders re-expands states reached from several
                // borders; a search cut by its budget still visits only reachable states.
                prop_assert_eq!(stats.expanded, opts.max_states);
                prop_assert!(seen.is_subset(&reference), "{:?} {:?}", search, memory);
                continue;
            }
            prop_assert!(stats.complete, "{:?} {:?}", search, memory);
            prop_assert_eq!(&seen, &reference, "{:?} {:?}", search, memory);
        }
    }

    #[test]
    fn json_round_trip_keeps_the_model(text in random_model()) {
        let src = Source::new("t.mapt", text.clone());
        let ast = parse::parse_model(&src).unwrap();
        let js = serde_json::to_string(&json::to_json(&ast)).unwrap();
        let back = json::parse_json(&Source::new("t.json", js)).unwrap();
        let again = json::to_text(&back);
        prop_assert_eq!(json::to_text(&ast), again.clone());
        let m1 = model(&text);
        let m2 = model(&again);
        prop_assert_eq!(state_count(&m1, SemanticsKind::Accelerated, None), state_count(&m2, SemanticsKind::Accelerated, None));
    }

    #[test]
    fn parser_never_panics_on_random_text(text in "\\PC{0,200}") {
        let _ = load_str("r.mapt", &text, HashMap::new());
        let _ = load_str("r.json", &text, HashMap::new());
    }

    #[test]
    fn parser_never_panics_on_mutated_models(text in random_model(), cut in 0usize..400, insert in "[ -~]{0,6}") {
        let mut t = text.clone();
        let at = (cut % (t.len() + 1)).min(t.len());
        let at = (0..=at).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0);
        t.insert_str(at, &insert);
        let _ = load_str("m.mapt", &t, HashMap::new());
        let cut_text: String = text.chars().take(cut).collect();
        let _ = load_str("m.mapt", &cut_text, HashMap::new());
        if let Ok(m) = load_str("m.mapt", &t, HashMap::new()) {
            for q in ["EF x = 1", "AG(x = 1 => EF y = 2)", "max x subject to EF y = 0", &insert] {
                let src = Source::new("<q>", q.to_string());
                let _ = query::parse_query(&m, &ast::Loc::new(&src, Span::new(0, q.len())));
            }
        }
    }
}

#[test]
fn queries_with_errors_are_located() {
    let m = model(COUNTERS);
    let parse = |q: &str| {
        let src = Source::new("<q>", q.to_string());
        query::parse_query(&m, &ast::Loc::new(&src, Span::new(0, q.len())))
            .map(|_| ())
            .map_err(|e| format!("{}: {}", e.location, e.message))
    };
    assert!(parse("EF(x = 1 & AG x < 2)").is_ok());
    assert_eq!(
        parse("EF(x = 1 & AG z < 2)").unwrap_err(),
        "<q>:1:15: unknown name `z`"
    );
    assert!(parse("EF x + 1").unwrap_err().contains("Boolean"));
    assert!(parse("max x subject to")
        .unwrap_err()
        .contains("expected a formula"));
    assert!(parse("EF").unwrap_err().contains("expected a formula"));
    assert!(parse("EF(x = 1) AG(x = 2)").is_err());
    assert!(parse("EF c@q").unwrap_err().contains("unknown name `c@q`"));
}

#[test]
fn heuristics_are_numerical_expressions_over_the_state() {
    let m = model(COUNTERS);
    let parse = |h: &str| {
        query::parse_heuristic(&m, h)
            .map(|e| e.ty)
            .map_err(|e| format!("{}: {}", e.location, e.message))
    };
    assert!(parse("x - 1/2").unwrap().is_numeric());
    assert!(parse("min(x, a.clock)").unwrap().is_numeric());
    assert_eq!(
        parse("x > 0").unwrap_err(),
        "<heuristic>:1:1: a heuristic must be a numerical expression"
    );
    assert_eq!(
        parse("x + z").unwrap_err(),
        "<heuristic>:1:5: unknown name `z`"
    );
    assert!(parse("x +").is_err());
}

#[test]
fn layered_search_keeps_fewer_states_than_bfs() {
    // Three agents, the pacemaker with period 2: layers are short, borders few.
    let m = model(
        "var x: int = 0;\nagent p period 2 { a -> b in [0, 2] do x := mod(x + 1, 4); }\n\
         agent q period 6 { a -> b in [0, 3] do x := mod(x + 2, 4); b -> c in [3, 6]; }\n\
         agent r period 4 { a -> b in [1, 4] do x := mod(3 * x, 4); }\n",
    );
    let sem = Semantics::new(&m, SemanticsKind::Plain, Some(48));
    let run = |search, memory| {
        // No recent-layer cache: the layers alone (tests_layered measures the cache).
        let opts = Options {
            recent_states: 0,
            ..options(search, memory)
        };
        explore(&sem, &opts, &mut |_, _| Ok(Control::Continue)).unwrap()
    };
    let bfs = run(Search::Bfs, Memory::default());
    let layered = run(Search::Layered, Memory::Border);
    assert!(bfs.complete && layered.complete);
    assert!(
        layered.peak_stored < bfs.peak_stored,
        "{} >= {}",
        layered.peak_stored,
        bfs.peak_stored
    );
    // Every layer starts at a reset of p, at times 0, 2, 4, ..., 48.
    assert!(layered.layers >= 25);
}

#[test]
fn witnesses_replay_and_print() {
    let m = model(COUNTERS);
    let r = ask(
        &m,
        "EF x = 2/3",
        SemanticsKind::Accelerated,
        Some(12),
        Search::Dfs,
    );
    let w = r.witness.unwrap();
    let sem = Semantics::new(&m, SemanticsKind::Accelerated, Some(12));
    w.replay(&sem).unwrap();
    // A tampered trace does not replay.
    let mut bad = w.clone();
    bad.steps[0].1.vars[0] = rat(5, 1);
    assert!(bad.replay(&sem).is_err());
    let text = crate::timed::verbs::trace::table(&w, &m).render(crate::report::TableFormat::Text);
    assert!(
        text.contains("x=2/3") && text.contains("p -> q [1, 3]"),
        "{text}"
    );
    let js = crate::timed::verbs::trace::to_json(&w, &m);
    assert_eq!(
        js["steps"].as_array().unwrap().last().unwrap()["V"],
        "x=2/3"
    );
}
