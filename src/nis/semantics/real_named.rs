//! Named agents in the f64 replay ([`crate::nis::witness::replay::real`]): they are part of
//! the environment's side, so the environment's expressions read their
//! private values, percepts and (in updates) actions through the slots of
//! [`crate::nis::front::model::EnvSlots`]; each starts at iota of its
//! template (a given percept, or one its observation allows at the initial
//! environment), must take an action its protocol enables, updates by its
//! template's rules and observes the new environment state.

use super::real::{
    agent_update, agent_vals, close, enabled, initial_percepts, AgentRound, RealLocal, RealMove,
    RealState, Slots,
};
use crate::nis::front::model::Model;

/// The environment slots at `state`: its variables, its action, then per
/// named agent its private values, percept and action (NaN: not readable).
pub fn env_vals(
    state: &RealState,
    action: Option<usize>,
    named_actions: Option<&[usize]>,
) -> Vec<f64> {
    let mut vals = state.env.clone();
    vals.push(action.map_or(f64::NAN, |a| a as f64));
    for (j, l) in state.named.iter().enumerate() {
        vals.extend_from_slice(&l.private);
        vals.push(l.percept as f64);
        let a = named_actions.and_then(|xs| xs.get(j));
        vals.push(a.map_or(f64::NAN, |&a| a as f64));
    }
    vals
}

/// The named agents at the root of a tree, checked against their iota.
pub fn initial_named(model: &Model, root: &RealState) -> Result<Vec<RealLocal>, String> {
    if root.named.len() != model.named.len() {
        return Err("the initial state does not name every named agent".into());
    }
    let mut out = Vec::with_capacity(model.named.len());
    for (a, l) in model.named.iter().zip(&root.named) {
        let t = &a.template;
        let init: Vec<f64> = t.init.iter().map(|v| v.to_f64()).collect();
        let starts = initial_percepts(model, t, &init, &root.env)?;
        if !starts.get(l.percept).copied().unwrap_or(false)
            || l.private.iter().zip(&init).any(|(x, y)| !close(*x, *y))
        {
            return Err(format!(
                "{} does not start at its initial local state",
                a.name
            ));
        }
        out.push(RealLocal {
            private: init,
            percept: l.percept,
        });
    }
    Ok(out)
}

/// Every named agent's action is enabled by its protocol at `from`.
pub fn named_enabled(model: &Model, from: &RealState, mv: &RealMove) -> Result<(), String> {
    if mv.named.len() != model.named.len() || from.named.len() != model.named.len() {
        return Err("the move does not name every named agent's action".into());
    }
    for ((a, l), &act) in model.named.iter().zip(&from.named).zip(&mv.named) {
        let t = &a.template;
        let s = Slots {
            model,
            vals: agent_vals(l, None, None, None, model),
            performed: None,
            env_action: None,
        };
        if act >= t.actions.len() || !enabled(&t.protocol, &s, t.actions.len())?[act] {
            return Err(format!(
                "{} takes an action its protocol does not allow",
                a.name
            ));
        }
    }
    Ok(())
}

/// Each named agent's update and observation of the new environment `env`,
/// matched against the MILP's `claimed` successor.
pub fn named_update(
    model: &Model,
    from: &RealState,
    mv: &RealMove,
    (performed, env): (&[bool], &[f64]),
    claimed: &RealState,
) -> Result<Vec<RealLocal>, String> {
    if claimed.named.len() != model.named.len() {
        return Err("the successor does not name every named agent".into());
    }
    let mut out = Vec::with_capacity(model.named.len());
    for (j, a) in model.named.iter().enumerate() {
        let round = AgentRound {
            who: a.name.clone(),
            action: mv.named[j],
            env_action: mv.env_action,
            performed,
        };
        let (l, c) = (&from.named[j], &claimed.named[j]);
        out.push(agent_update(model, &a.template, l, &round, env, c)?);
    }
    Ok(out)
}
