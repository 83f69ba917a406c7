//! Agents with roles (`named agent`): a random model with one named agent
//! (`chief`) next to the parameterised template, against the same system
//! written by hand without named agents (the chief's state and percept as
//! environment variables, its actions folded into the environment's). The
//! explicit decider must give both the same verdict on M(n) and M_ab(m), and
//! the witnesses it prints are replayed (inside `decide`) through the named
//! agents' semantics; `verify` (Corollaries 1 and 2) likewise. A model with
//! named agents only is checked as M(0); the CLI refuses what it cannot do
//! with exit 2.

#[path = "support/cli.rs"]
mod cli;

use cli::{json, run};
use mavis::lang::Source;
use mavis::nis::engine::{decide, EngineChoice, Target};
use mavis::nis::procedures::{verify_using, Procedure, VerifyOptions};
use mavis::nis::{parse_model, parse_sentence, LoadOptions, Model};
use mavis::report::RunContext;
use proptest::prelude::*;
use std::path::Path;

/// The random constants of one model: initial values, thresholds, the
/// update tables' targets and the chief's protocol when alert.
#[derive(Clone, Debug)]
struct Spec {
    x0: u8,
    s0: u8,
    t1: u8,
    t2: u8,
    /// The chief's actions when alert: 1 go, 2 wait, 3 both.
    alert: u8,
    /// Targets: worker's b & performed(a); chief's go & performed(a), go, wait; env's XA, XB, XC.
    to: [u8; 7],
    worker: bool,
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    (
        (0u8..=2, 0u8..=2, 1u8..=4, 1u8..=4, 1u8..=3),
        [
            0u8..=2,
            0u8..=2,
            0u8..=2,
            0u8..=2,
            0u8..=2,
            0u8..=2,
            0u8..=2,
        ],
        any::<bool>(),
    )
        .prop_map(|((x0, s0, t1, t2, alert), to, worker)| Spec {
            x0,
            s0,
            t1,
            t2,
            alert,
            to,
            worker,
        })
}

fn worker(s: &Spec) -> String {
    if !s.worker {
        return String::new();
    }
    format!(
        "agent worker {{
  var h : [0..2] = 0;
  percept : {{up, down}} = up;
  actions : {{a, b}};
  observe = if h + x >= {t1} then up else down;
  protocol {{ up -> {{a, b}}; down -> {{b}}; }}
  update {{ a -> h := min(h + 1, 2); b & performed(a) -> h := {hb}; }}
}}
label hi = h >= 1;
label sees_up = percept = up;
",
        t1 = s.t1,
        hb = s.to[0]
    )
}

fn alert_actions(s: &Spec, names: [&str; 2]) -> String {
    let mut out = Vec::new();
    for (bit, name) in [1u8, 2].iter().zip(names) {
        if s.alert & bit != 0 {
            out.push(name);
        }
    }
    out.join(", ")
}

/// The model with the named agent `chief`.
fn named_text(s: &Spec) -> String {
    let [_, g1, g2, w, xa, xb, xc] = s.to;
    format!(
        "{worker}named agent chief {{
  var s : [0..2] = {s0};
  percept : {{calm, alert}} = calm;
  actions : {{go, wait}};
  observe = if s + x >= {t2} then alert else calm;
  protocol {{ calm -> {{go, wait}}; alert -> {{{alert}}}; }}
  update {{ {go_a}go -> s := {g2}; wait -> s := {w}; }}
}}
environment {{
  var x : [0..2] = {x0};
  actions : {{e0, e1}};
  update {{
    e0 & chief.action = go -> x := {xa};
    e1 & chief.percept = alert -> x := {xb};
    {e1_b}
  }}
}}
label tense = chief.s >= 1 | x = 2;
label alarmed = chief.percept = alert;
",
        worker = worker(s),
        // `performed(a)`, `performed(b)`: the worker's actions, when there is a worker.
        go_a = if s.worker {
            format!("go & performed(a) -> s := {g1}; ")
        } else {
            String::new()
        },
        e1_b = if s.worker {
            format!("e1 & performed(b) -> x := {xc};")
        } else {
            String::new()
        },
        s0 = s.s0,
        t2 = s.t2,
        alert = alert_actions(s, ["go", "wait"]),
        x0 = s.x0,
    )
}

