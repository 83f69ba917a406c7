//! The MILP decider on real-valued models (issue 5's remaining part): verdicts
//! computed by hand on a one-agent model with an interval of initial
//! environment states (with an exact argmax tie), the f64 replay rejecting
//! corrupted traces, and a differential check against the explicit decider
//! on models whose real variables happen to take integral values only.

use mavis::lang::Source;
use mavis::nis::encode::{falsify_universal, FalsifyOptions, MilpOptions, SplitOptions};
use mavis::nis::engine::{decide_with, EngineChoice, Target};
use mavis::nis::front::core::Lowered;
use mavis::nis::witness::replay::real::{replay_real, RealLocal, RealMove, RealState, RealTree};
use mavis::nis::witness::WitnessTree;
use mavis::nis::{parse_model, parse_sentence, LoadOptions, Model};
use mavis::nn::{Activation, Layer, Network};
use mavis::report::{Deadline, RunError};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use std::path::Path;

/// out = (2 - y, y - 2): percept `hi` iff y >= 2, both at y = 2 (a tie).
fn threshold_net() -> Network {
    Network::from_layers(vec![Layer {
        weights: Array2::from_shape_vec((2, 1), vec![-1.0, 1.0]).unwrap(),
        bias: Array1::from(vec![2.0, -2.0]),
        activation: Activation::Identity,
    }])
    .unwrap()
}

/// One agent climbing by 1.5 while it perceives `lo`; it perceives x + c
/// with c fixed at the start in the initial set `init` (`[lo..hi]` or `{a, b}`).
fn climber(c: &str) -> Model {
    climber_up_to(c, 10)
}

fn climber_up_to(c: &str, top: u32) -> Model {
    let text = format!(
        "net f = \"none.onnx\";
agent t {{
  var x : real[0..{top}] = 0;
  percept : {{lo, hi}} = lo;
  actions : {{up, stay}};
  observe = argmax(f(x + c), lo, hi);
  protocol {{ lo -> {{up, stay}}; hi -> {{stay}}; }}
  update {{ up -> x := x + 1.5; stay -> skip; }}
}}
environment {{ var c : real[0..1] in {c}; }}
label high = percept = hi;
label big = x >= 3;
"
    );
    let opts = LoadOptions {
        in_memory: [("f".to_string(), threshold_net())].into_iter().collect(),
        ..Default::default()
    };
    parse_model(&Source::new("climber.nis", text), Path::new("."), &opts).unwrap()
}

fn check(model: &Model, spec: &str, n: usize) -> mavis::nis::engine::CheckRecord {
    let s = parse_sentence(spec).unwrap();
    decide_with(
        EngineChoice::Auto,
        &MilpOptions::default(),
        model,
        &s,
        Target::Concrete { agents: n },
    )
    .unwrap_or_else(|e| panic!("{spec}: {e:?}"))
}

// By hand: after `up` x = 1.5 and x + c >= 2 iff c >= 0.5, so `hi` needs c >= 0.5;
// `lo` (c < 0.5, or the tie at c = 0.5) allows a second `up` to x = 3.
#[test]
fn hand_computed_verdicts_on_an_interval_of_initial_states() {
    let cases = [
        ("[0..1]", "forall v1: EX (high, v1)", false),
        ("[0.5..1]", "forall v1: EX (high, v1)", true),
        // Two different witnesses cover [0, 1]: up-up below 0.5, up-stay above.
        ("[0..1]", "forall v1: EX^2 (high, v1)", true),
        ("[0..1]", "forall v1: AX !(big, v1)", true),
        ("[0..1]", "forall v1: AX^2 !(big, v1)", false),
        // The tie at c = 0.5 lets `lo` be perceived, so up-up is possible.
        ("[0.5..1]", "forall v1: AX^2 !(big, v1)", false),
        ("[0.6..1]", "forall v1: AX^2 !(big, v1)", true),
        ("[0..0.4]", "forall v1: AX (high, v1) | !(high, v1)", true),
        ("[0..0.4]", "forall v1: AX !(high, v1)", true),
        // A list of initial values: one MILP per value for EX, one for AX.
        ("{0.2, 0.7}", "forall v1: EX (high, v1)", false),
        ("{0.7, 0.5}", "forall v1: EX (high, v1)", true),
        ("{0.2, 0.7}", "forall v1: EX^2 (high, v1)", true),
        ("{0.7, 0.2}", "forall v1: AX^2 !(big, v1)", false),
        ("{0.7, 0.9}", "forall v1: AX^2 !(big, v1)", true),
    ];
    for (c, spec, want) in cases {
        let r = check(&climber(c), spec, 1);
        assert_eq!(r.holds, want, "{spec} with c in {c}");
        assert_eq!(r.engine, "milp");
        let existential = spec.contains("EX");
        // Replayed witnesses (EX holds) and counterexamples (AX fails) are shown.
        assert_eq!(
            r.witness.is_some(),
            existential == want,
            "{spec} with c in {c}"
        );
    }
}

