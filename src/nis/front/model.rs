//! The typed NIS model: one agent template (Definition 1 of Kouvaros et al.,
//! IJCAI 2024), the environment (Definition 2) and the labelling (Definition
//! 3), plus a fixed list of named agents (agents with roles, each running its
//! own template) that sit on the environment's side: the environment's
//! expressions read their state and actions, and the deciders treat them as
//! part of the environment (Definition 12 keeps its one template).
//!
//! Everything here is plain data a decider can read: expressions are checked
//! [`TExpr`] trees over fixed slots ([`AgentSlots`], [`EnvSlots`]), updates are
//! guarded cases of piecewise-linear expressions (`clamp`, `min`, `max`, `if`),
//! and the observation is a percept-valued tree whose leaves are constants or
//! `argmax` over a network call. An encoder (explicit search here, a MILP
//! later) interprets the same structure.

use crate::lang::{DeclType, Source, Span, TExpr, TKind, Value};
use crate::nn::Network;
use std::path::PathBuf;

/// A parsed and checked `.nis` model (a PANoS, Definition 3).
#[derive(Clone, Debug)]
pub struct Model {
    pub source: Source,
    pub constants: Vec<(String, Value)>,
    pub networks: Vec<NetDecl>,
    /// The parameterised template; an inert one (one percept, one action,
    /// never instantiated: n = 0) when `parameterised` is false.
    pub template: Template,
    /// Whether the model declares a parameterised `agent` template.
    pub parameterised: bool,
    /// The named agents, in declaration order.
    pub named: Vec<NamedAgent>,
    pub env: Environment,
    pub labels: Vec<Label>,
    /// The engine functions expressions call, indexed by `TKind::Ext` id.
    pub ext: Vec<ExtFn>,
}

/// A named agent: a fixed agent with its own template, part of the
/// environment's side of the system.
#[derive(Clone, Debug)]
pub struct NamedAgent {
    pub name: String,
    pub span: Span,
    /// The agent's own template; its expressions' slots are [`AgentSlots`]
    /// over the environment's own variables.
    pub template: Template,
}

/// `net NAME = "path";`: a network with its resolved file.
#[derive(Clone, Debug)]
pub struct NetDecl {
    pub name: String,
    pub path: PathBuf,
    pub network: Network,
    /// Optional names of the outputs (`outputs (q_rest, q_guard)`), callable as scalar functions.
    pub outputs: Vec<String>,
}

/// An engine function inside an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtFn {
    /// `performed(a)`: some agent performed agent action `a` this round
    /// (an environment action: the environment performed it).
    Performed,
    /// `argmax(net(inputs), p0, p1, ...)`: the percepts of the maximal outputs (ties: all).
    Argmax { percepts: Vec<usize> },
    /// `net(inputs)`: the output vector, only as the first argument of `argmax`.
    NetVector { net: usize },
    /// A named scalar output of a network, `q_guard(inputs)`.
    NetOutput { net: usize, output: usize },
}

/// A variable of the private or environment state.
#[derive(Clone, Debug)]
pub struct VarDecl {
    pub name: String,
    pub ty: DeclType,
    pub span: Span,
}

impl VarDecl {
    /// Finite domain as integer codes (bool 0/1, enum index, bounded int), if finite.
    pub fn finite_domain(&self) -> Option<(i64, i64)> {
        match &self.ty {
            DeclType::Bool => Some((0, 1)),
            DeclType::Enum { values, .. } => Some((0, values.len() as i64 - 1)),
            DeclType::Int {
                lo: Some(lo),
                hi: Some(hi),
            } => Some((crate::lang::num::to_i64(lo)?, crate::lang::num::to_i64(hi)?)),
            _ => None,
        }
    }
}

/// Slot layout of expressions evaluated for an agent: private variables,
/// then the percept, the own action, the environment action, the environment variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentSlots {
    pub private: usize,
    pub env_vars: usize,
}