/// The same system without named agents: `s` and `cp` are environment
/// variables, the environment's actions are the pairs (own, chief's), and
/// one update case per pair and performed set computes x', s' and the
/// chief's new percept from them.
fn folded_text(s: &Spec) -> String {
    let [_, g1, g2, w, xa, xb, xc] = s.to;
    let mut cases = String::new();
    for (e, c) in [("e0", "go"), ("e0", "wait"), ("e1", "go"), ("e1", "wait")] {
        for perf_a in [true, false] {
            for perf_b in [true, false] {
                // `performed(a)` only exists when the worker does.
                if !s.worker && (perf_a || perf_b) {
                    continue;
                }
                let s_next = match (c, perf_a) {
                    ("go", true) => g1,
                    ("go", false) => g2,
                    _ => w,
                };
                let x_next = match (e, c) {
                    ("e0", "go") => format!("{xa}"),
                    ("e0", _) => "x".to_string(),
                    _ => {
                        let otherwise = if perf_b { format!("{xc}") } else { "x".into() };
                        format!("(if cp = alert then {xb} else {otherwise})")
                    }
                };
                let mut guard = format!("{e}_{c}");
                if s.worker {
                    let bang = |p: bool| if p { "" } else { "!" };
                    guard += &format!(
                        " & {}performed(a) & {}performed(b)",
                        bang(perf_a),
                        bang(perf_b)
                    );
                }
                cases += &format!(
                    "    {guard} -> x := {x_next}, s := {s_next}, cp := if {s_next} + {x_next} >= {t2} then alert else calm;\n",
                    t2 = s.t2
                );
            }
        }
    }
    let placeholder = if s.worker {
        String::new()
    } else {
        // A parameterised template checked at n = 0: it never acts.
        "agent idle { percept : {p} = p; actions : {noop}; observe = p; protocol { true -> {noop}; } }\n"
            .to_string()
    };
    format!(
        "{worker}{placeholder}environment {{
  var x : [0..2] = {x0};
  var s : [0..2] = {s0};
  var cp : {{calm, alert}} = calm;
  actions : {{e0_go, e0_wait, e1_go, e1_wait}};
  protocol {{ cp = calm -> {{e0_go, e0_wait, e1_go, e1_wait}}; cp = alert -> {{{alert}}}; }}
  update {{
{cases}  }}
}}
label tense = s >= 1 | x = 2;
label alarmed = cp = alert;
",
        worker = worker(s),
        x0 = s.x0,
        s0 = s.s0,
        alert = alert_actions(s, ["e0_go, e1_go", "e0_wait, e1_wait"]),
    )
}

fn load(text: &str) -> Model {
    parse_model(
        &Source::new("roles.nis", text.to_string()),
        Path::new("."),
        &LoadOptions::default(),
    )
    .unwrap_or_else(|e| panic!("generated model is valid: {e:?}\n{text}"))
}

/// The sentences compared: environment labels alone, and with the worker.
fn sentences(worker: bool, k: u32) -> Vec<String> {
    let mut out = vec![
        format!("EX^{k} tense"),
        format!("AX^{k} tense"),
        format!("EX^{k} !tense"),
        format!("A(!tense U^{k} tense)"),
        format!("EX^{k} alarmed & !tense"),
        format!("AX^{k} !alarmed | tense"),
        format!("EX (alarmed | EX^{k} !alarmed)"),
    ];
    if worker {
        out.push(format!("forall v1: EX^{k} (hi, v1) & tense"));
        out.push(format!("forall v1: AX^{k} (hi, v1) | !tense"));
        out.push(format!(
            "forall v1, v2: EX^{k} (hi, v1) & !(hi, v2) & tense"
        ));
        out.push(format!("forall v1: EX^{k} (sees_up, v1) & alarmed"));
        out.push(format!("forall v1: AX^{k} !(sees_up, v1) | !alarmed"));
    }
    out
}

fn verdict(model: &Model, spec: &str, target: Target) -> bool {
    let sentence = parse_sentence(spec).expect("valid sentence");
    decide(EngineChoice::Explicit, model, &sentence, target)
        .unwrap_or_else(|e| panic!("{spec} on {target:?}: {e:?}"))
        .holds
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn named_agents_decide_like_the_folded_environment(s in spec_strategy(), k in 1u32..=3) {
        let (named, folded) = (load(&named_text(&s)), load(&folded_text(&s)));
        for spec in sentences(s.worker, k) {
            let m = parse_sentence(&spec).unwrap().agents();
            let mut targets: Vec<Target> = Vec::new();
            if s.worker {
                targets.extend((m.max(1)..=3).map(|agents| Target::Concrete { agents }));
                if m > 0 {
                    targets.push(Target::Abstract);
                }
            } else {
                targets.push(Target::Concrete { agents: 0 });
            }
            for target in targets {
                let (a, b) = (verdict(&named, &spec, target), verdict(&folded, &spec, target));
                prop_assert_eq!(a, b, "{} on {:?}\n{}\n{}", spec, target, named_text(&s), folded_text(&s));
            }
        }
    }
}

