//! The explicit side of NIS: the exact finite semantics ([`semantics`],
//! Definitions 1-6), the interface of the explicit deciders ([`system`])
//! with S(n) ([`concrete`]) and S_ab(m) ([`abstraction`]), the memoised
//! checker ([`checker`]), bounded simulation ([`simulation`], Definition
//! 14), the zero-one agent's branching ([`branching`]) and its steps by
//! outcome ([`zero_one_step`]), strategic sentences
//! ([`strategic`], [`refutation`]), and the replays of
//! every decider's witnesses: exact ([`replay`]) and f64 ([`replay_real`],
//! its conditions three-valued by [`replay_truth`]).

pub mod abstraction;
pub mod branching;
pub mod checker;
pub mod concrete;
pub mod named;
pub mod refutation;
pub mod replay;
pub mod replay_f64;
mod replay_named;
pub mod replay_real;
pub mod replay_strategic;
pub mod replay_strategy_f64;
pub mod replay_truth;
pub mod semantics;
pub mod simulation;
pub mod strategic;
pub mod system;
pub mod zero_one_step;
