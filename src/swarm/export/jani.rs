//! Export of the concrete system S(n) to JANI as a network of automata, the
//! JANI twin of [`super::prism::prism_concrete`]: one automaton per agent
//! and one for the environment, each with one location; the variables are
//! global (`v_i_j`, `v_E`); an edge per local state and enabled command with
//! its guard (the local state) and its distribution (faults multiplied in).
//! Asynchronous edges are silent; agent-environment action `a` of agent
//! (i, j) is the action `a_i_j`, synchronised with the environment's first
//! enabled command; a global-synchronous action synchronises everyone.
//! Labels are transient Booleans set at the environment's location.
//!
//! Nothing is explored: the text has a few edges per agent, so S(7) (316 M
//! states) is written in milliseconds, and a JANI builder reads a few dozen
//! edges where the flat export of [`super::jani`] had one per choice (Storm
//! spends most of its time per edge: about 20 s for the 8,232 states of
//! S(3) flat, on the 2-core VM shared with other builds, 2026-12-03).

use super::prism::action_label;
use crate::lang::types::Builtin;
use crate::lang::{BinOp, TExpr, TKind, UnOp, Value};
use crate::swarm::front::model::{GlobalVar, Model, Template, LABEL_BASE};
use crate::swarm::front::syntax::ActionType;
use crate::swarm::semantics::local::{Dist, LocalSpace};
use crate::swarm::Loaded;
use serde_json::{json, Value as Json};
use std::io::Write;

/// The most agents a JANI export takes: each agent-environment action of
/// each agent is a synchronisation vector with an entry per automaton, so
/// the file grows with the square of the agents (1,000 agents: a million
/// entries per such action).
pub const JANI_MAX_AGENTS: usize = 1_000;

/// The one location of every automaton.
pub(super) const LOC: &str = "l";

fn var_name(t: &Template, v: usize, suffix: &str) -> String {
    format!("{}{suffix}", t.vars[v].name)
}

fn value_json(t: &Template, v: usize, x: i64) -> Json {
    if t.vars[v].is_bool {
        json!(x != 0)
    } else {
        json!(x)
    }
}

/// The template's (not projected) variables as global JANI variables.
pub(super) fn declare(t: &Template, suffix: &str, out: &mut Vec<Json>) {
    for (v, info) in t.vars.iter().enumerate() {
        if t.is_projected(v) {
            continue;
        }
        let ty = if info.is_bool {
            json!("bool")
        } else {
            json!({"kind": "bounded", "base": "int", "lower-bound": info.lo, "upper-bound": info.hi})
        };
        out.push(json!({"name": var_name(t, v, suffix), "type": ty, "initial-value": value_json(t, v, info.init)}));
    }
}

/// A conjunction of JANI expressions (`true` when empty).
fn and_all(parts: Vec<Json>) -> Json {
    parts
        .into_iter()
        .reduce(|a, b| json!({"op": "∧", "left": a, "right": b}))
        .unwrap_or(json!(true))
}

/// The local state `s` as a guard over the agent's variables.
fn guard(t: &Template, s: &[i64], suffix: &str) -> Json {
    let parts = (0..t.vars.len())
        .filter(|&v| !t.is_projected(v))
        .map(|v| {
            let n = json!(var_name(t, v, suffix));
            match (t.vars[v].is_bool, s[v] != 0) {
                (true, true) => n,
                (true, false) => json!({"op": "¬", "exp": n}),
                (false, _) => json!({"op": "=", "left": n, "right": s[v]}),
            }
        })
        .collect();
    and_all(parts)
}

/// The destinations of a distribution from local state `s`.
fn destinations(t: &Template, sp: &LocalSpace, s: &[i64], d: &Dist, suffix: &str) -> Json {
    let dests: Vec<Json> = (0..d.targets.len())
        .map(|i| {
            let n = &sp.states[d.targets[i] as usize];
            let assigns: Vec<Json> = (0..t.vars.len())
                .filter(|&v| n[v] != s[v] && !t.is_projected(v))
                .map(|v| json!({"ref": var_name(t, v, suffix), "value": value_json(t, v, n[v])}))
                .collect();
            let p = super::jani_explicit::exact_probability(&d.exact[i]);
            json!({"location": LOC, "probability": {"exp": p}, "assignments": assigns})
        })
        .collect();
    json!(dests)
}