proptest! {
    // The explicit simulation search dominates the time of a case.
    #![proptest_config(ProptestConfig {
        cases: 12,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Corollaries 1 and 2 with a named agent on the environment's side:
    /// `verify` by either procedure gives what it gives on the folded model
    /// (the same system without named agents), and the two procedures agree.
    #[test]
    fn verify_with_a_named_agent_is_verify_of_the_folded_model(s in spec_strategy(), k in 1u32..=2) {
        let s = Spec { worker: true, ..s };
        let (named, folded) = (load(&named_text(&s)), load(&folded_text(&s)));
        let ctx = RunContext::default();
        let opts = VerifyOptions { engine: EngineChoice::Explicit, cap: Some(4), milp: Default::default() };
        for spec in [
            format!("forall v1: EX^{k} (hi, v1) & alarmed"),
            format!("forall v1: AX^{k} (hi, v1) | tense"),
        ] {
            let f = parse_sentence(&spec).unwrap();
            let outcome = |model: &Model, p: Procedure| {
                let o = verify_using(model, &f, &opts, Some(p), &ctx)
                    .unwrap_or_else(|e| panic!("{spec} by {p:?}: {e:?}"));
                (o.abstract_holds, o.holds_for_all_n, o.emergence_threshold)
            };
            let search = outcome(&named, Procedure::Search);
            prop_assert_eq!(search, outcome(&folded, Procedure::Search), "{}\n{}", spec, named_text(&s));
            let bound = outcome(&named, Procedure::Bound);
            prop_assert_eq!(bound, outcome(&folded, Procedure::Bound), "{}\n{}", spec, named_text(&s));
            if search.1.is_some() && bound.1.is_some() {
                prop_assert_eq!(search, bound, "{}", spec);
            }
        }
    }
}

/// A hand-computed case: two named agents push a shared counter; `far`
/// (pos >= 2) is reachable in one step only if both push.
const PAIR: &str = "named agent left, right {
  var s : [0..2] = 0;
  percept : {lo, hi} = lo;
  actions : {stay, push};
  observe = if s + pos >= 2 then hi else lo;
  protocol { lo -> {stay, push}; hi -> {stay}; }
  update { push -> s := min(s + 1, 2); }
}
environment {
  var pos : [0..4] = 0;
  actions : {tick};
  update { tick -> pos := min(pos + (if left.action = push then 1 else 0) + (if right.action = push then 1 else 0), 4); }
}
label far = pos >= 2;
label both_hi = left.percept = hi & right.percept = hi;
";

#[test]
fn two_named_agents_by_hand() {
    let model = load(PAIR);
    let m0 = Target::Concrete { agents: 0 };
    // Both push: pos = 2 after one step.
    assert!(verdict(&model, "EX far", m0));
    // Both may stay.
    assert!(!verdict(&model, "AX^3 far", m0));
    // After both pushed, s = 1 and pos = 2: both see hi, and may only stay.
    assert!(verdict(&model, "EX^1 both_hi", m0));
    assert!(verdict(&model, "AX (!both_hi | AX far)", m0));
    // Percepts are observed after the update, at the new pos: whenever pos
    // reaches 2 within two steps both see hi (one pushing alone sees hi
    // first, so only the other can push next, and then both see 3).
    assert!(!verdict(&model, "EX^2 far & !both_hi", m0));
    assert!(verdict(&model, "AX^2 !far | both_hi", m0));
}

fn pair_file() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pair.nis");
    std::fs::write(&path, PAIR).unwrap();
    let p = path.display().to_string();
    (dir, p)
}

