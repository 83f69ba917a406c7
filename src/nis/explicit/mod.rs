//! The explicit deciders of NIS over the finite semantics
//! ([`crate::nis::semantics`]): the memoised checker ([`checker`]), bounded
//! simulation ([`simulation`], Definition 14), the zero-one agent's
//! branching ([`branching`]), and strategic sentences ([`strategic`],
//! [`refutation`]).

pub mod branching;
pub mod checker;
pub mod refutation;
pub mod simulation;
pub mod strategic;
