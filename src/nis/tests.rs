//! Unit tests: the language, the semantics against brute-force oracles, bICTL,
//! the zero-one abstraction by hand, the corollaries on the guarding game.

use super::engine::{abstract_state_counts, decide, state_counts, EngineChoice, Target};
use super::explicit::checker::Graph;
use super::explicit::simulation::{minimal_simulating_n, Simulation};
use super::front::formula::{parse_sentence, Kind};
use super::procedures::{verify, VerifyOptions};
use super::semantics::abstraction::{Abstract, LocalSet};
use super::semantics::Semantics;
use super::{parse_model, LoadOptions, Model};
use crate::lang::Source;
use crate::nn::{Activation, Layer, Network};
use crate::report::RunContext;
use ndarray::{array, Array1, Array2};
use std::collections::{HashMap, HashSet};
use std::path::Path;

pub const GUARDING: &str = include_str!("../../examples/guarding/guarding.nis");

/// A network shaped like the guarding policy (1 -> 4 -> 4 -> 2, ReLU) whose
/// argmax is `rest_only` at h = 1, 2 and `volunteer` at h = 3, 4: Q(rest) = 0.6,
/// Q(guard) = h / 4.
pub fn fixture_policy(rest_level: f64) -> Network {
    let mut w1 = Array2::zeros((4, 1));
    w1[[0, 0]] = 1.0;
    let w2 = Array2::eye(4);
    let mut w3 = Array2::zeros((2, 4));
    w3[[1, 0]] = 1.0;
    Network::from_layers(vec![
        Layer {
            weights: w1,
            bias: Array1::zeros(4),
            activation: Activation::Relu,
        },
        Layer {
            weights: w2,
            bias: Array1::zeros(4),
            activation: Activation::Relu,
        },
        Layer {
            weights: w3,
            bias: array![rest_level, 0.0],
            activation: Activation::Identity,
        },
    ])
    .unwrap()
}

pub fn model_with(
    text: &str,
    nets: &[(&str, Network)],
) -> Result<Model, Box<crate::lang::SourceError>> {
    let opts = LoadOptions {
        in_memory: nets
            .iter()
            .map(|(n, net)| (n.to_string(), net.clone()))
            .collect(),
        ..Default::default()
    };
    parse_model(&Source::new("test.nis", text), Path::new("."), &opts)
}

pub fn guarding() -> Model {
    model_with(GUARDING, &[("policy", fixture_policy(0.6))]).unwrap()
}

/// The guarding game written out by hand, on ordered tuples of (health, percept):
/// percept 0 volunteer, 1 rest_only, 2 expired; volunteer iff h >= 3.
fn guarding_oracle_layers(n: usize, k: usize) -> Vec<HashSet<Vec<(i64, u8)>>> {
    let observe = |h: i64| {
        if h == 0 {
            2
        } else if h >= 3 {
            0
        } else {
            1
        }
    };
    let mut layers = vec![HashSet::from([vec![(3i64, 0u8); n]])];
    for _ in 0..k {
        let mut next = HashSet::new();
        for s in layers.last().unwrap() {
            // Each agent: 0 guard, 1 rest, 2 expire.
            let options: Vec<Vec<u8>> = s
                .iter()
                .map(|&(_, p)| match p {
                    0 => vec![0, 1],
                    1 => vec![1],
                    _ => vec![2],
                })
                .collect();
            let mut idx = vec![0usize; n];
            loop {
                let acts: Vec<u8> = (0..n).map(|i| options[i][idx[i]]).collect();
                let someone_guards = acts.contains(&0);
                let t: Vec<(i64, u8)> = s
                    .iter()
                    .zip(&acts)
                    .map(|(&(h, _), &a)| {
                        let h2 = match a {
                            0 => h - 2,
                            1 if someone_guards => h + 1,
                            1 => h - 3,
                            _ => h,
                        }
                        .clamp(0, 4);
                        (h2, observe(h2))
                    })
                    .collect();
                next.insert(t);
                let mut i = 0;
                loop {
                    if i == n {
                        break;
                    }
                    idx[i] += 1;
                    if idx[i] < options[i].len() {
                        break;
                    }
                    idx[i] = 0;
                    i += 1;
                }
                if i == n {
                    break;
                }
            }
        }
        layers.push(next);
    }
    layers
}

