//! The f64 concrete semantics the replays of real-valued traces share
//! ([`super::replay_real`], [`super::replay_named`]): states and moves in
//! f64, the evaluation slots, protocols, first-matching updates matched
//! against the MILP's values, observations with near-ties, and one agent's
//! round (its update and observation). Tolerances: see [`super::replay_real`].

use super::replay_truth::{truth, Truth};
use crate::lang::{eval_f64, num, DeclType, EnvF64, Ty};
use crate::nis::front::model::{
    ExtFn, InitPercept, Model, Observation, ProtocolCase, Template, UpdateCase, VarDecl,
};
use crate::nis::witness::WitnessTree;

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

/// A decoded MILP witness or counterexample of a real-valued model.
pub type RealTree = WitnessTree<RealState, RealMove>;

/// A replayed state and the move that led to it (none at the start).
#[derive(Clone, Debug)]
pub struct RealStep {
    pub state: RealState,
    pub moved: Option<RealMove>,
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

/// Some case with `action` may hold (an undecided guard may).
pub fn enabled(cases: &[ProtocolCase], s: &Slots, action: usize) -> Result<bool, String> {
    for c in cases {
        if c.actions.contains(&action) && truth(&c.guard, s)?.may_hold() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The first case whose guard holds assigns (simultaneously); none: no
/// change. Every outcome an undecided guard allows, in case order: the
/// first certain case ends the list.
pub fn updates(cases: &[UpdateCase], old: &[f64], s: &Slots) -> Result<Vec<Vec<f64>>, String> {
    let mut out = Vec::new();
    for c in cases {
        let t = truth(&c.guard, s)?;
        if t.may_hold() {
            let mut new = old.to_vec();
            for (v, e) in &c.assigns {
                new[*v] = eval_f64(e, s);
            }
            out.push(new);
        }
        if t == Truth::True {
            return Ok(out);
        }
    }
    out.push(old.to_vec());
    Ok(out)
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
            percepts(model, &t.observe, &s, &mut out)?;
        }
    }
    Ok(out)
}

/// Which percepts the observation tree allows (argmax: every output within
/// [`TIE_TOL`] of the maximum).
pub fn percepts(
    model: &Model,
    obs: &Observation,
    s: &Slots,
    out: &mut [bool],
) -> Result<(), String> {
    percepts_within(model, obs, s, out, TIE_TOL)
}

/// [`percepts`] with argmax ties up to `tie` (relative above magnitude 1;
/// 0: the outputs equal to the maximum in f64, the semantics' own rule).
pub fn percepts_within(
    model: &Model,
    obs: &Observation,
    s: &Slots,
    out: &mut [bool],
    tie: f64,
) -> Result<(), String> {
    match obs {
        Observation::If(cond, then, otherwise) => {
            let t = truth(cond, s)?;
            if t.may_hold() {
                percepts_within(model, then, s, out, tie)?;
            }
            if t.may_fail() {
                percepts_within(model, otherwise, s, out, tie)?;
            }
            Ok(())
        }
        Observation::Argmax {
            net,
            inputs,
            percepts: ps,
            ..
        } => {
            let x: Vec<f64> = inputs.iter().map(|a| eval_f64(a, s)).collect();
            let y = model.networks[*net].network.eval(&x);
            let best = y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            for (o, &p) in ps.iter().enumerate() {
                if y[o] >= best - tie * best.abs().max(1.0) {
                    out[p] = true;
                }
            }
            Ok(())
        }
        Observation::Expr(e) => {
            let p = eval_f64(e, s);
            match out.get_mut(p as usize) {
                Some(slot) if p >= 0.0 && p.fract() == 0.0 => {
                    *slot = true;
                    Ok(())
                }
                _ => Err("the observation is not a percept".into()),
            }
        }
    }
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
    let candidates = updates(&t.update, &l.private, &s)?;
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
    percepts(model, &t.observe, &s, &mut possible)?;
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
