//! Export of an explored MDP to JANI (JSON), the exchange format that Storm
//! and the Modest toolset read.
//!
//! The model is flat: one automaton with one location and a bounded integer
//! `s` (the state index), one edge per choice guarded by `s = i`, one
//! destination per entry that assigns `s`. Labels become transient Boolean
//! variables whose value is set at the location by an expression over `s`
//! (Storm turns transient Booleans into labels). The truth set of a label is
//! written as a balanced disjunction of index intervals, so the expression
//! stays shallow even for millions of states. Several initial states become a
//! `restrict-initial` expression.

use super::mdp::Mdp;
use crate::lang::{num, Rat};
use serde_json::{json, Value};

/// `lo <= s <= hi` as a JANI expression.
fn interval(lo: usize, hi: usize) -> Value {
    if lo == hi {
        json!({"op": "=", "left": "s", "right": lo})
    } else {
        json!({"op": "∧",
               "left": {"op": "≥", "left": "s", "right": lo},
               "right": {"op": "≤", "left": "s", "right": hi}})
    }
}

/// Maximal runs of consecutive indices in `states` (sorted, distinct).
fn runs(states: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &s in states {
        match out.last_mut() {
            Some((_, hi)) if *hi + 1 == s => *hi = s,
            _ => out.push((s, s)),
        }
    }
    out
}

/// A balanced disjunction (depth log n) of `parts`; `false` when empty.
fn disjunction(parts: &[(usize, usize)]) -> Value {
    match parts.len() {
        0 => json!(false),
        1 => interval(parts[0].0, parts[0].1),
        n => json!({"op": "∨",
                    "left": disjunction(&parts[..n / 2]),
                    "right": disjunction(&parts[n / 2..])}),
    }
}

/// The set of state indices where a predicate holds, as an expression over `s`.
pub fn states_expression(states: &[usize]) -> Value {
    disjunction(&runs(states))
}

/// An exact probability as a JANI number or quotient (a decimal when the
/// fraction does not fit 64-bit integers).
fn exact_probability(p: &Rat) -> Value {
    use num_traits::ToPrimitive;
    match (p.numer().to_i64(), p.denom().to_i64()) {
        (Some(n), Some(1)) => json!(n),
        (Some(n), Some(d)) => json!({"op": "/", "left": n, "right": d}),
        _ => json!(num::to_f64(p)),
    }
}

fn probability(mdp: &Mdp, e: usize) -> Value {
    match &mdp.exact {
        Some(x) => exact_probability(&x[e]),
        None => json!(mdp.probs[e]),
    }
}

/// Any explored MDP as a one-automaton JANI model; `labels` pairs a label's
/// name with its truth in every state.
pub fn jani_explicit(mdp: &Mdp, labels: &[(String, Vec<bool>)], comment: &str) -> Value {
    let n = mdp.num_states();
    let mut variables = vec![json!({
        "name": "s",
        "type": {"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": n.saturating_sub(1)},
        "initial-value": mdp.initial.first().copied().unwrap_or(0),
    })];
    let mut transient_values = Vec::new();
    for (name, truth) in labels {
        variables
            .push(json!({"name": name, "type": "bool", "initial-value": false, "transient": true}));
        let states: Vec<usize> = (0..n).filter(|&s| truth[s]).collect();
        transient_values.push(json!({"ref": name, "value": states_expression(&states)}));
    }
    let mut edges = Vec::new();
    for s in 0..n {
        for c in mdp.choices(s) {
            let destinations: Vec<Value> = mdp
                .entries(c)
                .map(|e| {
                    json!({
                        "location": "l",
                        "probability": {"exp": probability(mdp, e)},
                        "assignments": [{"ref": "s", "value": mdp.targets[e]}],
                    })
                })
                .collect();
            edges.push(json!({
                "location": "l",
                "guard": {"exp": {"op": "=", "left": "s", "right": s}},
                "destinations": destinations,
            }));
        }
    }
    let mut model = json!({
        "jani-version": 1,
        "name": "mavis",
        "metadata": {"description": comment, "author": format!("mavis {}", env!("CARGO_PKG_VERSION"))},
        "type": "mdp",
        "features": [],
        "actions": [],
        "constants": [],
        "variables": variables,
        "properties": [],
        "automata": [{
            "name": "M",
            "locations": [{"name": "l", "transient-values": transient_values}],
            "initial-locations": ["l"],
            "edges": edges,
        }],
        "system": {"elements": [{"automaton": "M"}]},
    });
    if mdp.initial.len() > 1 {
        let mut init: Vec<usize> = mdp.initial.iter().map(|&i| i as usize).collect();
        init.sort_unstable();
        init.dedup();
        // Without an initial value, `restrict-initial` alone picks the initial states.
        model["variables"][0]
            .as_object_mut()
            .map(|v| v.remove("initial-value"));
        model["restrict-initial"] = json!({"exp": states_expression(&init)});
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates the label expressions this module writes (=, ≥, ≤, ∧, ∨ over `s`).
    fn eval(e: &Value, s: usize) -> bool {
        let num = |v: &Value| -> usize {
            if v == "s" {
                s
            } else {
                v.as_u64().unwrap() as usize
            }
        };
        if let Some(b) = e.as_bool() {
            return b;
        }
        let (l, r) = (&e["left"], &e["right"]);
        match e["op"].as_str().unwrap() {
            "=" => num(l) == num(r),
            "≥" => num(l) >= num(r),
            "≤" => num(l) <= num(r),
            "∧" => eval(l, s) && eval(r, s),
            "∨" => eval(l, s) || eval(r, s),
            op => panic!("unexpected operator {op}"),
        }
    }

    fn depth(e: &Value) -> usize {
        match e.get("op").and_then(Value::as_str) {
            Some("∨") => 1 + depth(&e["left"]).max(depth(&e["right"])),
            _ => 0,
        }
    }

    #[test]
    fn state_sets_become_exact_shallow_expressions() {
        let mut rng_state = 12345u64;
        for size in [0usize, 1, 2, 7, 100, 5000] {
            let set: Vec<usize> = (0..size)
                .filter(|_| {
                    rng_state = rng_state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    (rng_state >> 33) % 3 == 0
                })
                .collect();
            let e = states_expression(&set);
            for s in 0..size + 2 {
                assert_eq!(eval(&e, s), set.contains(&s), "size {size}, s {s}");
            }
            let pieces = runs(&set).len();
            assert!(depth(&e) <= (pieces as f64).log2().ceil() as usize + 1);
        }
        assert_eq!(runs(&[1, 2, 3, 7, 9, 10]), vec![(1, 3), (7, 7), (9, 10)]);
    }

    #[test]
    fn exact_probabilities_are_quotients() {
        let p = Rat::new(3.into(), 20.into());
        assert_eq!(
            exact_probability(&p),
            json!({"op": "/", "left": 3, "right": 20})
        );
        assert_eq!(exact_probability(&Rat::from_integer(1.into())), json!(1));
    }
}
