//! Unit tests of the verify procedures (split from `procedures.rs`).

use super::*;
use crate::nis::front::formula::parse_sentence;
use crate::nis::tests::{fixture_policy, guarding, model_with, GUARDING};
use crate::report::Format;
use std::time::Duration;

fn opts(cap: Option<usize>) -> VerifyOptions {
    VerifyOptions {
        engine: EngineChoice::Explicit,
        cap,
        milp: MilpOptions::default(),
    }
}

fn models(o: &VerifyOutcome) -> Vec<String> {
    o.checks.iter().map(|c| c.model.clone()).collect()
}

/// examples/guarding/README.md: EX^k holds for every n at k <= 2 and
/// fails from k = 3 on with threshold 3; AX^k fails, no threshold.
#[test]
fn bound_and_search_agree_on_the_guarding_figures() {
    let model = guarding();
    let ctx = RunContext::default();
    let cases = [
        ("EX", 1u32, true, Some(2usize)),
        ("EX", 2, true, Some(2)),
        ("EX", 3, false, Some(3)),
        ("EX", 4, false, Some(3)),
        ("AX", 1, false, None),
        ("AX", 2, false, None),
        ("AX", 3, false, None),
    ];
    for (q, k, all, th) in cases {
        let spec = format!("forall v1, v2: {q}^{k} (alive, v1) & (alive, v2)");
        let s = parse_sentence(&spec).unwrap();
        let search = verify_using(&model, &s, &opts(None), Some(Procedure::Search), &ctx).unwrap();
        let bound = verify_using(&model, &s, &opts(None), Some(Procedure::Bound), &ctx).unwrap();
        for o in [&search, &bound] {
            assert_eq!(
                (o.holds_for_all_n, o.emergence_threshold),
                (Some(all), th),
                "{spec} by {}",
                o.procedure.word()
            );
        }
        assert_eq!(search.procedure, Procedure::Search);
        assert!(search.bound.is_none());
        assert_eq!(bound.procedure, Procedure::Bound);
        assert!(
            bound.simulation.is_none(),
            "{spec}: the bound searches nothing"
        );
        // B = 4 on the guarding game.
        let b = bound.bound.unwrap();
        assert_eq!((b.branching, b.n), (4, 2 + 4usize.pow(k)), "{spec}");
        if q == "AX" {
            // M(2) has a counterexample: every n >= 2 fails (the universal lemma).
            assert_eq!(bound.fails_from, Some(2), "{spec}");
            assert_eq!(models(&bound), ["M_ab(2)", "M(2)"], "{spec}");
        }
    }
    // The bound procedure stops at the first M(i) that holds; the search
    // checks every M(i) up to the least simulating n (4 at k = 3).
    let s = parse_sentence("forall v1, v2: EX^3 (alive, v1) & (alive, v2)").unwrap();
    let bound = verify_using(&model, &s, &opts(None), Some(Procedure::Bound), &ctx).unwrap();
    assert_eq!(models(&bound), ["M_ab(2)", "M(2)", "M(3)"]);
    let search = verify_using(&model, &s, &opts(None), None, &ctx).unwrap();
    assert_eq!(models(&search), ["M_ab(2)", "M(2)", "M(3)", "M(4)"]);
    assert_eq!(search.simulation.unwrap().n, Some(4));
}

fn real_model() -> Model {
    let real = GUARDING.replace("var h : [0..Mh] = 3;", "var h : real[0..4] = 3;");
    model_with(&real, &[("policy", fixture_policy(0.6))]).unwrap()
}

#[test]
fn search_is_refused_on_a_model_that_is_not_finite() {
    let real = real_model();
    assert!(real.explicit_obstacle().is_some());
    assert_eq!(Procedure::select(&real, None).unwrap(), Procedure::Bound);
    assert_eq!(
        Procedure::select(&guarding(), None).unwrap(),
        Procedure::Search
    );
    assert_eq!(
        Procedure::select(&guarding(), Some(Procedure::Bound)).unwrap(),
        Procedure::Bound
    );
    let s = parse_sentence("forall v1, v2: EX^2 (alive, v1) & (alive, v2)").unwrap();
    let ctx = RunContext::default();
    let err = verify_using(&real, &s, &opts(Some(5)), Some(Procedure::Search), &ctx)
        .expect_err("search on a real-valued model");
    let RunError::Input(msg) = &err else {
        panic!("not an input error: {err:?}");
    };
    let text = msg.to_string();
    assert!(text.contains("needs a finite model"), "{text}");
    assert!(text.contains("`h`"), "{text}");
    assert!(text.contains("--simulation bound"), "{text}");
    assert_eq!(err.exit_code(), 2);
}

