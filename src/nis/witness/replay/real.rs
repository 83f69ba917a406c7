//! The f64 domain of the replay walker ([`super::replay_trace`]): MILP
//! traces of real-valued models through an f64 implementation of the
//! concrete semantics (Definitions 4-6 of Kouvaros et al., IJCAI 2024).
//!
//! The finite semantics ([`crate::nis::semantics`]) numbers local states and
//! cannot hold a real. Here a state is a vector of f64 values (booleans 0/1,
//! enumerations their index, numbers as they are) and every function of the
//! model is evaluated with the shared f64 evaluator ([`crate::lang::eval_f64`]):
//! the protocol must enable each chosen action at the replayed state, the
//! round is synchronous (the set of performed actions, the environment's
//! update, each agent's update), the percept comes from the network
//! evaluated in f64 at the new private state and the new environment, and
//! every literal the formula needs is re-evaluated. The replay continues from
//! its OWN values, so an error of the MILP cannot accumulate unseen.
//!
//! Tolerances (the MILP is solved in floating point, to
//! [`crate::milp::tolerance::FEASIBILITY`]; all are defined there):
//! a replayed value matches the MILP's when they differ by at most
//! [`VALUE_TOL`] (relative to the magnitude, at least absolute); an argmax
//! percept is accepted when its output is within [`TIE_TOL`] of the maximum
//! (a near-tie is treated as a tie); a condition (guard, protocol case,
//! label, the observation's `if`, `init COND`) whose real comparison is
//! within [`crate::milp::tolerance::REPLAY_GUARD`] of its border may go
//! either way ([`crate::nis::semantics::real_truth`]): a protocol case may enable, an
//! update case may fire or not (the MILP's successor must match one of the
//! outcomes), and both branches of such an `if` may be observed.

use super::{replay_trace, Replay, Stop};
use crate::lang::num;
use crate::nis::front::model::{InitSpec, Model};
use crate::nis::semantics::real::{
    agent_update, agent_vals, close, enabled, initial_percepts, matching, updates, AgentRound,
    Slots,
};
pub use crate::nis::semantics::real::{RealLocal, RealMove, RealState, TIE_TOL, VALUE_TOL};
use crate::nis::semantics::real_named::{env_vals, initial_named, named_enabled, named_update};
use crate::nis::semantics::real_truth::truth;
use crate::nis::semantics::rules::Truth;
use crate::nis::witness::WitnessTree;
use std::convert::Infallible;

/// A decoded MILP witness or counterexample of a real-valued model.
pub type RealTree = WitnessTree<RealState, RealMove>;

/// A replayed state and the move that led to it (none at the start).
#[derive(Clone, Debug)]
pub struct RealStep {
    pub state: RealState,
    pub moved: Option<RealMove>,
}

/// Whether `env` belongs to the initial set I_e (Definition 2) up to [`VALUE_TOL`].
fn initial_env(model: &Model, env: &[f64]) -> Result<(), String> {
    for ((v, spec), &x) in model.env.vars.iter().zip(&model.env.init).zip(env) {
        let ok = match spec {
            InitSpec::Point(p) => close(x, p.to_f64()),
            InitSpec::List(ps) => ps.iter().any(|p| close(x, p.to_f64())),
            InitSpec::Range(lo, hi) => {
                let tol = VALUE_TOL * x.abs().max(1.0);
                x >= num::to_f64(lo) - tol && x <= num::to_f64(hi) + tol
            }
        };
        if !ok {
            return Err(format!(
                "the initial `{}` = {x} is not an initial value",
                v.name
            ));
        }
    }
    if let Some(f) = &model.env.init_filter {
        let mut vals = env.to_vec();
        vals.push(f64::NAN);
        let s = Slots {
            model,
            vals,
            performed: None,
            env_action: None,
        };
        if !truth(f, &s)?.may_hold() {
            return Err("the initial environment state fails the `init` condition".into());
        }
    }
    Ok(())
}

/// Replays a decoded tree from its root; the branches as replayed traces,
/// or why the tree does not replay.
pub fn replay_real(model: &Model, tree: &RealTree) -> Result<Vec<Vec<RealStep>>, String> {
    match replay_trace(&mut Real { model }, tree) {
        Ok(branches) => Ok(branches),
        Err(Stop::Wrong(why)) => Err(why),
        Err(Stop::Failed(never)) => match never {},
    }
}

/// A real-valued model in the f64 domain.
struct Real<'m> {
    model: &'m Model,
}

