//! The two semantics of the seed on the same states `(l, c, v)`.
//!
//! * Plain discrete time (seed, Section 2): fire a transition when
//!   `a <= c_i <= b` (and its guard holds), reset an agent at its final
//!   locality when `c_i = E_i`, let one time unit pass when every agent can
//!   still act later.
//! * Accelerated (seed, Section 4, "action zones"): instead of unit ticks,
//!   jump by `delta` to the end of the next maximal (non-dominated) action
//!   zone; no jump when no lower bound lies ahead within `B` (forced firing,
//!   in particular when `B = 0`).
//!
//! The extraction lost the formulas of `B_i`, `a`, `alpha`, `beta` and
//! `delta`; the ones used here: `B_i` = deadline of agent i's locality minus
//! `c_i`; `B = min_i B_i`; the a-points are the future (strictly positive)
//! offsets `a - c_i` (and `E_i - c_i` at a final locality) not beyond `B`,
//! `a` their minimum (0 if none); the b-points are the non-negative offsets
//! `b - c_i` (and `E_i - c_i`); `delta` is the first b-point at or after `a`.
//! Guards do not take part in the timing (they only disable firings).
//!
//! General models (deadlines that decrease along a path): the seed relies on
//! its Constraints 1.3-1.4 so that "whatever the time jumps performed in the
//! previous state, the first maximal zone is the same" after a firing. When a
//! locality `l'` has a transition ending before a transition entering it may
//! arrive, a jump to the end of the current zone can pass that end and lose
//! the firings that enter `l'` early. The jump therefore also stops at the
//! upper bounds of the transitions of the localities reachable from each
//! agent's locality ([`crate::timed::front::model::Agent::downstream_cuts`]): no jump
//! passes a deadline the agent could still meet after firing, so firing at
//! the end of the zone is again as good as firing anywhere in it.

pub mod trace;

use crate::lang::{eval, Env, Value};
use crate::report::RunError;
use crate::timed::front::model::{Model, StateScope};

/// A state `(l, c, v)` of the seed, plus the global time when a horizon
/// is set (without a horizon the time is kept at 0 so that states merge).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    pub locs: Vec<u32>,
    pub clocks: Vec<u64>,
    pub vars: Vec<Value>,
    pub time: u64,
}

/// One state change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Fire {
        agent: usize,
        transition: usize,
    },
    Reset {
        agent: usize,
    },
    /// Time passes by this many units (1 in the plain semantics).
    Delay(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemanticsKind {
    Plain,
    Accelerated,
}

/// The transition relation of a model under one semantics, bounded by an optional horizon.
pub struct Semantics<'m> {
    pub model: &'m Model,
    pub kind: SemanticsKind,
    /// Global time bound: no time passes beyond it.
    pub horizon: Option<u64>,
}

/// Reads queries' and heuristics' slots (see [`StateScope`]) from a state.
pub struct StateEnv<'a> {
    pub model: &'a Model,
    pub state: &'a State,
}

impl Env for StateEnv<'_> {
    fn var(&self, slot: usize) -> Value {
        let m = self.model;
        let nv = m.vars.len();
        let na = m.agents.len();
        if slot < nv {
            return self.state.vars[slot].clone();
        }
        if slot < nv + na {
            return Value::Num(crate::lang::num::int(self.state.clocks[slot - nv] as i64));
        }
        if slot == StateScope::time_slot(m) {
            return Value::Num(crate::lang::num::int(self.state.time as i64));
        }
        let mut rest = slot - nv - na;
        for (i, a) in m.agents.iter().enumerate() {
            if rest < a.localities.len() {
                return Value::Bool(self.state.locs[i] as usize == rest);
            }
            rest -= a.localities.len();
        }
        Value::Bool(false)
    }
}

impl<'m> Semantics<'m> {
    pub fn new(model: &'m Model, kind: SemanticsKind, horizon: Option<u64>) -> Self {
        Semantics {
            model,
            kind,
            horizon,
        }
    }

    /// `Init`: every agent at its initial locality with its initial clock.
    pub fn initial(&self) -> State {
        State {
            locs: self.model.agents.iter().map(|a| a.initial as u32).collect(),
            clocks: self.model.agents.iter().map(|a| a.init_clock).collect(),
            vars: self.model.vars.iter().map(|v| v.init.clone()).collect(),
            time: 0,
        }
    }

