//! The zero-one abstraction M_ab(m) of the real-valued guarding example by
//! the MILP slot encoding (seed Definitions 12 and 13), each verdict checked
//! against the concrete systems by a second decider run: an abstract
//! counterexample is concretized in some M(n0) (and replayed there inside the
//! decider), so the concrete decider must find M(n0) violated too; an
//! abstract witness concretized in M(w) makes M(w) hold; and where the
//! abstraction fails, M(n) fails for the n checked (Theorem 2).

use mavis::nis::encode::MilpOptions;
use mavis::nis::engine::{decide_with, CheckRecord, EngineChoice, Target};
use mavis::nis::{load_model, parse_sentence, LoadOptions, Model};
use std::path::Path;

fn example() -> Model {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding_real/guarding_real.nis");
    load_model(&p, &LoadOptions::default()).unwrap()
}

fn check(model: &Model, spec: &str, target: Target) -> CheckRecord {
    let s = parse_sentence(spec).unwrap();
    decide_with(
        EngineChoice::Auto,
        &MilpOptions::default(),
        model,
        &s,
        target,
    )
    .unwrap_or_else(|e| panic!("{spec} on {target:?}: {e:?}"))
}

/// The agents of the M(n) in which the abstract trees were replayed, and
/// whether they are counterexamples.
fn replayed_in(r: &CheckRecord) -> (usize, bool) {
    let milp = r.milp_stats().expect("the MILP decider ran");
    milp.replayed_in
        .expect("the trees were replayed in some M(n)")
}

#[test]
fn universal_counterexamples_are_concrete() {
    let model = example();
    for k in 1..=2 {
        let spec = format!("forall v1, v2: AX^{k} (alive, v1) & (alive, v2)");
        let r = check(&model, &spec, Target::Abstract);
        assert_eq!(r.engine, "milp");
        assert!(!r.holds, "{spec}: nobody guards, both die");
        let (n0, counterexample) = replayed_in(&r);
        assert!(counterexample && n0 >= 2);
        let json = mavis::nis::verbs::json::witness_json(&r).unwrap();
        assert_eq!(json["concretized_in"], format!("M({n0})"));
        let key = mavis::nis::verbs::json::check_stats(&r)["counterexample_agents"].clone();
        assert_eq!(key, n0);
        let c = check(&model, &spec, Target::Concrete { agents: n0 });
        assert!(!c.holds, "{spec}: M({n0}) must fail as well");
    }
}

#[test]
fn a_universal_sentence_that_holds_on_the_abstraction() {
    // `eager` (percept volunteer) implies h > 0: the observation is `expired` at h = 0.
    let model = example();
    let spec = "forall v1: AX^2 !(eager, v1) | (alive, v1)";
    let r = check(&model, spec, Target::Abstract);
    assert!(r.holds);
    assert!(r.witness.is_none());
    assert_eq!(
        r.milp_stats().unwrap().sizes.slots,
        21,
        "1 + 4 + 16 slots (B = 2 actions x 2 tied percepts)"
    );
    for n in 1..=3 {
        assert!(check(&model, spec, Target::Concrete { agents: n }).holds);
    }
}

#[test]
fn existential_witnesses_and_failures_agree_with_the_concrete_systems() {
    let model = example();
    // k = 1: somebody guards and both indexed agents live, already in M(2).
    let spec1 = "forall v1, v2: EX (alive, v1) & (alive, v2)";
    let r = check(&model, spec1, Target::Abstract);
    assert!(r.holds);
    let (w, counterexample) = replayed_in(&r);
    assert!(!counterexample);
    assert!(check(&model, spec1, Target::Concrete { agents: w }).holds);
    // k = 2: M(2) fails from b = -1 (the README), a third agent makes it hold:
    // the abstraction holds, and its witnesses need a third agent.
    let spec2 = "forall v1, v2: EX^2 (alive, v1) & (alive, v2)";
    let r = check(&model, spec2, Target::Abstract);
    assert!(r.holds);
    let (w, _) = replayed_in(&r);
    assert!(w >= 3, "M(2) fails, so no witness lives in M(2)");
    assert!(check(&model, spec2, Target::Concrete { agents: w }).holds);
    assert!(!check(&model, spec2, Target::Concrete { agents: 2 }).holds);
    // k = 3: the abstraction fails from b = -1, and so do M(2..4) (Theorem 2).
    let spec3 = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)";
    let r = check(&model, spec3, Target::Abstract);
    assert!(!r.holds);
    let uncovered = r.milp_stats().unwrap().real.uncovered.clone();
    assert_eq!(uncovered, Some(vec![("b".to_string(), -1.0)]));
    for n in 2..=4 {
        assert!(!check(&model, spec3, Target::Concrete { agents: n }).holds);
    }
}
