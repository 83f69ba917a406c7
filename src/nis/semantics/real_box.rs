//! The semantics of S(n) over boxes (Definitions 4-5 of Kouvaros et al.,
//! IJCAI 2024), the third number domain of the rules ([`super::rules`]):
//! every real variable an interval ([`crate::lang::interval`]), every
//! percept and action a single value. A box state stands for every state
//! whose values lie in its intervals; its successors under a joint move
//! are every outcome an undecided guard allows, each observed percept an
//! output that may be maximal over the box (network bounds by symbolic
//! propagation, [`crate::nn::symbolic_bounds`]). So every concrete
//! successor of every state in the box lies in some box successor: what
//! fails on every box successor fails on every concrete one.
//!
//! What this domain cannot over-approximate soundly is [`Lost`]: an update
//! that may leave its declared range, a protocol that may enable nothing
//! (both errors of the semantics), a value not bounded.

use super::rules::{self, Domain, Truth};
use crate::lang::interval::{eval_iv, EnvIv, Iv};
use crate::lang::{num, DeclType, Span, TExpr, Ty};
use crate::milp::tolerance::{REPLAY_GUARD, REPLAY_TIE};
use crate::nis::front::model::{ExtFn, Model, Observation, ProtocolCase, Template, VarDecl};
use crate::nn::{interval_bounds, symbolic_bounds, InputBox};

/// Why a box has no sound successors here.
#[derive(Clone, Debug, PartialEq)]
pub struct Lost(pub String);

/// An agent's local state over a box: private intervals, one percept.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxLocal {
    pub private: Vec<Iv>,
    pub percept: usize,
}

/// A global state of S(n) over a box (no named agents).
#[derive(Clone, Debug, PartialEq)]
pub struct BoxState {
    pub agents: Vec<BoxLocal>,
    pub env: Vec<Iv>,
}

/// Network output bounds are widened by this much (relative above
/// magnitude 1) for the rounding of f64 propagation.
const NET_SLACK: f64 = 1e-9;

/// Evaluation slots over intervals, laid out as [`super::real::Slots`].
pub struct BoxSlots<'a> {
    pub model: &'a Model,
    pub vals: Vec<Iv>,
    pub performed: Option<&'a [bool]>,
    pub env_action: Option<usize>,
}

impl EnvIv for BoxSlots<'_> {
    fn var(&self, slot: usize) -> Iv {
        self.vals.get(slot).copied().unwrap_or(Iv::ANY)
    }

    fn ext(&self, id: usize, args: &[Iv], types: &[Ty]) -> Iv {
        match &self.model.ext[id] {
            ExtFn::Performed => {
                let Some(a) = args.first().filter(|a| a.is_point()) else {
                    return Iv::EITHER;
                };
                let a = a.lo as usize;
                let own = types.first() == Some(&Ty::Enum(self.model.template.action_enum));
                let done = if own {
                    self.performed.map(|p| p.get(a).copied().unwrap_or(false))
                } else {
                    self.env_action.map(|e| e == a)
                };
                done.map_or(Iv::EITHER, |d| if d { Iv::TRUE } else { Iv::FALSE })
            }
            ExtFn::NetOutput { net, output } => {
                net_bounds(self.model, *net, args, false).map_or(Iv::ANY, |b| b[*output])
            }
            _ => Iv::ANY,
        }
    }

    fn margin(&self) -> f64 {
        REPLAY_GUARD
    }
}

/// The bounds of network `net`'s outputs over the input box `args`
/// (`None` when an input is unbounded): by symbolic propagation, or with
/// `cheap` by intervals (several times faster, looser).
fn net_bounds(model: &Model, net: usize, args: &[Iv], cheap: bool) -> Option<Vec<Iv>> {
    let lo = args.iter().map(|a| a.lo).collect();
    let hi = args.iter().map(|a| a.hi).collect();
    let input = InputBox::new(lo, hi).ok()?;
    let network = &model.networks[net].network;
    let out = match cheap {
        true => interval_bounds(network, &input).output(),
        false => symbolic_bounds(network, &input).output(),
    };
    let slack = |x: f64| NET_SLACK * x.abs().max(1.0);
    let bounds = out.lo.iter().zip(&out.hi);
    Some(
        bounds
            .map(|(&l, &h)| Iv::new(l - slack(l), h + slack(h)))
            .collect(),
    )
}

