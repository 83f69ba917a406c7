//! The verbs of `mavis swarm`: what each one runs, and its report.

pub mod check;
mod check_abstract;
mod check_common;
pub mod export;
pub mod plot;
pub mod sweep;
