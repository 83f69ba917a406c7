//! Initial states of the unrollings (Definition 4, and Definition 2's I_e):
//! every agent at iota_t, the environment at a start. A start is one
//! initial state of a finite model, or per variable a value or its whole
//! initial set (a point is a constant, a list a one-hot choice, an interval
//! a continuous or integer variable with the interval as bounds).

use super::expr::{code_val, enum_len, one_hot, value_val, Ctx, Enc, Val};
use super::state::{AgentState, State};
use crate::lang::{num, DeclType, Value};
use crate::milp::{constant, LinExpr};
use crate::nis::front::model::{InitPercept, InitSpec, Template, VarDecl};
use crate::report::RunError;

/// How one initial environment variable enters a MILP: fixed to one value
/// of its initial set, left to the solver within the set, or (a variable
/// whose initial set is an interval) within a sub-interval `[lo, hi]` of it
/// (input splitting, [`super::split`]; integers: integral bounds), or (a
/// list) among its members at positions `lo..=hi`.
#[derive(Clone, Debug)]
pub enum StartVar {
    Fixed(Value),
    Free,
    Within(f64, f64),
    Among(usize, usize),
}

/// The initial environment of one unrolling.
#[derive(Clone)]
pub enum Start {
    /// One initial state of a finite model, as the finite semantics numbers it.
    Codes(Vec<i64>),
    /// Per variable a value or its whole initial set.
    Vars(Vec<StartVar>),
}

impl Enc<'_> {
    /// S(n)'s initial state (Definition 4): every agent at iota_t, the
    /// environment at `start` (free variables range over their initial
    /// set; `init COND` becomes a constraint). `None` when a fixed start
    /// fails `init COND`.
    pub fn initial(&mut self, n: usize, start: &Start) -> Result<Option<State>, RunError> {
        let agent = self.initial_local();
        let named;
        let env = match start {
            Start::Codes(codes) => {
                named = self.named_from_codes(codes);
                self.model
                    .env
                    .vars
                    .iter()
                    .zip(codes)
                    .map(|(d, &c)| code_val(&d.ty, c))
                    .collect()
            }
            Start::Vars(vars) => match self.initial_env(vars)? {
                Some(env) => {
                    named = self.named_initial(&env)?;
                    env
                }
                None => return Ok(None),
            },
        };
        let agents = match self.model.template.init_percept {
            InitPercept::Given(_) => vec![agent; n],
            // Each agent observes on its own: on a tie they may differ.
            InitPercept::Observed if self.first_percepts.is_some() => {
                let pin = self.first_percepts.clone().unwrap_or_default();
                let k = self.model.template.percepts.len();
                pin.iter()
                    .map(|&p| AgentState {
                        private: agent.private.clone(),
                        percept: one_hot(p, k),
                    })
                    .collect()
            }
            InitPercept::Observed => {
                let mut agents = Vec::with_capacity(n);
                for i in 0..n {
                    self.prefix = format!("s0.a{}", i + 1);
                    agents.push(self.observed(agent.private.clone(), &agent, &env)?);
                }
                agents
            }
        };
        Ok(Some(State {
            agents,
            env,
            zero_one: Vec::new(),
            named,
            depth: 0,
        }))
    }

    /// The named agents at iota of their templates, each first percept given
    /// or observed at the initial environment `env` (a tie: the solver's choice).
    fn named_initial(&mut self, env: &[Val]) -> Result<Vec<AgentState>, RunError> {
        let model = self.model;
        let mut out = Vec::with_capacity(model.named.len());
        for a in &model.named {
            let t = &a.template;
            let local = local_at_iota(t);
            out.push(match t.init_percept {
                InitPercept::Given(_) => local,
                InitPercept::Observed => {
                    self.prefix = format!("s0.{}", a.name);
                    self.observed_by(t, local.private.clone(), &local, env)?
                }
            });
        }
        Ok(out)
    }

    /// iota_t with the given initial percept (percept 0 when it is observed:
    /// the observation does not read it).
    pub fn initial_local(&self) -> AgentState {
        local_at_iota(&self.model.template)
    }

    /// The initial value of `v`, an interval variable, between `lo` and
    /// `hi` (integers: the integers between them).
    fn interval_var(&mut self, v: &VarDecl, lo: f64, hi: f64) -> Val {
        let name = format!("s0.env.{}", v.name);
        Val::Num(match v.ty {
            DeclType::Real { .. } => self.milp.continuous(&name, lo, hi).into(),
            _ => self.milp.integer(&name, lo.ceil(), hi.floor()).into(),
        })
    }

    /// The initial value of `v` among `xs`: a one-hot choice (a constant
    /// when there is one).
    fn list_var(&mut self, v: &VarDecl, xs: &[Value], k: usize) -> Val {
        if let [x] = xs {
            return value_val(x, k);
        }
        let pick: Vec<LinExpr> = (0..xs.len())
            .map(|i| self.milp.binary(&format!("s0.env.{}={i}", v.name)).into())
            .collect();
        let one = format!("s0.env.{}.one", v.name);
        self.milp.eq(&one, LinExpr::sum(pick.clone()), 1.0);
        choose(xs, &pick, k)
    }

    fn initial_env(&mut self, start: &[StartVar]) -> Result<Option<Vec<Val>>, RunError> {
        let model = self.model;
        let mut env = Vec::new();
        for ((v, spec), s) in model.env.vars.iter().zip(&model.env.init).zip(start) {
            let k = enum_len(&v.ty);
            env.push(match (s, spec) {
                (StartVar::Fixed(x), _) => value_val(x, k),
                (StartVar::Free, InitSpec::Point(x)) => value_val(x, k),
                (StartVar::Free, InitSpec::Range(lo, hi)) => {
                    self.interval_var(v, num::to_f64(lo), num::to_f64(hi))
                }
                (&StartVar::Within(lo, hi), InitSpec::Range(..)) => self.interval_var(v, lo, hi),
                (&StartVar::Among(lo, hi), InitSpec::List(xs)) if lo <= hi && hi < xs.len() => {
                    self.list_var(v, &xs[lo..=hi], k)
                }
                (StartVar::Within(..) | StartVar::Among(..), _) => {
                    return Err(RunError::Internal(format!(
                        "a part of the initial set of `{}` that it does not have",
                        v.name
                    )))
                }
                (StartVar::Free, InitSpec::List(xs)) => self.list_var(v, xs, k),
            });
        }
        if let Some(f) = &model.env.init_filter {
            let mut slots: Vec<Option<Val>> = env.iter().cloned().map(Some).collect();
            slots.push(None);
            let ctx = Ctx::of(&slots);
            let ok = self.boolean(f, &ctx)?;
            match constant(&ok) {
                Some(c) if c < 0.5 => return Ok(None),
                Some(_) => {}
                None => self.milp.ge("s0.env.init", ok, 1.0),
            }
        }
        Ok(Some(env))
    }
}

