//! The verbs of `mavis swarm`, one file each: what the verb runs and how
//! its outcome is rendered as text and JSON.

pub mod check;
pub mod export;
mod plot;
pub mod sweep;
