//! The proof by boxes before the MILP (issue 32, src/nis/encode/box_proof.rs):
//! every box successor contains every concrete successor of every point
//! of its box (sampled, on VerticalCAS's nine networks); hand-computed
//! verdicts on a planted model, proved with splitting and refused where a
//! counterexample exists; VerticalCAS's cells proved without a MILP and
//! the MILP alone agreeing.

use mavis::lang::interval::Iv;
use mavis::lang::Source;
use mavis::nis::encode::{FalsifyOptions, MilpOptions};
use mavis::nis::engine::{decide_with, CheckRecord, EngineChoice, Target};
use mavis::nis::semantics::real::{RealLocal, RealState};
use mavis::nis::semantics::real_box::{self, BoxLocal, BoxState};
use mavis::nis::semantics::real_sim;
use mavis::nis::{parse_model, parse_sentence, LoadOptions, Model};
use mavis::nn::{Activation, Layer, Network};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use std::path::Path;

fn vcas(v0: &str) -> Model {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = repo.join("examples/vcas/single_agent.nis");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replace("const V0 = -19.5;", &format!("const V0 = {v0};"));
    let source = Source::new(path.to_str().unwrap(), text);
    parse_model(&source, path.parent().unwrap(), &LoadOptions::default()).unwrap()
}

/// Outputs (0, x - 30): percept `hi` iff x > 30 (a tie at 30).
fn above_30() -> Network {
    Network::from_layers(vec![Layer {
        weights: Array2::from_shape_vec((2, 1), vec![0.0, 1.0]).unwrap(),
        bias: Array1::from(vec![0.0, -30.0]),
        activation: Activation::Identity,
    }])
    .unwrap()
}

