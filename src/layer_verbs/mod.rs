//! The verbs of the shared layers: `mavis lang eval`, `mavis nn info|eval`
//! `mavis nn bounds` and `mavis nn verify` (one property, or a VNN-COMP
//! instances file).
//!
//! They turn results of `lang`, `nn` and `milp` into `Report`s here, beside
//! the engines, so that those layers import nothing above them.

pub mod lang_eval;
pub mod nn;
pub mod nn_bounds;
pub mod nn_instances;
pub mod nn_verify;
