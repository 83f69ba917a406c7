//! Random small finite NIS models and EX/AX sentences for differential tests
//! (the generator of tests/nis_milp.rs, shared here so that more test crates
//! can use it): a random two-layer ReLU network with small integer weights,
//! so exact argmax ties happen; random protocols with state guards; guarded
//! updates with clamp/min/max, `performed` and the environment's action; an
//! environment with two initial states.
#![allow(dead_code)]

use mavis::lang::Source;
use mavis::nis::{parse_model, LoadOptions, Model};
use mavis::nn::{Activation, Layer, Network};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use std::path::Path;

#[derive(Clone, Debug)]
pub struct Spec {
    /// x ranges over 0..=top.
    pub top: u8,
    pub x0: u8,
    /// x at which the percept is p2 regardless of the network.
    pub forced: u8,
    /// Action masks (1..=7 over a0, a1, a2) enabled by p0, p1, p2 and by `x >= guard_x`.
    pub prot: [u8; 4],
    pub guard_x: u8,
    pub steps: [i8; 3],
    pub reset: u8,
    /// The environment's protocol when e = 1 (mask over tick, tock).
    pub env_mask: u8,
    /// Hidden 2x2 weights and biases, output 2x2 weights and biases.
    pub weights: [i8; 12],
    pub label_x: u8,
}

/// A template on which every network output ties (drawn by random seed
/// 616091909 of tests/nis_milp_abstract.rs): the zero-one agent's states
/// hold up to 12 local states with 3 actions each, so one abstract state
/// has millions of zero-one moves.
pub fn wide_zero_one_spec() -> Spec {
    Spec {
        top: 3,
        x0: 3,
        forced: 0,
        prot: [7, 7, 5, 7],
        guard_x: 1,
        steps: [2, 2, 1],
        reset: 1,
        env_mask: 1,
        weights: [-2, -1, -2, 1, 1, 2, 0, 2, -2, 2, 1, 1],
        label_x: 2,
    }
}

pub fn spec_strategy() -> impl Strategy<Value = Spec> {
    (1u8..=3)
        .prop_flat_map(|top| {
            (
                Just(top),
                0..=top,
                0..=top + 1,
                [1u8..=7, 1u8..=7, 1u8..=7, 1u8..=7],
                0..=top,
                [-2i8..=2, -2i8..=2, 1i8..=2],
                0..=top,
                1u8..=3,
                proptest::array::uniform12(-2i8..=2),
                0..=top,
            )
        })
        .prop_map(
            |(top, x0, forced, prot, guard_x, steps, reset, env_mask, weights, label_x)| Spec {
                top,
                x0,
                forced,
                prot,
                guard_x,
                steps,
                reset,
                env_mask,
                weights,
                label_x,
            },
        )
}

