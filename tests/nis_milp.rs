//! Differential test of the NIS deciders: on randomly generated small finite
//! models (a random two-layer ReLU network with small integer weights, so
//! exact argmax ties happen; random protocols with state guards; guarded
//! updates with clamp/min/max, `performed` and the environment's action; an
//! environment with two initial states) and random EX/AX formulas of
//! temporal depth <= 2, the MILP decider (symmetry breaking on and off) must
//! give the explicit decider's verdict on M(n), n <= 3, and so must it
//! with bound tightening in the unrolled context (OBBT). With symmetry
//! breaking on, the decider searches first (a walk of the f64 simulation
//! for a witness, replayed exactly, before the MILP: issue 32); with it
//! off, the MILP decides alone (`FalsifyOptions::off`). Every MILP witness is
//! replayed inside the decider, so a wrong trace fails the test as an error.

#[path = "support/nis_random.rs"]
mod nis_random;

use mavis::nis::encode::{FalsifyOptions, MilpOptions};
use mavis::nis::engine::{decide_with, EngineChoice, Target};
use mavis::nis::{parse_sentence, Model};
use nis_random::{model, model_observed, sentence, spec_strategy, text, text_observed};
use proptest::prelude::*;
use std::time::Duration;

fn verdict(model: &Model, spec: &str, n: usize, engine: EngineChoice, sym: bool) -> bool {
    let opts = MilpOptions {
        symmetry_breaking: sym,
        // Search first with symmetry breaking, the MILP alone without.
        falsify: if sym {
            FalsifyOptions::default()
        } else {
            FalsifyOptions::off()
        },
        ..MilpOptions::default()
    };
    verdict_with(&opts, model, spec, n, engine)
}

fn verdict_with(opts: &MilpOptions, model: &Model, spec: &str, n: usize, e: EngineChoice) -> bool {
    let s = parse_sentence(spec).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
    decide_with(e, opts, model, &s, Target::Concrete { agents: n })
        .unwrap_or_else(|e| panic!("{spec} on M({n}): {e:?}"))
        .holds
}

/// The MILP decider's verdict with bound tightening in the unrolled
/// context (OBBT) and a budget it does not exhaust on these models.
fn verdict_obbt(model: &Model, spec: &str, n: usize) -> bool {
    obbt_record(model, spec, n).holds
}

fn obbt_record(model: &Model, spec: &str, n: usize) -> mavis::nis::engine::CheckRecord {
    let mut opts = MilpOptions::default();
    opts.encode.obbt_budget = Duration::from_secs(60);
    // The MILP alone: OBBT tightens the MILP's copies.
    opts.falsify = FalsifyOptions::off();
    let s = parse_sentence(spec).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
    decide_with(
        EngineChoice::Milp,
        &opts,
        model,
        &s,
        Target::Concrete { agents: n },
    )
    .unwrap_or_else(|e| panic!("{spec} on M({n}): {e:?}"))
}

