//! Falsify first (issue 32): before the MILP of a universal sentence on a
//! real-valued model, runs simulated in f64 from sampled initial states.
//! Planted counterexamples whose initial states are known by hand, a model
//! where none is planted, the replay of every run found, and the verdicts
//! with and without falsification.

use mavis::lang::Source;
use mavis::nis::encode::{falsify_universal, FalsifyOptions, MilpOptions};
use mavis::nis::engine::{decide_with, CheckRecord, EngineChoice, Target};
use mavis::nis::front::core::Lowered;
use mavis::nis::witness::replay::real::replay_real;
use mavis::nis::{parse_model, parse_sentence, LoadOptions, Model};
use mavis::nn::{Activation, Layer, Network};
use mavis::report::Deadline;
use ndarray::{Array1, Array2};
use std::path::Path;

/// Outputs (0, x - 30): percept `hi` iff x > 30 (a tie at 30).
fn above_30() -> Network {
    Network::from_layers(vec![Layer {
        weights: Array2::from_shape_vec((2, 1), vec![0.0, 1.0]).unwrap(),
        bias: Array1::from(vec![0.0, -30.0]),
        activation: Activation::Identity,
    }])
    .unwrap()
}

/// An agent that raises x by 1 while it perceives `lo` (x <= 30) and
/// keeps it otherwise, from x in `[lo..hi]`. By hand: x never enters
/// [40, 41] from below 40 (it stops at 31 at most), and stays where it is
/// above 30; so `AX^k ok` fails exactly from x0 in [40, 41], for every k.
fn planted(lo: &str, hi: &str) -> Model {
    planted_from(lo, hi, "observe")
}

/// [`planted`] with the first percept `first` (`observe` or a percept).
fn planted_from(lo: &str, hi: &str, first: &str) -> Model {
    let text = format!(
        "net f = \"none.onnx\";
agent a {{
  percept : {{lo, hi}} = {first};
  actions : {{up, stay}};
  observe = argmax(f(x), lo, hi);
  protocol {{ lo -> {{up}}; hi -> {{stay}}; }}
}}
environment {{
  var x : real[-10..200] in [{lo}..{hi}];
  actions : {{tick}};
  update {{ tick & performed(up) -> x := x + 1; }}
}}
label ok = x < 40 | x > 41;
"
    );
    let opts = LoadOptions {
        in_memory: [("f".to_string(), above_30())].into_iter().collect(),
        ..Default::default()
    };
    parse_model(&Source::new("planted.nis", text), Path::new("."), &opts).unwrap()
}

fn check(model: &Model, spec: &str, opts: &MilpOptions) -> CheckRecord {
    let s = parse_sentence(spec).unwrap();
    let target = Target::Concrete { agents: 1 };
    decide_with(EngineChoice::Auto, opts, model, &s, target).unwrap()
}

fn no_falsify() -> MilpOptions {
    MilpOptions {
        falsify: FalsifyOptions::off(),
        ..MilpOptions::default()
    }
}

/// The counterexample's initial x, from the report's witness.
fn initial_x(rec: &CheckRecord) -> f64 {
    let w = mavis::nis::verbs::json::witness_json(rec).expect("a replayed counterexample");
    w["branches"][0][0]["env"]["x"].as_f64().unwrap()
}

#[test]
fn falsification_finds_the_planted_counterexample() {
    let model = planted("0", "100");
    for k in 1..=3 {
        let spec = parse_sentence(&format!("AX^{k} ok")).unwrap();
        let goal = Lowered::new(&spec, &model).unwrap().core.negate();
        let opts = FalsifyOptions::default();
        let (tree, stats) = falsify_universal(&model, &goal, 1, &opts, &Deadline::NONE);
        let tree = tree.unwrap_or_else(|| panic!("k = {k}: nothing found, {stats:?}"));
        let x0 = tree.state.env[0];
        assert!((40.0..=41.0).contains(&x0), "k = {k}: x0 = {x0}");
        assert_eq!(stats.traces, 1);
        let branches = replay_real(&model, &tree).unwrap();
        assert_eq!(branches.len(), 1);
        assert_eq!(branches[0].len(), k + 1, "k rounds from the initial state");
        // The decider reports it, and the MILP alone finds one in the same place.
        let with = check(&model, &format!("AX^{k} ok"), &MilpOptions::default());
        assert!(!with.holds);
        assert!((40.0..=41.0).contains(&initial_x(&with)));
        let falsified = &with.stats.milp().unwrap().real.falsify;
        assert_eq!(falsified.as_ref().map(|f| f.traces), Some(1));
        let without = check(&model, &format!("AX^{k} ok"), &no_falsify());
        assert!(!without.holds);
        assert!((40.0..=41.0).contains(&initial_x(&without)));
        assert!(without.stats.milp().unwrap().real.falsify.is_none());
    }
}