/// One edge per local state and enabled command; a global-synchronous or
/// agent-environment action only with its first enabled command (`env`).
fn edges(
    m: &Model,
    t: &Template,
    sp: &LocalSpace,
    suffix: &str,
    env: bool,
    mut push: impl FnMut(usize, Json),
) {
    for (s, moves) in sp.moves.iter().enumerate() {
        let st = &sp.states[s];
        for (k, mv) in moves.iter().enumerate() {
            let ty = m.actions[mv.action].ty;
            let first_only =
                ty == ActionType::GlobalSynchronous || (env && ty != ActionType::Asynchronous);
            if first_only && moves[..k].iter().any(|x| x.action == mv.action) {
                continue;
            }
            let d = &sp.dists[mv.dist as usize];
            let edge = json!({"location": LOC, "guard": {"exp": guard(t, st, suffix)},
                              "destinations": destinations(t, sp, st, d, suffix)});
            push(mv.action, edge);
        }
    }
}

/// An automaton from its edges.
pub(super) fn automaton(name: &str, edges: Vec<Json>, transient: Vec<Json>) -> Json {
    json!({"name": name, "locations": [{"name": LOC, "transient-values": transient}],
           "initial-locations": [LOC], "edges": edges})
}

/// Writes S(counts) as a JANI network to `w`, one automaton at a time.
pub fn write_jani_concrete(l: &Loaded, counts: &[usize], w: &mut dyn Write) -> std::io::Result<()> {
    let m = &l.model;
    let agents = concrete_agents(counts);
    let ae_labels = agent_labels(m, &agents);
    let mut vars = Vec::new();
    for (i, suffix) in &agents {
        declare(&m.templates[*i], suffix, &mut vars);
    }
    declare(&m.env, "_E", &mut vars);
    let mut elements = agent_elements(m, &agents);
    elements.push(m.env.name.clone());
    let what = format!(
        "S({}) of {}",
        counts
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        l.source.name()
    );
    let head = head(m, &what, vars, &elements, &ae_labels);
    write_open(w, &head)?;
    for (n, (i, suffix)) in agents.iter().enumerate() {
        if n > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, &agent_automaton(l, *i, suffix))?;
    }
    if !agents.is_empty() {
        w.write_all(b",")?;
    }
    serde_json::to_writer(&mut *w, &environment(l, &ae_labels))?;
    w.write_all(b"]}\n")
}

/// The model's head: its variables (the labels' transient Booleans added),
/// the automata `elements` (the environment last) and their synchronisation.
pub(super) fn head(
    m: &Model,
    what: &str,
    mut vars: Vec<Json>,
    elements: &[String],
    ae_labels: &[Vec<(usize, String)>],
) -> Json {
    for (name, _) in &m.labels {
        vars.push(json!({"name": name, "type": "bool", "transient": true, "initial-value": false}));
    }
    let (actions, syncs) = sync_vectors(m, elements.len(), ae_labels);
    let elements: Vec<Json> = elements.iter().map(|e| json!({"automaton": e})).collect();
    json!({"jani-version": 1, "name": "mavis", "type": "mdp", "features": [],
        "metadata": {"author": format!("mavis {}", env!("CARGO_PKG_VERSION")), "description": what},
        "actions": actions, "constants": [], "variables": vars, "properties": [],
        "system": {"elements": elements, "syncs": syncs}})
}

/// Writes the head without its closing brace and opens the automata, which
/// are then streamed one by one (closed by `]}`).
pub(super) fn write_open(w: &mut dyn Write, head: &Json) -> std::io::Result<()> {
    let head = serde_json::to_string(head)?;
    w.write_all(&head.as_bytes()[..head.len() - 1])?;
    w.write_all(b",\"automata\":[")
}