impl AgentSlots {
    pub fn percept(&self) -> usize {
        self.private
    }
    pub fn action(&self) -> usize {
        self.private + 1
    }
    pub fn env_action(&self) -> usize {
        self.private + 2
    }
    pub fn env_var(&self, i: usize) -> usize {
        self.private + 3 + i
    }
    pub fn len(&self) -> usize {
        self.private + 3 + self.env_vars
    }
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Slot layout of environment expressions: its variables, then its action,
/// then per named agent its private variables, percept and action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvSlots {
    pub vars: usize,
    /// The number of private variables of each named agent.
    pub named: Vec<usize>,
}

impl EnvSlots {
    pub fn action(&self) -> usize {
        self.vars
    }
    /// The first slot of named agent `j` (its first private variable).
    pub fn named_base(&self, j: usize) -> usize {
        self.vars + 1 + self.named[..j].iter().map(|p| p + 2).sum::<usize>()
    }
    pub fn len(&self) -> usize {
        self.named_base(self.named.len())
    }
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// A protocol case: when `guard` holds, `actions` are enabled (cases add up).
#[derive(Clone, Debug)]
pub struct ProtocolCase {
    pub guard: TExpr,
    pub actions: Vec<usize>,
    pub span: Span,
}

/// An update case: the first case whose guard holds assigns its variables;
/// variables it does not assign keep their value; no case: nothing changes.
#[derive(Clone, Debug)]
pub struct UpdateCase {
    pub guard: TExpr,
    pub assigns: Vec<(usize, TExpr)>,
    pub span: Span,
}

/// The agent template t = (L_t, iota_t, obs_t, Act_t, prot_t, tr_t) of Definition 1.
#[derive(Clone, Debug)]
pub struct Template {
    pub name: String,
    pub vars: Vec<VarDecl>,
    /// Initial private state.
    pub init: Vec<Value>,
    pub percept_enum: usize,
    pub percepts: Vec<String>,
    /// The initial percept: given, or observed at the initial state.
    pub init_percept: InitPercept,
    pub action_enum: usize,
    pub actions: Vec<String>,
    /// obs_t: the percept-valued observation, its `argmax` leaves typed.
    pub observe: Observation,
    pub protocol: Vec<ProtocolCase>,
    pub update: Vec<UpdateCase>,
    pub slots: AgentSlots,
}

/// How an agent's first percept is set: a constant (`percept : {..} = p;`),
/// or obs_t at iota_t's private state and the initial environment state
/// (`= observe;`, several percepts on an argmax tie). The observation then
/// may not read `percept` (there is no earlier one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitPercept {
    Given(usize),
    Observed,
}

impl InitPercept {
    /// The given percept, if it is given.
    pub fn given(self) -> Option<usize> {
        match self {
            InitPercept::Given(p) => Some(p),
            InitPercept::Observed => None,
        }
    }
}

/// The observation function obs_t as the deciders read it: an `if` tree at
/// percept positions whose leaves are network argmaxes or plain
/// percept-valued expressions. Built and checked once by `build`, so no
/// decider rediscovers the `argmax(net(..), ..)` shape.
#[derive(Clone, Debug)]
pub enum Observation {
    /// `if cond then a else b` at a percept position.
    If(TExpr, Box<Observation>, Box<Observation>),
    /// `argmax(net(inputs), percepts...)`: the percepts of the maximal
    /// outputs of network `net` (ties: all of them).
    Argmax {
        net: usize,
        inputs: Vec<TExpr>,
        /// The percept of each output.
        percepts: Vec<usize>,
        span: Span,
    },
    /// A percept-valued expression without network (a percept constant, ...).
    Expr(TExpr),
}

/// Initial values of one environment variable.
#[derive(Clone, Debug)]
pub enum InitSpec {
    Point(Value),
    List(Vec<Value>),
    /// `in [lo..hi]`: every integer of the range, or the real interval.
    Range(crate::lang::Rat, crate::lang::Rat),
}

/// The environment e = (L_e, I_e, Act_e, prot_e, tr_e) of Definition 2.
#[derive(Clone, Debug)]
pub struct Environment {
    pub vars: Vec<VarDecl>,
    pub init: Vec<InitSpec>,
    /// `init COND;`: keeps the initial combinations satisfying it.
    pub init_filter: Option<TExpr>,
    pub action_enum: usize,
    pub actions: Vec<String>,
    pub protocol: Vec<ProtocolCase>,
    pub update: Vec<UpdateCase>,
    pub slots: EnvSlots,
}

