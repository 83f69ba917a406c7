//! Export to timed-automata checkers (notes, "Relation to timed automata"):
//! each agent becomes an automaton with one clock `c`, invariant
//! `c <= deadline` on each locality (`c <= E` on the final one), one edge per
//! transition guarded `a <= c && c <= b` (and its guard on V), and the reset
//! edge guarded `c == E` setting `c = 0`. Checkers want integer data, so
//! every number of V is multiplied by a scale factor (the least common
//! multiple of the denominators of the model's literals); products and
//! quotients are rescaled, and integer division truncates (reported).
//! TChecker has no conditional expression: an edge with `max`/`min`/`abs`/
//! `clamp`/`if` is printed once per case, each guarded by its conditions.
//!
//! One printer of the model's expressions ([`expr`]) and one file per
//! format: [`uppaal`] (XML, with the model's queries in UPPAAL's query
//! language, [`uppaal_queries`]) and [`tchecker`] (whose files hold no
//! queries: TChecker takes its reachability target on the command line).

mod expr;
mod tchecker;
mod uppaal;
mod uppaal_queries;

pub use expr::{scale_factor, Target};

use crate::report::RunError;
use crate::timed::front::model::Model;
use expr::Printer;
use num_bigint::BigInt;

/// A model in a checker's format: its text, the scale factor of its
/// numbers, and what the translation changed (truncating divisions).
pub struct Exported {
    pub text: String,
    pub scale: BigInt,
    pub warnings: Vec<String>,
    /// What the export leaves out (queries Uppaal cannot say).
    pub notes: Vec<String>,
}

pub fn export(model: &Model, target: Target) -> Result<Exported, RunError> {
    let mut p = Printer {
        model,
        scale: scale_factor(model),
        target,
        warnings: Vec::new(),
        notes: Vec::new(),
        cases: None,
    };
    let text = match target {
        Target::Uppaal => uppaal::uppaal(&mut p)?,
        Target::Tchecker => tchecker::tchecker(&mut p)?,
    };
    Ok(Exported {
        text,
        scale: p.scale,
        warnings: p.warnings,
        notes: p.notes,
    })
}