#[test]
fn guarding_state_counts_match_a_hand_written_oracle() {
    let model = guarding();
    for n in 1..=4 {
        let k = 6;
        let oracle = guarding_oracle_layers(n, k);
        let m = n.min(2);
        let counts = state_counts(&model, n, m, k as u32).unwrap();
        for j in 0..=k {
            assert_eq!(counts[j].1, oracle[j].len() as u128, "n = {n}, depth {j}");
        }
    }
    // By hand: from (3,3) the four joint actions give four distinct states.
    assert_eq!(state_counts(&model, 2, 2, 1).unwrap()[1], (4, 4));
    // n = 1: guard -> (1, rest_only), rest alone -> (0, expired).
    assert_eq!(
        state_counts(&model, 1, 1, 2)
            .unwrap()
            .iter()
            .map(|c| c.1)
            .collect::<Vec<_>>(),
        vec![1, 2, 1]
    );
}

#[test]
fn guarding_verdicts_match_the_oracle() {
    let model = guarding();
    for n in 2..=4usize {
        let oracle = guarding_oracle_layers(n, 5);
        for k in 1..=5u32 {
            let alive = |t: &Vec<(i64, u8)>, i: usize| t[i].0 > 0 && t[i].1 != 2;
            let ex = oracle[k as usize]
                .iter()
                .any(|t| alive(t, 0) && alive(t, 1));
            let ax = oracle[k as usize]
                .iter()
                .all(|t| alive(t, 0) && alive(t, 1));
            let sx = parse_sentence(&format!("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)"))
                .unwrap();
            let sa = parse_sentence(&format!("forall v1, v2: AX^{k} (alive, v1) & (alive, v2)"))
                .unwrap();
            let rx = explicit_on(&model, &sx, n);
            let ra = explicit_on(&model, &sa, n);
            assert_eq!(rx.holds, ex, "EX^{k} on M({n})");
            assert_eq!(ra.holds, ax, "AX^{k} on M({n})");
            assert_eq!(rx.witness.is_some(), ex);
            assert_eq!(ra.witness.is_some(), !ax);
        }
    }
}

/// The explicit decider's record of `s` on M(n).
fn explicit_on(model: &Model, s: &crate::nis::Sentence, n: usize) -> super::engine::CheckRecord {
    decide(
        EngineChoice::Explicit,
        model,
        s,
        Target::Concrete { agents: n },
    )
    .unwrap()
}

#[test]
fn temporal_depth_saturates_instead_of_wrapping() {
    use crate::nis::front::formula::{depth, AgentRef, Formula};
    let atom = || {
        Box::new(Formula::Atom {
            label: "alive".into(),
            agent: AgentRef::Index(1),
            negated: false,
            span: crate::lang::Span::default(),
        })
    };
    let big = u32::MAX - 1;
    // Nested next operators add up: (MAX - 1) + 3 saturates.
    let next = Formula::EX(big, Box::new(Formula::EX(3, atom())));
    assert_eq!(depth(&next), u32::MAX);
    // Until counts as its expansion: k + depth(psi) and k - 1 + depth(phi).
    let until = Formula::AU(big, Box::new(Formula::AX(5, atom())), atom());
    assert_eq!(depth(&until), u32::MAX);
    let until = Formula::EU(2, atom(), Box::new(Formula::EX(big, atom())));
    assert_eq!(depth(&until), u32::MAX);
    // Below the limit nothing changes: 2 + 1 and (3 - 1) + 4.
    assert_eq!(depth(&Formula::EX(2, Box::new(Formula::AX(1, atom())))), 3);
    let until = Formula::EU(3, Box::new(Formula::EX(4, atom())), atom());
    assert_eq!(depth(&until), 6);
}

#[test]
fn bictl_parse_print_classify_depth() {
    let s = parse_sentence("forall v1, v2: EX^3 (alive, v1) & (alive, v2)").unwrap();
    assert_eq!(
        s.to_string(),
        "forall v1, v2: EX^3 ((alive, v1) & (alive, v2))"
    );
    assert_eq!((s.kind(), s.depth(), s.agents()), (Kind::Existential, 3, 2));
    let again = parse_sentence(&s.to_string()).unwrap();
    assert_eq!(again.to_string(), s.to_string());
    let u = parse_sentence("forall v: AX^{2} (AX !(dead, v) | (alive, v))").unwrap();
    assert_eq!((u.kind(), u.depth()), (Kind::Universal, 3));
    let until = parse_sentence("forall v1: E((alive, v1) U^2 (dead, v1))").unwrap();
    assert_eq!((until.kind(), until.depth()), (Kind::Existential, 2));
    assert_eq!(parse_sentence("(alive, 3)").unwrap().agents(), 3);
    let mixed = parse_sentence("forall v: EX AX (alive, v)").unwrap_err();
    assert!(mixed.message.contains("mixes"), "{}", mixed.message);
    let neg = parse_sentence("forall v: !(EX (alive, v))").unwrap_err();
    assert!(neg.message.contains("atoms"), "{}", neg.message);
    let unbound = parse_sentence("forall v: EX (alive, w)").unwrap_err();
    assert_eq!((unbound.line, unbound.column), (1, 14));
}

