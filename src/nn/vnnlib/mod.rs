//! VNN-LIB properties (the SMT-LIB subset of VNN-COMP): what a property is
//! once normalised, how it is checked at a point, and how it is written.
//!
//! A VNN-LIB file describes the *unsafe* set: the conjunction of its
//! assertions over the inputs `X_i` and outputs `Y_j`. The network is safe
//! (mavis: holds, VNN-COMP: `unsat`) when no input in the set maps to an
//! output in it. The reader ([`parse`]) brings every file to one form: a
//! disjunction of [`Case`]s, each an input box and a disjunction of
//! conjunctions of linear [`Atom`]s `a . X + b . Y <= c` (the output DNF of
//! VNN-COMP; atoms may also read the inputs). Strict comparisons (`<`, `>`)
//! are read as their closures (`<=`, `>=`): a verifier in floating point
//! cannot tell them apart, and VNN-COMP's own checker does not either.

mod parse;
mod property;
mod write;

pub use parse::{parse, VnnlibError};
pub use property::{Atom, Case, Property};
pub use write::to_vnnlib;

#[cfg(test)]
mod tests;