fn record(target: Target, m: usize, holds: bool) -> CheckRecord {
    use crate::nis::outcome::{DeciderStats, ExplicitStats, Explored};
    CheckRecord {
        model: target.describe(m),
        engine: "fake",
        holds,
        witness: None,
        time_s: 0.0,
        stats: DeciderStats::Explicit(ExplicitStats {
            explored: Explored::States(0),
            network_evaluations: 0,
            strategy_not_shown_over: None,
        }),
        both: None,
    }
}

/// The statistics of a MILP decider that replayed M_ab(m)'s counterexample in M(n0).
fn replayed_in(n0: usize) -> crate::nis::outcome::DeciderStats {
    use crate::nis::encode::{MilpForm, Sizes};
    let mut s = MilpStats::new(MilpForm::Unrolling, Sizes::default(), Instant::now());
    s.replayed_in = Some((n0, true));
    crate::nis::outcome::DeciderStats::Milp(Box::new(s))
}

/// The bound procedure on the guarding model (B = 4) with the sub-checks
/// answered by `verdict` (None: M_ab(m)).
fn fake(
    spec: &str,
    cap: Option<usize>,
    ctx: &RunContext,
    counterexample_agents: Option<usize>,
    verdict: impl Fn(Option<usize>) -> bool,
) -> Result<VerifyOutcome, RunError> {
    let model = guarding();
    let s = parse_sentence(spec).unwrap();
    let m = s.agents();
    let mut check = |t: Target| {
        let mut r = match t {
            Target::Abstract => record(t, m, verdict(None)),
            Target::Concrete { agents } => record(t, m, verdict(Some(agents))),
        };
        if let (Target::Abstract, Some(n0)) = (t, counterexample_agents) {
            r.stats = replayed_in(n0);
        }
        Ok(r)
    };
    run(&model, &s, cap, Some(Procedure::Bound), ctx, &mut check)
}

const EX1: &str = "forall v1, v2: EX (alive, v1) & (alive, v2)";
const AX1: &str = "forall v1, v2: AX (alive, v1) & (alive, v2)";

#[test]
fn the_first_concrete_system_that_holds_is_the_threshold() {
    let ctx = RunContext::default();
    let o = fake(EX1, None, &ctx, None, |n| n.is_none_or(|n| n >= 4)).unwrap();
    assert_eq!(
        (o.holds_for_all_n, o.emergence_threshold),
        (Some(false), Some(4))
    );
    assert_eq!(models(&o), ["M_ab(2)", "M(2)", "M(3)", "M(4)"]);
    assert_eq!(o.undetermined_reason, None);
    // Found at n' = 2 + 4 = 6 exactly.
    let o = fake(EX1, None, &ctx, None, |n| n.is_none_or(|n| n >= 6)).unwrap();
    assert_eq!(o.emergence_threshold, Some(6));
    // M_ab(2) fails: every n fails, M(2) checked.
    let o = fake(EX1, None, &ctx, None, |_| false).unwrap();
    assert_eq!(
        (o.holds_for_all_n, o.emergence_threshold, o.fails_from),
        (Some(false), None, Some(2))
    );
    assert_eq!(models(&o), ["M_ab(2)", "M(2)"]);
}

#[test]
fn a_universal_counterexample_fails_from_where_it_was_replayed() {
    let ctx = RunContext::default();
    // M_ab(2) has a counterexample that the decider replayed in M(5).
    let held_at_2 = |n: Option<usize>| n == Some(2);
    let o = fake(AX1, None, &ctx, Some(5), held_at_2).unwrap();
    assert_eq!(
        (o.holds_for_all_n, o.emergence_threshold, o.fails_from),
        (Some(false), None, Some(5))
    );
    assert!(
        o.conclusion.contains("for every n >= 5"),
        "{}",
        o.conclusion
    );
    assert_eq!(models(&o), ["M_ab(2)", "M(2)"]);
    // One beyond n' = 2 + 4^1 = 6 gives way to n'; one at M(2) is a bug.
    let o = fake(AX1, None, &ctx, Some(9), held_at_2).unwrap();
    assert_eq!(o.fails_from, Some(6));
    let why = internal(fake(AX1, None, &ctx, Some(2), held_at_2));
    assert!(why.contains("replay in M(2)"), "{why}");
    // Without it: from n' = 2 + 4^1 = 6 on.
    let o = fake(AX1, None, &ctx, None, held_at_2).unwrap();
    assert_eq!(o.fails_from, Some(6));
    assert!(
        o.conclusion.contains("for every n >= 6"),
        "{}",
        o.conclusion
    );
    // M_ab(2) holds: so does every n >= 2.
    let o = fake(AX1, None, &ctx, None, |_| true).unwrap();
    assert_eq!(
        (o.holds_for_all_n, o.emergence_threshold, o.fails_from),
        (Some(true), Some(2), None)
    );
}