#[test]
fn a_model_of_named_agents_is_checked_without_agents() {
    let (_dir, path) = pair_file();
    let r = run(&["nis", "check", &path, "--spec", "EX far"]).expect_code(0);
    // The verdict on M(0), and a witness with the named agents' states and actions.
    let lines = [
        "HOLDS: M(0) |= phi[0] = EX far",
        "tick, left.push, right.push",
    ];
    for needle in lines {
        assert!(r.stdout.contains(needle), "{needle}: {}", r.stdout);
    }
    let (v, code) = json(&["nis", "check", &path, "--spec", "EX far"]);
    assert_eq!(code, 0);
    assert_eq!(v["results"]["system"], "M(0)");
    let steps = &v["witness"]["branches"][0];
    assert_eq!(steps[0]["env_action"], "tick, left.push, right.push");
    assert_eq!(steps[0]["named"]["left"]["action"], "push");
    assert_eq!(steps[1]["env"]["pos"], 2);
    assert_eq!(steps[1]["named"]["right"]["private"]["s"], 1);
    assert_eq!(steps[1]["named"]["right"]["percept"], "hi");
}

#[test]
fn what_a_model_of_named_agents_cannot_do_is_refused() {
    let (_dir, path) = pair_file();
    // (The MILP decider takes this model: tests/nis_roles_milp.rs.)
    let cases: [&[&str]; 4] = [
        &["nis", "check", &path, "--spec", "EX far", "--agents", "2"],
        &["nis", "check", &path, "--spec", "EX far", "--abstract"],
        &["nis", "check", &path, "--spec", "forall v1: EX far"],
        &["nis", "verify", &path, "--spec", "EX far"],
    ];
    for args in cases {
        let r = run(args).expect_code(2);
        let said = &r.stderr;
        assert!(
            said.contains("no parameterised `agent` template"),
            "{args:?}: {said}"
        );
    }
}

#[test]
fn named_agent_mistakes_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.nis");
    let bad = [
        // The environment reads a variable the named agent does not have.
        (PAIR.replace("pos >= 2;", "left.q >= 2;"), "left.q"),
        // Two named agents with one name.
        (
            PAIR.replace("left, right", "left, left"),
            "already declared",
        ),
        // `named` without `agent`.
        (
            PAIR.replace("named agent", "named"),
            "`agent` after `named`",
        ),
    ];
    for (text, needle) in bad {
        std::fs::write(&path, &text).unwrap();
        let p = path.display().to_string();
        let r = run(&["nis", "check", &p, "--spec", "EX far"]).expect_code(2);
        assert!(r.stderr.contains(needle), "{needle}: {}", r.stderr);
        assert!(r.stderr.contains("bad.nis:"), "located: {}", r.stderr);
    }
}

/// A template next to a named agent, for the abstraction's trace.
const HYBRID: &str = "agent worker {
  var h : [0..2] = 0;
  percept : {up, down} = up;
  actions : {a, b};
  observe = if h + x >= 2 then up else down;
  protocol { up -> {a, b}; down -> {b}; }
  update { a -> h := min(h + 1, 2); b & performed(a) -> h := 0; }
}
named agent chief {
  var s : [0..2] = 0;
  percept : {calm, alert} = calm;
  actions : {go, wait};
  observe = if s + x >= 3 then alert else calm;
  protocol { calm -> {go, wait}; alert -> {wait}; }
  update { go & performed(a) -> s := 2; go -> s := 1; wait -> s := 0; }
}
environment {
  var x : [0..2] = 0;
  actions : {e0, e1};
  update { e0 & chief.action = go -> x := 2; e1 & chief.percept = alert -> x := 0; }
}
label hi = h >= 1;
label alarmed = chief.percept = alert;
";

#[test]
fn the_abstract_trace_shows_the_named_agents_in_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hybrid.nis");
    std::fs::write(&path, HYBRID).unwrap();
    let p = path.display().to_string();
    let spec = "forall v1: EX^2 (hi, v1) & alarmed";
    let r = run(&["nis", "check", &p, "--abstract", "--spec", spec]).expect_code(0);
    // By hand: the chief goes twice; after the second round x = 2 and s = 1,
    // so it sees s + x = 3 and is alert.
    assert!(r.stdout.contains("x=2 | chief: s=1 alert"), "{}", r.stdout);
    let (v, code) = json(&["nis", "check", &p, "--abstract", "--spec", spec]);
    assert_eq!(code, 0);
    let steps = &v["witness"]["branches"][0];
    assert_eq!(steps[1]["env_action"], "e0, chief.go");
    assert_eq!(steps[2]["env"], "x=2 | chief: s=1 alert");
}
