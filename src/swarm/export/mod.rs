//! `mavis swarm export`: one intermediate form, a [`Network`] of modules
//! (or an [`Explicit`] explored model), built by [`lower`] from the swarm
//! and written by one printer per format, [`prism`] and [`jani`].
//!
//! S(n) is a module per agent (`robot_1_2`, variables renamed `v_i_j`) and
//! the environment (`v_E`), with one command per local state and enabled
//! command, faults already multiplied in. Asynchronous actions are silent;
//! agent-environment action `a` of agent (i, j) is the action `a_i_j`,
//! synchronised with the environment's first enabled command; a
//! global-synchronous action is one action shared by every module. The
//! counting abstraction (threshold t) is the same with the agents the labels
//! name as modules and a module `counts` of variables `c{i}_{s}` in `[0..t]`
//! ([`crate::swarm::semantics::counting`]).
//! Nothing is explored for either: the text has a few commands per agent.
//! Models with global-synchronous actions keep the explored abstraction,
//! written state by state ([`Explicit`]).

pub mod explicit_rewards;
pub mod jani;
mod jani_expr;
mod jani_rewards;
pub mod lower;
pub mod prism;

use crate::lang::types::Builtin;
use crate::lang::{BinOp, Rat, UnOp, Value};

/// A network of modules (PRISM) or automata (JANI) over global variables.
#[derive(Clone, Debug)]
pub struct Network {
    /// What the model is, for the file's header ("S(3) of foraging.swarm").
    pub what: String,
    /// The agents' modules, then `counts` (abstraction), the environment last.
    pub modules: Vec<Module>,
    /// The synchronised actions, each with the modules that take part
    /// (PRISM synchronises by name; JANI needs the vectors).
    pub syncs: Vec<Sync>,
    /// The model's labels.
    pub labels: Vec<(String, Expr)>,
    /// The model's reward structures, over the network's actions.
    pub rewards: Vec<RewardStructure>,
    /// The properties the user gave, over the network's names.
    pub queries: Vec<Query>,
}

/// A property the user gave (`--props`, `--prop`), over the network's
/// variables and labels, for each format to write in its own syntax.
#[derive(Clone, Debug)]
pub struct Query {
    /// As the user wrote it.
    pub text: String,
    /// `Pmax`/`Rmax` (and `P<=p`, decided with the maximum) or the minimum.
    pub opt: crate::swarm::front::props::Opt,
    /// `P~p` or `R~r`: the comparison and its bound; `None` for `=?`.
    pub bound: Option<(crate::swarm::front::props::Cmp, Rat)>,
    /// The reward structure's name of an `R` property; `None` for `P`.
    pub reward: Option<String>,
    pub path: QueryPath,
}

/// A property's path formula (`steps`: the inclusive step bound, `F<k`
/// already read as `F<=k-1`; `None` when unbounded).
#[derive(Clone, Debug)]
pub enum QueryPath {
    /// `phi U<=steps psi`; `F<=steps psi` when `phi` is `None`.
    Until {
        phi: Option<Expr>,
        psi: Expr,
        steps: Option<usize>,
    },
    Globally {
        phi: Expr,
        steps: Option<usize>,
    },
    Next {
        phi: Expr,
    },
    /// `C<=steps`: the reward of the first `steps` steps.
    Cumulative {
        steps: usize,
    },
    /// `I=steps`: the state reward at step `steps`.
    Instant {
        steps: usize,
    },
}

/// A reward structure: state rewards (`action` is `None`) and action
/// rewards (one entry per action of the network the model's action became).
#[derive(Clone, Debug)]
pub struct RewardStructure {
    pub name: String,
    pub items: Vec<RewardEntry>,
}

#[derive(Clone, Debug)]
pub struct RewardEntry {
    /// `Some("")` is the silent action `[]`.
    pub action: Option<String>,
    pub guard: Expr,
    pub value: Expr,
}

#[derive(Clone, Debug)]
pub struct Sync {
    pub action: String,
    /// Indices into [`Network::modules`].
    pub modules: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Module {
    pub name: String,
    pub vars: Vec<Var>,
    pub commands: Vec<Command>,
}

#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: VarType,
    pub init: Init,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    Bool,
    Int(i64, i64),
}

/// A variable's initial values.
#[derive(Clone, Debug)]
pub enum Init {
    /// One value (a Boolean is 0 or 1).
    Value(i64),
    /// Any value of its type.
    Any,
    /// The values where this condition holds.
    Where(Atom),
}

/// A condition on one variable, written compactly (`x=3`, `c>=1`, `!b`).
#[derive(Clone, Debug, PartialEq)]
pub enum Atom {
    Bool(String, bool),
    Cmp(String, CmpOp, i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ge,
    Le,
}

/// A guarded command: `action` is empty when silent; the guard is a conjunction.
#[derive(Clone, Debug)]
pub struct Command {
    pub action: String,
    /// The model's action this command performs (`None` in an explored model).
    pub act: Option<usize>,
    pub guard: Vec<Atom>,
    pub dests: Vec<Dest>,
}

#[derive(Clone, Debug)]
pub struct Dest {
    pub prob: Prob,
    /// Variables that change, with their new value.
    pub assigns: Vec<(String, Val)>,
}

#[derive(Clone, Debug)]
pub enum Prob {
    Exact(Rat),
    Float(f64),
}

/// A variable's new value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Int(i64),
    Bool(bool),
    /// One less than now (a count losing an agent).
    Decrement,
    /// One more than now, at most the bound (a count gaining an agent).
    IncrementUpTo(u32),
}

/// A label's expression.
#[derive(Clone, Debug)]
pub enum Expr {
    Lit(Value),
    Var(String),
    Atom(Atom),
    /// Another label: named where the format can, else its expression.
    Label(String, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Builtin(Builtin, Vec<Expr>),
}

/// An explored model, written state by state (`s` is the state index).
pub struct Explicit<'a> {
    pub what: String,
    pub mdp: &'a crate::swarm::decide::mdp::Mdp,
    /// Each label with the states where it holds, as maximal runs of
    /// consecutive indices (sorted): printed as a balanced disjunction of
    /// intervals, of depth log2 of their number, so that a parser that
    /// recurses per operator (Storm stops at depth 10,000) reads any label.
    pub labels: Vec<(String, Runs)>,
    /// The model's reward structures at the explored states and choices.
    pub rewards: Vec<ExplicitRewards<'a>>,
}

/// One reward structure of an explored model.
pub struct ExplicitRewards<'a> {
    pub name: String,
    /// The values at every state and choice (exact when explored exactly).
    pub vectors: &'a crate::swarm::decide::reward::RewardVectors,
    /// Each distinct non-zero state reward and the states that earn it.
    pub state: Vec<(Prob, Runs)>,
    /// Each distinct non-zero action reward of the `k`-th choice of a
    /// state, as `(k, reward, states)`.
    pub action: Vec<(usize, Prob, Runs)>,
}

/// Maximal runs `(first, last)` of consecutive state indices, sorted.
pub type Runs = Vec<(usize, usize)>;

/// Maximal runs of consecutive indices in `states` (sorted, distinct).
pub fn runs(states: &[usize]) -> Runs {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &s in states {
        match out.last_mut() {
            Some((_, hi)) if *hi + 1 == s => *hi = s,
            _ => out.push((s, s)),
        }
    }
    out
}

impl Atom {
    pub fn var(&self) -> &str {
        match self {
            Atom::Bool(v, _) | Atom::Cmp(v, _, _) => v,
        }
    }
}

#[cfg(test)]
mod tests;