fn internal(r: Result<VerifyOutcome, RunError>) -> String {
    match r {
        Err(RunError::Internal(why)) => why,
        other => panic!("expected an internal error, got {other:?}"),
    }
}

#[test]
fn violations_of_the_lemma_or_of_theorem_1_are_internal_errors() {
    let ctx = RunContext::default();
    // Existential: M(2) holds although M_ab(2) does not.
    let why = internal(fake(EX1, None, &ctx, None, |n| n.is_some()));
    assert!(why.contains("monotonicity lemma"), "{why}");
    // Universal: M_ab(2) holds, M(2) does not.
    let why = internal(fake(AX1, None, &ctx, None, |n| n.is_none()));
    assert!(why.contains("monotonicity lemma"), "{why}");
    // Existential: M_ab(2) holds but no M(i) up to n' = 6.
    let why = internal(fake(EX1, None, &ctx, None, |n| n.is_none()));
    assert!(why.contains("Theorem 1"), "{why}");
}

#[test]
fn the_cap_and_the_time_out_leave_it_undetermined() {
    let ctx = RunContext::default();
    let o = fake(EX1, Some(3), &ctx, None, |n| n.is_none_or(|n| n >= 5)).unwrap();
    // M(2) fails, so "for every n" is refuted; the threshold stays unknown.
    assert_eq!(
        (
            o.holds_for_all_n,
            o.emergence_threshold,
            o.threshold_undetermined
        ),
        (Some(false), None, true)
    );
    assert!(o
        .undetermined_reason
        .as_deref()
        .unwrap()
        .contains("--cap 3"));
    assert_eq!(models(&o), ["M_ab(2)", "M(2)", "M(3)"]);
    // A cap at or beyond n' changes nothing.
    let o = fake(EX1, Some(100), &ctx, None, |n| n.is_none_or(|n| n >= 5)).unwrap();
    assert_eq!(o.emergence_threshold, Some(5));
    let late = RunContext::new(Format::Text, 1, Some(Duration::from_nanos(1)), 0);
    std::thread::sleep(Duration::from_millis(2));
    let o = fake(EX1, None, &late, None, |_| true).unwrap();
    assert_eq!(o.holds_for_all_n, None);
    assert!(o
        .undetermined_reason
        .as_deref()
        .unwrap()
        .contains("time-out"));
    assert_eq!(models(&o), ["M_ab(2)"]);
}

/// A sub-check cut by the deadline (the MILP decider's HiGHS, the explicit
/// decider's exploration) ends the procedure with the checks done so far,
/// undetermined, not with an error.
#[test]
fn a_sub_check_cut_by_the_deadline_keeps_the_checks_done() {
    let model = guarding();
    let ctx = RunContext::default();
    let cut_at = |stop: usize, spec: &str, holds: fn(Option<usize>) -> bool| {
        let s = parse_sentence(spec).unwrap();
        let m = s.agents();
        let mut calls = 0;
        let mut check = |t: Target| {
            calls += 1;
            if calls == stop {
                return Err(RunError::TimedOut("the time-out of 1 s was reached".into()));
            }
            let verdict = match t {
                Target::Abstract => holds(None),
                Target::Concrete { agents } => holds(Some(agents)),
            };
            Ok(record(t, m, verdict))
        };
        run(&model, &s, None, Some(Procedure::Bound), &ctx, &mut check).unwrap()
    };
    // EX: M_ab(2) holds, M(2) and M(3) fail, M(4) is cut.
    let o = cut_at(4, EX1, |n| n.is_none_or(|n| n >= 4));
    assert_eq!((o.holds_for_all_n, o.emergence_threshold), (None, None));
    assert_eq!(models(&o), ["M_ab(2)", "M(2)", "M(3)"]);
    let why = o.undetermined_reason.as_deref().unwrap();
    assert!(
        why.contains("the time-out of 1 s") && why.contains("3 sub-check"),
        "{why}"
    );
    // Cut at the first check: nothing is known.
    let o = cut_at(1, EX1, |_| true);
    assert_eq!(o.holds_for_all_n, None);
    assert!(o.checks.is_empty());
}
