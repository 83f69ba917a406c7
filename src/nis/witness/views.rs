//! Replayed steps of each number domain as the renderer's views
//! ([`super::render`]): exact runs ([`ConcreteStep`], codes shown as the
//! user wrote them, JSON Booleans, enumeration names and integers) and f64
//! runs ([`RealStep`], numbers rounded to 9 decimals in text, JSON f64).

use super::render::{LocalView, MoveView, StepView, VarView};
use super::replay::ConcreteStep;
use super::replay_real::{RealLocal, RealStep};
use crate::lang::DeclType;
use crate::nis::front::model::{Model, Template, VarDecl};
use crate::nis::semantics::{show_code, Semantics};
use serde_json::{json, Value};

/// Whether the environment's column shows its next joint action: it has
/// variables or more than one joint action.
pub fn env_moves(model: &Model) -> bool {
    model.joint_env_actions() > 1 || !model.env.vars.is_empty()
}

/// The move of a step: the agents' actions and the joint environment-side one.
fn move_view(model: &Model, actions: &[usize], joint: usize) -> MoveView {
    let (_, named) = model.split_env_action(joint);
    MoveView {
        actions: actions
            .iter()
            .map(|&a| model.template.actions[a].clone())
            .collect(),
        env_action: model.describe_env_action(joint),
        named: model
            .named
            .iter()
            .zip(&named)
            .map(|(a, &x)| a.template.actions[x].clone())
            .collect(),
    }
}

fn code_var(v: &VarDecl, code: i64) -> VarView {
    let json = match &v.ty {
        DeclType::Bool => Value::Bool(code != 0),
        DeclType::Enum { values, .. } => values.get(code as usize).cloned().into(),
        _ => code.into(),
    };
    VarView {
        name: v.name.clone(),
        text: show_code(&v.ty, code),
        json,
    }
}

/// A local state by its codes (private variables, then the percept).
fn code_local(t: &Template, codes: &[i64]) -> LocalView {
    LocalView {
        vars: t
            .vars
            .iter()
            .zip(codes)
            .map(|(v, &c)| code_var(v, c))
            .collect(),
        percept: t.percepts[codes[t.vars.len()] as usize].clone(),
    }
}

/// The steps of an exact run of S(n) (or M(0)).
pub fn exact_views(sem: &Semantics, steps: &[ConcreteStep]) -> Vec<StepView> {
    let model = sem.model;
    let view = |s: &ConcreteStep| StepView {
        agents: s
            .locals
            .iter()
            .map(|&l| code_local(&model.template, &sem.space.decode(l)))
            .collect(),
        env: model
            .env
            .vars
            .iter()
            .zip(sem.env_codes(s.env))
            .map(|(v, &c)| code_var(v, c))
            .collect(),
        named: model
            .named
            .iter()
            .enumerate()
            .map(|(j, a)| {
                (
                    a.name.clone(),
                    code_local(&a.template, sem.named_codes(s.env, j)),
                )
            })
            .collect(),
        moved: s
            .actions
            .as_ref()
            .map(|(acts, joint)| move_view(model, acts, *joint)),
    };
    steps.iter().map(view).collect()
}

fn real_var(v: &VarDecl, x: f64) -> VarView {
    let text = match &v.ty {
        DeclType::Enum { values, .. } => values.get(x as usize).cloned().unwrap_or_default(),
        DeclType::Bool => (x != 0.0).to_string(),
        _ => format!("{}", (x * 1e9).round() / 1e9),
    };
    VarView {
        name: v.name.clone(),
        text,
        json: json!(x),
    }
}

fn real_local(t: &Template, l: &RealLocal) -> LocalView {
    LocalView {
        vars: t
            .vars
            .iter()
            .zip(&l.private)
            .map(|(v, &x)| real_var(v, x))
            .collect(),
        percept: t.percepts[l.percept].clone(),
    }
}

/// The steps of an f64 run of S(n) (or M(0)).
pub fn real_views(model: &Model, steps: &[RealStep]) -> Vec<StepView> {
    let view = |s: &RealStep| StepView {
        agents: s
            .state
            .agents
            .iter()
            .map(|l| real_local(&model.template, l))
            .collect(),
        env: model
            .env
            .vars
            .iter()
            .zip(&s.state.env)
            .map(|(v, &x)| real_var(v, x))
            .collect(),
        named: model
            .named
            .iter()
            .zip(&s.state.named)
            .map(|(a, l)| (a.name.clone(), real_local(&a.template, l)))
            .collect(),
        moved: s.moved.as_ref().map(|mv| {
            let joint = model.join_env_action(mv.env_action, &mv.named);
            move_view(model, &mv.actions, joint)
        }),
    };
    steps.iter().map(view).collect()
}