// Two `up`s reach x = 3, beyond real[0..2]: a model error (exit 2) whichever
// initial state leads there, also when the interval is covered by witnesses.
#[test]
fn leaving_a_declared_real_range_is_an_input_error() {
    for spec in ["forall v1: EX^2 (high, v1)", "forall v1: AX^2 (high, v1)"] {
        let s = parse_sentence(spec).unwrap();
        let e = decide_with(
            EngineChoice::Auto,
            &MilpOptions::default(),
            &climber_up_to("[0..1]", 2),
            &s,
            Target::Concrete { agents: 1 },
        )
        .err()
        .unwrap_or_else(|| panic!("{spec}: no range error"));
        assert_eq!(e.exit_code(), 2, "{spec}: {e:?}");
        assert!(format!("{e:?}").contains("declared range"), "{e:?}");
    }
}

#[test]
fn counterexample_at_the_tie_replays() {
    let r = check(&climber("[0.5..1]"), "forall v1: AX^2 !(big, v1)", 1);
    let w = mavis::nis::verbs::json::witness_json(&r).expect("a counterexample");
    let steps = &w["branches"][0];
    let c = steps[0]["env"]["c"].as_f64().unwrap();
    assert!((c - 0.5).abs() < 1e-6, "only c = 0.5 (the tie) fails: {c}");
    assert_eq!(steps[1]["agents"][0]["percept"], "lo");
    assert_eq!(steps[2]["agents"][0]["private"]["x"].as_f64(), Some(3.0));
}

#[test]
fn more_agents_share_nothing_here() {
    // The agents do not interact: the verdicts are those of one agent.
    let m = climber("[0..1]");
    assert!(check(&m, "forall v1, v2: EX^2 (high, v1) & (high, v2)", 3).holds);
    assert!(!check(&m, "forall v1, v2: AX^2 !(big, v1) & !(big, v2)", 2).holds);
}

fn state(x: f64, hi: bool, c: f64) -> RealState {
    RealState {
        agents: vec![RealLocal {
            private: vec![x],
            percept: usize::from(hi),
        }],
        env: vec![c],
        named: vec![],
    }
}

fn up_then_stay(c: f64, x1: f64, p1: bool, second: usize) -> RealTree {
    let leaf = WitnessTree {
        state: state(x1 + if second == 0 { 1.5 } else { 0.0 }, true, c),
        obligations: vec![(0, Some(0), false)],
        children: vec![],
    };
    let mid = WitnessTree {
        state: state(x1, p1, c),
        obligations: vec![],
        children: vec![(
            RealMove {
                actions: vec![second],
                env_action: 0,
                named: vec![],
            },
            leaf,
        )],
    };
    WitnessTree {
        state: state(0.0, false, c),
        obligations: vec![(1, Some(0), true)],
        children: vec![(
            RealMove {
                actions: vec![0],
                env_action: 0,
                named: vec![],
            },
            mid,
        )],
    }
}

