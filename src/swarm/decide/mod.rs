//! The deciders: the MDP explorer, bounded value iteration (f64 and exact),
//! a property's values on an explored model, and the procedures of `check`
//! and `sweep`, which return their outcomes as values.

pub mod bounded;
pub mod check;
mod check_abstract;
pub mod exact;
mod findings;
pub mod graph;
pub mod mdp;
mod optimistic;
pub mod outcome;
pub mod policy;
pub mod procedure;
pub mod property;
pub mod reward;
pub mod reward_eval;
pub mod reward_reach;
mod scc;
mod settle;
pub mod sweep;
mod topological;
pub mod unbounded;

#[cfg(test)]
mod plain;
#[cfg(test)]
mod reward_tests;
#[cfg(test)]
mod test_mdps;
#[cfg(test)]
mod topological_tests;
#[cfg(test)]
mod unbounded_tests;
