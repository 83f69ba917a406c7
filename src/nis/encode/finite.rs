//! The finite semantics through which every witness of a finite model is
//! replayed, for every MILP decider of finite models.

use crate::nis::front::model::Model;
use crate::nis::semantics::Semantics;
use crate::report::RunError;

/// The finite semantics of `model`; a model it cannot take is an input
/// error naming the decider that needed it.
pub fn semantics<'m>(model: &'m Model, decider: &str) -> Result<Semantics<'m>, RunError> {
    Semantics::new(model)
        .map_err(|why| RunError::input(format!("{decider} cannot take this model: {why}")))
}
