//! The witness of one NIS check as a value: which shape it has (a trace, a
//! refutation of `<<G>> X^k phi`, an abstract trace concretized in M(n)),
//! each already replayed through the semantics, and its runs as typed
//! steps: every agent's local state (variables and percept), the
//! environment's, the named agents', and the joint action that led there.
//! The deciders return it; the verb layer renders it, once per output form
//! (`nis::verbs::text`, `nis::verbs::json`).

/// A replayed witness or counterexample, as a decider found it.
#[derive(Clone, Debug)]
pub enum Witness {
    /// A trace of M(n), M(0) or M_ab(m): a witness, a counterexample, a
    /// strategy, or an abstract trace (the trace's `kind` says which).
    Trace(Trace),
    /// A refutation of `<<G>> X^k phi` from an initial state: every move of
    /// the coalition, answered by the others, reaches the negated goal.
    Refutation(Trace),
    /// The abstract trace of M_ab(m) found by the slot encoding, replayed in
    /// M(n) (agents m+1..n follow the zero-one agent; with n = m, agents
    /// 1..m perform every action of the zero-one agent).
    Concretized {
        trace: Trace,
        /// m, the indexed agents.
        indexed: usize,
        /// n, the agents of the concrete system it was replayed in.
        agents: usize,
    },
}

impl Witness {
    /// A strategic tree: a refutation, said as such, or a strategy.
    pub fn strategic(trace: Trace, refutation: bool) -> Witness {
        if refutation {
            Witness::Refutation(trace)
        } else {
            Witness::Trace(trace)
        }
    }
}

/// What a trace shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// A run (or tree) on which the sentence holds.
    Witness,
    /// A run (or tree) on which it fails.
    Counterexample,
    /// A witness or counterexample of M_ab(m).
    Abstract,
}

impl TraceKind {
    /// "witness" or "counterexample".
    pub fn of(counterexample: bool) -> TraceKind {
        if counterexample {
            TraceKind::Counterexample
        } else {
            TraceKind::Witness
        }
    }

    /// The word the reports use.
    pub fn word(self) -> &'static str {
        match self {
            TraceKind::Witness => "witness",
            TraceKind::Counterexample => "counterexample",
            TraceKind::Abstract => "abstract trace",
        }
    }
}

/// A replayed witness as shown: what it is, how many initial states it
/// covers, and the branches (root-to-leaf paths) of the first tree.
#[derive(Clone, Debug)]
pub struct Trace {
    pub kind: TraceKind,
    pub initial_states: usize,
    pub runs: Runs,
}

/// The branches of a trace, in their system's terms.
#[derive(Clone, Debug)]
pub enum Runs {
    /// Branches of S(n) or M(0), exact or f64.
    Concrete {
        branches: Vec<Vec<Step>>,
        /// The model has named agents (the JSON names them per step).
        named_agents: bool,
        /// The environment's next joint action is shown: it has variables
        /// or more than one joint action.
        env_moves: bool,
    },
    /// Branches of M_ab(m).
    Abstract {
        branches: Vec<Vec<AbstractStep>>,
        /// The model has named agents (the environment is shown).
        named_agents: bool,
    },
}

/// A variable's value in a replayed state, as its domain holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// An exact Boolean.
    Bool(bool),
    /// An exact value of an enumeration: its name, or the code when it
    /// names no value.
    Enum(Result<String, i64>),
    /// An exact integer.
    Int(i64),
    /// A value of an f64 run; Booleans and enumeration values are codes in
    /// f64 there, shown by what they mean.
    Real(f64, RealMeaning),
}

/// What the f64 value of a variable means, after its declared type.
#[derive(Clone, Debug, PartialEq)]
pub enum RealMeaning {
    Number,
    Bool,
    /// An enumeration value (empty when the code names none).
    Enum(String),
}

/// A variable of a local state or of the environment.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub value: Val,
}

/// A local state: the private variables and the percept.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub vars: Vec<Var>,
    pub percept: String,
}

/// The environment's state: its variables and every named agent's local
/// state (part of the environment's), by name.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvState {
    pub vars: Vec<Var>,
    pub named: Vec<(String, Local)>,
}

/// The joint action of the environment's side: the environment's own
/// action and each named agent's (agent name, action).
#[derive(Clone, Debug, PartialEq)]
pub struct EnvMove {
    pub own: String,
    pub named: Vec<(String, String)>,
}

/// The joint action that led to a step: each agent's action and the
/// environment's side.
#[derive(Clone, Debug, PartialEq)]
pub struct Move {
    pub actions: Vec<String>,
    pub env: EnvMove,
}

/// One step of a replayed run of S(n) (or M(0)).
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub agents: Vec<Local>,
    pub env: EnvState,
    /// `None` at the first step.
    pub moved: Option<Move>,
}

/// The joint action of M_ab(m) that led to a step (Definition 13): each
/// indexed agent's action, the set of actions each local state of the
/// zero-one agent takes, the environment's side.
#[derive(Clone, Debug, PartialEq)]
pub struct AbstractMove {
    pub actions: Vec<String>,
    pub zero_one: Vec<(Local, Vec<String>)>,
    pub env: EnvMove,
}

/// One step of a run of M_ab(m): the indexed agents, the zero-one agent's
/// set of local states, the environment.
#[derive(Clone, Debug, PartialEq)]
pub struct AbstractStep {
    pub agents: Vec<Local>,
    pub zero_one: Vec<Local>,
    pub env: EnvState,
    pub moved: Option<AbstractMove>,
}