/// The outputs that may be maximal somewhere over the box (within the
/// replay's tie tolerance): by intervals first, symbolically when more
/// than one may be.
fn maximal(model: &Model, net: usize, args: &[Iv]) -> Option<Vec<bool>> {
    let mut out = None;
    for cheap in [true, false] {
        let b = net_bounds(model, net, args, cheap)?;
        let best_lo = b.iter().map(|x| x.lo).fold(f64::NEG_INFINITY, f64::max);
        let tie = REPLAY_TIE * best_lo.abs().max(1.0);
        let may: Vec<bool> = b.iter().map(|x| x.hi >= best_lo - tie).collect();
        let single = may.iter().filter(|&&m| m).count() == 1;
        out = Some(may);
        if single {
            break;
        }
    }
    out
}

/// The rules over boxes: conditions three-valued, assignments checked
/// against the declared ranges.
struct InBox<'s, 'a>(&'s BoxSlots<'a>);

impl Domain for InBox<'_, '_> {
    type Value = Iv;
    type Error = Lost;

    fn truth(&mut self, e: &TExpr) -> Result<Truth, Lost> {
        Ok(truth(e, self.0))
    }

    fn assign(&mut self, e: &TExpr, var: &VarDecl) -> Result<Iv, Lost> {
        let x = eval_iv(e, self.0);
        within_range(x, var)?;
        Ok(x)
    }

    fn network(&mut self, _: usize, _: &[TExpr], _: Span) -> Result<Vec<f64>, Lost> {
        Err(Lost("networks are observed by `observe` over boxes".into()))
    }

    fn percept(&mut self, _: &TExpr, _: usize) -> Result<usize, Lost> {
        Err(Lost("percepts are observed by `observe` over boxes".into()))
    }
}

/// A condition's truth over the whole box.
pub fn truth(e: &TExpr, s: &BoxSlots) -> Truth {
    match eval_iv(e, s).decided() {
        Some(b) => Truth::of(b),
        None => Truth::Either,
    }
}

/// `x` lies in `var`'s declared range at every point (within the replay's
/// tolerance), else [`Lost`]: the semantics would fail on some point.
fn within_range(x: Iv, var: &VarDecl) -> Result<(), Lost> {
    let (lo, hi) = match &var.ty {
        DeclType::Int { lo, hi } | DeclType::Real { lo, hi } => (lo, hi),
        _ => return Ok(()),
    };
    let inside = lo.as_ref().is_none_or(|l| x.lo >= num::to_f64(l))
        && hi.as_ref().is_none_or(|h| x.hi <= num::to_f64(h));
    if inside && !x.lo.is_nan() {
        return Ok(());
    }
    Err(Lost(format!("`{}` may leave its declared range", var.name)))
}

/// The agent slots (private, percept, action, environment action,
/// environment; unreadable ones unbounded).
pub fn agent_vals(
    l: &BoxLocal,
    action: Option<usize>,
    ea: Option<usize>,
    env: Option<&[Iv]>,
    model: &Model,
) -> Vec<Iv> {
    let at = |x: Option<usize>| x.map_or(Iv::ANY, |a| Iv::point(a as f64));
    let mut v = l.private.clone();
    v.push(Iv::point(l.percept as f64));
    v.push(at(action));
    v.push(at(ea));
    match env {
        Some(e) => v.extend_from_slice(e),
        None => v.extend(std::iter::repeat_n(Iv::ANY, model.env.vars.len())),
    }
    v
}

/// The environment slots (its variables, its action).
pub fn env_vals(env: &[Iv], action: Option<usize>) -> Vec<Iv> {
    let mut v = env.to_vec();
    v.push(action.map_or(Iv::ANY, |a| Iv::point(a as f64)));
    v
}

fn slots<'a>(model: &'a Model, vals: Vec<Iv>) -> BoxSlots<'a> {
    BoxSlots {
        model,
        vals,
        performed: None,
        env_action: None,
    }
}

/// The actions a protocol may enable; [`Lost`] when no case surely holds
/// (some state of the box might have none, an error of the semantics).
pub fn enabled(cases: &[ProtocolCase], s: &BoxSlots, count: usize) -> Result<Vec<usize>, Lost> {
    if !cases.iter().any(|c| truth(&c.guard, s) == Truth::True) {
        return Err(Lost("a protocol may enable no action".into()));
    }
    let mut out = vec![false; count];
    rules::protocol(&mut InBox(s), cases, &mut out)?;
    Ok((0..count).filter(|&a| out[a]).collect())
}

