//! The exports: the intermediate form of a small swarm, and what each
//! printer makes of it (read back as JSON, or as PRISM text).

use super::jani::{explicit_json, network_json};
use super::lower::{abstraction, concrete, explicit};
use super::prism::network_text;
use super::runs;
use crate::lang::Rat;
use crate::swarm::decide::mdp::{Mdp, StateTable};
use serde_json::{json, Value};

/// A small swarm with an asynchronous and an agent-environment action.
const MODEL: &str = "asynchronous = {a}; agentEnvironment = {d}; globalSynchronous = {};
agent module r
  x : [0..2] init 0;
  [a] x=0 -> 0.5:(x'=1) + 0.5:true;
  [d] x=1 -> (x'=2);
endmodule
environment module e
  c : [0..3] init 0;
  [d] c<3 -> (c'=c+1);
endmodule
label \"two\" = c_E >= 2;";

fn load(text: &str) -> crate::swarm::front::load::Loaded {
    crate::swarm::tests::load(text, None, &[]).unwrap()
}

fn names(j: &Value, key: &str) -> Vec<String> {
    j[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn agents_are_automata_synchronised_with_the_environment() {
    let j = network_json(&concrete(&load(MODEL), &[2]));
    assert_eq!(names(&j, "automata"), ["r_1_1", "r_1_2", "e"]);
    // Agent 2's deposit joins the environment, agent 1 stays out.
    let syncs = j["system"]["syncs"].as_array().unwrap();
    assert_eq!(syncs[1]["synchronise"], json!([null, "d_1_2", "d_1_2"]));
    // The asynchronous edge is silent and carries both halves.
    let e0 = &j["automata"][0]["edges"][0];
    assert!(e0.get("action").is_none());
    assert_eq!(e0["destinations"].as_array().unwrap().len(), 2);
    assert_eq!(
        e0["guard"]["exp"],
        json!({"op": "=", "left": "x_1_1", "right": 0})
    );
    // One environment edge per agent for d, and the label at its location.
    assert_eq!(j["automata"][2]["edges"].as_array().unwrap().len(), 3 * 2);
    assert_eq!(
        j["automata"][2]["locations"][0]["transient-values"][0],
        json!({"ref": "two", "value": {"op": "≥", "left": "c_E", "right": 2}})
    );
    assert!(j.get("restrict-initial").is_none());
}

#[test]
fn the_same_network_in_prism_synchronises_by_name() {
    let text = network_text(&concrete(&load(MODEL), &[2]));
    let want = "mdp

module r_1_1
  x_1_1 : [0..2] init 0;
  [] x_1_1=0 -> 1/2:true + 1/2:(x_1_1'=1);
  [d_1_1] x_1_1=1 -> 1:(x_1_1'=2);
endmodule
";
    assert!(text.contains(want), "{text}");
    assert!(text.contains("  [d_1_2] c_E=0 -> 1:(c_E'=1);\n"), "{text}");
    assert!(text.ends_with("label \"two\" = (c_E >= (2));\n"), "{text}");
}

#[test]
fn the_set_abstraction_is_automata_over_counts() {
    let j = network_json(&abstraction(&load(MODEL), &[0], 1).unwrap());
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
fn the_abstraction_in_prism_has_an_init_block() {
    let text = network_text(&abstraction(&load(MODEL), &[0], 1).unwrap());
    assert!(text.contains("module counts\n  c1_0 : [0..1];\n"), "{text}");
    assert!(
        text.contains("  [] c1_0>=1 -> 1/2:true + 1/2:(c1_0'=c1_0-1)&(c1_1'=min(c1_1+1,1));\n"),
        "{text}"
    );
    assert!(
        text.contains("init\n  c1_0>=1 & c1_1=0 & c1_2=0 & c_E=0\nendinit\n"),
        "{text}"
    );
    // Declarations carry no initial value when the init block says it.
    assert!(text.contains("  c_E : [0..3];\n"), "{text}");
}

#[test]
fn named_agents_are_automata_and_free_their_initial_count() {
    let j = network_json(&abstraction(&load(MODEL), &[1], 2).unwrap());
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
    assert!(abstraction(&load(&text), &[0], 1).is_none());
}

/// Evaluates the state-set expressions the JANI printer writes (=, ≥, ≤, ∧, ∨ over `s`).
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

/// Two states that swap, with probability 1 each: `a` holds in state 1.
fn swap(initial: Vec<u32>) -> Mdp {
    Mdp {
        states: StateTable::new(1),
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
fn state_sets_become_exact_shallow_expressions() {
    let mut rng_state = 12345u64;
    for size in [0usize, 1, 2, 7, 100, 5000] {
        let truth: Vec<bool> = (0..size + 2)
            .map(|s| {
                rng_state = rng_state.wrapping_mul(6364136223846793005).wrapping_add(1);
                s < size && (rng_state >> 33) % 3 == 0
            })
            .collect();
        // Several initial states: the label is an expression over `s`.
        let mdp = swap(vec![1, 0]);
        let labels = vec![("a".to_string(), truth.clone())];
        let j = explicit_json(&explicit(&mdp, &labels, &[], "set".into()));
        let e = &j["automata"][0]["locations"][0]["transient-values"][0]["value"];
        for (s, &t) in truth.iter().enumerate() {
            assert_eq!(eval(e, s), t, "size {size}, s {s}");
        }
        let set: Vec<usize> = (0..truth.len()).filter(|&s| truth[s]).collect();
        let pieces = runs(&set).len();
        assert!(depth(e) <= (pieces as f64).log2().ceil() as usize + 1);
    }
    assert_eq!(runs(&[1, 2, 3, 7, 9, 10]), vec![(1, 3), (7, 7), (9, 10)]);
}

#[test]
fn one_initial_state_makes_locations_of_states() {
    let labels = vec![("a".to_string(), vec![false, true])];
    let j = explicit_json(&explicit(&swap(vec![1]), &labels, &[], "swap".into()));
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
    let m = swap(vec![1, 0]);
    let x = explicit(&m, &labels, &[], "swap".into());
    let j = explicit_json(&x);
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
    let text = super::prism::explicit_text(&x);
    assert!(
        text.contains("module M\n  s : [0..1];\n  [] s=0 -> 1:(s'=1);\n"),
        "{text}"
    );
    assert!(
        text.contains("init s=1 | s=0 endinit\n\nlabel \"a\" = s=1;\n"),
        "{text}"
    );
}

#[test]
fn exact_probabilities_are_quotients() {
    let p = Rat::new(3.into(), 20.into());
    assert_eq!(
        super::jani::exact_number(&p),
        json!({"op": "/", "left": 3, "right": 20})
    );
    assert_eq!(
        super::jani::exact_number(&Rat::from_integer(1.into())),
        json!(1)
    );
}

/// State 0 chooses between going to 1 and staying; state 1 goes back.
fn two_choices() -> Mdp {
    Mdp {
        states: StateTable::new(1),
        initial: vec![0],
        row_start: vec![0, 2, 3],
        choice_label: vec![0, 0, 0],
        choice_start: vec![0, 1, 2, 3],
        targets: vec![1, 0, 0],
        probs: vec![1.0; 3],
        exact: Some(vec![Rat::from_integer(1.into()); 3]),
    }
}

#[test]
fn explicit_exports_write_state_and_action_rewards() {
    let q = |n: i64, d: i64| Rat::new(n.into(), d.into());
    let m = two_choices();
    let vectors = crate::swarm::decide::reward::RewardVectors {
        state: vec![0.0, 1.5],
        action: vec![0.0, 1.0 / 3.0, 0.0],
        exact: Some((vec![q(0, 1), q(3, 2)], vec![q(0, 1), q(1, 3), q(0, 1)])),
    };
    let rewards = vec![("r".to_string(), vectors)];
    let x = explicit(&m, &[], &rewards, "two".into());
    let text = super::prism::explicit_text(&x);
    // The k-th choice of a state is action ck, so an action reward names it.
    assert!(
        text.contains(
            "  [c0] s=0 -> 1:(s'=1);\n  [c1] s=0 -> 1:(s'=0);\n  [c0] s=1 -> 1:(s'=0);\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("rewards \"r\"\n  s=1 : 3/2;\n  [c1] s=0 : 1/3;\nendrewards\n"),
        "{text}"
    );
    let j = explicit_json(&x);
    assert_eq!(
        j["variables"],
        json!([{"name": "r", "type": "real", "transient": true, "initial-value": 0}])
    );
    let a = &j["automata"][0];
    assert_eq!(a["locations"][0]["transient-values"], json!([]));
    assert_eq!(
        a["locations"][1]["transient-values"],
        json!([{"ref": "r", "value": {"op": "/", "left": 3, "right": 2}}])
    );
    assert!(a["edges"][0].get("assignments").is_none());
    assert_eq!(
        a["edges"][1]["assignments"],
        json!([{"ref": "r", "value": {"op": "/", "left": 1, "right": 3}}])
    );
}