/// x rises by 1 while the agent perceives `lo` (x <= 30) and stays
/// otherwise. By hand: from x0 <= 30, x stops at 31 at most; from x0 > 30
/// it stays. So `AX^k ok` (x outside [40, 41]) holds over [0, 39] for
/// every k, and fails over [0, 45] (from x0 in [40, 41]).
fn planted(hi: &str) -> Model {
    let text = format!(
        "net f = \"none.onnx\";
agent a {{
  percept : {{lo, hi}} = observe;
  actions : {{up, stay}};
  observe = argmax(f(x), lo, hi);
  protocol {{ lo -> {{up}}; hi -> {{stay}}; }}
}}
environment {{
  var x : real[-10..200] in [0..{hi}];
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

fn box_proved(rec: &CheckRecord) -> bool {
    let real = &rec.stats.milp().unwrap().real;
    real.boxes.as_ref().is_some_and(|b| b.proved)
}

fn milp_alone() -> MilpOptions {
    MilpOptions {
        falsify: FalsifyOptions::off(),
        ..MilpOptions::default()
    }
}

#[test]
fn the_planted_model_is_proved_where_it_holds_and_only_there() {
    let holds = planted("39");
    for k in [1, 3, 10] {
        let spec = format!("AX^{k} ok");
        let rec = check(&holds, &spec, &MilpOptions::default());
        assert!(rec.holds, "k = {k}");
        assert!(
            box_proved(&rec),
            "k = {k}: {:?}",
            rec.stats.milp().unwrap().real.boxes
        );
        // The box of the tie at 30 takes halvings: lo there climbs to 40.
        let b = rec.stats.milp().unwrap().real.boxes.clone().unwrap();
        assert!(b.splits > 0, "{b:?}");
        assert_eq!(rec.stats.milp().unwrap().sizes.milps, 0);
    }
    assert!(check(&holds, "AX^3 ok", &milp_alone()).holds);
    let fails = planted("45");
    for k in [1, 3] {
        let rec = check(&fails, &format!("AX^{k} ok"), &MilpOptions::default());
        assert!(!rec.holds, "k = {k}");
        assert!(!box_proved(&rec));
    }
}

#[test]
fn verticalcas_is_proved_by_boxes_up_to_ten_rounds() {
    let model = vcas("-19.5");
    for k in [1, 4, 7, 8, 10] {
        let rec = check(&model, &format!("AX^{k} safe"), &MilpOptions::default());
        assert!(rec.holds, "k = {k}");
        // Up to k = 6 the bounds of the MILP's unrolling decide (no binary,
        // examples/vcas/README.md): the boxes are not tried there.
        assert_eq!(box_proved(&rec), k >= 7, "k = {k}");
        assert_eq!(rec.stats.milp().unwrap().sizes.binaries, 0, "k = {k}");
    }
    // The MILP alone agrees where the bounds of one hull do not decide
    // (k = 7: 207 binaries, examples/vcas/README.md).
    assert!(check(&model, "AX^7 safe", &milp_alone()).holds);
    // A collision course: never proved, the falsifier's counterexample.
    let rec = check(&vcas("-35"), "AX^4 safe", &MilpOptions::default());
    assert!(!rec.holds);
    assert!(!box_proved(&rec));
}

fn point_state(env: &[f64], percept: usize) -> RealState {
    RealState {
        agents: vec![RealLocal {
            private: Vec::new(),
            percept,
        }],
        env: env.to_vec(),
        named: Vec::new(),
    }
}

fn contains(b: &BoxState, s: &RealState) -> bool {
    let inside = |iv: &[Iv], x: &[f64]| iv.iter().zip(x).all(|(i, &x)| i.contains(x));
    b.agents.len() == s.agents.len()
        && inside(&b.env, &s.env)
        && b.agents
            .iter()
            .zip(&s.agents)
            .all(|(l, r): (&BoxLocal, _)| l.percept == r.percept && inside(&l.private, &r.private))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Soundness of the box semantics: from a point of a box, each
    /// concrete successor (f64 simulation, every move, every percept it
    /// may observe) lies in some box successor of the same move.
    #[test]
    fn box_successors_contain_every_concrete_successor(
        h0 in -600.0f64..600.0, hw in 0.0f64..80.0, v0 in -60.0f64..60.0, vw in 0.0f64..15.0,
        tau in 5u8..35, prev in 0usize..9, percept in 0usize..9,
        at in (0.0f64..=1.0, 0.0f64..=1.0),
    ) {
        let model = vcas("-19.5");
        let tau = f64::from(tau);
        let prev_code = prev as f64;
        let b = BoxState {
            agents: vec![BoxLocal { private: Vec::new(), percept }],
            env: vec![Iv::new(h0, h0 + hw), Iv::new(v0, v0 + vw), Iv::point(tau), Iv::point(prev_code)],
        };
        let x = point_state(&[h0 + at.0 * hw, v0 + at.1 * vw, tau, prev_code], percept);
        let Ok(concrete) = real_sim::choices(&model, &x) else { return Ok(()) };
        let boxed = real_box::choices(&model, &b).unwrap();
        for (c, bc) in concrete.iter().zip(&boxed) {
            prop_assert!(c.iter().all(|a| bc.contains(a)), "{:?} not in {:?}", c, bc);
        }
        for &ea in &concrete[0] {
            for &aa in &concrete[1] {
                let mv = real_sim::joint_move(&[vec![ea], vec![aa]], &[0, 0], 1);
                let Ok((env, agents)) = real_sim::round(&model, &x, &mv) else { continue };
                let Ok(succ) = real_box::successors(&model, &b, ea, &[aa]) else { continue };
                for pick in 0..agents[0].1.len() {
                    let s = real_sim::successor(&env, &agents, &[pick], 1);
                    prop_assert!(succ.iter().any(|bs| contains(bs, &s)), "{:?} in none of {:?}", s, succ);
                }
            }
        }
    }
}

/// VerticalCAS with h0 in [lo, hi] instead of VENMAS's [-133, -129].
fn vcas_from(lo: &str, hi: &str) -> Model {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = repo.join("examples/vcas/single_agent.nis");
    let text = std::fs::read_to_string(&path).unwrap();
    let old = "in [H0 - 2..H0 + 2]";
    assert!(text.contains(old));
    let text = text.replace(old, &format!("in [{lo}..{hi}]"));
    let source = Source::new(path.to_str().unwrap(), text);
    parse_model(&source, path.parent().unwrap(), &LoadOptions::default()).unwrap()
}

/// `EX^k safe` (some choice of the pilot keeps the aircraft safe after k
/// seconds, from every initial state): proved by boxes from VENMAS's box,
/// with the covering by MILP witnesses (the MILP alone) agreeing; from h0
/// in [-50, -30] it fails at k = 1, since within one second |h| moves by
/// at most 21.7 ft (v0 = -19.5 ft/s, accelerations of at most g/3), so no
/// choice leaves [-100, 100]: never proved there.
#[test]
fn existential_sentences_are_proved_where_every_initial_state_has_a_witness() {
    let model = vcas("-19.5");
    for k in [1, 3, 6] {
        let spec = format!("EX^{k} safe");
        let rec = check(&model, &spec, &MilpOptions::default());
        assert!(rec.holds, "k = {k}");
        assert!(box_proved(&rec), "k = {k}");
        assert_eq!(rec.stats.milp().unwrap().real.cover_rounds, None);
        if k <= 3 {
            assert!(check(&model, &spec, &milp_alone()).holds, "k = {k}");
        }
    }
    let near = vcas_from("-50", "-30");
    for opts in [MilpOptions::default(), milp_alone()] {
        let rec = check(&near, "EX^1 safe", &opts);
        assert!(!rec.holds);
        assert!(!box_proved(&rec));
        let real = &rec.stats.milp().unwrap().real;
        let h0 = real.uncovered.clone().unwrap();
        let h = h0.iter().find(|(v, _)| v == "h").unwrap().1;
        assert!((-50.0..=-30.0).contains(&h), "{h0:?}");
        // By boxes: refuted at a point, with no covering MILP.
        let by_boxes = real.boxes.as_ref().is_some_and(|b| b.refuted_at);
        assert_eq!(by_boxes, real.cover_rounds.is_none(), "{real:?}");
        assert_eq!(by_boxes, opts.falsify.samples > 0);
    }
}

/// [`planted`]'s agent with an environment that may also `skip` (no
/// change), from x0 in [lo + 0.2, lo + 0.8]: no x0, and no later x, is
/// near an integer, so neither the argmax (a tie at 30) nor `high` is ever
/// at its border, where the deciders' tolerance lets either side count.
fn climber(lo: i32) -> Model {
    let text = format!(
        "net f = \"none.onnx\";
agent a {{
  percept : {{lo, hi}} = observe;
  actions : {{up, stay}};
  observe = argmax(f(x), lo, hi);
  protocol {{ lo -> {{up}}; hi -> {{stay}}; }}
}}
environment {{
  var x : real[-100..200] in [{lo}.2..{lo}.8];
  actions : {{tick, skip}};
  update {{ tick & performed(up) -> x := x + 1; }}
}}
label high = x >= 30;
"
    );
    let opts = LoadOptions {
        in_memory: [("f".to_string(), above_30())].into_iter().collect(),
        ..Default::default()
    };
    parse_model(&Source::new("climber.nis", text), Path::new("."), &opts).unwrap()
}

/// By hand: the best the environment can do in k rounds from x0 (tick
/// every round: +1 while x <= 30), and the worst (skip: x0).
fn best_after(x0: f64, k: usize) -> f64 {
    (0..k).fold(x0, |x, _| if x <= 30.0 { x + 1.0 } else { x })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// `EX^k high` holds iff the best run from the lowest x0 reaches 30
    /// (the best run is monotone in x0), `AX^k high` iff x0 >= 30 already;
    /// the deciders with the proof by boxes and the MILP alone agree with
    /// that, and the proof by boxes is given exactly where it holds.
    #[test]
    fn climber_verdicts_agree_with_the_hand_computation(lo in 20i32..34, k in 1usize..5) {
        let model = climber(lo);
        let x0 = f64::from(lo) + 0.2;
        for (q, want) in [("EX", best_after(x0, k) >= 30.0), ("AX", x0 >= 30.0)] {
            let spec = format!("{q}^{k} high");
            let with = check(&model, &spec, &MilpOptions::default());
            prop_assert_eq!(with.holds, want, "{} from [{}, {}]", spec, x0, x0 + 0.6);
            // Proved by boxes exactly where it holds (no box straddles a
            // border; a universal one is not searched where the MILP's own
            // bounds decide it), an existential one refuted at a point
            // elsewhere.
            let boxes = with.stats.milp().unwrap().real.boxes.clone();
            if q == "EX" || boxes.is_some() {
                prop_assert_eq!(box_proved(&with), want, "{} proved", spec);
            } else {
                prop_assert!(want, "{} not searched", spec);
            }
            let refuted = boxes.is_some_and(|b| b.refuted_at);
            prop_assert_eq!(refuted, q == "EX" && !want, "{} refuted", spec);
            prop_assert_eq!(check(&model, &spec, &milp_alone()).holds, want, "{} alone", spec);
        }
    }
}

/// An integer initial interval: `ok` fails only between 1.4 and 1.6 (a
/// real comparison of 2x), at no integer, so `EX^1 ok` holds from x0 in
/// {1, 2}. The boxes over the real hull [1, 2] cannot prove it, and must
/// not refute it at x = 1.5, which is no initial state (issue 32: a
/// refutation point is an initial state, integers rounded). The real `y`
/// and the observed first percept send it to the boxes and the covering.
#[test]
fn integer_variables_are_refuted_only_at_integers() {
    let text = "agent a {
  percept : {lo, hi} = observe;
  actions : {go};
  observe = if y > 5 then hi else lo;
  protocol { true -> {go}; }
}
environment {
  var x : [0..10] in [1..2];
  var y : real[0..1] = 0;
  actions : {tick};
  update { tick -> y := y; }
}
label ok = 2 * x < 2.8 | 2 * x > 3.2;
";
    let model = parse_model(
        &Source::new("int.nis", text),
        Path::new("."),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(model.explicit_obstacle().is_some());
    let rec = check(&model, "EX^1 ok", &MilpOptions::default());
    assert!(rec.holds, "{:?}", rec.stats.milp().unwrap().real);
    assert!(check(&model, "EX^1 ok", &milp_alone()).holds);
}

/// `EX^1 ok` where the environment may add 1 to x or not: by hand it fails
/// exactly from x0 in [40.3, 40.6] (x0 and x0 + 1 both in [40.3, 41.6]),
/// a hole of 0.3 in [0, 100]. With two boxes the proof halves [0, 100]
/// once; no centre or corner of those boxes (0, 25, 50, 75, 100) is in the
/// hole, so before the sampled refutation the covering MILP decided. The
/// sampler's robustness (max(40.3 - x0, x0 - 40.6) at its best run) leads
/// its local search into the hole, and the boxes confirm the point.
#[test]
fn a_narrow_hole_is_refuted_by_the_sampler_without_a_milp() {
    let text = "agent a {
  percept : {lo, hi} = observe;
  actions : {go};
  observe = if x > 1000 then hi else lo;
  protocol { true -> {go}; }
}
environment {
  var x : real[-10..200] in [0..100];
  actions : {tick, skip};
  update { tick -> x := x + 1; }
}
label ok = x < 40.3 | x > 41.6;
";
    let model = parse_model(
        &Source::new("hole.nis", text),
        Path::new("."),
        &LoadOptions::default(),
    )
    .unwrap();
    let two_boxes = MilpOptions {
        falsify: FalsifyOptions {
            box_splits: 2,
            ..FalsifyOptions::default()
        },
        ..MilpOptions::default()
    };
    for (opts, sampled) in [(two_boxes, true), (milp_alone(), false)] {
        let rec = check(&model, "EX^1 ok", &opts);
        assert!(!rec.holds);
        let real = &rec.stats.milp().unwrap().real;
        let x0 = real.uncovered.clone().unwrap()[0].1;
        assert!((40.3..=40.6).contains(&x0), "{real:?}");
        let refuted = real.boxes.as_ref().is_some_and(|b| b.refuted_at);
        assert_eq!(refuted, sampled, "{real:?}");
        assert_eq!(real.cover_rounds.is_none(), sampled, "{real:?}");
        let samples = real.falsify.as_ref().map_or(0, |f| f.samples);
        assert_eq!(samples > 0, sampled, "{real:?}");
    }
}

/// The proof by boxes' `-v` meter (issue 34) counts what its statistics
/// count: the box states computed, and as its level the boxes tried (the
/// planted model's tie at 30 takes halvings, so more than one box).
#[test]
fn the_box_proofs_meter_counts_its_box_states_and_boxes() {
    let guard = mavis::report::meter::MeterGuard::start(
        mavis::report::meter::Counting {
            label: "box proof".into(),
            unit: "box states",
            level: Some("boxes"),
            total: None,
        },
        Some(mavis::report::meter::Show::Bar),
    );
    let opts = MilpOptions {
        falsify: FalsifyOptions {
            box_meter: guard.meter(),
            ..FalsifyOptions::default()
        },
        ..MilpOptions::default()
    };
    let rec = check(&planted("39"), "AX^3 ok", &opts);
    assert!(rec.holds && box_proved(&rec));
    let b = rec.stats.milp().unwrap().real.boxes.clone().unwrap();
    assert!(b.boxes > 1 && b.states > 0, "{b:?}");
    assert_eq!(
        guard.meter().read(),
        Some((b.states as u64, b.boxes as u64))
    );
}
