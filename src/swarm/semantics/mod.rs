//! The semantics: every agent's local transition tables, the concrete
//! system S(n) and the counting abstraction over them.

pub mod concrete;
pub mod counting;
pub mod local;