/// The OBBT variant above is not vacuous: on the random models of a fixed
/// seed it solves LPs (258 on these 24 when written). They remove no binary
/// on these models, whose network inputs are state variables ranging over
/// their whole boxes (1040 LPs over 100 models removed none); the
/// VerticalCAS tests in `tests/nis_effort.rs` show removals.
#[test]
fn obbt_tightens_on_the_random_models() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut lps = 0;
    for _ in 0..24 {
        let s = spec_strategy().new_tree(&mut runner).unwrap().current();
        let r = obbt_record(&model(&s), &sentence(&[7, 1, 4, 2, 9, 3, 5, 8], 2, "EX"), 3);
        lps += r.milp_stats().expect("the MILP decider ran").sizes.obbt.lps;
    }
    assert!(lps > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn milp_and_explicit_agree(
        s in spec_strategy(),
        m in 1usize..=2,
        extra in 0usize..=1,
        bytes in proptest::collection::vec(any::<u8>(), 8..16),
    ) {
        let model = model(&s);
        let n = m + extra + usize::from(m == 1);
        for q in ["EX", "AX"] {
            let spec = sentence(&bytes, m, q);
            let x = verdict(&model, &spec, n, EngineChoice::Explicit, true);
            let with = verdict(&model, &spec, n, EngineChoice::Milp, true);
            let without = verdict(&model, &spec, n, EngineChoice::Milp, false);
            let obbt = verdict_obbt(&model, &spec, n);
            prop_assert_eq!((with, without, obbt), (x, x, x), "{} on M({}) of\n{}", spec, n, text(&s));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// The first percept observed (`= observe`), ties included: an
    /// existential sentence needs a witness from every initial state of
    /// M(n), one MILP per tied combination of first percepts.
    #[test]
    fn milp_and_explicit_agree_with_observed_first_percepts(
        s in spec_strategy(),
        m in 1usize..=2,
        extra in 0usize..=1,
        bytes in proptest::collection::vec(any::<u8>(), 8..16),
    ) {
        let model = model_observed(&s);
        let n = m + extra + usize::from(m == 1);
        for q in ["EX", "AX"] {
            let spec = sentence(&bytes, m, q);
            let x = verdict(&model, &spec, n, EngineChoice::Explicit, true);
            let with = verdict(&model, &spec, n, EngineChoice::Milp, true);
            let without = verdict(&model, &spec, n, EngineChoice::Milp, false);
            let obbt = verdict_obbt(&model, &spec, n);
            prop_assert_eq!((with, without, obbt), (x, x, x), "{} on M({}) of\n{}", spec, n, text_observed(&s));
        }
    }
}

/// A first percept that ties, by hand: f(x) = (x, 0) ties at x = 0, so an
/// agent starts at p0 (which allows only `a0`, keeping x = 0) or at p1
/// (only `a1`, moving to x = 1, where f gives p0). `EX (moved, v1)` fails
/// from the start at p0, `EX !(moved, v1)` from the start at p1, and
/// `EX ((moved, v1) | (r, v1))` holds from both (from p0 the tie at x = 0
/// may give p0 again, or p1, so the `AX` of the same fails). Before the starts were enumerated the MILP refused
/// these existential sentences (it would have chosen p1 and said "holds").
#[test]
fn tied_first_percepts_are_enumerated_by_hand() {
    use mavis::nn::{Activation, Layer, Network};
    use ndarray::array;
    let text = r#"
net f = "none.onnx";
agent a {
  var x : [0..1] = 0;
  percept : {p0, p1} = observe;
  actions : {a0, a1};
  observe = argmax(f(x), p0, p1);
  protocol { p0 -> {a0}; p1 -> {a1}; }
  update { a1 -> x := 1; }
}
environment { var e : bool = false; }
label moved = x = 1;
label r = percept = p0;
"#;
    let net = Network::from_layers(vec![Layer {
        weights: array![[1.0], [0.0]],
        bias: array![0.0, 0.0],
        activation: Activation::Identity,
    }])
    .unwrap();
    let opts = mavis::nis::LoadOptions {
        in_memory: [("f".to_string(), net)].into_iter().collect(),
        ..Default::default()
    };
    let model = mavis::nis::parse_model(
        &mavis::lang::Source::new("tie0.nis", text),
        std::path::Path::new("."),
        &opts,
    )
    .unwrap();
    let cases = [
        ("forall v1: EX (moved, v1)", false),
        ("forall v1: EX !(moved, v1)", false),
        ("forall v1: EX ((moved, v1) | (r, v1))", true),
        // From p0 the tie at x = 0 may also give p1.
        ("forall v1: AX ((moved, v1) | (r, v1))", false),
        // Whoever moved sees p0 (f(1) = (1, 0)).
        ("forall v1: AX ((r, v1) | !(moved, v1))", true),
        ("forall v1: AX (moved, v1)", false),
    ];
    for (spec, holds) in cases {
        for n in [1, 2, 3] {
            for engine in [EngineChoice::Explicit, EngineChoice::Milp] {
                for sym in [true, false] {
                    let got = verdict(&model, spec, n, engine, sym);
                    assert_eq!(got, holds, "{spec} on M({n}) by {engine:?}, symmetry {sym}");
                }
            }
        }
    }
}

/// x climbs by 1 in [0..1], so the second round leaves the declared range.
/// `EX ((q, v1) | EX (q, v1))` is decided at depth 1 already, but its
/// horizon is 2: the deciders call the model erroneous (exit 2) whatever
/// the search visits: both on M(n), the MILP ones (tabulated and slots) on
/// M_ab(m), where the explicit decider explores lazily.
#[test]
fn leaving_a_range_within_the_horizon_is_an_error_for_every_decider() {
    let text = r#"
agent a {
  var x : [0..1] = 0;
  percept : {p} = p;
  actions : {inc};
  observe = p;
  protocol { p -> {inc}; }
  update { inc -> x := x + 1; }
}
environment { var e : bool = false; }
label q = x >= 1;
"#;
    let model = mavis::nis::parse_model(
        &mavis::lang::Source::new("climb.nis", text),
        std::path::Path::new("."),
        &Default::default(),
    )
    .unwrap();
    let s = parse_sentence("forall v1: EX ((q, v1) | EX (q, v1))").unwrap();
    let slots = MilpOptions {
        zero_one_slots: true,
        ..MilpOptions::default()
    };
    let runs = [
        (
            Target::Concrete { agents: 2 },
            EngineChoice::Explicit,
            MilpOptions::default(),
        ),
        (
            Target::Concrete { agents: 2 },
            EngineChoice::Milp,
            MilpOptions::default(),
        ),
        (Target::Abstract, EngineChoice::Milp, MilpOptions::default()),
        (Target::Abstract, EngineChoice::Milp, slots),
    ];
    for (target, engine, opts) in runs {
        let e =
            decide_with(engine, &opts, &model, &s, target).expect_err("the model leaves its range");
        assert_eq!(e.exit_code(), 2, "{engine:?} on {target:?}: {e:?}");
    }
    // Within a horizon of 1 nothing leaves the range, and both agree it holds.
    let s1 = parse_sentence("forall v1: EX (q, v1)").unwrap();
    for engine in [EngineChoice::Explicit, EngineChoice::Milp] {
        let r = decide_with(
            engine,
            &MilpOptions::default(),
            &model,
            &s1,
            Target::Abstract,
        )
        .unwrap();
        assert!(r.holds);
    }
}

/// A tie in real arithmetic that f64 breaks: at x = 1 the network gives
/// 0.1 + 0.2 = 0.30000000000000004 for p0 and 0.3 for p1, so the exact
/// semantics observes p0 only, while the MILP's argmax (maximal up to
/// HiGHS's tolerance) may choose p1. Before the near-tie cuts the MILP's
/// witness of `EX (r, v1)` (percept p1 after `up`) did not replay: "internal
/// error: a MILP trace did not replay through the semantics: step 1: agent 1
/// cannot reach x=1 p1". Now the spurious choice is cut off and both
/// deciders say the sentence fails; where p1 is a real option (x = 0 with a
/// genuine tie) both find it.
#[test]
fn an_f64_broken_argmax_tie_is_cut_not_an_internal_error() {
    use mavis::nn::{Activation, Layer, Network};
    use ndarray::array;
    let text = |guard: &str| {
        format!(
            r#"
net f = "none.onnx";
agent a {{
  var x : [0..1] = 0;
  percept : {{p0, p1}} = p0;
  actions : {{stay, up}};
  observe = argmax(f(x, x, {guard}), p0, p1);
  protocol {{ p0 -> {{stay, up}}; p1 -> {{stay}}; }}
  update {{ up -> x := 1; }}
}}
environment {{ var e : bool = false; }}
label r = percept = p1;
"#
        )
    };
    let net = Network::from_layers(vec![Layer {
        weights: array![[0.1, 0.2, 1.0], [0.3, 0.0, 0.0]],
        bias: array![0.0, 0.0],
        activation: Activation::Identity,
    }])
    .unwrap();
    assert!(net.eval(&[1.0, 1.0, 0.0])[0] > net.eval(&[1.0, 1.0, 0.0])[1]);
    let load = |guard: &str| {
        let opts = mavis::nis::LoadOptions {
            in_memory: [("f".to_string(), net.clone())].into_iter().collect(),
            ..Default::default()
        };
        mavis::nis::parse_model(
            &mavis::lang::Source::new("tie.nis", text(guard)),
            std::path::Path::new("."),
            &opts,
        )
        .unwrap()
    };
    let s = parse_sentence("forall v1: EX (r, v1)").unwrap();
    // Third input 1 - x: p0 wins clearly at x = 0, and only by rounding at x = 1.
    let broken = load("1 - x");
    // Third input 0: at x = 0 both outputs are 0, a genuine tie.
    let genuine = load("0");
    for (model, holds) in [(&broken, false), (&genuine, true)] {
        for agents in [1, 2] {
            let target = Target::Concrete { agents };
            let x = decide_with(
                EngineChoice::Explicit,
                &MilpOptions::default(),
                model,
                &s,
                target,
            )
            .unwrap();
            let y = decide_with(
                EngineChoice::Milp,
                &MilpOptions::default(),
                model,
                &s,
                target,
            )
            .unwrap_or_else(|e| panic!("MILP on M({agents}): {e:?}"));
            assert_eq!((x.holds, y.holds), (holds, holds), "M({agents})");
            let cuts = y.milp_stats().expect("the MILP decider ran").sizes.tie_cuts;
            // The broken tie is the MILP's only way to p1, so it was cut.
            assert!(holds || cuts >= 1, "M({agents}): {cuts}");
        }
    }
}
