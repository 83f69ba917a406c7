//! `mavis timed export`: the model for a timed-automata checker.

use crate::report::{ModelRef, Report, RunError};
use crate::timed::export;
use crate::timed::front::model::Model;
use serde_json::json;

/// `mavis timed export`: an Uppaal or TChecker model.
pub fn export(
    model: &Model,
    mref: Option<ModelRef>,
    to: export::Target,
) -> Result<(String, Report), RunError> {
    let out = export::export(model, to)?;
    let mut r = Report::new("timed", "export");
    r.model = mref;
    r.results = json!({"to": to.name(), "scale": out.scale.to_string()});
    r.warnings = out.warnings;
    r.notes.extend(out.notes);
    // A note, not a line of the report: on stdout it would follow `</nta>`
    // and the file would no longer be XML. The file says it in a comment.
    // Nothing is said when nothing was scaled (the factor 1).
    if out.scale != num_bigint::BigInt::from(1) {
        r.notes
            .push(format!("V scaled to integers by the factor {}", out.scale));
    }
    Ok((out.text, r))
}
