//! Replayed traces of real-valued models ([`crate::nis::explicit::replay_real`]) as step
//! tables (text) and JSON, in the shape of the finite decider's ([`super::trace`]).

use crate::lang::DeclType;
use crate::nis::explicit::replay_real::{RealLocal, RealMove, RealState, RealStep};
use crate::nis::front::model::{Model, Template};
use crate::nis::witness::{kind_word, Trace};
use serde_json::{json, Value};

fn show(ty: &DeclType, x: f64) -> String {
    match ty {
        DeclType::Enum { values, .. } => values.get(x as usize).cloned().unwrap_or_default(),
        DeclType::Bool => (x != 0.0).to_string(),
        _ => format!("{}", (x * 1e9).round() / 1e9),
    }
}

fn describe_local(t: &Template, l: &RealLocal) -> String {
    let mut parts: Vec<String> = t
        .vars
        .iter()
        .zip(&l.private)
        .map(|(v, &x)| format!("{}={}", v.name, show(&v.ty, x)))
        .collect();
    parts.push(t.percepts[l.percept].clone());
    parts.join(" ")
}

/// The environment's values, then each named agent's local state
/// (`h=3 | ownship: v=2 COC`), as the finite decider shows them.
fn describe_env(model: &Model, state: &RealState) -> String {
    let e = &model.env;
    let mut out = e
        .vars
        .iter()
        .zip(&state.env)
        .map(|(v, &x)| format!("{}={}", v.name, show(&v.ty, x)))
        .collect::<Vec<_>>()
        .join(" ");
    if out.is_empty() {
        out.push('-');
    }
    for (a, l) in model.named.iter().zip(&state.named) {
        out.push_str(&format!(
            " | {}: {}",
            a.name,
            describe_local(&a.template, l)
        ));
    }
    out
}

/// The environment-side action of a move (`tick, ownship.aCL1500`).
fn env_action(model: &Model, mv: &RealMove) -> String {
    model.describe_env_action(model.join_env_action(mv.env_action, &mv.named))
}

/// Each named agent's local state and next action as JSON.
fn named_json(model: &Model, state: &RealState, next: Option<&RealMove>) -> Value {
    let mut out = serde_json::Map::new();
    for (j, (a, l)) in model.named.iter().zip(&state.named).enumerate() {
        let t = &a.template;
        let private: serde_json::Map<String, Value> = t
            .vars
            .iter()
            .zip(&l.private)
            .map(|(v, &x)| (v.name.clone(), json!(x)))
            .collect();
        let action = next.map(|m| Value::from(t.actions[m.named[j]].clone()));
        out.insert(
            a.name.clone(),
            json!({"private": private, "percept": t.percepts[l.percept], "action": action.unwrap_or(Value::Null)}),
        );
    }
    Value::Object(out)
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
            let mut cell = describe_local(&model.template, l);
            if let Some(mv) = next {
                cell.push_str(&format!(" -> {}", model.template.actions[mv.actions[i]]));
            }
            row.push(cell);
        }
        let mut env = describe_env(model, &s.state);
        if let Some(mv) = next {
            if model.joint_env_actions() > 1 || !model.env.vars.is_empty() {
                env.push_str(&format!(" -> {}", env_action(model, mv)));
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
            let mut row = json!({
                "step": j,
                "agents": agents,
                "env": env,
                "env_action": next.map(|m| Value::from(env_action(model, m))).unwrap_or(Value::Null),
            });
            if !model.named.is_empty() {
                row["named"] = named_json(model, &s.state, next);
            }
            row
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
