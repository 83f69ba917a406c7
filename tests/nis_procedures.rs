//! The procedures of `mavis nis verify` on random small finite models (the
//! generator of tests/support/nis_random.rs) and EX/AX sentences (see
//! `sentences`): (a) the monotonicity lemma of src/nis/procedures.rs on the
//! explicit decider's verdicts of M(n), n = m..m+3 (existential: never true
//! then false; universal: never false then true); (b) the bound procedure
//! (no simulation search, n' = m + B^b) and the explicit simulation search
//! give the same verdict for every n and the same emergence threshold
//! whenever both are determined.

#[path = "support/nis_random.rs"]
mod nis_random;

use mavis::nis::engine::{decide, EngineChoice, Target};
use mavis::nis::procedures::{verify_using, Procedure, VerifyOptions};
use mavis::nis::semantics::Semantics;
use mavis::nis::{parse_sentence, Model, Sentence};
use mavis::report::RunContext;
use nis_random::{model, sentence, spec_strategy, text};
use proptest::prelude::*;

fn holds(model: &Model, s: &Sentence, n: usize) -> bool {
    decide(
        EngineChoice::Explicit,
        model,
        s,
        Target::Concrete { agents: n },
    )
    .unwrap_or_else(|e| panic!("{s} on M({n}): {e:?}"))
    .holds
}

/// The sentences of one case. One indexed agent: a random EX and AX one
/// (depth <= 2) and two fixed ones whose verdicts more often depend on n,
/// of depth k <= 2. Two: fixed ones of depth 1 (M_ab(2) of depth 2 can take
/// tens of seconds on these templates).
fn sentences(bytes: &[u8], m: usize) -> Vec<(&'static str, String)> {
    if m == 1 {
        let k = 1 + bytes[0] % 2;
        return vec![
            ("EX", sentence(bytes, m, "EX")),
            ("AX", sentence(bytes, m, "AX")),
            ("EX", format!("forall v1: EX^{k} (q, v1) & !(r, v1)")),
            ("AX", format!("forall v1: AX^{k} (q, v1) | (r, v1)")),
        ];
    }
    let (l1, l2) = if bytes[0] % 2 == 0 {
        ("q", "r")
    } else {
        ("r", "q")
    };
    vec![
        ("EX", format!("forall v1, v2: EX ({l1}, v1) & !({l2}, v2)")),
        ("EX", format!("forall v1, v2: EX ({l1}, v1) & ({l1}, v2)")),
        ("AX", format!("forall v1, v2: AX ({l1}, v1) | ({l2}, v2)")),
        ("AX", format!("forall v1, v2: AX !({l1}, v1) | ({l1}, v2)")),
    ]
}

/// Templates with at most 9 local states (the zero-one agent's sets of
/// local states and actions grow fast with them).
fn small_enough(model: &Model) -> bool {
    Semantics::new(model).unwrap().space.size <= 9
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn verdicts_are_monotone_in_n(
        s in spec_strategy(),
        m in 1usize..=2,
        bytes in proptest::collection::vec(any::<u8>(), 8..16),
    ) {
        let model = model(&s);
        for (q, spec) in sentences(&bytes, m) {
            let f = parse_sentence(&spec).unwrap();
            let v: Vec<bool> = (m..=m + 3).map(|n| holds(&model, &f, n)).collect();
            // Existential: false...false true...true; universal: the reverse.
            let up: Vec<bool> = if q == "EX" { v.clone() } else { v.iter().map(|b| !b).collect() };
            prop_assert!(
                up.windows(2).all(|w| w[0] <= w[1]),
                "{} on M({}..={}): {:?}\n{}", spec, m, m + 3, v, text(&s)
            );
        }
    }
}

proptest! {
    // The explicit simulation search dominates: about 4 s a case on 2 cores.
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn bound_and_search_agree(
        s in spec_strategy(),
        m in 1usize..=2,
        bytes in proptest::collection::vec(any::<u8>(), 8..16),
    ) {
        let model = model(&s);
        prop_assume!(small_enough(&model));
        let ctx = RunContext::default();
        // Both procedures check M(n) for n <= m + 4 at most.
        let opts = VerifyOptions {
            engine: EngineChoice::Explicit,
            cap: Some(m + 4),
            milp: Default::default(),
        };
        for (q, spec) in sentences(&bytes, m) {
            let f = parse_sentence(&spec).unwrap();
            let run = |p| verify_using(&model, &f, &opts, Some(p), &ctx)
                .unwrap_or_else(|e| panic!("{spec} by {p:?}: {e:?}\n{}", text(&s)));
            let search = run(Procedure::Search);
            let bound = run(Procedure::Bound);
            prop_assert_eq!(search.abstract_holds, bound.abstract_holds);
            // The universal procedures never leave it undetermined.
            if q == "AX" {
                prop_assert!(search.holds_for_all_n.is_some() && bound.holds_for_all_n.is_some());
            }
            if search.holds_for_all_n.is_some() && bound.holds_for_all_n.is_some() {
                prop_assert_eq!(
                    (search.holds_for_all_n, search.emergence_threshold),
                    (bound.holds_for_all_n, bound.emergence_threshold),
                    "{}\n{}", spec, text(&s)
                );
            }
        }
    }
}