    /// Every successor of `s`, firings first (by agent, then transition), then resets, then time.
    pub fn successors(&self, s: &State, out: &mut Vec<(Step, State)>) -> Result<(), RunError> {
        out.clear();
        for (i, agent) in self.model.agents.iter().enumerate() {
            let l = s.locs[i] as usize;
            let c = s.clocks[i];
            for &t in &agent.outgoing[l] {
                let tr = &agent.transitions[t];
                if c < tr.lower || c > tr.upper {
                    continue;
                }
                if let Some(g) = &tr.guard {
                    let env: &[Value] = &s.vars;
                    match eval(g, env) {
                        Ok(Value::Bool(true)) => {}
                        Ok(_) => continue,
                        Err(e) => return Err(self.eval_failure(i, t, &e)),
                    }
                }
                let mut next = s.clone();
                next.locs[i] = tr.to as u32;
                for (slot, e) in &tr.updates {
                    let env: &[Value] = &s.vars;
                    let v = eval(e, env).map_err(|err| self.eval_failure(i, t, &err))?;
                    next.vars[*slot] = v;
                }
                out.push((
                    Step::Fire {
                        agent: i,
                        transition: t,
                    },
                    next,
                ));
            }
        }
        for (i, agent) in self.model.agents.iter().enumerate() {
            if s.locs[i] as usize == agent.final_loc && s.clocks[i] == agent.period {
                let mut next = s.clone();
                next.locs[i] = agent.initial as u32;
                next.clocks[i] = 0;
                out.push((Step::Reset { agent: i }, next));
            }
        }
        let delay = match self.kind {
            SemanticsKind::Plain => u64::from(self.budget(s) > 0),
            SemanticsKind::Accelerated => self.zone_jump(s),
        };
        let delay = match self.horizon {
            Some(h) => delay.min(h.saturating_sub(s.time)),
            None => delay,
        };
        if delay > 0 {
            let mut next = s.clone();
            for c in next.clocks.iter_mut() {
                *c += delay;
            }
            if self.horizon.is_some() {
                next.time += delay;
            }
            out.push((Step::Delay(delay), next));
        }
        Ok(())
    }

    /// The deadlock that a state with `successors` successors stands for: a
    /// state before the horizon where time cannot pass and no transition is
    /// enabled (a guard false at a deadline). Under the plain semantics that
    /// is the state itself. Under the accelerated one a state without
    /// successors may still let time pass (no lower bound lies ahead within
    /// its budget `B`, so nothing becomes enabled while it waits): its
    /// deadlock is the state `B` later, which the plain semantics reaches by
    /// waiting, or none when the horizon comes first (issue 33, item 12:
    /// such states were counted as deadlocks themselves).
    pub fn deadlock_at(&self, s: &State, successors: usize) -> Option<State> {
        if successors > 0 {
            return None;
        }
        let mut d = s.clone();
        let wait = self.budget(s);
        for c in d.clocks.iter_mut() {
            *c += wait;
        }
        if self.horizon.is_some() {
            d.time += wait;
        }
        self.horizon.is_none_or(|h| d.time < h).then_some(d)
    }

    /// `B`: how long time may pass before some agent must act.
    pub fn budget(&self, s: &State) -> u64 {
        self.model
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| a.deadline[s.locs[i] as usize].saturating_sub(s.clocks[i]))
            .min()
            .unwrap_or(0)
    }

    /// `delta`: the jump to the end of the next maximal action zone (0: none).
    pub fn zone_jump(&self, s: &State) -> u64 {
        let budget = self.budget(s);
        let mut first_a: Option<u64> = None;
        let mut b_points: Vec<u64> = Vec::new();
        for (i, agent) in self.model.agents.iter().enumerate() {
            let l = s.locs[i] as usize;
            let c = s.clocks[i];
            let mut note = |a: u64, b: u64| {
                if a > c && a - c <= budget {
                    first_a = Some(first_a.map_or(a - c, |f| f.min(a - c)));
                }
                if b >= c {
                    b_points.push(b - c);
                }
            };
            if l == agent.final_loc {
                note(agent.period, agent.period);
            }
            for &t in &agent.outgoing[l] {
                let tr = &agent.transitions[t];
                note(tr.lower, tr.upper);
            }
            let later = &agent.downstream_cuts[l];
            b_points.extend(
                later[later.partition_point(|&b| b < c)..]
                    .iter()
                    .map(|b| b - c),
            );
        }
        match first_a {
            None => 0,
            Some(a) => b_points.into_iter().filter(|&b| b >= a).min().unwrap_or(a),
        }
    }

    fn eval_failure(&self, agent: usize, t: usize, e: &crate::lang::EvalError) -> RunError {
        let tr = &self.model.agents[agent].transitions[t];
        let err = crate::lang::error_at(
            &tr.loc.source,
            e.span,
            format!("evaluation failed: {}", e.message),
        );
        err.into()
    }
}