#[test]
fn corrupted_real_traces_are_rejected() {
    let m = climber("[0..1]");
    // The honest trace: up (x = 1.5, hi since 1.5 + 0.7 >= 2), then stay.
    let good = up_then_stay(0.7, 1.5, true, 1);
    let steps = replay_real(&m, &good).expect("replays");
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].len(), 3);
    let bad = [
        ("a wrong value", up_then_stay(0.7, 1.6, true, 1)),
        ("an impossible percept", up_then_stay(0.7, 1.5, false, 1)),
        (
            "an action the protocol forbids",
            up_then_stay(0.7, 1.5, true, 0),
        ),
        (
            "an initial value outside I_e",
            up_then_stay(1.2, 1.5, true, 1),
        ),
        // At c = 0.2 the agent perceives lo after `up`: the percept claim fails.
        (
            "a percept at another initial state",
            up_then_stay(0.2, 1.5, true, 1),
        ),
    ];
    for (what, t) in bad {
        assert!(replay_real(&m, &t).is_err(), "{what} replayed");
    }
    let mut lit = up_then_stay(0.7, 1.5, true, 1);
    lit.obligations = vec![(0, Some(0), false)];
    assert!(replay_real(&m, &lit).is_err(), "a false literal replayed");
    let mut start = up_then_stay(0.7, 1.5, true, 1);
    start.state.agents[0].private[0] = 1.0;
    assert!(replay_real(&m, &start).is_err(), "a wrong start replayed");
}

// The differential check: one model text with `x` an integer or a real.
#[derive(Clone, Debug)]
struct Spec {
    top: u8,
    x0: u8,
    prot: [u8; 3],
    steps: [i8; 3],
    weights: [i8; 6],
    label_x: u8,
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    (1u8..=3).prop_flat_map(|top| {
        (
            Just(top),
            0..=top,
            [1u8..=3, 1u8..=3, 1u8..=3],
            [-2i8..=2, -2i8..=2, -1i8..=2],
            proptest::array::uniform6(-2i8..=2),
            0..=top,
        )
            .prop_map(|(top, x0, prot, steps, weights, label_x)| Spec {
                top,
                x0,
                prot,
                steps,
                weights,
                label_x,
            })
    })
}