/// iota_t of template `t` with its given initial percept (percept 0 when
/// it is observed).
fn local_at_iota(t: &Template) -> AgentState {
    AgentState {
        private: t
            .init
            .iter()
            .zip(&t.vars)
            .map(|(v, d)| value_val(v, enum_len(&d.ty)))
            .collect(),
        percept: one_hot(t.init_percept.given().unwrap_or(0), t.percepts.len()),
    }
}

/// The value picked by one-hot `pick` among `xs`.
fn choose(xs: &[Value], pick: &[LinExpr], k: usize) -> Val {
    let vals: Vec<Val> = xs.iter().map(|x| value_val(x, k)).collect();
    match &vals[0] {
        Val::Enum(_) => Val::Enum(
            (0..k)
                .map(|j| {
                    LinExpr::sum(vals.iter().zip(pick).map(|(v, p)| match v {
                        Val::Enum(bits) => p.clone() * bits[j].constant_part(),
                        _ => LinExpr::constant(0.0),
                    }))
                })
                .collect(),
        ),
        first => {
            let sum = LinExpr::sum(vals.iter().zip(pick).map(|(v, p)| match v {
                Val::Num(c) | Val::Bool(c) => p.clone() * c.constant_part(),
                Val::Enum(_) => LinExpr::constant(0.0),
            }));
            if matches!(first, Val::Bool(_)) {
                Val::Bool(sum)
            } else {
                Val::Num(sum)
            }
        }
    }
}
