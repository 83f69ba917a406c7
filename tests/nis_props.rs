//! Property tests of the NIS engine on random small finite templates:
//! the counter representation against a brute-force ordered search, the
//! soundness of the zero-one abstraction (Theorem 2 and Corollary 1's
//! direction), and a parser that never panics.

use mavis::lang::Source;
use mavis::nis::engine::{decide, state_counts, EngineChoice, Target};
use mavis::nis::explicit::checker::Graph;
use mavis::nis::explicit::simulation::Simulation;
use mavis::nis::semantics::abstraction::Abstract;
use mavis::nis::semantics::concrete::Concrete;
use mavis::nis::semantics::{bits, LocalId, Semantics};
use mavis::nis::{parse_model, parse_sentence, LoadOptions, Model};
use mavis::nn::{Activation, Layer, Network};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use std::collections::HashSet;
use std::path::Path;

/// A random template: x in 0..k, percepts p0/p1 by argmax of a random affine
/// network (ties possible), random protocols and a random transition table
/// over (x, own action, whether the other action was performed).
#[derive(Clone, Debug)]
struct Spec {
    k: usize,
    prot: [u8; 2],
    table: Vec<usize>,
    weights: [i8; 4],
    label_x: u8,
    /// The first percept by observation (`percept = observe`), ties included.
    observed: bool,
    /// The environment label `e` holds from round `env_from` on.
    env_from: u8,
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    (2usize..=3)
        .prop_flat_map(|k| {
            (
                Just(k),
                [1u8..=3, 1u8..=3],
                proptest::collection::vec(0..k, k * 4),
                [-2i8..=2, -2i8..=2, -2i8..=2, -2i8..=2],
                1u8..(1 << k),
                any::<bool>(),
                0u8..=3,
            )
        })
        .prop_map(
            |(k, prot, table, weights, label_x, observed, env_from)| Spec {
                k,
                prot,
                table,
                weights,
                label_x,
                observed,
                env_from,
            },
        )
}

fn text(s: &Spec) -> String {
    let acts = |mask: u8| {
        let names: Vec<&str> = [(1, "a0"), (2, "a1")]
            .iter()
            .filter(|(b, _)| mask & b != 0)
            .map(|(_, n)| *n)
            .collect();
        names.join(", ")
    };
    let mut update = String::new();
    for x in 0..s.k {
        for a in 0..2 {
            for other in 0..2 {
                let target = s.table[(x * 2 + a) * 2 + other];
                let perf = if other == 1 { "" } else { "!" };
                update.push_str(&format!(
                    "    a{a} & x = {x} & {perf}performed(a{}) -> x := {target};\n",
                    1 - a
                ));
            }
        }
    }
    let xs: Vec<String> = (0..s.k)
        .filter(|x| s.label_x >> x & 1 == 1)
        .map(|x| format!("x = {x}"))
        .collect();
    format!(
        "net f = \"none.onnx\";
agent t {{
  var x : [0..{}] = 0;
  percept : {{p0, p1}} = {};
  actions : {{a0, a1}};
  observe = argmax(f(x), p0, p1);
  protocol {{ p0 -> {{{}}}; p1 -> {{{}}}; }}
  update {{
{update}  }}
}}
environment {{
  var c : [0..3] = 0;
  update {{ true -> c := min(c + 1, 3); }}
}}
label q = {};
label r = percept = p0;
label e = c >= {};
",
        s.k - 1,
        if s.observed {
            {
                "observe"
            }
        } else {
            {
                "p0"
            }
        },
        acts(s.prot[0]),
        acts(s.prot[1]),
        xs.join(" | "),
        s.env_from
    )
}

fn network(s: &Spec) -> Network {
    let w = Array2::from_shape_vec(
        (2, 1),
        vec![f64::from(s.weights[0]), f64::from(s.weights[1])],
    )
    .unwrap();
    let b = Array1::from(vec![f64::from(s.weights[2]), f64::from(s.weights[3])]);
    Network::from_layers(vec![Layer {
        weights: w,
        bias: b,
        activation: Activation::Identity,
    }])
    .unwrap()
}

fn model(s: &Spec) -> Model {
    let opts = LoadOptions {
        in_memory: [("f".to_string(), network(s))].into_iter().collect(),
        ..Default::default()
    };
    parse_model(&Source::new("random.nis", text(s)), Path::new("."), &opts)
        .expect("generated models are valid")
}

/// Brute force on ordered tuples of local states: the layers of M(n).
fn ordered_layers(model: &Model, n: usize, depth: usize) -> Vec<HashSet<Vec<LocalId>>> {
    let mut sem = Semantics::new(model).unwrap();
    let first = initial_tuples(model, &mut sem, n);
    layers_from(&mut sem, first, depth)
}

