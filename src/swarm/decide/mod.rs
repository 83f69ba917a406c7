//! The deciders: the MDP explorer, bounded value iteration (f64 and exact)
//! and a property's values on an explored model.

pub mod bounded;
pub mod exact;
pub mod mdp;
pub mod property;
pub mod sweep;
