//! Tests of the graph evaluation of nested queries: the memoised evaluator
//! with predecessor lists built once ([`Graph::sat`]) against a reference
//! written independently here, the evaluator as it was before (predecessor
//! lists rebuilt and sub-formulas re-evaluated for every `EF`).

use crate::lang::{Source, Span};
use crate::report::Verdict;
use crate::timed::check::bulk::sat_batched;
use crate::timed::check::graph::{holds, Graph};
use crate::timed::check::{run_query, RunOptions};
use crate::timed::explore::{Memory, Search};
use crate::timed::front::query::{parse_query, Formula, Query};
use crate::timed::semantics::{Semantics, SemanticsKind};
use crate::timed::tests::{model, random_model};
use proptest::prelude::*;

/// The reference: recursive, no sharing, predecessors rebuilt per `EF`.
fn reference_sat(g: &Graph, sem: &Semantics, f: &Formula) -> Vec<bool> {
    let both = |a: &Formula, b: &Formula, op: fn(bool, bool) -> bool| {
        let (x, y) = (reference_sat(g, sem, a), reference_sat(g, sem, b));
        x.into_iter().zip(y).map(|(x, y)| op(x, y)).collect()
    };
    match f {
        Formula::Atom(e) => g.states.iter().map(|s| holds(sem, e, s).unwrap()).collect(),
        Formula::Not(a) => reference_sat(g, sem, a).into_iter().map(|x| !x).collect(),
        Formula::And(a, b) => both(a, b, |x, y| x && y),
        Formula::Or(a, b) => both(a, b, |x, y| x || y),
        Formula::Implies(a, b) => both(a, b, |x, y| !x || y),
        Formula::EF(a) => reference_reach(g, reference_sat(g, sem, a)),
        Formula::AG(a) => {
            let bad = reference_sat(g, sem, a).into_iter().map(|x| !x).collect();
            reference_reach(g, bad).into_iter().map(|x| !x).collect()
        }
    }
}

/// Least fixpoint by rounds over the successor lists: a state reaches the
/// set when one of its successors does (no predecessor lists at all).
fn reference_reach(g: &Graph, mut set: Vec<bool>) -> Vec<bool> {
    loop {
        let mut changed = false;
        for (s, ts) in g.succ.iter().enumerate() {
            if !set[s] && ts.iter().any(|&t| set[t]) {
                set[s] = true;
                changed = true;
            }
        }
        if !changed {
            return set;
        }
    }
}

/// A random query text over the random models' V (`x`, `y`) and localities.
fn random_query() -> impl Strategy<Value = String> {
    let atom = prop::sample::select(vec![
        "x = 0",
        "y >= 1",
        "x + y = 2",
        "g0@l1",
        "g0@l0 & x = 1",
        "g0.clock >= 2",
        "x - y <= 1",
        "2 > x + y",
        "y != 1 & x >= 1",
        "!(1 <= y - x)",
        "y = 0 | x / y >= 1",
    ])
    .prop_map(|s| format!("({s})"));
    atom.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| format!("EF({f})")),
            inner.clone().prop_map(|f| format!("AG({f})")),
            inner.clone().prop_map(|f| format!("!({f})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) & ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) | ({b})")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("({a}) => ({b})")),
        ]
    })
}

fn formula(m: &crate::timed::front::model::Model, text: &str) -> Formula {
    let src = Source::new("<q>", text);
    match parse_query(
        m,
        &crate::timed::front::ast::Loc::new(&src, Span::new(0, text.len())),
    ) {
        Ok(Query::Check(f)) => f,
        other => panic!("{text}: {other:?}"),
    }
}

fn graph_options() -> RunOptions {
    RunOptions {
        semantics: SemanticsKind::Accelerated,
        horizon: None,
        explore: crate::timed::tests::options(Search::Bfs, Memory::default()),
    }
}

/// `EF(p & EF q)` for 1 and 40 pairs: the memoised evaluator gives, at the
/// initial state, what the pairs give one by one.
#[test]
fn a_many_pair_query_is_the_disjunction_of_its_pairs() {
    let m = model(crate::timed::tests::REEXPANDING_MODEL);
    let sem = Semantics::new(&m, SemanticsKind::Accelerated, None);
    let g = Graph::build(&sem, 1_000_000, None).unwrap();
    let pairs: Vec<String> = (0..40)
        .map(|i| format!("EF(x = {} & EF y = {})", i % 3, (i / 3) % 4))
        .collect();
    let joined = pairs.join(" | ");
    let any = pairs
        .iter()
        .any(|p| reference_sat(&g, &sem, &formula(&m, p))[0]);
    assert_eq!(g.sat(&sem, &formula(&m, &joined)).unwrap()[0], any);
    // y stays in 0..2, so `y = 3` is never reached, and x = 0 & y = 0 is.
    assert!(!g.sat(&sem, &formula(&m, "EF(x = 0 & EF y = 3)")).unwrap()[0]);
    assert!(g.sat(&sem, &formula(&m, "EF(x = 0 & EF y = 0)")).unwrap()[0]);
}

