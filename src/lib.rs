//! mavis: verification of multi-agent systems of unknown size.
//!
//! Shared parts: [`lang`] (model language), [`report`] (output). Engines live
//! in their own modules and never import each other. See ARCHITECTURE.md.

pub mod cli;
pub mod lang;
pub mod milp;
pub mod nis;
pub mod nn;
pub mod parsers;
pub mod report;
pub mod robust;
pub mod swarm;
pub mod timed;
