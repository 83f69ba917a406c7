//! Local state spaces: every local state a template (or the environment) can
//! reach on its own, with the distribution of each enabled command, the fault
//! profile multiplied in (Definition 13) and Definition 15's initialisation
//! phase. The global semantics only combine these tables.

use crate::lang::{error_at, eval, num, LangResult, Rat, Source, Value};
use crate::swarm::front::model::{Branch, Command, Model, Template, UpdateKind};
use crate::swarm::front::syntax::ActionType;
use num_traits::{One, Zero};
use std::collections::HashMap;

/// Weighted successor local states.
type Outcomes = Vec<(Rat, Vec<i64>)>;

/// More local states than this is refused (the tables are per local state).
pub const MAX_LOCAL_STATES: usize = 1 << 20;

/// A distribution over local states, targets distinct and sorted, no zeros.
#[derive(Clone, Debug, PartialEq)]
pub struct Dist {
    pub targets: Vec<u32>,
    pub probs: Vec<f64>,
    pub exact: Vec<Rat>,
}

impl Dist {
    pub fn point(target: u32) -> Self {
        Dist {
            targets: vec![target],
            probs: vec![1.0],
            exact: vec![Rat::one()],
        }
    }

    pub fn is_deterministic(&self) -> bool {
        self.targets.len() == 1
    }
}

/// An enabled command at a local state: its action and distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub action: usize,
    pub dist: u32,
}

/// The reachable local states of one template with their enabled moves.
#[derive(Clone, Debug, Default)]
pub struct LocalSpace {
    pub states: Vec<Vec<i64>>,
    pub dists: Vec<Dist>,
    /// Per local state, enabled moves in command order.
    pub moves: Vec<Vec<Move>>,
}

impl LocalSpace {
    /// The first enabled command of `action` at `s` (how the environment and
    /// global-synchronous actions choose).
    pub fn first(&self, s: u32, action: usize) -> Option<u32> {
        self.moves[s as usize]
            .iter()
            .find(|m| m.action == action)
            .map(|m| m.dist)
    }

    pub fn enables(&self, s: u32, action: usize) -> bool {
        self.first(s, action).is_some()
    }
}

/// Which role a template plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Agent,
    Environment,
}

struct Builder<'a> {
    model: &'a Model,
    faults_source: Option<&'a Source>,
    t: &'a Template,
    role: Role,
    index: HashMap<Vec<i64>, u32>,
    space: LocalSpace,
    dist_index: HashMap<Vec<(u32, Rat)>, u32>,
}

fn values(t: &Template, s: &[i64]) -> Vec<Value> {
    t.vars
        .iter()
        .zip(s)
        .map(|(v, &x)| {
            if v.is_bool {
                Value::Bool(x != 0)
            } else {
                Value::Num(num::int(x))
            }
        })
        .collect()
}

