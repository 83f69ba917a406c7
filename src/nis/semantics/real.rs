//! The f64 concrete semantics the replays of real-valued traces share
//! ([`crate::nis::witness::replay::real`], [`super::real_named`]): states and moves in
//! f64, the evaluation slots, protocols, first-matching updates matched
//! against the MILP's values, observations with near-ties, and one agent's
//! round (its update and observation). Tolerances: see [`crate::nis::witness::replay::real`].

use super::real_truth::truth;
use super::rules::{self, Domain, Truth};
use crate::lang::{eval_f64, num, DeclType, EnvF64, Span, TExpr, Ty};
use crate::nis::front::model::{
    ExtFn, InitPercept, Model, Observation, ProtocolCase, Template, UpdateCase, VarDecl,
};

/// Largest accepted difference between a replayed value and the MILP's
/// (relative above magnitude 1).
pub const VALUE_TOL: f64 = crate::milp::tolerance::REPLAY_VALUE;
/// A percept whose network output is this close to the maximum counts as maximal.
pub const TIE_TOL: f64 = crate::milp::tolerance::REPLAY_TIE;

/// One agent's local state in f64: private values and the percept index.
#[derive(Clone, Debug, PartialEq)]
pub struct RealLocal {
    pub private: Vec<f64>,
    pub percept: usize,
}

/// A global state of S(n) (Definition 4) in f64; the named agents' local
/// states are part of the environment's (empty without named agents).
#[derive(Clone, Debug, PartialEq)]
pub struct RealState {
    pub agents: Vec<RealLocal>,
    pub env: Vec<f64>,
    pub named: Vec<RealLocal>,
}

/// A joint action (Definition 5): every agent's action and the
/// environment's, with each named agent's (part of the environment's).
#[derive(Clone, Debug, PartialEq)]
pub struct RealMove {
    pub actions: Vec<usize>,
    pub env_action: usize,
    pub named: Vec<usize>,
}

/// Evaluation slots plus what `performed` and scalar network outputs need.
pub struct Slots<'a> {
    pub model: &'a Model,
    pub vals: Vec<f64>,
    pub performed: Option<&'a [bool]>,
    pub env_action: Option<usize>,
}

impl EnvF64 for Slots<'_> {
    fn var(&self, slot: usize) -> f64 {
        self.vals.get(slot).copied().unwrap_or(f64::NAN)
    }

    fn ext_typed(&self, id: usize, args: &[f64], types: &[Ty]) -> f64 {
        let b = |x: bool| f64::from(u8::from(x));
        match &self.model.ext[id] {
            ExtFn::Performed => {
                let a = args.first().copied().unwrap_or(f64::NAN) as usize;
                if types.first() == Some(&Ty::Enum(self.model.template.action_enum)) {
                    self.performed
                        .map_or(f64::NAN, |p| b(p.get(a).copied().unwrap_or(false)))
                } else {
                    self.env_action.map_or(f64::NAN, |e| b(e == a))
                }
            }
            ExtFn::NetOutput { net, output } => {
                self.model.networks[*net].network.eval(args)[*output]
            }
            _ => f64::NAN,
        }
    }
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= VALUE_TOL * b.abs().max(1.0)
}

/// The agent slots of [`crate::nis::front::model::AgentSlots`]; unreadable ones NaN.
pub fn agent_vals(
    l: &RealLocal,
    action: Option<usize>,
    ea: Option<usize>,
    env: Option<&[f64]>,
    model: &Model,
) -> Vec<f64> {
    let mut v = l.private.clone();
    v.push(l.percept as f64);
    v.push(action.map_or(f64::NAN, |a| a as f64));
    v.push(ea.map_or(f64::NAN, |a| a as f64));
    match env {
        Some(e) => v.extend_from_slice(e),
        None => v.extend(std::iter::repeat_n(f64::NAN, model.env.vars.len())),
    }
    v
}

/// The f64 domain of the rules ([`rules`]) at one state: a condition near
/// its border may go either way ([`truth`]), values and networks in f64.
impl Domain for &Slots<'_> {
    type Value = f64;
    type Error = String;

    fn truth(&mut self, e: &TExpr) -> Result<Truth, String> {
        truth(e, *self)
    }

    /// Unchecked here: the replay checks the declared ranges when it
    /// matches the outcomes against the MILP's ([`matching`]).
    fn assign(&mut self, e: &TExpr, _var: &VarDecl) -> Result<f64, String> {
        Ok(eval_f64(e, *self))
    }

    fn network(&mut self, net: usize, inputs: &[TExpr], _span: Span) -> Result<Vec<f64>, String> {
        let x: Vec<f64> = inputs.iter().map(|a| eval_f64(a, *self)).collect();
        Ok(self.model.networks[net].network.eval(&x))
    }

    fn percept(&mut self, e: &TExpr, count: usize) -> Result<usize, String> {
        let p = eval_f64(e, *self);
        if p >= 0.0 && p.fract() == 0.0 && (p as usize) < count {
            Ok(p as usize)
        } else {
            Err("the observation is not a percept".into())
        }
    }
}

/// The actions (of `count`) some case may enable at `s` ([`rules::protocol`]).
pub fn enabled(cases: &[ProtocolCase], s: &Slots, count: usize) -> Result<Vec<bool>, String> {
    let mut out = vec![false; count];
    rules::protocol(&mut &*s, cases, &mut out)?;
    Ok(out)
}

