//! Replayed steps of each number domain as typed steps ([`super::shown`]):
//! exact runs ([`ConcreteStep`]: codes as Booleans, enumeration names and
//! integers), f64 runs ([`RealStep`]: f64 values with what they mean) and
//! runs of M_ab(m) (the zero-one agent's sets of local states).

use super::replay::exact::ConcreteStep;
use super::replay::real::{RealLocal, RealStep};
use super::shown::{
    AbstractMove, AbstractStep, EnvMove, EnvState, Local, Move, RealMeaning, Step, Val, Var,
};
use crate::lang::DeclType;
use crate::nis::front::model::{Model, Template, VarDecl};
use crate::nis::semantics::abstraction::{AMove, AState};
use crate::nis::semantics::{bits, EnvId, LocalId, Semantics};

/// Whether the environment's column shows its next joint action: it has
/// variables or more than one joint action.
pub fn env_moves(model: &Model) -> bool {
    model.joint_env_actions() > 1 || !model.env.vars.is_empty()
}

/// The environment's side of a joint action: its own action and each named agent's.
fn env_move(model: &Model, joint: usize) -> EnvMove {
    let (own, named) = model.split_env_action(joint);
    EnvMove {
        own: model.env.actions[own].clone(),
        named: model
            .named
            .iter()
            .zip(&named)
            .map(|(a, &x)| (a.name.clone(), a.template.actions[x].clone()))
            .collect(),
    }
}

fn action_names(model: &Model, actions: &[usize]) -> Vec<String> {
    actions
        .iter()
        .map(|&a| model.template.actions[a].clone())
        .collect()
}

fn code_var(v: &VarDecl, code: i64) -> Var {
    let value = match &v.ty {
        DeclType::Bool => Val::Bool(code != 0),
        DeclType::Enum { values, .. } => Val::Enum(values.get(code as usize).cloned().ok_or(code)),
        _ => Val::Int(code),
    };
    Var {
        name: v.name.clone(),
        value,
    }
}

/// A local state by its codes (private variables, then the percept).
fn code_local(t: &Template, codes: &[i64]) -> Local {
    Local {
        vars: t
            .vars
            .iter()
            .zip(codes)
            .map(|(v, &c)| code_var(v, c))
            .collect(),
        percept: t.percepts[codes[t.vars.len()] as usize].clone(),
    }
}

/// A local state of the parameterised template by its id.
fn local_state(sem: &Semantics, l: LocalId) -> Local {
    code_local(sem.template, &sem.space.decode(l))
}

/// The environment's state by its id, the named agents' included.
fn env_state(sem: &Semantics, e: EnvId) -> EnvState {
    let model = sem.model;
    EnvState {
        vars: model
            .env
            .vars
            .iter()
            .zip(sem.env_codes(e))
            .map(|(v, &c)| code_var(v, c))
            .collect(),
        named: model
            .named
            .iter()
            .enumerate()
            .map(|(j, a)| {
                (
                    a.name.clone(),
                    code_local(&a.template, sem.named_codes(e, j)),
                )
            })
            .collect(),
    }
}

/// The steps of an exact run of S(n) (or M(0)).
pub fn exact_steps(sem: &Semantics, steps: &[ConcreteStep]) -> Vec<Step> {
    let view = |s: &ConcreteStep| Step {
        agents: s.locals.iter().map(|&l| local_state(sem, l)).collect(),
        env: env_state(sem, s.env),
        moved: s.actions.as_ref().map(|(acts, joint)| Move {
            actions: action_names(sem.model, acts),
            env: env_move(sem.model, *joint),
        }),
    };
    steps.iter().map(view).collect()
}

/// The steps of a run of M_ab(m).
pub fn abstract_steps(sem: &Semantics, branch: &[(Option<AMove>, AState)]) -> Vec<AbstractStep> {
    let model = sem.model;
    let view = |(mv, s): &(Option<AMove>, AState)| AbstractStep {
        agents: s.indexed.iter().map(|&l| local_state(sem, l)).collect(),
        zero_one: s.zo.iter().map(|l| local_state(sem, l)).collect(),
        env: env_state(sem, s.env),
        moved: mv.as_ref().map(|mv| AbstractMove {
            actions: action_names(model, &mv.indexed),
            zero_one: mv
                .zo
                .iter()
                .map(|&(l, mask)| {
                    let acts: Vec<usize> = bits(mask).collect();
                    (local_state(sem, l), action_names(model, &acts))
                })
                .collect(),
            env: env_move(model, mv.env_action),
        }),
    };
    branch.iter().map(view).collect()
}

fn real_var(v: &VarDecl, x: f64) -> Var {
    let meaning = match &v.ty {
        DeclType::Enum { values, .. } => {
            RealMeaning::Enum(values.get(x as usize).cloned().unwrap_or_default())
        }
        DeclType::Bool => RealMeaning::Bool,
        _ => RealMeaning::Number,
    };
    Var {
        name: v.name.clone(),
        value: Val::Real(x, meaning),
    }
}

fn real_local(t: &Template, l: &RealLocal) -> Local {
    Local {
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
pub fn real_steps(model: &Model, steps: &[RealStep]) -> Vec<Step> {
    let view = |s: &RealStep| Step {
        agents: s
            .state
            .agents
            .iter()
            .map(|l| real_local(&model.template, l))
            .collect(),
        env: EnvState {
            vars: model
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
        },
        moved: s.moved.as_ref().map(|mv| Move {
            actions: action_names(model, &mv.actions),
            env: env_move(model, model.join_env_action(mv.env_action, &mv.named)),
        }),
    };
    steps.iter().map(view).collect()
}
