//! The front end: the swarm file's syntax, the typed model built from it,
//! and the properties (Definitions 4-8, 12-15 of the seed).

pub mod build;
mod build_module;
pub mod load;
pub mod model;
pub mod props;
pub mod syntax;