/// The automaton of agent `suffix` of template `i`.
pub(super) fn agent_automaton(l: &Loaded, i: usize, suffix: &str) -> Json {
    let (m, t) = (&l.model, &l.model.templates[i]);
    let mut es = Vec::new();
    edges(m, t, &l.sys.agents[i], suffix, false, |a, mut e| {
        let label = action_label(m, a, suffix);
        if !label.is_empty() {
            e["action"] = json!(label);
        }
        es.push(e);
    });
    automaton(&format!("{}{suffix}", t.name), es, vec![])
}

/// The environment's edges: its asynchronous edges, and the first enabled
/// command of every other action, once per label of `ae_labels[action]` for
/// an agent-environment action (each label one agent, or one abstract move).
fn environment_edges(l: &Loaded, ae_labels: &[Vec<(usize, String)>]) -> Vec<Json> {
    let m = &l.model;
    let mut es = Vec::new();
    edges(m, &m.env, &l.sys.env, "_E", true, |a, e| {
        match m.actions[a].ty {
            ActionType::Asynchronous => es.push(e),
            ActionType::GlobalSynchronous => {
                let mut e = e;
                e["action"] = json!(m.actions[a].name);
                es.push(e);
            }
            ActionType::AgentEnvironment => {
                for (_, label) in &ae_labels[a] {
                    let mut e = e.clone();
                    e["action"] = json!(label);
                    es.push(e);
                }
            }
        }
    });
    es
}

/// The concrete agents, `counts[i]` of template `i`, each with its suffix
/// `_{i+1}_{j+1}`.
pub(super) fn concrete_agents(counts: &[usize]) -> Vec<(usize, String)> {
    (0..counts.len())
        .flat_map(|i| (0..counts[i]).map(move |j| (i, format!("_{}_{}", i + 1, j + 1))))
        .collect()
}

/// The automata names of the concrete `agents`, in their order.
pub(super) fn agent_elements(m: &Model, agents: &[(usize, String)]) -> Vec<String> {
    agents
        .iter()
        .map(|(i, s)| format!("{}{s}", m.templates[*i].name))
        .collect()
}

