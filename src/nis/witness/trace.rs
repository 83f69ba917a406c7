//! Witness traces as step tables (text) and JSON.

use crate::nis::explicit::abstraction::{AMove, AState};
use crate::nis::explicit::replay::{ConcreteStep, ConcreteTrace};
use crate::nis::explicit::replay_strategy_f64::Shape;
use crate::nis::explicit::semantics::{bits, EnvId, Semantics};
use crate::nis::witness::shown::Witness;
use crate::nis::witness::{kind_word, Trace, WitnessTree};
use crate::report::Table;
use serde_json::{json, Value};

fn action_names(sem: &Semantics, mask: u64) -> String {
    bits(mask)
        .map(|a| sem.model.template.actions[a].clone())
        .collect::<Vec<_>>()
        .join(",")
}

/// One row per step: every agent's local state and the action it takes next; the environment.
pub fn concrete_table(sem: &Semantics, steps: &[ConcreteStep]) -> Table {
    let n = steps.first().map_or(0, |s| s.locals.len());
    let mut header = vec!["step".to_string()];
    header.extend((1..=n).map(|i| format!("agent {i}")));
    header.push("env".into());
    let mut t = Table::new(header);
    for (j, s) in steps.iter().enumerate() {
        let next = steps.get(j + 1).and_then(|x| x.actions.as_ref());
        let mut row = vec![j.to_string()];
        for (i, &l) in s.locals.iter().enumerate() {
            let mut cell = sem.describe_local(l);
            if let Some((acts, _)) = next {
                cell.push_str(&format!(" -> {}", sem.model.template.actions[acts[i]]));
            }
            row.push(cell);
        }
        let mut env = sem.describe_env(s.env);
        if let Some((_, ea)) = next {
            if sem.model.env.actions.len() > 1 || !sem.model.env.vars.is_empty() {
                env.push_str(&format!(" -> {}", sem.model.describe_env_action(*ea)));
            }
        }
        row.push(env);
        t.row(row);
    }
    t
}

pub fn concrete_json(sem: &Semantics, steps: &[ConcreteStep]) -> Value {
    let model = sem.model;
    Value::Array(
        steps
            .iter()
            .enumerate()
            .map(|(j, s)| {
                let next = steps.get(j + 1).and_then(|x| x.actions.as_ref());
                let agents: Vec<Value> = s
                    .locals
                    .iter()
                    .enumerate()
                    .map(|(i, &l)| {
                        let codes = sem.space.decode(l);
                        let mut vars = serde_json::Map::new();
                        for (v, &c) in model.template.vars.iter().zip(&codes) {
                            vars.insert(v.name.clone(), json_code(&v.ty, c));
                        }
                        json!({
                            "private": Value::Object(vars),
                            "percept": model.template.percepts[sem.percept_of(l)],
                            "action": next.map(|(a, _)| Value::from(model.template.actions[a[i]].clone())).unwrap_or(Value::Null),
                        })
                    })
                    .collect();
                let mut env = serde_json::Map::new();
                for (v, &c) in model.env.vars.iter().zip(sem.env_codes(s.env)) {
                    env.insert(v.name.clone(), json_code(&v.ty, c));
                }
                let mut step = json!({
                    "step": j,
                    "agents": agents,
                    "env": Value::Object(env),
                    "env_action": next.map(|(_, e)| Value::from(model.describe_env_action(*e))).unwrap_or(Value::Null),
                });
                if !model.named.is_empty() {
                    step["named"] = named_json(sem, s.env, next.map(|(_, e)| *e));
                }
                step
            })
            .collect(),
    )
}

/// Each named agent's `{private, percept, action}` at an environment state
/// (`action` null at a branch's last step), by name.
fn named_json(sem: &Semantics, env: EnvId, joint: Option<usize>) -> Value {
    let model = sem.model;
    let actions = joint.map(|j| model.split_env_action(j).1);
    let mut out = serde_json::Map::new();
    for (j, a) in model.named.iter().enumerate() {
        let (t, codes) = (&a.template, sem.named_codes(env, j));
        let mut vars = serde_json::Map::new();
        for (v, &c) in t.vars.iter().zip(codes) {
            vars.insert(v.name.clone(), json_code(&v.ty, c));
        }
        let action = actions
            .as_ref()
            .map(|acts| Value::from(t.actions[acts[j]].clone()));
        let agent = json!({
            "private": Value::Object(vars),
            "percept": t.percepts[codes[t.vars.len()] as usize],
            "action": action.unwrap_or(Value::Null),
        });
        out.insert(a.name.clone(), agent);
    }
    Value::Object(out)
}

