//! mavis: verification of multi-agent systems of unknown size.
//!
//! Shared layers: [`lang`] (model language), [`nn`] (networks), [`milp`]
//! (MILP modelling), [`report`] (output); [`layer_verbs`] holds their verbs.
//! Engines live in their own modules and never import each other. See
//! ARCHITECTURE.md.

pub mod cli;
pub mod lang;
pub mod layer_verbs;
pub mod milp;
pub mod nis;
pub mod nn;
pub mod parsers;
#[cfg(feature = "python")]
mod python;
pub mod report;
pub mod robust;
pub mod search;
pub mod swarm;
pub mod timed;