#[test]
fn until_is_its_expansion() {
    let model = guarding();
    for n in 2..=3 {
        for k in 0..=3 {
            let a = parse_sentence(&format!("forall v1: E((alive, v1) U^{k} (dead, v1))")).unwrap();
            let mut expansion = "(dead, v1)".to_string();
            for _ in 0..k {
                expansion = format!("(dead, v1) | ((alive, v1) & EX ({expansion}))");
            }
            let b = parse_sentence(&format!("forall v1: {expansion}")).unwrap();
            let ra = explicit_on(&model, &a, n);
            let rb = explicit_on(&model, &b, n);
            assert_eq!(ra.holds, rb.holds);
        }
    }
}

/// Two local states (x = 0, 1; one percept), actions a (keeps x) and b (flips x).
const TWO_STATE: &str = "
agent t {
  var x : [0..1] = 0;
  percept : {p} = p;
  actions : {a, b};
  observe = p;
  protocol { true -> {a, b}; }
  update { b -> x := 1 - x; }
}
label one = x = 1;
";

#[test]
fn zero_one_abstraction_by_hand() {
    let model = model_with(TWO_STATE, &[]).unwrap();
    let sem = Semantics::new(&model).unwrap();
    let mut g = Graph::new(Abstract::new(sem, 1)).unwrap();
    let layers = g.layers(2).unwrap();
    let describe = |states: &[super::semantics::abstraction::AState], id: u32| {
        let s = &states[id as usize];
        let zo: Vec<u32> = s.zo.iter().collect();
        (s.indexed[0], zo)
    };
    // Local numbers: x = 0 -> 0, x = 1 -> 1. From (0 | {0}): the agent takes a or b,
    // the zero-one agent {a}, {b} or {a, b}: images {0}, {1}, {0, 1}.
    let mut one: Vec<(u32, Vec<u32>)> = layers[1].iter().map(|&i| describe(&g.states, i)).collect();
    one.sort();
    assert_eq!(
        one,
        vec![
            (0, vec![0]),
            (0, vec![0, 1]),
            (0, vec![1]),
            (1, vec![0]),
            (1, vec![0, 1]),
            (1, vec![1])
        ]
    );
    // From (0 | {0, 1}) the zero-one action pairs both states with a non-empty set each: 3 x 3 = 9 actions.
    let from = g
        .states
        .iter()
        .position(|s| s.indexed == vec![0] && s.zo.len() == 2)
        .unwrap() as u32;
    let succ = g.successors(from).unwrap().to_vec();
    // Images: {0,1} in every combination that keeps both or swaps; all three non-empty sets reachable.
    let mut zos: Vec<Vec<u32>> = succ
        .iter()
        .map(|(_, t)| g.states[*t as usize].zo.iter().collect())
        .collect();
    zos.sort();
    zos.dedup();
    assert_eq!(zos, vec![vec![0], vec![0, 1], vec![1]]);
    assert_eq!(abstract_state_counts(&model, 1, 2).unwrap(), vec![1, 6, 6]);
    let mut set = LocalSet::empty(2);
    set.insert(1);
    assert!(set.contains(1) && !set.contains(0) && set.len() == 1);
}

#[test]
fn guarding_corollaries() {
    let model = guarding();
    let ctx = RunContext::default();
    let opts = VerifyOptions {
        engine: EngineChoice::Explicit,
        cap: Some(10),
        milp: Default::default(),
    };
    // k = 2: M(2) already satisfies it, holds for all n; k = 3: M(2) fails, M(3) holds: threshold 3.
    for (k, all, th) in [
        (1u32, true, Some(2usize)),
        (2, true, Some(2)),
        (3, false, Some(3)),
        (4, false, Some(3)),
    ] {
        let s =
            parse_sentence(&format!("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)")).unwrap();
        let o = verify(&model, &s, &opts, &ctx).unwrap();
        assert_eq!(o.holds_for_all_n, Some(all), "k = {k}");
        assert_eq!(o.emergence_threshold, th, "k = {k}");
        assert_eq!(o.abstract_holds, Some(true));
    }
    // Universal: paths on which nobody guards kill everybody at k = 1.
    let s = parse_sentence("forall v1, v2: AX^1 (alive, v1) & (alive, v2)").unwrap();
    let o = verify(&model, &s, &opts, &ctx).unwrap();
    assert_eq!(
        (o.holds_for_all_n, o.emergence_threshold, o.abstract_holds),
        (Some(false), None, Some(false))
    );
    // Direct checks agree for every n the corollary speaks about.
    for n in 2..=5 {
        let s3 = parse_sentence("forall v1, v2: EX^3 (alive, v1) & (alive, v2)").unwrap();
        let r = explicit_on(&model, &s3, n);
        assert_eq!(r.holds, n >= 3, "n = {n}");
    }
}