/// 150 `EF`/`AG` conjuncts (three batches of 64 and fewer, nested two
/// deep) answered together ([`sat_batched`]) and one by one by the
/// reference: the same set of states for the conjunction, and each conjunct
/// on its own.
#[test]
fn conjuncts_in_one_pass_equal_one_by_one() {
    let m = model(crate::timed::tests::REEXPANDING_MODEL);
    // Under a horizon, so that states differ in what they reach (without
    // one this model's graph is strongly connected).
    let sem = Semantics::new(&m, SemanticsKind::Accelerated, Some(12));
    let g = Graph::build(&sem, 1_000_000, None).unwrap();
    let conjuncts: Vec<String> = (0..150)
        .map(|i| match i % 3 {
            0 => format!("EF(x = {} & g0@l{})", i % 3, i % 2),
            1 => format!("EF(y = {} & EF x = {})", (i / 3) % 3, (i / 7) % 3),
            _ => format!("!AG(x != {} | y != {})", (i / 3) % 3, i % 3),
        })
        .collect();
    let one_by_one: Vec<Vec<bool>> = (conjuncts.iter())
        .map(|c| reference_sat(&g, &sem, &formula(&m, c)))
        .collect();
    // Parenthesised: `EF` reaches as far right as it can (`EF p & q` is `EF(p & q)`).
    let joined: Vec<String> = conjuncts.iter().map(|c| format!("({c})")).collect();
    let f = formula(&m, &joined.join(" & "));
    let together = sat_batched(&g, &sem, &f).unwrap();
    let expected: Vec<bool> = (0..g.states.len())
        .map(|s| one_by_one.iter().all(|set| set[s]))
        .collect();
    assert_eq!(together, expected);
    // Not trivially all false: some conjunct sets differ, and each conjunct
    // batched alone equals its reference.
    assert!(one_by_one
        .iter()
        .any(|set| set.contains(&true) && set.contains(&false)));
    for (c, set) in conjuncts.iter().zip(&one_by_one) {
        let f = formula(&m, c);
        assert_eq!(&sat_batched(&g, &sem, &f).unwrap(), set, "{c}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Up to 80 random sub-queries joined by `&`/`|`, answered in batches,
    /// against the reference on every state.
    #[test]
    fn batched_conjuncts_equal_the_reference(
        text in random_model(), qs in prop::collection::vec(random_query(), 1..80), or in any::<bool>(),
    ) {
        let m = model(&text);
        let q = qs.join(if or { " | " } else { " & " });
        let f = formula(&m, &q);
        let sem = Semantics::new(&m, SemanticsKind::Accelerated, None);
        let g = Graph::build(&sem, 1_000_000, None).unwrap();
        prop_assert!(g.complete);
        let expected = reference_sat(&g, &sem, &f);
        prop_assert_eq!(&sat_batched(&g, &sem, &f).unwrap(), &expected, "{}", q);
    }

    #[test]
    fn the_memoised_evaluator_equals_the_reference(text in random_model(), q in random_query()) {
        let m = model(&text);
        let f = formula(&m, &q);
        let sem = Semantics::new(&m, SemanticsKind::Accelerated, None);
        let g = Graph::build(&sem, 1_000_000, None).unwrap();
        prop_assert!(g.complete);
        let expected = reference_sat(&g, &sem, &f);
        prop_assert_eq!(&g.sat(&sem, &f).unwrap(), &expected, "{}\n{}", q, text);
        // The query as a whole, through the checker, agrees at the initial state.
        let src = Source::new("<q>", q.clone());
        let loc = crate::timed::front::ast::Loc::new(&src, Span::new(0, q.len()));
        let r = run_query(&m, "q", &loc, &graph_options()).unwrap();
        prop_assert_eq!(r.verdict, Some(Verdict::from_bool(expected[0])), "{}", q);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// Many `EF` terms comparing shared sub-expressions with constants (the
    /// columns of `check::columns`: one per sub-expression, ranked) and one
    /// that must fall back to the evaluator (a division by zero where the
    /// short-circuit avoids it), against the reference term by term.
    #[test]
    fn threshold_terms_on_shared_columns_equal_the_reference(
        text in random_model(),
        terms in prop::collection::vec((0usize..6, -3i64..4, 0i64..4), 1..150),
        or in any::<bool>(),
    ) {
        let m = model(&text);
        let ops = ["<=", "<", ">", ">=", "=", "!="];
        let texts: Vec<String> = (terms.iter())
            .map(|&(op, i, j)| {
                let op = ops[op];
                match j % 4 {
                    0 => format!("EF(x - y {op} {i} & y = {j}/2)"),
                    1 => format!("AG({i} {op} x + y | g0@l0)"),
                    2 => format!("EF(y = {i} | x / (y - {i}) {op} 1)"),
                    _ => format!("EF(!(x {op} {i}) & EF(y - x {op} {j}))"),
                }
            })
            .collect();
        let sem = Semantics::new(&m, SemanticsKind::Accelerated, Some(20));
        let g = Graph::build(&sem, 1_000_000, None).unwrap();
        prop_assert!(g.complete);
        let sets: Vec<Vec<bool>> = (texts.iter())
            .map(|t| reference_sat(&g, &sem, &formula(&m, t)))
            .collect();
        let joined: Vec<String> = texts.iter().map(|t| format!("({t})")).collect();
        let f = formula(&m, &joined.join(if or { " | " } else { " & " }));
        let expected: Vec<bool> = (0..g.states.len())
            .map(|s| if or { sets.iter().any(|x| x[s]) } else { sets.iter().all(|x| x[s]) })
            .collect();
        prop_assert_eq!(&sat_batched(&g, &sem, &f).unwrap(), &expected);
    }
}
