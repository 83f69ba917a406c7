//! Input splitting of the universal MILP decider over an interval of initial
//! states (issue 20): counts computed by hand on a one-neuron-per-kink
//! "tent" network, verdicts against the unsplit decider and a brute-force
//! evaluation of the network, and VerticalCAS through the CLI.

use assert_cmd::Command;
use mavis::lang::Source;
use mavis::nis::encode::{FalsifyOptions, MilpOptions, SplitOptions};
use mavis::nis::engine::{decide_with, CheckRecord, EngineChoice, Target};
use mavis::nis::{parse_model, parse_sentence, LoadOptions, Model};
use mavis::nn::{Activation, Layer, Network};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The tent f(c) = relu(c - 1) - 2 relu(c - 2) (0 up to 1, 1 at 2, 3 - c
/// after 2), against the constant `thr`: outputs (thr, f(c)), so the
/// percept is `hi` iff f(c) >= thr (a tie at equality).
fn tent(thr: f64) -> Network {
    Network::from_layers(vec![
        Layer {
            weights: Array2::from_shape_vec((2, 1), vec![1.0, 1.0]).unwrap(),
            bias: Array1::from(vec![-1.0, -2.0]),
            activation: Activation::Relu,
        },
        Layer {
            weights: Array2::from_shape_vec((2, 2), vec![0.0, 0.0, 1.0, -2.0]).unwrap(),
            bias: Array1::from(vec![thr, 0.0]),
            activation: Activation::Identity,
        },
    ])
    .unwrap()
}

fn tent_f64(c: f64) -> f64 {
    (c - 1.0).max(0.0) - 2.0 * (c - 2.0).max(0.0)
}

/// One agent that perceives the tent at the environment's initial `c` in [lo, hi].
fn model(thr: f64, lo: f64, hi: f64) -> Model {
    let text = format!(
        "net f = \"none.onnx\";
agent t {{
  percept : {{lo, hi}} = lo;
  actions : {{stay}};
  observe = argmax(f(c), lo, hi);
  protocol {{ lo -> {{stay}}; hi -> {{stay}}; }}
  update {{ stay -> skip; }}
}}
environment {{ var c : real[-10..10] in [{lo}..{hi}]; }}
label high = percept = hi;
"
    );
    let opts = LoadOptions {
        in_memory: [("f".to_string(), tent(thr))].into_iter().collect(),
        ..Default::default()
    };
    parse_model(&Source::new("tent.nis", text), Path::new("."), &opts).unwrap()
}

const NEVER_HIGH: &str = "forall v1: AX !(high, v1)";

/// The MILP decider with input splitting `split` (and no falsification,
/// which would find the counterexamples here before any MILP).
fn check(m: &Model, split: SplitOptions) -> CheckRecord {
    let opts = MilpOptions {
        split,
        falsify: FalsifyOptions::off(),
        ..MilpOptions::default()
    };
    let s = parse_sentence(NEVER_HIGH).unwrap();
    decide_with(
        EngineChoice::Milp,
        &opts,
        m,
        &s,
        Target::Concrete { agents: 1 },
    )
    .unwrap()
}

/// A zero budget: every box whose halves have fewer binaries is halved at once.
const FORCED: SplitOptions = SplitOptions {
    budget: Duration::ZERO,
    max_depth: 12,
    choice_rounds: 3,
    eager_choices: false,
    threads: 1,
};
const OFF: SplitOptions = SplitOptions {
    budget: Duration::ZERO,
    max_depth: 0,
    choice_rounds: 0,
    eager_choices: false,
    threads: 1,
};

fn counts(r: &CheckRecord) -> [usize; 4] {
    let milp = r.milp_stats().expect("the MILP decider ran");
    let s = milp.real.split.as_ref().expect("the box was split");
    [s.boxes, s.splits, s.depth, s.refused]
}

// By hand, c in [0, 4], f >= 1.4 never (max f = 1 at c = 2): the bounds of
// the whole box leave both neurons unstable and f's upper bound at 1.5 or
// more, so a MILP is needed. Halved at 2: on [0, 2] the second neuron is
// off and f = relu(c - 1) <= 1; on [2, 4] both are on and f = 3 - c <= 1:
// each half is decided by its bounds. 3 boxes, 1 split, depth 1.
#[test]
fn a_box_whose_halves_are_decided_by_their_bounds() {
    let m = model(1.4, 0.0, 4.0);
    let whole = check(&m, OFF);
    assert!(whole.holds);
    let milp = whole.milp_stats().expect("the MILP decider ran");
    assert!(milp.real.split.is_none(), "{:?}", whole.stats);
    let r = check(&m, FORCED);
    assert!(r.holds);
    assert_eq!(counts(&r), [3, 1, 1, 0]);
    // With the default budget the whole box's MILP decides at once.
    let r = check(&m, SplitOptions::default());
    assert!(r.holds);
    assert_eq!(counts(&r), [1, 0, 0, 0]);
}

// By hand, c in [0, 4], f >= 0.8 on [1.8, 2.2]: [0, 4] halves (fewer
// binaries on both sides); its halves are decided in one wave: [0, 2]
// (second neuron off) halves again, [2, 4] (both neurons on, f = 3 - c)
// keeps its binaries in its halves, is decided whole, and its
// counterexample has c <= 2.2, which ends the search before [0, 2]'s
// halves. Boxes [0,4], [0,2], [2,4]; 2 halved, 1 refused.
#[test]
fn a_counterexample_in_a_sub_box_is_replayed_and_reported() {
    let m = model(0.8, 0.0, 4.0);
    let r = check(&m, FORCED);
    assert!(!r.holds);
    assert_eq!(counts(&r), [3, 2, 1, 1]);
    let w = mavis::nis::verbs::json::witness_json(&r).expect("a replayed counterexample");
    let c = w["branches"][0][0]["env"]["c"].as_f64().unwrap();
    assert!((2.0..=2.2 + 1e-6).contains(&c), "c = {c}");
    assert!(tent_f64(c) >= 0.8 - 1e-6);
    assert!(!check(&m, OFF).holds);
}

/// The verdict by brute force: max f over [lo, hi] (at the ends or the kinks).
fn holds_by_hand(thr: f64, lo: f64, hi: f64) -> bool {
    let peak = [lo, hi, 1.0, 2.0]
        .into_iter()
        .filter(|c| (lo..=hi).contains(c))
        .map(tent_f64)
        .fold(f64::NEG_INFINITY, f64::max);
    peak < thr
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn split_and_unsplit_verdicts_agree_with_brute_force(
        lo in -4i32..40, width in 1i32..40, thr in -10i32..12,
    ) {
        let (lo, hi, thr) = (f64::from(lo) / 10.0, f64::from(lo + width) / 10.0, f64::from(thr) / 8.0 + 0.01);
        let m = model(thr, lo, hi);
        let want = holds_by_hand(thr, lo, hi);
        prop_assert_eq!(check(&m, OFF).holds, want, "unsplit, c in [{}, {}], thr {}", lo, hi, thr);
        let r = check(&m, FORCED);
        prop_assert_eq!(r.holds, want, "split, c in [{}, {}], thr {}", lo, hi, thr);
        prop_assert_eq!(r.witness.is_some(), !want);
    }
}

fn run(args: &[&str]) -> (Option<i32>, Value) {
    let out = Command::cargo_bin("mavis")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    (out.status.code(), serde_json::from_str(&text).unwrap())
}

const VCAS: &str = "examples/vcas/single_agent.nis";

// VerticalCAS with a zero budget: the verdicts are the unsplit ones (docs),
// and halving h's interval is refused from k = 7 on (the spread of the states
// comes from the pilot's choices, not from h0: the halves' MILPs have as many
// binaries as the whole box's).
#[test]
fn vertical_cas_with_splitting_forced() {
    // Without the proof by boxes, which proves AX^7 before any split.
    let forced = [
        "--agents",
        "1",
        "--engine",
        "milp",
        "--split-budget",
        "0",
        "--box-states",
        "0",
    ];
    let mut args = vec!["nis", "check", VCAS, "--spec", "AX^7 safe"];
    args.extend(forced);
    let (code, r) = run(&args);
    assert_eq!(code, Some(0), "{r}");
    let st = &r["stats"];
    assert_eq!(
        (st["split_boxes"].as_u64(), st["splits_refused"].as_u64()),
        (Some(1), Some(1)),
        "{st}"
    );
    let mut args = vec![
        "nis",
        "check",
        VCAS,
        "--spec",
        "AX^4 safe",
        "--set",
        "V0=-35",
    ];
    args.extend(forced);
    let (code, r) = run(&args);
    assert_eq!(code, Some(1), "{r}");
    let steps = r["witness"]["branches"][0]
        .as_array()
        .expect("a counterexample");
    assert_eq!(steps.len(), 5);
    let h = steps[4]["env"]["h"].as_f64().unwrap();
    assert!(h.abs() <= 100.0, "the last state is unsafe: h = {h}");
    let h0 = steps[0]["env"]["h"].as_f64().unwrap();
    assert!((-133.0..=-129.0).contains(&h0), "h0 = {h0}");
}

// The run's deadline during the MILP over the initial box: unknown (exit 3),
// the reason saying how far the splitting got.
#[test]
fn the_deadline_is_unknown_with_the_splitting_so_far() {
    let args = [
        "nis",
        "check",
        VCAS,
        "--spec",
        "AX^10 safe",
        "--agents",
        "1",
        "--engine",
        "milp",
        "--timeout",
        "2",
        // The proof by boxes proves it in milliseconds (tests/nis_box_proof.rs).
        "--box-states",
        "0",
    ];
    let (code, r) = run(&args);
    assert_eq!(code, Some(3), "{r}");
    let why = r["results"]["reason"].as_str().unwrap();
    assert!(
        why.contains("over the initial box [-133, -129] (input splitting: 1 parts tried, 0 halved, 0 split over the environment's choices, depth 0, 1 not halved"),
        "{why}"
    );
}
