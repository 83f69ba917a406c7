//! The front of the timed engine: the `.mapt` text and JSON forms, the
//! written model, its checked build, and the query language.

pub mod ast;
pub mod build;
pub mod json;
pub mod model;
pub mod parse;
pub mod query;