#[test]
fn nothing_is_found_where_nothing_is_planted() {
    let model = planted("0", "39.5");
    // Without the proof by boxes, which proves it before the falsifier runs
    // (tests/nis_box_proof.rs).
    let no_boxes = MilpOptions {
        falsify: FalsifyOptions {
            box_states: 0,
            ..FalsifyOptions::default()
        },
        ..MilpOptions::default()
    };
    let spec = parse_sentence("AX^2 ok").unwrap();
    let goal = Lowered::new(&spec, &model).unwrap().core.negate();
    let opts = FalsifyOptions::default();
    let (tree, stats) = falsify_universal(&model, &goal, 1, &opts, &Deadline::NONE);
    assert!(tree.is_none());
    assert!(stats.samples >= opts.samples, "{stats:?}");
    assert!(stats.states > 0);
    let rec = check(&model, "AX^2 ok", &no_boxes);
    assert!(rec.holds);
    let f = rec.stats.milp().unwrap().real.falsify.clone().unwrap();
    assert_eq!(f.traces, 0);
    // With it: proved, the falsifier never ran.
    let rec = check(&model, "AX^2 ok", &MilpOptions::default());
    assert!(rec.holds);
    let real = &rec.stats.milp().unwrap().real;
    assert!(real.boxes.as_ref().is_some_and(|b| b.proved));
    assert!(real.falsify.is_none());
}

#[test]
fn the_search_is_deterministic() {
    let model = planted("0", "100");
    let spec = parse_sentence("AX^2 ok").unwrap();
    let goal = Lowered::new(&spec, &model).unwrap().core.negate();
    let opts = FalsifyOptions::default();
    let a = falsify_universal(&model, &goal, 1, &opts, &Deadline::NONE);
    let b = falsify_universal(&model, &goal, 1, &opts, &Deadline::NONE);
    assert_eq!(a.0.map(|t| t.state.env), b.0.map(|t| t.state.env));
    assert_eq!((a.1.samples, a.1.states), (b.1.samples, b.1.states));
}

#[test]
fn existential_sentences_are_not_falsified() {
    // EX ok: holds from x0 = 50 (ok at x = 50), the falsifier does not run.
    let model = planted_from("50", "50", "lo");
    let rec = check(&model, "EX ok", &MilpOptions::default());
    assert!(rec.holds);
    assert!(rec.stats.milp().unwrap().real.falsify.is_none());
}

/// A meter read by the test (as `-v` reads one): its count and level.
fn live_meter() -> mavis::report::meter::MeterGuard {
    mavis::report::meter::MeterGuard::start(
        mavis::report::meter::Counting {
            label: "falsifier".into(),
            unit: "states",
            level: Some("walks"),
            total: None,
        },
        Some(mavis::report::meter::Show::Bar),
    )
}

/// The falsifier's `-v` meter (issue 34) counts what its statistics count:
/// every successor state the walks computed, and as its level every
/// sampled initial state walked; and through the decider, the same as the
/// report's `falsify_states` and `falsify_samples`.
#[test]
fn the_falsifiers_meter_counts_its_states_and_walks() {
    let model = planted("0", "39.5");
    let spec = parse_sentence("AX^2 ok").unwrap();
    let goal = Lowered::new(&spec, &model).unwrap().core.negate();
    let guard = live_meter();
    let opts = FalsifyOptions {
        meter: guard.meter(),
        ..FalsifyOptions::default()
    };
    let (tree, stats) = falsify_universal(&model, &goal, 1, &opts, &Deadline::NONE);
    assert!(tree.is_none());
    assert!(
        stats.samples >= opts.samples && stats.states > 0,
        "{stats:?}"
    );
    assert_eq!(
        guard.meter().read(),
        Some((stats.states as u64, stats.samples as u64))
    );
    // Through the decider (without the proof by boxes, which would prove
    // the sentence before the falsifier runs).
    let guard = live_meter();
    let opts = MilpOptions {
        falsify: FalsifyOptions {
            box_states: 0,
            meter: guard.meter(),
            ..FalsifyOptions::default()
        },
        ..MilpOptions::default()
    };
    let rec = check(&model, "AX^2 ok", &opts);
    assert!(rec.holds);
    let f = rec.stats.milp().unwrap().real.falsify.clone().unwrap();
    assert_eq!(
        guard.meter().read(),
        Some((f.states as u64, f.samples as u64))
    );
}
