//! The counting abstraction (threshold t; t = 1 is the set abstraction) in
//! JANI as a network of automata, the JANI twin of
//! [`super::prism_abstract`]: the agents the labels name are automata as in
//! S(n) ([`super::jani_modular`]), the environment is its automaton, and
//! automaton `counts` has an edge per counted move over global variables
//! `c{i}_{s}` in `[0..t]` ("t" meaning t or more), each command of a local
//! state twice: "others stay" (guard `c = t`) and "it was the last" / a
//! plain move (guard `c >= 1`). The initial counts 1..t of the initial
//! local state are left open by the variable and fixed by `restrict-initial`.
//!
//! Nothing is explored: the file has a few dozen edges, where the flat
//! export of [`super::jani`] has one per choice of the explored abstraction
//! (688,128 for the seed's set abstraction), which a JANI builder reads
//! edge by edge. Models with global-synchronous actions keep the flat form.

use super::jani::{
    agent_automaton, agent_elements, agent_labels, automaton, concrete_agents, declare,
    environment, head, write_open, LOC,
};
use super::jani_explicit::exact_probability;
use super::prism::action_label;
use crate::swarm::front::syntax::ActionType;
use crate::swarm::semantics::local::Dist;
use crate::swarm::Loaded;
use serde_json::{json, Value as Json};
use std::io::Write;

/// The name of the automaton of counts.
const COUNTS: &str = "counts";

/// The count variable of template `i`'s local state `s`.
fn count(i: usize, s: usize) -> String {
    format!("c{}_{s}", i + 1)
}

fn binary(op: &str, a: Json, b: Json) -> Json {
    json!({"op": op, "left": a, "right": b})
}

/// The destinations of a counted move from `s`: `leave` takes one agent out
/// of `s` first; each target gains one, up to `t`.
fn destinations(i: usize, s: usize, d: &Dist, leave: bool, t: u32) -> Json {
    let gain = |x: usize| {
        let plus_one = binary("+", json!(count(i, x)), json!(1));
        json!({"ref": count(i, x), "value": binary("min", plus_one, json!(t))})
    };
    let dests: Vec<Json> = (0..d.targets.len())
        .map(|k| {
            let x = d.targets[k] as usize;
            let assigns = match (leave, x == s) {
                // Out of s and back in: no change.
                (true, true) => vec![],
                (true, false) => vec![
                    json!({"ref": count(i, s), "value": binary("-", json!(count(i, s)), json!(1))}),
                    gain(x),
                ],
                (false, _) => vec![gain(x)],
            };
            json!({"location": LOC, "probability": {"exp": exact_probability(&d.exact[k])},
                   "assignments": assigns})
        })
        .collect();
    json!(dests)
}

/// The edges of the counts automaton for template `i`; agent-environment
/// labels are added to `ae_labels[action]`, owned by element `owner`.
fn counted_edges(
    l: &Loaded,
    i: usize,
    t: u32,
    owner: usize,
    ae_labels: &mut [Vec<(usize, String)>],
    out: &mut Vec<Json>,
) {
    let (m, sp) = (&l.model, &l.sys.agents[i]);
    for (s, moves) in sp.moves.iter().enumerate() {
        for (k, mv) in moves.iter().enumerate() {
            let d = &sp.dists[mv.dist as usize];
            // "Others stay" exists only at the saturated count.
            for (variant, op, bound) in [("stay", "=", t), ("last", "≥", 1)] {
                let guard = binary(op, json!(count(i, s)), json!(bound));
                let mut edge = json!({"location": LOC, "guard": {"exp": guard},
                    "destinations": destinations(i, s, d, variant == "last", t)});
                match m.actions[mv.action].ty {
                    ActionType::Asynchronous => {}
                    ActionType::AgentEnvironment => {
                        let suffix = format!("_c{}_{s}_{k}_{variant}", i + 1);
                        let label = action_label(m, mv.action, &suffix);
                        edge["action"] = json!(label);
                        ae_labels[mv.action].push((owner, label));
                    }
                    ActionType::GlobalSynchronous => unreachable!("checked by the caller"),
                }
                out.push(edge);
            }
        }
    }
}

/// The count variables, and the initial condition on them: 1..t agents in
/// the initial local state 0 (0..t beside concrete agents), none elsewhere.
fn count_variables(l: &Loaded, named: &[usize], t: u32, vars: &mut Vec<Json>) -> Json {
    let mut initial = Vec::new();
    for (i, sp) in l.sys.agents.iter().enumerate() {
        for s in 0..sp.states.len() {
            let ty = json!({"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": t});
            let mut var = json!({"name": count(i, s), "type": ty});
            if s > 0 {
                var["initial-value"] = json!(0);
            } else if named[i] == 0 {
                initial.push(binary("≥", json!(count(i, s)), json!(1)));
            }
            vars.push(var);
        }
    }
    initial
        .into_iter()
        .reduce(|a, b| binary("∧", a, b))
        .unwrap_or(json!(true))
}