fn text(s: &Spec, real: bool) -> String {
    let names = |mask: u8| {
        ["a0", "a1"]
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 == 1)
            .map(|(_, n)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let t = s.top;
    let ty = if real {
        format!("real[0..{t}]")
    } else {
        format!("[0..{t}]")
    };
    format!(
        "net f = \"none.onnx\";
agent t {{
  var x : {ty} = {x0};
  percept : {{p0, p1}} = p0;
  actions : {{a0, a1}};
  observe = if x = 0 then p1 else argmax(f(x, e), p0, p1);
  protocol {{ p0 -> {{{m0}}}; p1 -> {{{m1}}}; x >= {t} -> {{{m2}}}; }}
  update {{
    a0 & performed(a1) -> x := clamp(x + {d0}, 0, {t});
    a0 -> x := clamp(x + {d1}, 0, {t});
    a1 -> x := min(max(x - {d2}, 0), {t});
  }}
}}
environment {{
  var e : [0..1] in {{0, 1}};
  actions : {{tick, tock}};
  update {{ tick & performed(a0) -> e := 1 - e; }}
}}
label q = x >= {lx};
label r = percept = p0;
label z = e = 1;
",
        x0 = s.x0,
        m0 = names(s.prot[0]),
        m1 = names(s.prot[1]),
        m2 = names(s.prot[2]),
        d0 = s.steps[0],
        d1 = s.steps[1],
        d2 = s.steps[2],
        lx = s.label_x,
    )
}

fn model(s: &Spec, real: bool) -> Model {
    model_of(s, text(s, real))
}

/// The model of `text` with the network of `s`.
fn model_of(s: &Spec, text: String) -> Model {
    let w = |i: usize| f64::from(s.weights[i]);
    let net = Network::from_layers(vec![Layer {
        weights: Array2::from_shape_vec((2, 2), vec![w(0), w(1), w(2), w(3)]).unwrap(),
        bias: Array1::from(vec![w(4), w(5)]),
        activation: Activation::Identity,
    }])
    .unwrap();
    let opts = LoadOptions {
        in_memory: [("f".to_string(), net)].into_iter().collect(),
        ..Default::default()
    };
    parse_model(&Source::new("d.nis", text), Path::new("."), &opts).unwrap()
}

/// Both deciders refused the model for the one reason these models can be
/// refused for, a local state whose protocol enables no action (`{0}` as a
/// protocol choice): an input error (exit 2) that says so. Refusing for
/// anything else (or failing) is not agreement.
fn both_refuse_an_empty_protocol(a: &RunError, b: &RunError) -> Result<(), TestCaseError> {
    for e in [a, b] {
        let text = format!("{e:?}");
        prop_assert_eq!(e.exit_code(), 2, "{}", text);
        prop_assert!(text.contains("enables no action"), "{}", text);
    }
    Ok(())
}

// The last two read only the environment after their last step: the MILP
// does not encode the agents' observations there (their percepts are
// observed in f64 when a solution is read back).
const SPECS: [&str; 8] = [
    "forall v1: EX (q, v1)",
    "forall v1: AX^2 (q, v1) | (r, v1)",
    "forall v1, v2: EX^2 (q, v1) & !(r, v2)",
    "forall v1: AX (r, v1)",
    "forall v1: EX (r, v1) & EX !(q, v1)",
    "forall v1, v2: AX !(q, v1) | (q, v2)",
    "AX^2 z",
    "EX^2 !z & EX z",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 20, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn real_variables_with_integral_values_agree_with_explicit(s in spec_strategy(), which in 0usize..SPECS.len(), n in 2usize..=3) {
        let spec = parse_sentence(SPECS[which]).unwrap();
        let finite = model(&s, false);
        let real = model(&s, true);
        prop_assert!(finite.explicit_obstacle().is_none());
        prop_assert!(real.explicit_obstacle().is_some());
        let target = Target::Concrete { agents: n };
        let opts = MilpOptions::default();
        let x = decide_with(EngineChoice::Explicit, &opts, &finite, &spec, target);
        let y = decide_with(EngineChoice::Auto, &opts, &real, &spec, target);
        // And with bound tightening in the unrolled context (OBBT).
        let mut obbt = MilpOptions::default();
        obbt.encode.obbt_budget = std::time::Duration::from_secs(60);
        let z = decide_with(EngineChoice::Auto, &obbt, &real, &spec, target);
        prop_assert_eq!(z.as_ref().map(|r| r.holds).ok(), y.as_ref().map(|r| r.holds).ok());
        // And without falsification (the MILP alone).
        let off = MilpOptions { falsify: FalsifyOptions::off(), ..MilpOptions::default() };
        let w = decide_with(EngineChoice::Auto, &off, &real, &spec, target);
        prop_assert_eq!(w.as_ref().map(|r| r.holds).ok(), y.as_ref().map(|r| r.holds).ok());
        falsified_runs_are_counterexamples(&real, &spec, n, x.as_ref().ok().map(|r| r.holds))?;
        match (x, y) {
            (Ok(x), Ok(y)) => {
                prop_assert_eq!(y.engine, "milp");
                prop_assert_eq!(x.holds, y.holds, "{} on M({}) of\n{}", SPECS[which], n, text(&s, true));
            }
            // A protocol with no enabled action is a model error for both.
            (Err(a), Err(b)) => both_refuse_an_empty_protocol(&a, &b)?,
            (x, y) => prop_assert!(false, "explicit {:?} vs milp {:?}\n{}", x.map(|r| r.holds), y.map(|r| r.holds), text(&s, true)),
        }
    }
}

/// [`text`] with an environment whose choice depends on its state: `tock`
/// only while e = 0 (so a part of a choice split that pins `tock` where
/// e = 1 has no run), `tick` always.
fn guarded_text(s: &Spec, real: bool) -> String {
    let t = text(s, real);
    let old = "actions : {tick, tock};\n  update";
    assert!(t.contains(old));
    t.replace(
        old,
        "actions : {tick, tock};\n  protocol { e = 0 -> {tock}; true -> {tick}; }\n  update",
    )
}

/// The universal sentences of [`SPECS`].
const UNIVERSAL: [usize; 4] = [1, 3, 5, 6];

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    /// The choice split (issue 32): the MILP decider with the environment's
    /// actions of the first rounds pinned in every part before any MILP
    /// (one part per action and round), on 1 and 2 threads, gives the
    /// verdict of the explicit decider on the integer twin and of the MILP
    /// decider without it (no falsification: the MILPs decide).
    #[test]
    fn choice_split_verdicts_agree_with_explicit(s in spec_strategy(), which in 0usize..UNIVERSAL.len(), n in 2usize..=3, guarded in proptest::bool::ANY) {
        let which = UNIVERSAL[which];
        let spec = parse_sentence(SPECS[which]).unwrap();
        let text_of = |real| if guarded { guarded_text(&s, real) } else { text(&s, real) };
        let finite = model_of(&s, text_of(false));
        let real = model_of(&s, text_of(true));
        let target = Target::Concrete { agents: n };
        let x = decide_with(EngineChoice::Explicit, &MilpOptions::default(), &finite, &spec, target);
        let milp = |choice_rounds, eager_choices, threads| {
            let split = SplitOptions { choice_rounds, eager_choices, threads, ..SplitOptions::default() };
            let opts = MilpOptions { split, falsify: FalsifyOptions::off(), ..MilpOptions::default() };
            decide_with(EngineChoice::Milp, &opts, &real, &spec, target)
        };
        let none = milp(0, false, 1);
        for (rounds, threads) in [(1, 1), (2, 1), (3, 2)] {
            let y = milp(rounds, true, threads);
            let pinned = y.as_ref().ok().and_then(|r| r.milp_stats()).and_then(|m| m.real.split.as_ref()).map(|s| s.pinned_rounds);
            match (&x, &y) {
                (Ok(x), Ok(y)) => {
                    prop_assert_eq!(x.holds, y.holds, "{} on M({}), {} rounds pinned, of\n{}", SPECS[which], n, rounds, text_of(true));
                    // The dual goals here are single paths of 1 or 2 rounds:
                    // every part that reached a MILP pinned them all.
                    let depth = if which == 1 || which == 6 { 2 } else { 1 };
                    if let Some(p) = pinned {
                        prop_assert!(p <= rounds.min(depth));
                    }
                }
                (Err(a), Err(b)) => both_refuse_an_empty_protocol(a, b)?,
                (x, y) => prop_assert!(false, "explicit {:?} vs milp {:?}\n{}", x.as_ref().map(|r| r.holds), y.as_ref().map(|r| r.holds), text_of(true)),
            }
            prop_assert_eq!(y.as_ref().map(|r| r.holds).ok(), none.as_ref().map(|r| r.holds).ok());
        }
    }
}