/// An atomic proposition (Definition 3): over the template's local state
/// (slots as [`AgentSlots`]), or over the environment's state (slots as
/// [`EnvSlots`]; written as a bare atom `safe` in formulas).
#[derive(Clone, Debug)]
pub struct Label {
    pub name: String,
    pub expr: TExpr,
    pub span: Span,
    pub subject: LabelSubject,
}

/// What a label is about: one agent's local state or the environment's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelSubject {
    Agent,
    Environment,
}

impl Model {
    pub fn label_index(&self, name: &str) -> Option<usize> {
        self.labels.iter().position(|l| l.name == name)
    }

    /// Why the explicit decider cannot take this model, if it cannot: a
    /// real-valued variable or an infinite initial set.
    pub fn explicit_obstacle(&self) -> Option<String> {
        let named = self.named.iter().flat_map(|a| &a.template.vars);
        for v in self.template.vars.iter().chain(&self.env.vars).chain(named) {
            if v.finite_domain().is_none() {
                return Some(format!(
                    "variable `{}` has type {}, not a bounded integer, bool or enumeration",
                    v.name,
                    v.ty.describe()
                ));
            }
        }
        for (v, spec) in self.env.vars.iter().zip(&self.env.init) {
            if let InitSpec::Range(..) = spec {
                if !matches!(v.ty, DeclType::Int { .. }) {
                    return Some(format!("the initial set of `{}` is an interval", v.name));
                }
            }
        }
        None
    }

    pub fn action_name(&self, a: usize) -> &str {
        &self.template.actions[a]
    }

    /// The number of joint environment-side actions: the environment's own
    /// times every named agent's.
    pub fn joint_env_actions(&self) -> usize {
        self.named
            .iter()
            .fold(self.env.actions.len(), |n, a| n * a.template.actions.len())
    }

    /// A joint environment-side action as (the environment's own action,
    /// each named agent's action): a mixed-radix number, the environment's
    /// action lowest. Without named agents it is the environment's action.
    pub fn split_env_action(&self, joint: usize) -> (usize, Vec<usize>) {
        let mut rest = joint / self.env.actions.len();
        let mut named = Vec::with_capacity(self.named.len());
        for a in &self.named {
            named.push(rest % a.template.actions.len());
            rest /= a.template.actions.len();
        }
        (joint % self.env.actions.len(), named)
    }

    /// The joint action of [`Model::split_env_action`]'s parts.
    pub fn join_env_action(&self, own: usize, named: &[usize]) -> usize {
        let mut joint = 0;
        for (a, &x) in self.named.iter().zip(named).rev() {
            joint = joint * a.template.actions.len() + x;
        }
        joint * self.env.actions.len() + own
    }

    /// A joint environment-side action for people: `tick` or
    /// `tick, ownship.aCL1500, intruder.aDES1500`.
    pub fn describe_env_action(&self, joint: usize) -> String {
        let (own, named) = self.split_env_action(joint);
        let mut parts = vec![self.env.actions[own].clone()];
        for (a, &x) in self.named.iter().zip(&named) {
            parts.push(format!("{}.{}", a.name, a.template.actions[x]));
        }
        parts.join(", ")
    }
}

/// True if the expression calls a network anywhere.
pub fn calls_network(e: &TExpr, ext: &[ExtFn]) -> bool {
    match &e.kind {
        TKind::Const(_) | TKind::Var(_) => false,
        TKind::Unary(_, a) => calls_network(a, ext),
        TKind::Binary(_, a, b) => calls_network(a, ext) || calls_network(b, ext),
        TKind::If(c, a, b) => {
            calls_network(c, ext) || calls_network(a, ext) || calls_network(b, ext)
        }
        TKind::Builtin(_, args) => args.iter().any(|a| calls_network(a, ext)),
        TKind::Ext(id, args) => {
            matches!(
                ext[*id],
                ExtFn::NetVector { .. } | ExtFn::NetOutput { .. } | ExtFn::Argmax { .. }
            ) || args.iter().any(|a| calls_network(a, ext))
        }
    }
}