/// The actions enabled at every state of the box, for the environment and
/// then each agent: those of a case whose guard surely holds.
pub fn surely_enabled(model: &Model, s: &BoxState) -> Result<Vec<Vec<usize>>, Lost> {
    let sure = |cases: &[ProtocolCase], at: &BoxSlots| -> Vec<usize> {
        let mut out: Vec<usize> = cases
            .iter()
            .filter(|c| truth(&c.guard, at) == Truth::True)
            .flat_map(|c| c.actions.iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    };
    let mut out = vec![sure(
        &model.env.protocol,
        &slots(model, env_vals(&s.env, None)),
    )];
    for l in &s.agents {
        let at = slots(model, agent_vals(l, None, None, None, model));
        out.push(sure(&model.template.protocol, &at));
    }
    Ok(out)
}

/// Every percept the observation may give at some point of the box.
pub fn observe(obs: &Observation, s: &BoxSlots, out: &mut [bool]) -> Result<(), Lost> {
    match obs {
        Observation::If(c, then, otherwise) => {
            let t = truth(c, s);
            if t.may_hold() {
                observe(then, s, out)?;
            }
            if t.may_fail() {
                observe(otherwise, s, out)?;
            }
        }
        Observation::Argmax {
            net,
            inputs,
            percepts,
            ..
        } => {
            let args: Vec<Iv> = inputs.iter().map(|e| eval_iv(e, s)).collect();
            match maximal(s.model, *net, &args) {
                Some(may) => may.iter().zip(percepts).for_each(|(&m, &p)| out[p] |= m),
                None => percepts.iter().for_each(|&p| out[p] = true),
            }
        }
        Observation::Expr(e) => {
            let x = eval_iv(e, s);
            let (lo, hi) = (x.lo.ceil(), x.hi.floor());
            let known = x.lo >= 0.0 && x.hi < out.len() as f64;
            if !known || lo > hi {
                out.iter_mut().for_each(|p| *p = true);
                return Ok(());
            }
            (lo as usize..=hi as usize).for_each(|p| out[p] = true);
        }
    }
    Ok(())
}

/// The percepts an agent of template `t` may observe at private `private`
/// and environment `env` (its old percept readable).
pub fn percepts(model: &Model, t: &Template, l: &BoxLocal, env: &[Iv]) -> Result<Vec<usize>, Lost> {
    let s = slots(model, agent_vals(l, None, None, Some(env), model));
    let mut out = vec![false; t.percepts.len()];
    observe(&t.observe, &s, &mut out)?;
    Ok((0..out.len()).filter(|&p| out[p]).collect())
}

/// The choices of one round: the environment's actions, then each agent's.
pub fn choices(model: &Model, s: &BoxState) -> Result<Vec<Vec<usize>>, Lost> {
    let e = &model.env;
    let at = slots(model, env_vals(&s.env, None));
    let mut out = vec![enabled(&e.protocol, &at, e.actions.len())?];
    let t = &model.template;
    for l in &s.agents {
        let at = slots(model, agent_vals(l, None, None, None, model));
        out.push(enabled(&t.protocol, &at, t.actions.len())?);
    }
    Ok(out)
}

/// Every box successor of `s` under the joint move `env_action`, `actions`
/// (Definition 5): each outcome of the environment's update, each agent's,
/// and each percept each agent may then observe.
pub fn successors(
    model: &Model,
    s: &BoxState,
    env_action: usize,
    actions: &[usize],
) -> Result<Vec<BoxState>, Lost> {
    let t = &model.template;
    let mut performed = vec![false; t.actions.len()];
    actions.iter().for_each(|&a| performed[a] = true);
    let mut at = slots(model, env_vals(&s.env, Some(env_action)));
    at.performed = Some(&performed);
    at.env_action = Some(env_action);
    let envs = rules::update(&mut InBox(&at), &model.env.update, &model.env.vars, &s.env)?;
    let mut privates = Vec::with_capacity(s.agents.len());
    for (l, &a) in s.agents.iter().zip(actions) {
        let mut at = slots(model, agent_vals(l, Some(a), Some(env_action), None, model));
        at.performed = Some(&performed);
        at.env_action = Some(env_action);
        privates.push(rules::update(
            &mut InBox(&at),
            &t.update,
            &t.vars,
            &l.private,
        )?);
    }
    let mut out = Vec::new();
    for env in envs {
        let mut partial = vec![Vec::new()];
        for (l, options) in s.agents.iter().zip(&privates) {
            let mut next = Vec::new();
            for private in options {
                let inter = BoxLocal {
                    private: private.clone(),
                    percept: l.percept,
                };
                for p in percepts(model, t, &inter, &env)? {
                    for agents in &partial {
                        let mut agents: Vec<BoxLocal> = agents.clone();
                        agents.push(BoxLocal {
                            private: private.clone(),
                            percept: p,
                        });
                        next.push(agents);
                    }
                }
            }
            partial = next;
        }
        out.extend(partial.into_iter().map(|agents| BoxState {
            agents,
            env: env.clone(),
        }));
    }
    Ok(out)
}