fn json_code(ty: &crate::lang::DeclType, code: i64) -> Value {
    match ty {
        crate::lang::DeclType::Bool => Value::Bool(code != 0),
        crate::lang::DeclType::Enum { values, .. } => values.get(code as usize).cloned().into(),
        _ => code.into(),
    }
}

fn zo_set(sem: &Semantics, s: &AState) -> String {
    format!(
        "{{{}}}",
        s.zo.iter()
            .map(|l| sem.describe_local(l))
            .collect::<Vec<_>>()
            .join("; ")
    )
}

fn zo_move(sem: &Semantics, mv: &AMove) -> String {
    mv.zo
        .iter()
        .map(|&(l, mask)| format!("{}: {}", sem.describe_local(l), action_names(sem, mask)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Abstract steps: the concrete agents, the zero-one set and the zero-one action.
pub fn abstract_table(sem: &Semantics, branch: &[(Option<AMove>, AState)]) -> Table {
    let m = branch.first().map_or(0, |(_, s)| s.indexed.len());
    let mut header = vec!["step".to_string()];
    header.extend((1..=m).map(|i| format!("agent {i}")));
    header.push("zero-one agent".into());
    header.push("zero-one action".into());
    // Named agents live in the environment: show it (and its joint action).
    let with_env = !sem.model.named.is_empty();
    if with_env {
        header.push("env".into());
    }
    let mut t = Table::new(header);
    for (j, (_, s)) in branch.iter().enumerate() {
        let next = branch.get(j + 1).and_then(|(mv, _)| mv.as_ref());
        let mut row = vec![j.to_string()];
        for (i, &l) in s.indexed.iter().enumerate() {
            let mut cell = sem.describe_local(l);
            if let Some(mv) = next {
                cell.push_str(&format!(
                    " -> {}",
                    sem.model.template.actions[mv.indexed[i]]
                ));
            }
            row.push(cell);
        }
        row.push(zo_set(sem, s));
        row.push(next.map_or(String::new(), |mv| zo_move(sem, mv)));
        if with_env {
            let mut env = sem.describe_env(s.env);
            if let Some(mv) = next {
                env.push_str(&format!(
                    " -> {}",
                    sem.model.describe_env_action(mv.env_action)
                ));
            }
            row.push(env);
        }
        t.row(row);
    }
    t
}

pub fn abstract_json(sem: &Semantics, branch: &[(Option<AMove>, AState)]) -> Value {
    Value::Array(
        branch
            .iter()
            .enumerate()
            .map(|(j, (_, s))| {
                let next = branch.get(j + 1).and_then(|(mv, _)| mv.as_ref());
                json!({
                    "step": j,
                    "agents": s.indexed.iter().map(|&l| sem.describe_local(l)).collect::<Vec<_>>(),
                    "zero_one": s.zo.iter().map(|l| sem.describe_local(l)).collect::<Vec<_>>(),
                    "actions": next.map(|mv| mv.indexed.iter().map(|&a| sem.model.template.actions[a].clone()).collect::<Vec<_>>()),
                    "zero_one_action": next.map(|mv| mv.zo.iter().map(|&(l, mask)| json!({
                        "state": sem.describe_local(l),
                        "actions": bits(mask).map(|a| sem.model.template.actions[a].clone()).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>()),
                    "env": sem.describe_env(s.env),
                    "env_action": next.map(|mv| sem.model.describe_env_action(mv.env_action)),
                })
            })
            .collect(),
    )
}

/// Replayed M(n) traces as shown: the first tree's branches.
pub fn concrete_trace(
    sem: &Semantics,
    traces: &[ConcreteTrace],
    counterexample: bool,
) -> Option<Trace> {
    Trace::of(kind_word(counterexample), traces, |b| {
        (concrete_json(sem, b), concrete_table(sem, b))
    })
}

/// Replayed strategic trees of M(0) as shown: the counterexample of a
/// failing `[[G]]` (G's strategy against phi) or `<<G>>` (the refutation,
/// said as such), else the strategies that witness `<<G>>`.
pub fn strategic_shown(
    sem: &Semantics,
    traces: &[ConcreteTrace],
    universal: bool,
    shape: Shape,
) -> Option<Witness> {
    let refuted = shape == Shape::Refutation;
    concrete_trace(sem, traces, universal || refuted).map(|t| Witness::strategic(t, refuted))
}

/// Replayed M_ab(m) witnesses as shown: the first tree's branches.
pub fn abstract_trace(sem: &Semantics, witnesses: &[WitnessTree<AState, AMove>]) -> Option<Trace> {
    let branches: Vec<_> = witnesses
        .iter()
        .take(1)
        .map(WitnessTree::branches)
        .collect();
    let mut t = Trace::of("abstract trace", &branches, |b| {
        (abstract_json(sem, b), abstract_table(sem, b))
    })?;
    t.initial_states = witnesses.len();
    Some(t)
}
