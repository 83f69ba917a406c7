//! Differential test of the NIS deciders: on randomly generated small finite
//! models (a random two-layer ReLU network with small integer weights, so
//! exact argmax ties happen; random protocols with state guards; guarded
//! updates with clamp/min/max, `performed` and the environment's action; an
//! environment with two initial states) and random EX/AX formulas of
//! temporal depth <= 2, the MILP decider (symmetry breaking on and off) must
//! give the explicit decider's verdict on M(n), n <= 3. Every MILP witness is
//! replayed inside the decider, so a wrong trace fails the test as an error.

#[path = "support/nis_random.rs"]
mod nis_random;

use mavis::nis::encode::MilpOptions;
use mavis::nis::engine::{decide_with, EngineChoice, Target};
use mavis::nis::{parse_sentence, Model};
use nis_random::{model, sentence, spec_strategy, text};
use proptest::prelude::*;

fn verdict(model: &Model, spec: &str, n: usize, engine: EngineChoice, sym: bool) -> bool {
    let s = parse_sentence(spec).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
    let opts = MilpOptions {
        symmetry_breaking: sym,
        ..MilpOptions::default()
    };
    decide_with(engine, &opts, model, &s, Target::Concrete { agents: n })
        .unwrap_or_else(|e| panic!("{spec} on M({n}): {e:?}"))
        .holds
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

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
            prop_assert_eq!((with, without), (x, x), "{} on M({}) of\n{}", spec, n, text(&s));
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
