//! Witness traces as shown: replayed runs of S(n) and M(0), exact or f64,
//! through the one renderer ([`super::render`]); abstract traces of
//! M_ab(m) (the zero-one agent's sets) as their own step tables and JSON.

use super::render::{step_json, step_table};
use super::replay::ConcreteTrace;
use super::replay_real::RealStep;
use super::replay_strategy_f64::Shape;
use super::shown::Witness;
use super::views::{env_moves, exact_views, real_views};
use super::{kind_word, Trace, WitnessTree};
use crate::nis::front::model::Model;
use crate::nis::semantics::abstraction::{AMove, AState};
use crate::nis::semantics::{bits, Semantics};
use crate::report::Table;
use serde_json::{json, Value};

fn action_names(sem: &Semantics, mask: u64) -> String {
    bits(mask)
        .map(|a| sem.model.template.actions[a].clone())
        .collect::<Vec<_>>()
        .join(",")
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
    let (with_named, env_moves) = (!sem.model.named.is_empty(), env_moves(sem.model));
    Trace::of(kind_word(counterexample), traces, |b| {
        let views = exact_views(sem, b);
        (step_json(&views, with_named), step_table(&views, env_moves))
    })
}

/// Replayed f64 traces (per initial state, its branches) as shown: the
/// first tree's branches.
pub fn real_trace(
    model: &Model,
    traces: &[Vec<Vec<RealStep>>],
    counterexample: bool,
) -> Option<Trace> {
    let (with_named, env_moves) = (!model.named.is_empty(), env_moves(model));
    Trace::of(kind_word(counterexample), traces, |b| {
        let views = real_views(model, b);
        (step_json(&views, with_named), step_table(&views, env_moves))
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