fn names(mask: u8, all: &[&str]) -> String {
    all.iter()
        .enumerate()
        .filter(|(i, _)| mask >> i & 1 == 1)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn text(s: &Spec) -> String {
    let acts = ["a0", "a1", "a2"];
    let a = |i: usize| names(s.prot[i], &acts);
    let t = s.top;
    format!(
        "net f = \"none.onnx\";
agent t {{
  var x : [0..{t}] = {x0};
  percept : {{p0, p1, p2}} = p0;
  actions : {{a0, a1, a2}};
  observe = if x = {forced} then p2 else argmax(f(x, e), p0, p1);
  protocol {{ p0 -> {{{p0}}}; p1 -> {{{p1}}}; p2 -> {{{p2}}}; x >= {gx} -> {{{px}}}; }}
  update {{
    a0 & performed(a1) -> x := clamp(x + {d0}, 0, {t});
    a0 -> x := clamp(x + {d1}, 0, {t});
    a1 & env_action = tick -> x := min(x + 1, {t});
    a1 -> x := {reset};
    a2 & percept != p1 -> x := max(x - {d2}, 0);
  }}
}}
environment {{
  var e : [0..1] in {{0, 1}};
  actions : {{tick, tock}};
  protocol {{ e = 0 -> {{tick, tock}}; e = 1 -> {{{em}}}; }}
  update {{ tick & performed(a0) -> e := 1 - e; tock & performed(a2) -> e := 0; }}
}}
label q = x >= {lx};
label r = percept = p0;
",
        x0 = s.x0,
        forced = s.forced,
        p0 = a(0),
        p1 = a(1),
        p2 = a(2),
        gx = s.guard_x,
        px = a(3),
        d0 = s.steps[0],
        d1 = s.steps[1],
        d2 = s.steps[2],
        reset = s.reset,
        em = names(s.env_mask, &["tick", "tock"]),
        lx = s.label_x,
    )
}

fn network(s: &Spec) -> Network {
    let w = |i: usize| f64::from(s.weights[i]);
    Network::from_layers(vec![
        Layer {
            weights: Array2::from_shape_vec((2, 2), vec![w(0), w(1), w(2), w(3)]).unwrap(),
            bias: Array1::from(vec![w(4), w(5)]),
            activation: Activation::Relu,
        },
        Layer {
            weights: Array2::from_shape_vec((2, 2), vec![w(6), w(7), w(8), w(9)]).unwrap(),
            bias: Array1::from(vec![w(10), w(11)]),
            activation: Activation::Identity,
        },
    ])
    .unwrap()
}

pub fn model(s: &Spec) -> Model {
    let opts = LoadOptions {
        in_memory: [("f".to_string(), network(s))].into_iter().collect(),
        ..Default::default()
    };
    parse_model(&Source::new("random.nis", text(s)), Path::new("."), &opts)
        .expect("generated models are valid")
}

/// A formula body of temporal depth <= `depth` from the entropy bytes.
fn body(bytes: &[u8], pos: &mut usize, depth: u32, m: usize, q: &str) -> String {
    fn next(bytes: &[u8], pos: &mut usize) -> u8 {
        let b = bytes[*pos % bytes.len()];
        *pos += 1;
        b
    }
    let choice = next(bytes, pos) % 4;
    if depth == 0 || choice == 0 || *pos > 24 {
        let label = if next(bytes, pos) % 2 == 0 { "q" } else { "r" };
        let agent = 1 + next(bytes, pos) as usize % m;
        let neg = if next(bytes, pos) % 3 == 0 { "!" } else { "" };
        return format!("{neg}({label}, v{agent})");
    }
    match choice {
        1 | 2 => {
            let op = if choice == 1 { "&" } else { "|" };
            let l = body(bytes, pos, depth, m, q);
            let r = body(bytes, pos, depth, m, q);
            format!("({l} {op} {r})")
        }
        _ => {
            let j = 1 + u32::from(bytes[*pos % bytes.len()]) % depth;
            *pos += 1;
            let sub = body(bytes, pos, depth - j, m, q);
            format!("{q}^{j} {sub}")
        }
    }
}

pub fn sentence(bytes: &[u8], m: usize, q: &str) -> String {
    let vars: Vec<String> = (1..=m).map(|i| format!("v{i}")).collect();
    let mut pos = 0;
    // Start with a path quantifier so the sentence has depth >= 1.
    let sub = body(bytes, &mut pos, 1, m, q);
    format!("forall {}: {q} {sub}", vars.join(", "))
}

/// The model of `s` with its first percept observed (`= observe`): the
/// network's argmax at the initial state, every tied percept a start.
pub fn model_observed(s: &Spec) -> Model {
    let text = text_observed(s);
    let opts = LoadOptions {
        in_memory: [("f".to_string(), network(s))].into_iter().collect(),
        ..Default::default()
    };
    parse_model(
        &Source::new("random.nis", text.clone()),
        Path::new("."),
        &opts,
    )
    .unwrap_or_else(|e| panic!("generated model is valid: {e:?}\n{text}"))
}

/// The text of [`model_observed`].
pub fn text_observed(s: &Spec) -> String {
    text(s).replace("{p0, p1, p2} = p0;", "{p0, p1, p2} = observe;")
}