/// Writes the abstraction with the agents `named` concrete (per template) at
/// threshold `t` to `w`, one automaton at a time; `Ok(false)` (nothing
/// written) when the model has global-synchronous actions.
pub fn write_jani_abstract(
    l: &Loaded,
    named: &[usize],
    t: u32,
    w: &mut dyn Write,
) -> std::io::Result<bool> {
    let m = &l.model;
    if !crate::swarm::verbs::check::cutoff_applies(l) {
        return Ok(false);
    }
    let agents = concrete_agents(named);
    let mut ae_labels = agent_labels(m, &agents);
    let mut vars = Vec::new();
    for (i, suffix) in &agents {
        declare(&m.templates[*i], suffix, &mut vars);
    }
    let initial = count_variables(l, named, t, &mut vars);
    declare(&m.env, "_E", &mut vars);
    let mut counted = Vec::new();
    for i in 0..named.len() {
        counted_edges(l, i, t, agents.len(), &mut ae_labels, &mut counted);
    }
    let mut elements = agent_elements(m, &agents);
    elements.extend([COUNTS.to_string(), m.env.name.clone()]);
    let what = format!("the abstraction (threshold {t}) of {}", l.source.name());
    let mut head = head(m, &what, vars, &elements, &ae_labels);
    head["restrict-initial"] = json!({"exp": initial});
    write_open(w, &head)?;
    for (i, suffix) in &agents {
        serde_json::to_writer(&mut *w, &agent_automaton(l, *i, suffix))?;
        w.write_all(b",")?;
    }
    serde_json::to_writer(&mut *w, &automaton(COUNTS, counted, vec![]))?;
    w.write_all(b",")?;
    serde_json::to_writer(&mut *w, &environment(l, &ae_labels))?;
    w.write_all(b"]}\n").map(|()| true)
}

/// [`write_jani_abstract`] into a JSON value (tests); `None` with
/// global-synchronous actions.
pub fn jani_abstract(l: &Loaded, named: &[usize], t: u32) -> Option<Json> {
    let mut out = Vec::new();
    match write_jani_abstract(l, named, t, &mut out) {
        Ok(true) => Some(serde_json::from_slice(&out).expect("the writer emits JSON")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::swarm::export::jani::tests::MODEL;

    fn names(j: &Json, key: &str) -> Vec<String> {
        j[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn the_set_abstraction_is_automata_over_counts() {
        let l = crate::swarm::tests::load(MODEL, None, &[]).unwrap();
        let j = jani_abstract(&l, &[0], 1).unwrap();
        assert_eq!(names(&j, "automata"), ["counts", "e"]);
        assert_eq!(
            names(&j, "variables"),
            ["c1_0", "c1_1", "c1_2", "c_E", "two"]
        );
        // One or more agents start in local state 0 (x = 0), none elsewhere.
        assert!(j["variables"][0].get("initial-value").is_none());
        assert_eq!(j["variables"][1]["initial-value"], json!(0));
        assert_eq!(
            j["restrict-initial"]["exp"],
            json!({"op": "≥", "left": "c1_0", "right": 1})
        );
        // x=0 and x=1 have one command each, written twice (stay, last).
        let counts = &j["automata"][0]["edges"];
        assert_eq!(counts.as_array().unwrap().len(), 4);
        assert_eq!(
            counts[0]["guard"]["exp"],
            json!({"op": "=", "left": "c1_0", "right": 1})
        );
        // The last agent stays at x=0 with 1/2, or leaves it for x=1.
        assert_eq!(counts[1]["destinations"][0]["assignments"], json!([]));
        let min = json!({"op": "min", "left": {"op": "+", "left": "c1_1", "right": 1}, "right": 1});
        assert_eq!(
            counts[1]["destinations"][1]["assignments"],
            json!([{"ref": "c1_0", "value": {"op": "-", "left": "c1_0", "right": 1}},
                   {"ref": "c1_1", "value": min}])
        );
        assert_eq!(
            counts[1]["destinations"][1]["probability"]["exp"],
            json!({"op": "/", "left": 1, "right": 2})
        );
        // Each abstract deposit joins the environment.
        assert_eq!(counts[2]["action"], "d_c1_1_0_stay");
        let syncs = j["system"]["syncs"].as_array().unwrap();
        assert_eq!(syncs.len(), 2);
        assert_eq!(
            syncs[1]["synchronise"],
            json!(["d_c1_1_0_last", "d_c1_1_0_last"])
        );
        // The environment's deposit, once per abstract move, in each of its
        // three states below 3.
        assert_eq!(j["automata"][1]["edges"].as_array().unwrap().len(), 6);
    }

    #[test]
    fn named_agents_are_automata_and_free_their_initial_count() {
        let l = crate::swarm::tests::load(MODEL, None, &[]).unwrap();
        let j = jani_abstract(&l, &[1], 2).unwrap();
        assert_eq!(names(&j, "automata"), ["r_1_1", "counts", "e"]);
        assert_eq!(j["restrict-initial"]["exp"], json!(true));
        let syncs = j["system"]["syncs"].as_array().unwrap();
        assert_eq!(syncs[0]["synchronise"], json!(["d_1_1", null, "d_1_1"]));
        assert_eq!(
            syncs[1]["synchronise"],
            json!([null, "d_c1_1_0_stay", "d_c1_1_0_stay"])
        );
        assert_eq!(
            j["variables"][1]["type"],
            json!({"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": 2})
        );
    }

    #[test]
    fn global_synchronous_models_are_not_written_as_counts() {
        let text = MODEL
            .replace("globalSynchronous = {}", "globalSynchronous = {g}")
            .replace("endmodule", "  [g] true -> true;\nendmodule");
        let l = crate::swarm::tests::load(&text, None, &[]).unwrap();
        let mut out = Vec::new();
        assert!(!write_jani_abstract(&l, &[0], 1, &mut out).unwrap());
        assert!(out.is_empty());
    }
}