#[test]
fn simulation_is_monotone_and_the_minimal_n_is_found() {
    let model = guarding();
    for b in 1..=3u32 {
        let found = minimal_simulating_n(&model, 2, b, 8, crate::report::Deadline::NONE)
            .unwrap()
            .unwrap();
        let n = found.n.expect("some M(n) simulates M_ab(2)");
        assert!(n >= 2);
        // Theorem 4: every larger concrete model simulates as well.
        let sem = Semantics::new(&model).unwrap();
        let mut ga = Graph::new(Abstract::new(sem, 2)).unwrap();
        for i in n..=n + 1 {
            let mut gc = Graph::new(super::semantics::concrete::Concrete::new(
                Semantics::new(&model).unwrap(),
                i,
                2,
            ))
            .unwrap();
            assert!(
                Simulation::new().holds(&mut ga, &mut gc, b).unwrap(),
                "b = {b}, i = {i}"
            );
        }
        // Theorem 2: the abstract model simulates every M(i), i > m.
        for i in 3..=4 {
            let mut gc = Graph::new(super::semantics::concrete::Concrete::new(
                Semantics::new(&model).unwrap(),
                i,
                2,
            ))
            .unwrap();
            assert!(Simulation::new().holds(&mut gc, &mut ga, b).unwrap());
        }
    }
}

#[test]
fn model_errors_are_located() {
    let cases: Vec<(String, &str)> = vec![
        (
            GUARDING.replace("h := clamp(h + Gr, 0, Mh)", "h := h + 9"),
            "",
        ),
        (
            GUARDING.replace("rest_only -> {rest};", "rest_only -> {};"),
            "empty protocol case",
        ),
        (GUARDING.replace("label alive", "label alive2"), ""),
        (
            GUARDING.replace("policy(h / Mh)", "policy(h, h)"),
            "takes 1 input",
        ),
        (
            GUARDING.replace("rest_only, volunteer)", "rest_only)"),
            "names 1 percept",
        ),
        (
            GUARDING.replace(
                "var h : [0..Mh] = 3;",
                "var h : [0..Mh] = 3; var r : real = 0;",
            ),
            "bounds",
        ),
        (GUARDING.replace("= 3;", "= 7;"), "outside the type"),
    ];
    for (text, needle) in cases {
        match model_with(&text, &[("policy", fixture_policy(0.6))]) {
            Ok(m) => {
                // Run-time errors: the update leaving its range.
                if needle.is_empty() && text.contains("h + 9") {
                    let s = parse_sentence("forall v: EX^2 (alive, v)").unwrap();
                    let e = decide(
                        EngineChoice::Explicit,
                        &m,
                        &s,
                        Target::Concrete { agents: 2 },
                    )
                    .unwrap_err();
                    let msg = format!("{e:?}");
                    assert!(msg.contains("leaves the declared range"), "{msg}");
                }
            }
            Err(e) => {
                assert!(e.line > 0 && e.column > 0);
                assert!(
                    e.message.contains(needle),
                    "`{}` lacks `{needle}`",
                    e.message
                );
            }
        }
    }
    // An unknown label in the formula is an input error.
    let m = guarding();
    let s = parse_sentence("forall v: EX (happy, v)").unwrap();
    assert!(decide(
        EngineChoice::Explicit,
        &m,
        &s,
        Target::Concrete { agents: 1 }
    )
    .is_err());
    // An unknown label is refused by the MILP decider of M_ab(m) too.
    let s = parse_sentence("forall v: EX (happy, v)").unwrap();
    assert!(matches!(
        decide(EngineChoice::Milp, &m, &s, Target::Abstract),
        Err(crate::report::RunError::Input(_))
    ));
}

#[test]
fn argmax_ties_make_every_maximal_percept_possible() {
    // Q(rest) = 0.5 = Q(guard) at h = 2: both percepts are possible there.
    let model = model_with(GUARDING, &[("policy", fixture_policy(0.5))]).unwrap();
    let mut sem = Semantics::new(&model).unwrap();
    let env = sem.initial_envs().unwrap()[0];
    let at_h2 = sem.with_percept(&[2], 0);
    let mask = sem.observe(at_h2, env).unwrap();
    assert_eq!(mask, 0b011, "volunteer and rest_only");
    let _ = HashMap::<u8, u8>::new();
}