/// The initial states of M(n) as ordered tuples.
fn initial_tuples(model: &Model, sem: &mut Semantics, n: usize) -> HashSet<Vec<LocalId>> {
    let env = sem.initial_envs().unwrap()[0];
    // Every agent at one of the initial local states, independently: p0,
    // or with `= observe` each percept the network gives at x = 0.
    let p0 = sem.with_percept(&[0], 0);
    let starts: Vec<LocalId> = if model.template.init_percept.given().is_some() {
        vec![p0]
    } else {
        bits(sem.observe(p0, env).unwrap())
            .map(|p| sem.with_percept(&[0], p))
            .collect()
    };
    let mut first = HashSet::from([Vec::new()]);
    for _ in 0..n {
        first = first
            .into_iter()
            .flat_map(|v: Vec<LocalId>| {
                starts.iter().map(move |&l| {
                    let mut w = v.clone();
                    w.push(l);
                    w
                })
            })
            .collect();
    }
    first
}

/// The layers reachable from `first` in exactly j rounds, j = 0..=depth.
fn layers_from(
    sem: &mut Semantics,
    first: HashSet<Vec<LocalId>>,
    depth: usize,
) -> Vec<HashSet<Vec<LocalId>>> {
    let env = sem.initial_envs().unwrap()[0];
    let mut layers = vec![first];
    for _ in 0..depth {
        let mut next = HashSet::new();
        for s in layers.last().unwrap().clone() {
            let options: Vec<Vec<usize>> = s
                .iter()
                .map(|&l| bits(sem.protocol(l).unwrap()).collect())
                .collect();
            let mut joint: Vec<Vec<usize>> = vec![Vec::new()];
            for o in &options {
                joint = joint
                    .into_iter()
                    .flat_map(|j| o.iter().map(move |&a| [j.clone(), vec![a]].concat()))
                    .collect();
            }
            for acts in joint {
                let performed = acts.iter().fold(0u64, |p, &a| p | 1 << a);
                let env2 = sem.env_transition(env, 0, performed).unwrap();
                let mut succ: Vec<Vec<LocalId>> = vec![Vec::new()];
                for (i, &l) in s.iter().enumerate() {
                    let prv = sem.transition(l, acts[i], performed, 0).unwrap();
                    let inter = sem.with_percept(&prv, sem.percept_of(l));
                    let ps: Vec<LocalId> = bits(sem.observe(inter, env2).unwrap())
                        .map(|p| sem.with_percept(&prv, p))
                        .collect();
                    succ = succ
                        .into_iter()
                        .flat_map(|v| ps.iter().map(move |&t| [v.clone(), vec![t]].concat()))
                        .collect();
                }
                next.extend(succ);
            }
        }
        layers.push(next);
    }
    layers
}