/// The agent-environment labels of the concrete agents, per action, each
/// with the index of its agent's automaton.
pub(super) fn agent_labels(m: &Model, agents: &[(usize, String)]) -> Vec<Vec<(usize, String)>> {
    (0..m.actions.len())
        .map(|a| match m.actions[a].ty {
            ActionType::AgentEnvironment => agents
                .iter()
                .enumerate()
                .map(|(k, (_, suffix))| (k, action_label(m, a, suffix)))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The environment's automaton, the labels set at its location.
pub(super) fn environment(l: &Loaded, ae_labels: &[Vec<(usize, String)>]) -> Json {
    let m = &l.model;
    let labels: Vec<Json> = m
        .labels
        .iter()
        .map(|(name, e)| json!({"ref": name, "value": expr(m, e)}))
        .collect();
    automaton(&m.env.name, environment_edges(l, ae_labels), labels)
}

/// The actions and synchronisation vectors over `elements` automata, the
/// environment last: a label of `ae_labels` joins its automaton and the
/// environment; a global-synchronous action joins all.
fn sync_vectors(
    m: &Model,
    elements: usize,
    ae_labels: &[Vec<(usize, String)>],
) -> (Vec<Json>, Vec<Json>) {
    let (mut actions, mut syncs) = (Vec::new(), Vec::new());
    let n = elements;
    for (a, labels) in m.actions.iter().zip(ae_labels) {
        match a.ty {
            ActionType::Asynchronous => {}
            ActionType::GlobalSynchronous => {
                actions.push(json!({"name": a.name}));
                syncs.push(json!({"synchronise": vec![json!(a.name); n], "result": a.name}));
            }
            ActionType::AgentEnvironment => {
                for (owner, name) in labels {
                    let mut v = vec![Json::Null; n];
                    v[*owner] = json!(name);
                    v[n - 1] = json!(name);
                    actions.push(json!({"name": name}));
                    syncs.push(json!({"synchronise": v, "result": name}));
                }
            }
        }
    }
    (actions, syncs)
}

/// A global variable's JANI name (as in the PRISM export).
fn ref_json(m: &Model, r: GlobalVar) -> Json {
    match r {
        GlobalVar::Agent {
            template,
            agent,
            var,
        } => {
            json!(format!(
                "{}_{}_{}",
                m.templates[template].vars[var].name,
                template + 1,
                agent + 1
            ))
        }
        GlobalVar::Env { var } => json!(format!("{}_E", m.env.vars[var].name)),
        GlobalVar::Starting => json!({"op": "=", "left": "mode_E", "right": 1}),
    }
}

fn binary(op: &str, a: Json, b: Json) -> Json {
    json!({"op": op, "left": a, "right": b})
}

/// A label's checked expression in JANI (labels it reads are inlined).
fn expr(m: &Model, e: &TExpr) -> Json {
    let t = |x: &TExpr| expr(m, x);
    match &e.kind {
        TKind::Const(Value::Num(r)) => super::jani_explicit::exact_probability(r),
        TKind::Const(Value::Bool(b)) => json!(b),
        TKind::Const(Value::Enum(_, i)) => json!(i),
        TKind::Var(s) if *s >= LABEL_BASE => t(&m.labels[s - LABEL_BASE].1),
        TKind::Var(s) => ref_json(m, m.label_refs[*s]),
        TKind::Unary(UnOp::Neg, a) => binary("-", json!(0), t(a)),
        TKind::Unary(UnOp::Not, a) => json!({"op": "¬", "exp": t(a)}),
        TKind::Binary(op, a, b) => {
            let sym = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Eq | BinOp::Iff => "=",
                BinOp::Ne => "≠",
                BinOp::Lt => "<",
                BinOp::Le => "≤",
                BinOp::Gt => ">",
                BinOp::Ge => "≥",
                BinOp::And => "∧",
                BinOp::Or => "∨",
                BinOp::Implies => "⇒",
            };
            binary(sym, t(a), t(b))
        }
        TKind::If(c, a, b) => json!({"op": "ite", "if": t(c), "then": t(a), "else": t(b)}),
        TKind::Builtin(b, args) => {
            let a: Vec<Json> = args.iter().map(t).collect();
            let fold = |op: &str| {
                a.iter()
                    .cloned()
                    .reduce(|x, y| binary(op, x, y))
                    .unwrap_or(json!(0))
            };
            match b {
                Builtin::Min => fold("min"),
                Builtin::Max => fold("max"),
                Builtin::Clamp => binary(
                    "min",
                    binary("max", a[0].clone(), a[1].clone()),
                    a[2].clone(),
                ),
                Builtin::Abs => json!({"op": "abs", "exp": a[0]}),
                Builtin::Floor => json!({"op": "floor", "exp": a[0]}),
                Builtin::Ceil => json!({"op": "ceil", "exp": a[0]}),
                Builtin::Mod => binary("%", a[0].clone(), a[1].clone()),
            }
        }
        TKind::Ext(..) => json!(false),
    }
}

/// [`write_jani_concrete`] into a JSON value (tests).
pub fn jani_concrete(l: &Loaded, counts: &[usize]) -> Json {
    let mut out = Vec::new();
    write_jani_concrete(l, counts, &mut out).expect("writing to memory");
    serde_json::from_slice(&out).expect("the writer emits JSON")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small swarm with an asynchronous and an agent-environment action
    /// (also read by `jani_abstract`'s tests).
    pub(crate) const MODEL: &str =
        "asynchronous = {a}; agentEnvironment = {d}; globalSynchronous = {};
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

    #[test]
    fn agents_are_automata_synchronised_with_the_environment() {
        let l = crate::swarm::tests::load(MODEL, None, &[]).unwrap();
        let j = jani_concrete(&l, &[2]);
        let names: Vec<&str> = j["automata"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["r_1_1", "r_1_2", "e"]);
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
    }
}
