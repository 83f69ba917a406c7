//! Forward simulation of S(n) in f64 (Definitions 4-5 of Kouvaros et al.,
//! IJCAI 2024), for the falsifier of the MILP deciders
//! ([`crate::nis::encode`]'s `falsify`): the successors of a state are
//! computed, where the replay ([`crate::nis::witness::replay::real`])
//! matches the MILP's.
//!
//! The simulation is *strict*: a condition within the replay's tolerance of
//! its border ([`Truth::Either`]), an argmax whose near-tie is not an exact
//! tie in f64, an update leaving its declared range or a NaN makes the
//! successor [`Unsure`] and it is dropped. So every run it produces takes
//! decided branches only: the replay accepts it, and so would exact
//! arithmetic. Dropping runs only loses counterexamples (the MILP decides
//! what the falsifier does not find).

use super::real::{agent_vals, RealLocal, RealMove, RealState, Slots, TIE_TOL};
use super::real_named::env_vals;
use super::real_truth::truth;
use super::rules::{self, Domain, Truth};
use crate::lang::{eval_f64, num, DeclType, Span, TExpr};
use crate::nis::front::model::{InitPercept, Model, Observation, ProtocolCase, Template};
use crate::nis::front::model::{UpdateCase, VarDecl};

/// Why a successor was dropped (a condition near its border, a near-tie).
#[derive(Clone, Debug, PartialEq)]
pub struct Unsure(pub String);

/// The f64 domain of the rules with every condition decided: a condition
/// within tolerance of its border is [`Unsure`].
struct Strict<'s, 'a>(&'s Slots<'a>);

impl Domain for Strict<'_, '_> {
    type Value = f64;
    type Error = Unsure;

    fn truth(&mut self, e: &TExpr) -> Result<Truth, Unsure> {
        match truth(e, self.0).map_err(Unsure)? {
            Truth::Either => Err(Unsure("a condition is at its border".into())),
            t => Ok(t),
        }
    }

    fn assign(&mut self, e: &TExpr, var: &VarDecl) -> Result<f64, Unsure> {
        let x = eval_f64(e, self.0);
        let (lo, hi) = match &var.ty {
            DeclType::Int { lo, hi } | DeclType::Real { lo, hi } => (lo.clone(), hi.clone()),
            _ => (None, None),
        };
        let below = lo.is_some_and(|l| x < num::to_f64(&l));
        let above = hi.is_some_and(|h| x > num::to_f64(&h));
        if x.is_nan() || below || above {
            return Err(Unsure(format!("`{}` leaves its declared range", var.name)));
        }
        Ok(x)
    }

    fn network(&mut self, net: usize, inputs: &[TExpr], _: Span) -> Result<Vec<f64>, Unsure> {
        let x: Vec<f64> = inputs.iter().map(|a| eval_f64(a, self.0)).collect();
        Ok(self.0.model.networks[net].network.eval(&x))
    }

    fn percept(&mut self, e: &TExpr, count: usize) -> Result<usize, Unsure> {
        let p = eval_f64(e, self.0);
        if p >= 0.0 && p.fract() == 0.0 && (p as usize) < count {
            Ok(p as usize)
        } else {
            Err(Unsure("the observation is not a percept".into()))
        }
    }
}

/// The slots of one evaluation.
fn slots<'a>(model: &'a Model, vals: Vec<f64>, performed: Option<&'a [bool]>) -> Slots<'a> {
    Slots {
        model,
        vals,
        performed,
        env_action: None,
    }
}

/// A condition's decided truth at `s` (a label, `init COND`).
pub fn decided(e: &TExpr, s: &Slots) -> Result<bool, Unsure> {
    Ok(Strict(s).truth(e)? == Truth::True)
}

/// The actions the protocol enables at `s`, every guard decided.
pub fn enabled(cases: &[ProtocolCase], s: &Slots, count: usize) -> Result<Vec<usize>, Unsure> {
    let mut out = vec![false; count];
    rules::protocol(&mut Strict(s), cases, &mut out)?;
    Ok((0..count).filter(|&a| out[a]).collect())
}

/// The update's one outcome (the first case whose guard holds).
pub fn update(
    cases: &[UpdateCase],
    vars: &[VarDecl],
    old: &[f64],
    s: &Slots,
) -> Result<Vec<f64>, Unsure> {
    let mut outs = rules::update(&mut Strict(s), cases, vars, old)?;
    Ok(outs.swap_remove(0))
}

/// The percepts the observation gives at `s`: the exact f64 argmax (every
/// output equal to the maximum); a near-tie the replay would accept but f64
/// does not make is [`Unsure`].
pub fn percepts(obs: &Observation, s: &Slots, count: usize) -> Result<Vec<usize>, Unsure> {
    let (mut exact, mut near) = (vec![false; count], vec![false; count]);
    rules::observe(&mut Strict(s), obs, 0.0, &mut exact)?;
    rules::observe(&mut Strict(s), obs, TIE_TOL, &mut near)?;
    if exact != near {
        return Err(Unsure("an argmax near-tie".into()));
    }
    Ok((0..count).filter(|&p| exact[p]).collect())
}

