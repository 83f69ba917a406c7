//! Replay of MILP traces of real-valued models through an f64 implementation
//! of the concrete semantics (Definitions 4-6 of Kouvaros et al., IJCAI 2024).
//!
//! The finite semantics ([`super::semantics`]) numbers local states and
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
//! either way ([`super::replay_truth`]): a protocol case may enable, an
//! update case may fire or not (the MILP's successor must match one of the
//! outcomes), and both branches of such an `if` may be observed.

use super::replay_truth::{truth, Truth};
use crate::lang::{eval_f64, num, DeclType, EnvF64, Ty};
use crate::nis::front::model::{
    ExtFn, InitPercept, InitSpec, Model, Observation, ProtocolCase, UpdateCase, VarDecl,
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

/// A global state of S(n) (Definition 4) in f64.
#[derive(Clone, Debug, PartialEq)]
pub struct RealState {
    pub agents: Vec<RealLocal>,
    pub env: Vec<f64>,
}

/// A joint action (Definition 5): every agent's action and the environment's.
#[derive(Clone, Debug, PartialEq)]
pub struct RealMove {
    pub actions: Vec<usize>,
    pub env_action: usize,
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
struct Slots<'a> {
    model: &'a Model,
    vals: Vec<f64>,
    performed: Option<&'a [bool]>,
    env_action: Option<usize>,
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

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= VALUE_TOL * b.abs().max(1.0)
}

/// The agent slots of [`crate::nis::front::model::AgentSlots`]; unreadable ones NaN.
fn agent_vals(
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
fn enabled(cases: &[ProtocolCase], s: &Slots, action: usize) -> Result<bool, String> {
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
fn updates(cases: &[UpdateCase], old: &[f64], s: &Slots) -> Result<Vec<Vec<f64>>, String> {
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
fn matching(
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
fn initial_percepts(model: &Model, init: &[f64], env: &[f64]) -> Result<Vec<bool>, String> {
    let t = &model.template;
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
fn percepts(model: &Model, obs: &Observation, s: &Slots, out: &mut [bool]) -> Result<(), String> {
    match obs {
        Observation::If(cond, then, otherwise) => {
            let t = truth(cond, s)?;
            if t.may_hold() {
                percepts(model, then, s, out)?;
            }
            if t.may_fail() {
                percepts(model, otherwise, s, out)?;
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
                if y[o] >= best - TIE_TOL * best.abs().max(1.0) {
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
    let t = &model.template;
    let init: Vec<f64> = t.init.iter().map(|v| v.to_f64()).collect();
    initial_env(model, &tree.state.env)?;
    let starts = initial_percepts(model, &init, &tree.state.env)?;
    for (i, a) in tree.state.agents.iter().enumerate() {
        if !starts.get(a.percept).copied().unwrap_or(false)
            || a.private.iter().zip(&init).any(|(x, y)| !close(*x, *y))
        {
            return Err(format!(
                "agent {} does not start at the initial local state",
                i + 1
            ));
        }
    }
    let root = RealState {
        agents: tree
            .state
            .agents
            .iter()
            .map(|a| RealLocal {
                private: init.clone(),
                percept: a.percept,
            })
            .collect(),
        env: tree.state.env.clone(),
    };
    let mut prefix = vec![RealStep {
        state: root,
        moved: None,
    }];
    let mut out = Vec::new();
    node(model, tree, &mut prefix, &mut out)?;
    Ok(out)
}

fn node(
    model: &Model,
    tree: &RealTree,
    prefix: &mut Vec<RealStep>,
    out: &mut Vec<Vec<RealStep>>,
) -> Result<(), String> {
    let here = prefix.last().expect("non-empty prefix").state.clone();
    for &(label, agent, negated) in &tree.obligations {
        let vals = match agent {
            Some(a) => agent_vals(&here.agents[a], None, None, None, model),
            None => here.env.iter().copied().chain([f64::NAN]).collect(),
        };
        let s = Slots {
            model,
            vals,
            performed: None,
            env_action: None,
        };
        let t = truth(&model.labels[label].expr, &s)?;
        if !(if negated { t.may_fail() } else { t.may_hold() }) {
            let name = &model.labels[label].name;
            return Err(format!(
                "step {}: literal {}{} fails on the replayed state",
                prefix.len() - 1,
                if negated { "!" } else { "" },
                match agent {
                    Some(a) => format!("({name}, {})", a + 1),
                    None => name.clone(),
                }
            ));
        }
    }
    if tree.children.is_empty() {
        out.push(prefix.clone());
    }
    for (mv, child) in &tree.children {
        let next = step(model, &here, mv, &child.state)
            .map_err(|e| format!("step {}: {e}", prefix.len()))?;
        prefix.push(RealStep {
            state: next,
            moved: Some(mv.clone()),
        });
        let r = node(model, child, prefix, out);
        prefix.pop();
        r?;
    }
    Ok(())
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
    let env = env_update(model, from, mv, &performed, &claimed.env)?;
    let mut agents = Vec::with_capacity(from.agents.len());
    for (j, l) in from.agents.iter().enumerate() {
        let round = AgentRound {
            agent: j,
            action: mv.actions[j],
            env_action: mv.env_action,
            performed: &performed,
        };
        agents.push(agent_update(model, l, &round, &env, &claimed.agents[j])?);
    }
    Ok(RealState { agents, env })
}

/// Checks every action of `mv` against its protocol at `from`; the set of
/// actions performed.
fn performed(model: &Model, from: &RealState, mv: &RealMove) -> Result<Vec<bool>, String> {
    let (t, e) = (&model.template, &model.env);
    let mut env_vals = from.env.clone();
    env_vals.push(f64::NAN);
    let s = Slots {
        model,
        vals: env_vals,
        performed: None,
        env_action: None,
    };
    if mv.env_action >= e.actions.len() || !enabled(&e.protocol, &s, mv.env_action)? {
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
        if a >= t.actions.len() || !enabled(&t.protocol, &s, a)? {
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
    let mut vals = from.env.clone();
    vals.push(mv.env_action as f64);
    let s = Slots {
        model,
        vals,
        performed: Some(performed),
        env_action: Some(mv.env_action),
    };
    let candidates = updates(&e.update, &from.env, &s)?;
    matching(candidates, claimed, &e.vars, "the environment's")
}

/// What one agent's update reads besides its local state.
struct AgentRound<'a> {
    /// 0-based.
    agent: usize,
    action: usize,
    env_action: usize,
    performed: &'a [bool],
}

/// An agent's update (Definition 1's tr_t) and the percept it observes at
/// the new private state and environment `env`, matched against the MILP's
/// `claimed` local state.
fn agent_update(
    model: &Model,
    l: &RealLocal,
    round: &AgentRound,
    env: &[f64],
    claimed: &RealLocal,
) -> Result<RealLocal, String> {
    let t = &model.template;
    let j = round.agent;
    let vals = agent_vals(l, Some(round.action), Some(round.env_action), None, model);
    let s = Slots {
        model,
        vals,
        performed: Some(round.performed),
        env_action: Some(round.env_action),
    };
    let candidates = updates(&t.update, &l.private, &s)?;
    let private = matching(
        candidates,
        &claimed.private,
        &t.vars,
        &format!("agent {}'s", j + 1),
    )?;
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
            "agent {} cannot observe `{}` at the replayed state",
            j + 1,
            t.percepts.get(claimed.percept).map_or("?", String::as_str)
        ));
    }
    Ok(RealLocal {
        private: inter.private,
        percept: claimed.percept,
    })
}
