//! The MILP form of the states and rounds of M(n) and of M_ab(m) by slots:
//! every value a MILP expression over one unrolling's variables.

use super::expr::{Ctx, Val};
use crate::milp::{LinExpr, Solution};

/// One agent's local state: private variables and the percept (one-hot).
#[derive(Clone, Debug)]
pub struct AgentState {
    pub private: Vec<Val>,
    pub percept: Vec<LinExpr>,
}

/// A global state of the unrolling: the agents, the environment and, in
/// M_ab(m), the slots of the zero-one agent ([`super::slots`]; empty in M(n)).
/// The named agents' local states are part of the environment's state
/// (`named`, in declaration order; [`super::named`]).
#[derive(Clone, Debug)]
pub struct State {
    pub agents: Vec<AgentState>,
    pub env: Vec<Val>,
    pub zero_one: Vec<Slot>,
    pub named: Vec<AgentState>,
    /// Rounds from the initial state (which a choice split's pinned
    /// environment actions are indexed by, [`super::split`]).
    pub depth: usize,
}

/// The joint action of one round: per agent one-hot actions, the
/// environment's, and per slot of the successor's zero-one agent its parent
/// slot and action; per named agent its one-hot action (part of the
/// environment's joint action).
#[derive(Clone, Debug)]
pub struct Round {
    pub actions: Vec<Vec<LinExpr>>,
    pub env_action: Vec<LinExpr>,
    pub zero_one: Vec<SlotChoice>,
    pub named: Vec<Vec<LinExpr>>,
}

/// A slot of the zero-one agent: active flag (0/1) and local state.
#[derive(Clone, Debug)]
pub struct Slot {
    pub active: LinExpr,
    pub local: AgentState,
}

/// A child position of one round: its parent slot, active flag and one-hot
/// action (summing to the flag).
#[derive(Clone, Debug)]
pub struct SlotChoice {
    pub parent: usize,
    pub active: LinExpr,
    pub action: Vec<LinExpr>,
}

/// The round's joint choices every update reads: the environment's action
/// and the performed set (and, for the environment's update, the named
/// agents' states and actions before the round; empty without named agents).
pub struct Joint<'j> {
    pub env_action: &'j [LinExpr],
    pub performed: &'j [LinExpr],
    pub named: &'j [AgentState],
    pub named_actions: &'j [Vec<LinExpr>],
}

impl Joint<'_> {
    /// An evaluation context over `slots` that reads the joint choices.
    pub fn ctx<'c>(&'c self, slots: &'c [Option<Val>]) -> Ctx<'c> {
        Ctx {
            slots,
            performed: Some(self.performed),
            env_action: Some(self.env_action),
        }
    }
}

/// The index of the largest entry of a one-hot vector under the solution.
pub fn which(sol: &Solution, v: &[LinExpr]) -> usize {
    (0..v.len())
        .max_by(|&a, &b| sol.eval(&v[a]).total_cmp(&sol.eval(&v[b])))
        .unwrap_or(0)
}

/// The code of a finite value under the solution (numbers rounded).
pub fn code(sol: &Solution, v: &Val) -> i64 {
    match v {
        Val::Num(e) | Val::Bool(e) => sol.eval(e).round() as i64,
        Val::Enum(xs) => which(sol, xs) as i64,
    }
}