impl Replay for Real<'_> {
    type State = RealState;
    type Move = RealMove;
    type Step = RealStep;
    type Error = Infallible;

    fn model(&self) -> &Model {
        self.model
    }

    fn start(&mut self, root: &RealState) -> Result<RealStep, Stop<Infallible>> {
        Ok(RealStep {
            state: initial_state(self.model, root)?,
            moved: None,
        })
    }

    fn label(
        &mut self,
        at: &RealStep,
        label: usize,
        agent: Option<usize>,
    ) -> Result<Truth, Stop<Infallible>> {
        let (model, here) = (self.model, &at.state);
        let vals = match agent {
            Some(a) => agent_vals(&here.agents[a], None, None, None, model),
            None => env_vals(here, None, None),
        };
        let s = Slots {
            model,
            vals,
            performed: None,
            env_action: None,
        };
        Ok(truth(&model.labels[label].expr, &s)?)
    }

    fn step(
        &mut self,
        from: &RealStep,
        mv: &RealMove,
        to: &RealState,
    ) -> Result<RealStep, Stop<Infallible>> {
        Ok(RealStep {
            state: step(self.model, &from.state, mv, to)?,
            moved: Some(mv.clone()),
        })
    }
}

/// The replayed initial state of `root`: the template's initial private
/// values, the root's percepts and environment, each checked.
fn initial_state(model: &Model, root: &RealState) -> Result<RealState, String> {
    let t = &model.template;
    let init: Vec<f64> = t.init.iter().map(|v| v.to_f64()).collect();
    initial_env(model, &root.env)?;
    let starts = initial_percepts(model, t, &init, &root.env)?;
    for (i, a) in root.agents.iter().enumerate() {
        if !starts.get(a.percept).copied().unwrap_or(false)
            || a.private.iter().zip(&init).any(|(x, y)| !close(*x, *y))
        {
            return Err(format!(
                "agent {} does not start at the initial local state",
                i + 1
            ));
        }
    }
    let agents = root.agents.iter().map(|a| RealLocal {
        private: init.clone(),
        percept: a.percept,
    });
    Ok(RealState {
        agents: agents.collect(),
        env: root.env.clone(),
        named: initial_named(model, root)?,
    })
}

/// One synchronous round (Definition 5) from `from` under `mv`, checked
/// against the MILP's successor `claimed`; the replayed successor.
fn step(
    model: &Model,
    from: &RealState,
    mv: &RealMove,
    claimed: &RealState,
) -> Result<RealState, String> {
    if mv.actions.len() != from.agents.len() || claimed.agents.len() != from.agents.len() {
        return Err("the move does not name every agent".into());
    }
    let performed = performed(model, from, mv)?;
    named_enabled(model, from, mv)?;
    let env = env_update(model, from, mv, &performed, &claimed.env)?;
    let mut agents = Vec::with_capacity(from.agents.len());
    for (j, l) in from.agents.iter().enumerate() {
        let round = AgentRound {
            who: format!("agent {}", j + 1),
            action: mv.actions[j],
            env_action: mv.env_action,
            performed: &performed,
        };
        let t = &model.template;
        agents.push(agent_update(model, t, l, &round, &env, &claimed.agents[j])?);
    }
    let named = named_update(model, from, mv, (&performed, &env), claimed)?;
    Ok(RealState { agents, env, named })
}

/// Checks every action of `mv` against its protocol at `from`; the set of
/// actions performed.
fn performed(model: &Model, from: &RealState, mv: &RealMove) -> Result<Vec<bool>, String> {
    let (t, e) = (&model.template, &model.env);
    let s = Slots {
        model,
        vals: env_vals(from, None, None),
        performed: None,
        env_action: None,
    };
    if mv.env_action >= e.actions.len()
        || !enabled(&e.protocol, &s, e.actions.len())?[mv.env_action]
    {
        return Err("the environment's action is not enabled by its protocol".into());
    }
    let mut performed = vec![false; t.actions.len()];
    for (j, (l, &a)) in from.agents.iter().zip(&mv.actions).enumerate() {
        let s = Slots {
            model,
            vals: agent_vals(l, None, None, None, model),
            performed: None,
            env_action: None,
        };
        if a >= t.actions.len() || !enabled(&t.protocol, &s, t.actions.len())?[a] {
            return Err(format!(
                "agent {} takes an action its protocol does not allow",
                j + 1
            ));
        }
        performed[a] = true;
    }
    Ok(performed)
}

/// The environment's update (Definition 2's tr_e), matched against the
/// MILP's `claimed` values.
fn env_update(
    model: &Model,
    from: &RealState,
    mv: &RealMove,
    performed: &[bool],
    claimed: &[f64],
) -> Result<Vec<f64>, String> {
    let e = &model.env;
    let vals = env_vals(from, Some(mv.env_action), Some(&mv.named));
    let s = Slots {
        model,
        vals,
        performed: Some(performed),
        env_action: Some(mv.env_action),
    };
    let candidates = updates(&e.update, &e.vars, &from.env, &s)?;
    matching(candidates, claimed, &e.vars, "the environment's")
}
