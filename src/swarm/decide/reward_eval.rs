//! A reward structure's values at every state and choice of an explored
//! model (the items' guards and values read what labels read).

use super::mdp::Mdp;
use super::property::{ObsValues, Sem};
use super::reward::RewardVectors;
use crate::lang::{eval, eval_f64, num, EvalError, Rat, TExpr, Value};
use crate::swarm::front::model::{GlobalVar, Model, Rewards};
use num_traits::Zero;

/// The action of a choice label (`None` for the deadlock self-loop).
/// Both semantics end their labels with `... * actions + action`.
fn action_of(label: u32, actions: usize) -> Option<usize> {
    if label == crate::swarm::semantics::concrete::DEADLOCK {
        return None;
    }
    Some((label & !(1 << 31)) as usize % actions)
}

/// Evaluates reward structure `r` at every state and choice of `mdp`
/// (slots index `refs`, the model's label refs); a negative or non-finite
/// reward is refused with the item's place.
pub fn evaluate_rewards(
    sem: &Sem,
    mdp: &Mdp,
    model: &Model,
    refs: &[GlobalVar],
    r: &Rewards,
    exact: bool,
) -> Result<RewardVectors, String> {
    let n = mdp.num_states();
    let mut out = RewardVectors {
        state: vec![0.0; n],
        action: vec![0.0; mdp.num_choices()],
        exact: exact.then(|| (vec![Rat::zero(); n], vec![Rat::zero(); mdp.num_choices()])),
    };
    let mut obs = ObsValues::new(model, refs);
    let actions = model.actions.len();
    for s in 0..n {
        obs.observe(sem, mdp.states.get(s as u32));
        for item in &r.items {
            if eval_f64(&item.guard, &obs.env()) == 0.0 {
                continue;
            }
            let (x, q) = value(model, &obs, &item.value, exact).map_err(|m| {
                let (line, col) = model.source.line_col(item.span.start);
                format!(
                    "{}:{line}:{col}: reward of \"{}\": {m}",
                    model.source.name(),
                    r.name
                )
            })?;
            match item.action {
                None => add(&mut out, true, s, x, q),
                Some(a) => {
                    for c in mdp.choices(s) {
                        if action_of(mdp.choice_label[c], actions) == Some(a) {
                            add(&mut out, false, c, x, q.clone());
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

fn add(out: &mut RewardVectors, state: bool, i: usize, x: f64, q: Option<Rat>) {
    let (f, e) = match (state, &mut out.exact) {
        (true, Some((es, _))) => (&mut out.state, Some(es)),
        (true, None) => (&mut out.state, None),
        (false, Some((_, ea))) => (&mut out.action, Some(ea)),
        (false, None) => (&mut out.action, None),
    };
    f[i] += x;
    if let (Some(e), Some(q)) = (e, q) {
        e[i] += q;
    }
}

/// A reward item's value at the observed state: f64 and (exact) rational.
fn value(
    model: &Model,
    obs: &ObsValues,
    e: &TExpr,
    exact: bool,
) -> Result<(f64, Option<Rat>), String> {
    let q = if exact {
        match eval(e, &obs.exact_env(model)) {
            Ok(Value::Num(q)) => Some(q),
            Ok(other) => return Err(format!("expected a number, found {other}")),
            Err(EvalError { message, .. }) => return Err(message),
        }
    } else {
        None
    };
    let x = match &q {
        Some(q) => num::to_f64(q),
        None => eval_f64(e, &obs.env()),
    };
    if !x.is_finite() || x < 0.0 || q.as_ref().is_some_and(|q| *q < Rat::zero()) {
        return Err(format!(
            "rewards must be finite and at least 0, found {x} at a reachable state"
        ));
    }
    Ok((x, q))
}