/// Shows a local state as `state=1, t=0`.
pub fn describe(t: &Template, s: &[i64]) -> String {
    t.vars
        .iter()
        .zip(s)
        .enumerate()
        .filter(|(i, _)| !t.is_projected(*i))
        .map(|(_, (v, &x))| {
            if v.is_bool {
                format!("{}={}", v.name, x != 0)
            } else {
                format!("{}={x}", v.name)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl Builder<'_> {
    fn slot(&self, name: &str) -> Option<usize> {
        self.t.vars.iter().position(|v| v.name == name)
    }

    fn intern(&mut self, s: Vec<i64>, queue: &mut Vec<u32>) -> LangResult<u32> {
        if let Some(&i) = self.index.get(&s) {
            return Ok(i);
        }
        if self.space.states.len() >= MAX_LOCAL_STATES {
            return Err(error_at(
                &self.model.source,
                Default::default(),
                format!(
                    "module `{}` has more than {MAX_LOCAL_STATES} local states",
                    self.t.name
                ),
            ));
        }
        let i = self.space.states.len() as u32;
        self.index.insert(s.clone(), i);
        self.space.states.push(s);
        self.space.moves.push(Vec::new());
        queue.push(i);
        Ok(i)
    }

    fn add_dist(
        &mut self,
        outcomes: Vec<(Rat, Vec<i64>)>,
        queue: &mut Vec<u32>,
    ) -> LangResult<u32> {
        let mut merged: Vec<(u32, Rat)> = Vec::new();
        for (p, s) in outcomes {
            if p.is_zero() {
                continue;
            }
            let i = self.intern(s, queue)?;
            match merged.iter_mut().find(|(t, _)| *t == i) {
                Some(e) => e.1 += p,
                None => merged.push((i, p)),
            }
        }
        merged.sort_by_key(|e| e.0);
        if let Some(&d) = self.dist_index.get(&merged) {
            return Ok(d);
        }
        let d = self.space.dists.len() as u32;
        self.space.dists.push(Dist {
            targets: merged.iter().map(|e| e.0).collect(),
            probs: merged.iter().map(|e| num::to_f64(&e.1)).collect(),
            exact: merged.iter().map(|e| e.1.clone()).collect(),
        });
        self.dist_index.insert(merged, d);
        Ok(d)
    }

    fn range_error(
        &self,
        source: &Source,
        span: crate::lang::Span,
        s: &[i64],
        var: usize,
        value: i64,
    ) -> Box<crate::lang::SourceError> {
        let v = &self.t.vars[var];
        error_at(
            source,
            span,
            format!(
                "in state ({}) of `{}`, this update sets `{}` to {value}, outside [{}..{}]",
                describe(self.t, s),
                self.t.name,
                v.name,
                v.lo,
                v.hi
            ),
        )
    }

    /// Evaluates branches at pre-state `s`, applying them to `base`; returns
    /// (probability, new state, whether the branch changes anything).
    fn branches(
        &self,
        source: &Source,
        branches: &[Branch],
        span: crate::lang::Span,
        s: &[i64],
        base: &[i64],
    ) -> LangResult<Vec<(Rat, Vec<i64>, bool)>> {
        let env = values(self.t, s);
        let ev = |e: &crate::lang::TExpr| {
            eval(e, &env).map_err(|err| {
                error_at(
                    source,
                    err.span,
                    format!("{} (in state ({}))", err.message, describe(self.t, s)),
                )
            })
        };
        let mut out = Vec::new();
        let mut sum = Rat::zero();
        for b in branches {
            let p = ev(&b.prob)?.as_num().cloned().unwrap_or_default();
            if p < Rat::zero() {
                return Err(error_at(
                    source,
                    b.prob.span,
                    format!(
                        "negative probability {} in state ({})",
                        num::display(&p),
                        describe(self.t, s)
                    ),
                ));
            }
            sum += &p;
            let mut next = base.to_vec();
            for u in &b.updates {
                let v = &self.t.vars[u.slot];
                let value = match &u.kind {
                    UpdateKind::Set(e) => match ev(e)? {
                        Value::Bool(x) => i64::from(x),
                        Value::Num(r) => num::to_i64(&r).ok_or_else(|| {
                            error_at(
                                source,
                                e.span,
                                format!("`{}` gets the non-integer {}", v.name, num::display(&r)),
                            )
                        })?,
                        other => {
                            return Err(error_at(
                                source,
                                e.span,
                                format!("`{}` gets {other}", v.name),
                            ))
                        }
                    },
                    UpdateKind::Invert => 1 - s[u.slot],
                    UpdateKind::Up => s[u.slot] + 1,
                    UpdateKind::Down => s[u.slot] - 1,
                };
                if value < v.lo || value > v.hi {
                    return Err(self.range_error(source, b.span, s, u.slot, value));
                }
                next[u.slot] = value;
            }
            out.push((p, next, !b.updates.is_empty()));
        }
        if !sum.is_one() {
            return Err(error_at(
                source,
                span,
                format!(
                    "in state ({}) the probabilities sum to {}, not 1",
                    describe(self.t, s),
                    num::display(&sum)
                ),
            ));
        }
        Ok(out)
    }

    /// The distribution of command `c` at `s`, faults multiplied in when `faulty`.
    fn command(&self, c: &Command, s: &[i64], faulty: bool) -> LangResult<Option<Outcomes>> {
        let source = &self.model.source;
        let env = values(self.t, s);
        let enabled = eval(&c.guard, &env).map_err(|e| error_at(source, e.span, e.message))?;
        if enabled != Value::Bool(true) {
            return Ok(None);
        }
        let mut outcomes: Vec<(Rat, Vec<i64>, bool)> = self
            .branches(source, &c.branches, c.span, s, s)?
            .into_iter()
            .map(|(p, n, _)| (p, n, false))
            .collect();
        if faulty {
            let fsource = self.faults_source.unwrap_or(source);
            for rule in &self.t.faults {
                if rule.action.is_some_and(|a| a != c.action) {
                    continue;
                }
                let on =
                    eval(&rule.guard, &env).map_err(|e| error_at(fsource, e.span, e.message))?;
                if on != Value::Bool(true) {
                    continue;
                }
                let mut next = Vec::new();
                for (p, n, inj) in &outcomes {
                    for (q, m, changes) in
                        self.branches(fsource, &rule.branches, rule.span, s, n)?
                    {
                        next.push((p * &q, m, *inj || changes));
                    }
                }
                outcomes = next;
            }
        }
        let (fs, is) = (self.slot("faulty"), self.slot("injected"));
        Ok(Some(
            outcomes
                .into_iter()
                .map(|(p, mut n, inj)| {
                    if let (true, Some(f), Some(i)) = (self.model.track_flags, fs, is) {
                        n[i] = i64::from(inj);
                        n[f] = i64::from(s[f] != 0 || inj);
                    }
                    (p, n)
                })
                .collect(),
        ))
    }

    fn action_id(&self, name: &str) -> usize {
        self.model
            .actions
            .iter()
            .position(|a| a.name == name)
            .expect("construction action")
    }

    /// Moves of the initialisation phase of Definition 15 at `s`, if `s` is in it.
    fn init_phase(&self, s: &[i64]) -> Option<Vec<(usize, Outcomes)>> {
        let p = self.model.faulty_fraction.as_ref()?;
        let m = self.slot("mode")?;
        let with = |mode: i64| {
            let mut n = s.to_vec();
            n[m] = mode;
            n
        };
        let (init, g, g2) = (
            self.action_id("ff_init"),
            self.action_id("ff_g"),
            self.action_id("ff_g2"),
        );
        let one = || Rat::one();
        Some(match (self.role, s[m]) {
            (Role::Agent, 0) => vec![(init, vec![(p.clone(), with(1)), (Rat::one() - p, with(2))])],
            (Role::Agent, 1) => vec![(g, vec![(one(), with(3))])],
            (Role::Agent, 2) => vec![(g, vec![(one(), with(4))])],
            (Role::Agent, 3) => vec![(g2, vec![(one(), with(5))])],
            (Role::Agent, 4) => vec![(g2, vec![(one(), with(6))])],
            (Role::Environment, 0) => vec![(g, vec![(one(), with(1))])],
            (Role::Environment, 1) => vec![(g2, vec![(one(), with(2))])],
            _ => return None,
        })
    }

    fn run(mut self) -> LangResult<LocalSpace> {
        let init: Vec<i64> = self.t.vars.iter().map(|v| v.init).collect();
        let mut queue = Vec::new();
        self.intern(init, &mut queue)?;
        let mut head = 0;
        while head < queue.len() {
            let s = queue[head];
            head += 1;
            let state = self.space.states[s as usize].clone();
            let mut moves = Vec::new();
            if let Some(phase) = self.init_phase(&state) {
                for (action, outcomes) in phase {
                    let dist = self.add_dist(outcomes, &mut queue)?;
                    moves.push(super::local::Move { action, dist });
                }
            } else {
                // Non-faulty-prone agents of Definition 15 run without faults.
                let faulty = self.role == Role::Agent
                    && self.model.faulty
                    && self.slot("mode").is_none_or(|m| state[m] == 5);
                for c in &self.t.commands {
                    if self.role == Role::Environment
                        && self.model.actions[c.action].ty == ActionType::AgentEnvironment
                    {
                        // The environment's part of an agent-environment action.
                    }
                    if let Some(outcomes) = self.command(c, &state, faulty)? {
                        let dist = self.add_dist(outcomes, &mut queue)?;
                        moves.push(Move {
                            action: c.action,
                            dist,
                        });
                    }
                }
            }
            self.space.moves[s as usize] = moves;
        }
        Ok(self.space)
    }
}

/// Enumerates the local states of template `t` reachable by its own commands.
pub fn build_local(
    model: &Model,
    faults_source: Option<&Source>,
    t: &Template,
    role: Role,
) -> LangResult<LocalSpace> {
    Builder {
        model,
        faults_source,
        t,
        role,
        index: HashMap::new(),
        space: LocalSpace::default(),
        dist_index: HashMap::new(),
    }
    .run()
}

/// The local spaces of every template and of the environment.
#[derive(Clone, Debug)]
pub struct LocalSystem {
    pub agents: Vec<LocalSpace>,
    pub env: LocalSpace,
}

pub fn build_system(model: &Model, faults_source: Option<&Source>) -> LangResult<LocalSystem> {
    let agents = model
        .templates
        .iter()
        .map(|t| build_local(model, faults_source, t, Role::Agent))
        .collect::<LangResult<Vec<_>>>()?;
    let env = build_local(model, faults_source, &model.env, Role::Environment)?;
    Ok(LocalSystem { agents, env })
}