/// The choice split pins rounds on the harness's models: `AX^2 z` (z: e = 1)
/// fails (the explicit decider), and with the choices pinned before any
/// MILP the parts are cut in waves: the root into `tick` and `tock`, both
/// of those (one wave) into their 2 second rounds, and the first of those
/// four, `tick tick`, has the counterexample (the rest of its wave is
/// skipped; on 2 threads the second part may have started already): 3
/// choice splits, 4 parts decided (5 at most on 2 threads), 2 rounds pinned.
#[test]
fn the_choice_split_pins_the_first_rounds() {
    let s = Spec {
        top: 2,
        x0: 1,
        prot: [3, 3, 3],
        steps: [1, -1, 1],
        weights: [1, -1, 0, 1, 0, 0],
        label_x: 1,
    };
    let spec = parse_sentence("AX^2 z").unwrap();
    let finite = model(&s, false);
    let real = model(&s, true);
    let target = Target::Concrete { agents: 2 };
    let x = decide_with(
        EngineChoice::Explicit,
        &MilpOptions::default(),
        &finite,
        &spec,
        target,
    )
    .unwrap();
    for threads in [1, 2] {
        let split = SplitOptions {
            eager_choices: true,
            threads,
            ..SplitOptions::default()
        };
        let opts = MilpOptions {
            split,
            falsify: FalsifyOptions::off(),
            ..MilpOptions::default()
        };
        let y = decide_with(EngineChoice::Milp, &opts, &real, &spec, target).unwrap();
        assert_eq!(x.holds, y.holds);
        let st = y.milp_stats().unwrap().real.split.clone().unwrap();
        assert!(!y.holds);
        assert_eq!(st.pinned_rounds, 2, "{st:?}");
        assert_eq!(st.choice_splits, 3, "{st:?}");
        let most = if threads == 1 { 4 } else { 5 };
        assert!((4..=most).contains(&st.boxes), "{st:?}");
    }
}