/// An environment with two initial states and named scalar network outputs.
pub const WITH_ENV: &str = "
net policy = \"unused.onnx\" outputs (q_rest, q_guard);
agent a {
  var h : [0..4] = 3;
  percept : {go, stay} = go;
  actions : {move, wait};
  observe = if q_guard(h / 4) > q_rest(h / 4) | t = 3 then go else stay;
  protocol { go -> {move, wait}; stay -> {wait}; }
  update { move -> h := max(h - 1, 0); wait & env_action = idle -> skip; wait -> h := min(h + 1, 4); }
}
environment {
  var t : [0..3] in {0, 1};
  actions : {tick, idle};
  protocol { t < 3 -> {tick}; t = 3 -> {idle}; }
  update { tick & performed(move) -> t := t + 1; }
}
label low = h <= 1;
";

#[test]
fn environments_and_scalar_outputs() {
    let model = model_with(WITH_ENV, &[("policy", fixture_policy(0.6))]).unwrap();
    let mut sem = Semantics::new(&model).unwrap();
    assert_eq!(sem.initial_envs().unwrap().len(), 2);
    // Two moves in a row from h = 3 need the percept `go` at h = 2, that is t = 3
    // (0.5 < 0.6 otherwise): t counts rounds with a move, so h = 1 comes at step 4, not 3.
    let s = parse_sentence("forall v: EX^4 (low, v)").unwrap();
    assert!(explicit_on(&model, &s, 2).holds);
    let s = parse_sentence("forall v: EX^3 (low, v)").unwrap();
    assert!(!explicit_on(&model, &s, 2).holds);
    let s = parse_sentence("forall v: AX^3 !(low, v)").unwrap();
    assert!(
        decide(EngineChoice::Explicit, &model, &s, Target::Abstract)
            .unwrap()
            .holds
    );
}

/// Two initial environment states: M(1) from e = 0 can mimic M_ab(1) from
/// both, but from e = 1 it fails `EX !(r, v1)`, which M_ab(1) satisfies
/// (there the zero-one agent's a0 resets e). So M(1) must not count as
/// simulating M_ab(1): Corollary 2 would then conclude from M(1) alone.
#[test]
fn simulation_matches_the_initial_states_both_ways() {
    let text = r#"
agent t {
  var x : [0..1] = 0;
  percept : {p0, p1} = p0;
  actions : {a0, a1};
  observe = if x = 1 & e = 0 then p1 else p0;
  protocol { p0 -> {a0, a1}; p1 -> {a0}; }
  update {
    a1 & env_action = tick -> x := 1;
    a1 -> x := 0;
    a0 -> x := 0;
  }
}
environment {
  var e : [0..1] in {0, 1};
  actions : {tick, tock};
  protocol { e = 0 -> {tick, tock}; e = 1 -> {tick}; }
  update { tick & performed(a0) -> e := 1 - e; }
}
label r = percept = p0;
"#;
    let model = model_with(text, &[]).unwrap();
    let s = parse_sentence("forall v1: EX !(r, v1)").unwrap();
    let on = |t| decide(EngineChoice::Explicit, &model, &s, t).unwrap().holds;
    assert!(on(Target::Abstract));
    assert!(!on(Target::Concrete { agents: 1 }));
    assert!(on(Target::Concrete { agents: 2 }));
    let sim = |n| {
        let mut ga = Graph::new(Abstract::new(Semantics::new(&model).unwrap(), 1)).unwrap();
        let mut gc = Graph::new(super::semantics::concrete::Concrete::new(
            Semantics::new(&model).unwrap(),
            n,
            1,
        ))
        .unwrap();
        Simulation::new().holds(&mut ga, &mut gc, 1).unwrap()
    };
    assert!(!sim(1));
    assert!(sim(2));
    // Corollary 2 with the least simulating n = 2: fails at 1, threshold 2.
    let opts = VerifyOptions {
        engine: EngineChoice::Explicit,
        cap: Some(4),
        milp: Default::default(),
    };
    let o = verify(&model, &s, &opts, &RunContext::default()).unwrap();
    assert_eq!(o.simulation.as_ref().and_then(|m| m.n), Some(2));
    assert_eq!(
        (o.holds_for_all_n, o.emergence_threshold),
        (Some(false), Some(2))
    );
}
