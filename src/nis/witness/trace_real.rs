//! Replayed traces of real-valued models ([`crate::nis::explicit::replay_real`]) as step
//! tables (text) and JSON, in the shape of the finite decider's ([`super::trace`]).

use crate::lang::DeclType;
use crate::nis::explicit::replay_real::{RealLocal, RealStep};
use crate::nis::front::model::Model;
use crate::nis::witness::{kind_word, Trace};
use serde_json::{json, Value};

fn show(ty: &DeclType, x: f64) -> String {
    match ty {
        DeclType::Enum { values, .. } => values.get(x as usize).cloned().unwrap_or_default(),
        DeclType::Bool => (x != 0.0).to_string(),
        _ => format!("{}", (x * 1e9).round() / 1e9),
    }
}

fn describe_local(model: &Model, l: &RealLocal) -> String {
    let t = &model.template;
    let mut parts: Vec<String> = t
        .vars
        .iter()
        .zip(&l.private)
        .map(|(v, &x)| format!("{}={}", v.name, show(&v.ty, x)))
        .collect();
    parts.push(t.percepts[l.percept].clone());
    parts.join(" ")
}

fn describe_env(model: &Model, env: &[f64]) -> String {
    if model.env.vars.is_empty() {
        return "-".into();
    }
    let e = &model.env;
    e.vars
        .iter()
        .zip(env)
        .map(|(v, &x)| format!("{}={}", v.name, show(&v.ty, x)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One row per step (every agent's local state and its next action; the
/// environment), as the finite decider's trace tables.
pub fn table(model: &Model, steps: &[RealStep]) -> crate::report::Table {
    let n = steps.first().map_or(0, |s| s.state.agents.len());
    let mut header = vec!["step".to_string()];
    header.extend((1..=n).map(|i| format!("agent {i}")));
    header.push("env".into());
    let mut t = crate::report::Table::new(header);
    for (j, s) in steps.iter().enumerate() {
        let next = steps.get(j + 1).and_then(|x| x.moved.as_ref());
        let mut row = vec![j.to_string()];
        for (i, l) in s.state.agents.iter().enumerate() {
            let mut cell = describe_local(model, l);
            if let Some(mv) = next {
                cell.push_str(&format!(" -> {}", model.template.actions[mv.actions[i]]));
            }
            row.push(cell);
        }
        let mut env = describe_env(model, &s.state.env);
        if let Some(mv) = next {
            if model.env.actions.len() > 1 || !model.env.vars.is_empty() {
                env.push_str(&format!(" -> {}", model.env.actions[mv.env_action]));
            }
        }
        row.push(env);
        t.row(row);
    }
    t
}

/// The replayed steps as JSON (values as f64).
pub fn json(model: &Model, steps: &[RealStep]) -> Value {
    let t = &model.template;
    let rows: Vec<Value> = steps
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let next = steps.get(j + 1).and_then(|x| x.moved.as_ref());
            let agents: Vec<Value> = s
                .state
                .agents
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let private: serde_json::Map<String, Value> =
                        t.vars.iter().zip(&l.private).map(|(v, &x)| (v.name.clone(), json!(x))).collect();
                    json!({
                        "private": private,
                        "percept": t.percepts[l.percept],
                        "action": next.map(|m| Value::from(t.actions[m.actions[i]].clone())).unwrap_or(Value::Null),
                    })
                })
                .collect();
            let env: serde_json::Map<String, Value> =
                model.env.vars.iter().zip(&s.state.env).map(|(v, &x)| (v.name.clone(), json!(x))).collect();
            json!({
                "step": j,
                "agents": agents,
                "env": env,
                "env_action": next.map(|m| Value::from(model.env.actions[m.env_action].clone())).unwrap_or(Value::Null),
            })
        })
        .collect();
    Value::Array(rows)
}

/// Replayed f64 traces (per initial state, its branches) as shown: the
/// first tree's branches.
pub fn real_trace(
    model: &Model,
    traces: &[Vec<Vec<RealStep>>],
    counterexample: bool,
) -> Option<Trace> {
    Trace::of(kind_word(counterexample), traces, |b| {
        (json(model, b), table(model, b))
    })
}