/// A run the falsifier finds for a universal sentence replays in f64, and
/// the explicit decider of the integer twin (`explicit`: its verdict, if
/// it gave one) finds the sentence violated.
fn falsified_runs_are_counterexamples(
    real: &Model,
    spec: &mavis::nis::Sentence,
    n: usize,
    explicit: Option<bool>,
) -> Result<(), TestCaseError> {
    let lowered = Lowered::new(spec, real).unwrap();
    if !lowered.core.has_universal() {
        return Ok(());
    }
    let goal = lowered.core.negate();
    let opts = FalsifyOptions::default();
    let (tree, stats) = falsify_universal(real, &goal, n, &opts, &Deadline::NONE);
    prop_assert!(stats.samples > 0);
    if let Some(t) = tree {
        prop_assert!(replay_real(real, &t).is_ok(), "{:?}", replay_real(real, &t));
        prop_assert_eq!(explicit, Some(false));
    }
    Ok(())
}

/// M_ab(m) of the real twin of `s` (slot encoding, traces concretized and
/// replayed in f64) against the explicit zero-one abstraction of the int twin.
fn real_abstraction_agrees(s: &Spec, which: usize) -> Result<(), TestCaseError> {
    let spec = parse_sentence(SPECS[which]).unwrap();
    let finite = model(s, false);
    let real = model(s, true);
    let opts = MilpOptions::default();
    let x = decide_with(
        EngineChoice::Explicit,
        &opts,
        &finite,
        &spec,
        Target::Abstract,
    );
    let y = decide_with(EngineChoice::Auto, &opts, &real, &spec, Target::Abstract);
    match (x, y) {
        (Ok(x), Ok(y)) => {
            prop_assert_eq!(y.engine, "milp");
            prop_assert_eq!(
                x.holds,
                y.holds,
                "{} on M_ab of\n{}",
                SPECS[which],
                text(s, true)
            );
        }
        (Err(a), Err(b)) => both_refuse_an_empty_protocol(&a, &b)?,
        (x, y) => prop_assert!(
            false,
            "explicit {:?} vs milp {:?}\n{}",
            x.map(|r| r.holds),
            y.map(|r| r.holds),
            text(s, true)
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn real_zero_one_abstraction_agrees_with_explicit(s in spec_strategy(), which in 0usize..SPECS.len()) {
        real_abstraction_agrees(&s, which)?;
    }
}

/// The case proptest once shrank a failure to (formerly kept in a
/// `.proptest-regressions` file, which proptest no longer writes): zero
/// weights (every argmax a tie) and no moves.
#[test]
fn real_abstraction_agrees_on_the_recorded_case() {
    let s = Spec {
        top: 1,
        x0: 0,
        prot: [1, 1, 1],
        steps: [0, 0, 0],
        weights: [0; 6],
        label_x: 0,
    };
    real_abstraction_agrees(&s, 0).unwrap();
}

fn example_text() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding_real/guarding_real.nis");
    std::fs::read_to_string(p).unwrap()
}

/// The example with the sensor bias's initial set replaced.
fn example(init: &str) -> Model {
    let text = example_text().replace("in [-1..1];", &format!("in [{init}];"));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding_real");
    parse_model(&Source::new("g.nis", text), &dir, &LoadOptions::default()).unwrap()
}

// The interval verdict against single initial states: holding on [-1, 1]
// implies holding at every sampled point; a failure names an initial state
// at which the point model fails too.
#[test]
fn interval_verdicts_agree_with_sampled_initial_states() {
    let interval = example("-1..1");
    let specs = [
        ("forall v1, v2: EX^2 (alive, v1) & (alive, v2)", 2),
        ("forall v1, v2: EX^2 (alive, v1) & (alive, v2)", 3),
        ("forall v1, v2: EX^3 (alive, v1) & (alive, v2)", 3),
        ("forall v1: AX^2 (alive, v1) | (dead, v1)", 2),
        ("forall v1: AX^2 !(eager, v1) | (alive, v1)", 2),
        ("forall v1: AX (eager, v1)", 2),
        ("forall v1: EX^2 (eager, v1)", 2),
    ];
    for (spec, n) in specs {
        let r = check(&interval, spec, n);
        let bad = if r.holds {
            None
        } else if spec.contains("EX") {
            let milp = r.milp_stats().expect("the MILP decider ran");
            let uncovered = milp.real.uncovered.as_ref();
            uncovered.and_then(|u| u.iter().find(|(v, _)| v == "b").map(|x| x.1))
        } else {
            mavis::nis::verbs::json::witness_json(&r)
                .and_then(|w| w["branches"][0][0]["env"]["b"].as_f64())
        };
        match bad {
            None => {
                assert!(r.holds, "{spec}: a failure without an initial state");
                for i in 0..=8 {
                    let b = -1.0 + 0.25 * f64::from(i);
                    assert!(
                        check(&example(&format!("{b}..{b}")), spec, n).holds,
                        "{spec} on M({n}) fails at b = {b}"
                    );
                }
            }
            Some(b) => {
                assert!(
                    !check(&example(&format!("{b}..{b}")), spec, n).holds,
                    "{spec} on M({n}) holds at b = {b}"
                );
            }
        }
    }
}

fn mavis() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("mavis").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

#[test]
fn cli_on_the_real_valued_example() {
    let model = "examples/guarding_real/guarding_real.nis";
    let run = |n: &str, spec: &str, code: i32| {
        mavis()
            .args(["nis", "check", model, "--agents", n, "--spec", spec])
            .assert()
            .code(code);
    };
    run("2", "forall v1, v2: EX (alive, v1) & (alive, v2)", 0);
    run("2", "forall v1, v2: EX^2 (alive, v1) & (alive, v2)", 1);
    run("3", "forall v1, v2: EX^2 (alive, v1) & (alive, v2)", 0);
    run("3", "forall v1, v2: EX^3 (alive, v1) & (alive, v2)", 1);
    run("2", "forall v1, v2: AX (alive, v1) & (alive, v2)", 1);
    // The explicit decider cannot take a real-valued model (exit 2).
    mavis()
        .args([
            "nis", "check", model, "--agents", "2", "--engine", "explicit",
        ])
        .args(["--spec", "forall v1: EX (alive, v1)"])
        .assert()
        .code(2);
    let out = mavis()
        .args([
            "nis",
            "table",
            model,
            "--spec",
            "forall v1,v2: EX^{k} (alive,v1) & (alive,v2)",
        ])
        .args(["--k", "1..3", "--agents", "2..3", "--format", "json"])
        .assert()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let mut grid = Vec::new();
    for c in v["results"]["cells"].as_array().unwrap() {
        assert_eq!(c["engine"], "milp");
        grid.push((
            c["agents"].as_u64().unwrap(),
            c["k"].as_u64().unwrap(),
            c["holds"].as_bool().unwrap(),
        ));
    }
    grid.sort_unstable();
    let want = [
        (2, 1, true),
        (2, 2, false),
        (2, 3, false),
        (3, 1, true),
        (3, 2, true),
        (3, 3, false),
    ];
    assert_eq!(grid, want);
}