/// The first percepts an agent of template `t` may start with at `env`.
pub fn initial_percepts(model: &Model, t: &Template, env: &[f64]) -> Result<Vec<usize>, Unsure> {
    match t.init_percept {
        InitPercept::Given(p) => Ok(vec![p]),
        InitPercept::Observed => {
            let local = initial_local(t, 0);
            let s = slots(
                model,
                agent_vals(&local, None, None, Some(env), model),
                None,
            );
            percepts(&t.observe, &s, t.percepts.len())
        }
    }
}

/// iota_t's private state with percept `percept`.
pub fn initial_local(t: &Template, percept: usize) -> RealLocal {
    RealLocal {
        private: t.init.iter().map(|v| v.to_f64()).collect(),
        percept,
    }
}

/// Whether `env` passes the model's `init COND` (decided).
pub fn initial_env_passes(model: &Model, env: &[f64]) -> Result<bool, Unsure> {
    let Some(f) = &model.env.init_filter else {
        return Ok(true);
    };
    let mut vals = env.to_vec();
    vals.push(f64::NAN);
    decided(f, &slots(model, vals, None))
}

/// Every template the joint move chooses for: the n agents', then the named agents'.
fn templates(model: &Model, n: usize) -> Vec<&Template> {
    let named = model.named.iter().map(|a| &a.template);
    std::iter::repeat_n(&model.template, n)
        .chain(named)
        .collect()
}

/// The choices of one round at `s`: the environment's enabled actions, then
/// each agent's (the n agents, then the named ones).
pub fn choices(model: &Model, s: &RealState) -> Result<Vec<Vec<usize>>, Unsure> {
    let e = &model.env;
    let env = slots(model, env_vals(s, None, None), None);
    let mut out = vec![enabled(&e.protocol, &env, e.actions.len())?];
    let locals = s.agents.iter().chain(&s.named);
    for (t, l) in templates(model, s.agents.len()).into_iter().zip(locals) {
        let at = slots(model, agent_vals(l, None, None, None, model), None);
        out.push(enabled(&t.protocol, &at, t.actions.len())?);
    }
    Ok(out)
}

/// The joint move that picks `pick[i]` of `choices[i]`.
pub fn joint_move(choices: &[Vec<usize>], pick: &[usize], n: usize) -> RealMove {
    let chosen: Vec<usize> = choices.iter().zip(pick).map(|(c, &i)| c[i]).collect();
    RealMove {
        env_action: chosen[0],
        actions: chosen[1..=n].to_vec(),
        named: chosen[n + 1..].to_vec(),
    }
}

/// An agent after its update: its new private state and the percepts it may observe.
pub type Updated = (Vec<f64>, Vec<usize>);

/// One synchronous round (Definition 5) from `s` under `mv`: the new
/// environment, and per agent (the n, then the named) its new private
/// state with the percepts it may observe.
pub fn round(
    model: &Model,
    s: &RealState,
    mv: &RealMove,
) -> Result<(Vec<f64>, Vec<Updated>), Unsure> {
    let mut performed = vec![false; model.template.actions.len()];
    for &a in &mv.actions {
        performed[a] = true;
    }
    let e = &model.env;
    let mut at = slots(
        model,
        env_vals(s, Some(mv.env_action), Some(&mv.named)),
        None,
    );
    at.performed = Some(&performed);
    at.env_action = Some(mv.env_action);
    let env = update(&e.update, &e.vars, &s.env, &at)?;
    let locals = s.agents.iter().chain(&s.named);
    let actions = mv.actions.iter().chain(&mv.named);
    let mut agents = Vec::new();
    for ((t, l), &a) in templates(model, s.agents.len())
        .into_iter()
        .zip(locals)
        .zip(actions)
    {
        let vals = agent_vals(l, Some(a), Some(mv.env_action), None, model);
        let mut at = slots(model, vals, Some(&performed));
        at.env_action = Some(mv.env_action);
        let private = update(&t.update, &t.vars, &l.private, &at)?;
        let inter = RealLocal {
            private,
            percept: l.percept,
        };
        let seen = slots(
            model,
            agent_vals(&inter, None, None, Some(&env), model),
            None,
        );
        let ps = percepts(&t.observe, &seen, t.percepts.len())?;
        agents.push((inter.private, ps));
    }
    Ok((env, agents))
}

/// The successor of a [`round`] in which agent i observes `pick[i]` of its percepts.
pub fn successor(env: &[f64], agents: &[Updated], pick: &[usize], n: usize) -> RealState {
    let local = |(i, (private, ps)): (usize, &Updated)| RealLocal {
        private: private.clone(),
        percept: ps[pick[i]],
    };
    let all: Vec<RealLocal> = agents.iter().enumerate().map(local).collect();
    RealState {
        agents: all[..n].to_vec(),
        env: env.to_vec(),
        named: all[n..].to_vec(),
    }
}