/// Some state of the layer has label q for agent 1.
fn ex_q(sem: &mut Semantics, layer: &HashSet<Vec<LocalId>>) -> bool {
    layer.iter().any(|t| sem.labels(t[0]).unwrap() & 1 == 1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn counter_representation_matches_brute_force(s in spec_strategy(), n in 1usize..=4) {
        let model = model(&s);
        let depth = 3;
        let oracle = ordered_layers(&model, n, depth);
        let m = n.min(2);
        let counts = state_counts(&model, n, m, depth as u32).unwrap();
        let mut sem = Semantics::new(&model).unwrap();
        for j in 0..=depth {
            prop_assert_eq!(counts[j].1, oracle[j].len() as u128);
        }
        // EX^k (q, 1) & (r, m) and AX^k on the brute force layers, from every
        // initial state (a sentence holds when it holds at each of them).
        let starts: Vec<Vec<HashSet<Vec<LocalId>>>> = oracle[0]
            .iter()
            .map(|t| layers_from(&mut sem, HashSet::from([t.clone()]), depth))
            .collect();
        for k in 1..=depth {
            let lab = |sem: &mut Semantics, t: &Vec<LocalId>, label: usize, i: usize| sem.labels(t[i]).unwrap() >> label & 1 == 1;
            let mut ex = true;
            let mut ax = true;
            let mut exq = true;
            for layers in &starts {
                let layer = &layers[k];
                ex &= layer.iter().any(|t| lab(&mut sem, t, 0, 0) && lab(&mut sem, t, 1, m - 1));
                ax &= layer.iter().all(|t| lab(&mut sem, t, 0, 0) || !lab(&mut sem, t, 1, m - 1));
                exq &= ex_q(&mut sem, layer);
            }
            let (v1, v2) = if m == 1 { ("v1", "v1") } else { ("v1", "v2") };
            let vars = if m == 1 { "v1" } else { "v1, v2" };
            let fx = parse_sentence(&format!("forall {vars}: EX^{k} (q, {v1}) & (r, {v2})")).unwrap();
            let fa = parse_sentence(&format!("forall {vars}: AX^{k} (q, {v1}) | !(r, {v2})")).unwrap();
            prop_assert_eq!(decide(EngineChoice::Explicit, &model, &fx, Target::Concrete { agents: n }).unwrap().holds, ex);
            prop_assert_eq!(decide(EngineChoice::Explicit, &model, &fa, Target::Concrete { agents: n }).unwrap().holds, ax);
            // The environment label: c = min(k, 3) after k rounds.
            let e = (k.min(3) as u8) >= s.env_from;
            let fe = parse_sentence(&format!("forall {vars}: EX^{k} (q, {v1}) & e")).unwrap();
            prop_assert_eq!(decide(EngineChoice::Explicit, &model, &fe, Target::Concrete { agents: n }).unwrap().holds, exq && e);
            if k == depth {
                // The MILP decider agrees (M(n) with m indexed agents).
                // It refuses an existential sentence whose initial states it
                // would otherwise choose: an observed first percept with a tie.
                let tie = s.observed && oracle[0].len() > 1;
                for f in [&fx, &fa, &fe] {
                    let explicit = decide(EngineChoice::Explicit, &model, f, Target::Concrete { agents: n }).unwrap().holds;
                    match decide(EngineChoice::Milp, &model, f, Target::Concrete { agents: n }) {
                        Ok(milp) => prop_assert_eq!(milp.holds, explicit),
                        Err(e) => prop_assert!(tie && !f.to_string().contains("AX"), "{:?}", e),
                    }
                }
            }
        }
    }

    #[test]
    fn the_abstraction_simulates_every_larger_system(s in spec_strategy(), m in 1usize..=2, extra in 1usize..=3, b in 1u32..=3) {
        let model = model(&s);
        let n = m + extra;
        let mut ga = Graph::new(Abstract::new(Semantics::new(&model).unwrap(), m)).unwrap();
        let mut gc = Graph::new(Concrete::new(Semantics::new(&model).unwrap(), n, m)).unwrap();
        // Theorem 2: M(n) <=_b M_ab(m).
        prop_assert!(Simulation::new().holds(&mut gc, &mut ga, b).unwrap());
        // Theorem 1 on it: a universal property of M_ab(m) holds in M(n).
        let vars = if m == 1 { "v1" } else { "v1, v2" };
        let v2 = if m == 1 { "v1" } else { "v2" };
        for body in [format!("AX^{b} (q, v1)"), format!("AX^{b} (q, v1) | (r, {v2})"), format!("AX (r, v1) | AX^{b} !(q, {v2})")] {
            let f = parse_sentence(&format!("forall {vars}: {body}")).unwrap();
            let abs = decide(EngineChoice::Explicit, &model, &f, Target::Abstract).unwrap();
            let con = decide(EngineChoice::Explicit, &model, &f, Target::Concrete { agents: n }).unwrap();
            prop_assert!(!abs.holds || con.holds, "{} holds on M_ab({}) but not on M({})", body, m, n);
        }
    }

    #[test]
    fn the_model_parser_never_panics(text in "\\PC{0,200}") {
        let _ = parse_model(&Source::new("fuzz.nis", text), Path::new("."), &LoadOptions::default());
    }

    #[test]
    fn mutated_models_never_panic(s in spec_strategy(), cuts in proptest::collection::vec((0usize..2000, 0usize..6, "[{}();:=&|!<>a-z0-9.^ ]{0,3}"), 1..4)) {
        let mut t = text(&s);
        for (at, len, insert) in cuts {
            let at = at % (t.len() + 1);
            let end = (at + len).min(t.len());
            if t.is_char_boundary(at) && t.is_char_boundary(end) {
                t.replace_range(at..end, &insert);
            }
        }
        let opts = LoadOptions { in_memory: [("f".to_string(), network(&s))].into_iter().collect(), ..Default::default() };
        if let Ok(m) = parse_model(&Source::new("mutated.nis", t), Path::new("."), &opts) {
            // A model that parses must also run without panicking (errors are fine).
            if let Ok(f) = parse_sentence("forall v1: EX^2 (q, v1)") {
                let _ = decide(EngineChoice::Explicit, &m, &f, Target::Concrete { agents: 2 });
                let _ = decide(EngineChoice::Explicit, &m, &f, Target::Abstract);
            }
        }
    }

    #[test]
    fn the_formula_parser_never_panics(text in "[()a-zA-Z0-9,:^!&|{} ]{0,60}") {
        if let Ok(s) = parse_sentence(&text) {
            // Printing and reparsing gives the same formula.
            let again = parse_sentence(&s.to_string()).unwrap();
            prop_assert_eq!(again.to_string(), s.to_string());
        }
    }
}
