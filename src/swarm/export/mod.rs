//! `mavis swarm export`'s writers: PRISM and JANI, of S(n), of the
//! abstraction as modules of counts, and of any explored model.

pub mod jani;
pub mod jani_abstract;
pub mod jani_explicit;
pub mod prism;
pub mod prism_abstract;