/// Every outcome of an update an undecided guard allows ([`rules::update`]).
pub fn updates(
    cases: &[UpdateCase],
    decls: &[VarDecl],
    old: &[f64],
    s: &Slots,
) -> Result<Vec<Vec<f64>>, String> {
    rules::update(&mut &*s, cases, decls, old)
}

/// The outcome of an update the MILP's successor `claimed` took: the first
/// candidate inside the declared ranges and within [`VALUE_TOL`] of
/// `claimed`; otherwise why the first candidate fails. `who` names the
/// owner in messages ("the environment's", "agent 2's").
pub fn matching(
    candidates: Vec<Vec<f64>>,
    claimed: &[f64],
    decls: &[VarDecl],
    who: &str,
) -> Result<Vec<f64>, String> {
    let check = |new: &[f64]| -> Result<(), String> {
        for ((v, &x), &y) in decls.iter().zip(new).zip(claimed) {
            if !in_range(&v.ty, x) {
                return Err(format!(
                    "{who} `{}` = {x} leaves its declared range",
                    v.name
                ));
            }
            if !close(y, x) {
                return Err(format!("{who} `{}` is {x}, the MILP says {y}", v.name));
            }
        }
        Ok(())
    };
    let mut first = None;
    for new in candidates {
        match check(&new) {
            Ok(()) => return Ok(new),
            Err(why) => {
                first.get_or_insert(why);
            }
        }
    }
    Err(first.unwrap_or_else(|| format!("{who} update has no outcome")))
}

/// The percepts an agent may start with (Definition 1's iota_t): the given
/// one, or those obs_t allows at the initial private state and `env`.
pub fn initial_percepts(
    model: &Model,
    t: &Template,
    init: &[f64],
    env: &[f64],
) -> Result<Vec<bool>, String> {
    let mut out = vec![false; t.percepts.len()];
    match t.init_percept {
        InitPercept::Given(p) => out[p] = true,
        InitPercept::Observed => {
            let local = RealLocal {
                private: init.to_vec(),
                percept: 0,
            };
            let s = Slots {
                model,
                vals: agent_vals(&local, None, None, Some(env), model),
                performed: None,
                env_action: None,
            };
            percepts(&t.observe, &s, &mut out)?;
        }
    }
    Ok(out)
}

/// Which percepts the observation tree allows (argmax: every output within
/// [`TIE_TOL`] of the maximum).
pub fn percepts(obs: &Observation, s: &Slots, out: &mut [bool]) -> Result<(), String> {
    percepts_within(obs, s, out, TIE_TOL)
}

/// [`percepts`] with argmax ties up to `tie` (relative above magnitude 1;
/// 0: the outputs equal to the maximum in f64, the semantics' own rule;
/// [`rules::observe`]).
pub fn percepts_within(
    obs: &Observation,
    s: &Slots,
    out: &mut [bool],
    tie: f64,
) -> Result<(), String> {
    rules::observe(&mut &*s, obs, tie, out)
}

fn in_range(ty: &DeclType, x: f64) -> bool {
    let (lo, hi) = match ty {
        DeclType::Int { lo, hi } | DeclType::Real { lo, hi } => (lo, hi),
        _ => return true,
    };
    let tol = VALUE_TOL * x.abs().max(1.0);
    lo.as_ref().is_none_or(|l| x >= num::to_f64(l) - tol)
        && hi.as_ref().is_none_or(|h| x <= num::to_f64(h) + tol)
}

/// What one agent's update reads besides its local state.
pub struct AgentRound<'a> {
    /// The agent in messages ("agent 2", "ownship").
    pub who: String,
    pub action: usize,
    pub env_action: usize,
    pub performed: &'a [bool],
}

/// An agent's update (Definition 1's tr_t) and the percept it observes at
/// the new private state and environment `env`, matched against the MILP's
/// `claimed` local state.
pub fn agent_update(
    model: &Model,
    t: &Template,
    l: &RealLocal,
    round: &AgentRound,
    env: &[f64],
    claimed: &RealLocal,
) -> Result<RealLocal, String> {
    let who = &round.who;
    let vals = agent_vals(l, Some(round.action), Some(round.env_action), None, model);
    let s = Slots {
        model,
        vals,
        performed: Some(round.performed),
        env_action: Some(round.env_action),
    };
    let candidates = updates(&t.update, &t.vars, &l.private, &s)?;
    let private = matching(candidates, &claimed.private, &t.vars, &format!("{who}'s"))?;
    // Observation of the new private state (old percept) and the new environment.
    let inter = RealLocal {
        private,
        percept: l.percept,
    };
    let s = Slots {
        model,
        vals: agent_vals(&inter, None, None, Some(env), model),
        performed: None,
        env_action: None,
    };
    let mut possible = vec![false; t.percepts.len()];
    percepts(&t.observe, &s, &mut possible)?;
    if !possible.get(claimed.percept).copied().unwrap_or(false) {
        return Err(format!(
            "{who} cannot observe `{}` at the replayed state",
            t.percepts.get(claimed.percept).map_or("?", String::as_str)
        ));
    }
    Ok(RealLocal {
        private: inter.private,
        percept: claimed.percept,
    })
}
