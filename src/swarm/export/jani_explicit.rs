//! Export of an explored MDP to JANI (JSON), the exchange format that Storm
//! and the Modest toolset read.
//!
//! The model is flat: one automaton whose locations are the states, one edge
//! per choice, one destination per entry. Labels become transient Boolean
//! variables set at the locations where they hold (Storm turns transient
//! Booleans into labels). Several initial states need a state variable
//! instead (see [`jani_explicit`]); there a label's truth set is written as a
//! balanced disjunction of index intervals, shallow even for millions of
//! states, and the initial states as a `restrict-initial` expression.

use crate::lang::{num, Rat};
use crate::swarm::decide::mdp::Mdp;
use serde_json::{json, Value};
use std::io::Write;

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
pub fn runs(states: &[usize]) -> Vec<(usize, usize)> {
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
pub(super) fn exact_probability(p: &Rat) -> Value {
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

/// Any explored MDP as a one-automaton JANI model (read back from the
/// streamed text of [`write_jani`]; for tests and small models).
pub fn jani_explicit(mdp: &Mdp, labels: &[(String, Vec<bool>)], comment: &str) -> Value {
    let mut text = Vec::new();
    write_jani(mdp, labels, comment, &mut text).expect("writing to memory");
    serde_json::from_slice(&text).expect("the writer emits JSON")
}

/// Writes any explored MDP as a one-automaton JANI model to `w`, piece by
/// piece (memory stays that of the MDP, whatever its size); `labels` pairs a
/// label's name with its truth in every state.
///
/// With one initial state every state is a location (`s0`, `s1`, ...): a
/// JANI model builder then looks only at the edges of the current location,
/// so building takes time linear in the transitions. JANI allows one initial
/// location only, so several initial states use one location and the state
/// index `s` (guards `s = i`, which a builder tests edge by edge).
pub fn write_jani(
    mdp: &Mdp,
    labels: &[(String, Vec<bool>)],
    comment: &str,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let by_location = mdp.initial.len() == 1;
    let mut variables: Vec<Value> = labels
        .iter()
        .map(|(name, _)| json!({"name": name, "type": "bool", "initial-value": false, "transient": true}))
        .collect();
    if !by_location {
        variables.insert(0, state_variable(mdp.num_states()));
    }
    let mut head = json!({
        "jani-version": 1,
        "name": "mavis",
        "metadata": {"description": comment, "author": format!("mavis {}", env!("CARGO_PKG_VERSION"))},
        "type": "mdp",
        "features": [],
        "actions": [],
        "constants": [],
        "variables": variables,
        "properties": [],
        "system": {"elements": [{"automaton": "M"}]},
    });
    if !by_location {
        let mut init: Vec<usize> = mdp.initial.iter().map(|&i| i as usize).collect();
        init.sort_unstable();
        init.dedup();
        head["restrict-initial"] = json!({"exp": states_expression(&init)});
    }
    let head = serde_json::to_string(&head)?;
    // The head without its closing brace; the automaton follows.
    w.write_all(&head.as_bytes()[..head.len() - 1])?;
    w.write_all(b",\"automata\":[")?;
    if by_location {
        write_by_location(mdp, labels, w)?;
    } else {
        write_by_variable(mdp, labels, w)?;
    }
    w.write_all(b"]}\n")
}

/// `s`, without an initial value: `restrict-initial` picks the initial states.
fn state_variable(n: usize) -> Value {
    json!({
        "name": "s",
        "type": {"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": n.saturating_sub(1)},
    })
}

fn location_name(s: usize) -> String {
    format!("s{s}")
}

/// Writes `items` as the elements of a JSON array (without the brackets).
fn write_items(w: &mut dyn Write, items: impl Iterator<Item = Value>) -> std::io::Result<()> {
    for (i, item) in items.enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, &item)?;
    }
    Ok(())
}

/// Every choice of the MDP as (source state, choice index).
fn all_choices(mdp: &Mdp) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..mdp.num_states()).flat_map(move |s| mdp.choices(s).map(move |c| (s, c)))
}

fn write_by_location(
    mdp: &Mdp,
    labels: &[(String, Vec<bool>)],
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let initial = json!([location_name(mdp.initial[0] as usize)]);
    write!(
        w,
        "{{\"name\":\"M\",\"initial-locations\":{initial},\"locations\":["
    )?;
    write_items(
        w,
        (0..mdp.num_states()).map(|s| {
            let values: Vec<Value> = labels
                .iter()
                .filter(|(_, truth)| truth[s])
                .map(|(name, _)| json!({"ref": name, "value": true}))
                .collect();
            json!({"name": location_name(s), "transient-values": values})
        }),
    )?;
    w.write_all(b"],\"edges\":[")?;
    write_items(
        w,
        all_choices(mdp).map(|(s, c)| {
            let destinations: Vec<Value> = mdp
                .entries(c)
                .map(|e| {
                    json!({
                        "location": location_name(mdp.targets[e] as usize),
                        "probability": {"exp": probability(mdp, e)},
                    })
                })
                .collect();
            json!({"location": location_name(s), "destinations": destinations})
        }),
    )?;
    w.write_all(b"]}")
}

fn write_by_variable(
    mdp: &Mdp,
    labels: &[(String, Vec<bool>)],
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let n = mdp.num_states();
    let transient_values: Vec<Value> = labels
        .iter()
        .map(|(name, truth)| {
            let states: Vec<usize> = (0..n).filter(|&s| truth[s]).collect();
            json!({"ref": name, "value": states_expression(&states)})
        })
        .collect();
    let locations = json!([{"name": "l", "transient-values": transient_values}]);
    write!(
        w,
        "{{\"name\":\"M\",\"initial-locations\":[\"l\"],\"locations\":{locations},\"edges\":["
    )?;
    write_items(
        w,
        all_choices(mdp).map(|(s, c)| {
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
            json!({
                "location": "l",
                "guard": {"exp": {"op": "=", "left": "s", "right": s}},
                "destinations": destinations,
            })
        }),
    )?;
    w.write_all(b"]}")
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

    /// Two states that swap, with probability 1 each: `a` holds in state 1.
    fn swap(initial: Vec<u32>) -> Mdp {
        Mdp {
            states: crate::swarm::decide::mdp::StateTable::new(1),
            initial,
            row_start: vec![0, 1, 2],
            choice_label: vec![0, 0],
            choice_start: vec![0, 1, 2],
            targets: vec![1, 0],
            probs: vec![1.0, 1.0],
            exact: Some(vec![Rat::from_integer(1.into()); 2]),
        }
    }

    #[test]
    fn one_initial_state_makes_locations_of_states() {
        let labels = vec![("a".to_string(), vec![false, true])];
        let j = jani_explicit(&swap(vec![1]), &labels, "swap");
        let a = &j["automata"][0];
        assert_eq!(a["initial-locations"], json!(["s1"]));
        assert_eq!(
            a["locations"][1]["transient-values"],
            json!([{"ref": "a", "value": true}])
        );
        assert_eq!(a["locations"][0]["transient-values"], json!([]));
        assert_eq!(
            a["edges"][0],
            json!({"location": "s0", "destinations": [{"location": "s1", "probability": {"exp": 1}}]})
        );
        assert!(j.get("restrict-initial").is_none());
        assert_eq!(
            j["variables"],
            json!([{"name": "a", "type": "bool", "initial-value": false, "transient": true}])
        );
    }

    #[test]
    fn several_initial_states_use_a_state_variable() {
        let labels = vec![("a".to_string(), vec![false, true])];
        let j = jani_explicit(&swap(vec![1, 0]), &labels, "swap");
        assert_eq!(j["variables"][0]["name"], "s");
        assert!(j["variables"][0].get("initial-value").is_none());
        let init = &j["restrict-initial"]["exp"];
        assert!(eval(init, 0) && eval(init, 1));
        let a = &j["automata"][0];
        assert_eq!(a["locations"].as_array().unwrap().len(), 1);
        let label = &a["locations"][0]["transient-values"][0]["value"];
        assert!(!eval(label, 0) && eval(label, 1));
        assert_eq!(
            a["edges"][1]["destinations"][0]["assignments"],
            json!([{"ref": "s", "value": 0}])
        );
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
