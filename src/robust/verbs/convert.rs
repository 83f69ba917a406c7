//! `mavis robust convert`: a model (text, JSON or binary) written in the
//! binary form ([`crate::robust::export::binary`]) for fast reading.

use super::load_model;
use crate::lang::Value;
use crate::report::{Report, RunError};
use crate::robust::outcome::ConvertStats;
use std::path::Path;
use std::time::Instant;

/// Reads `model` (with `--set` overrides), checks it as `solve` would, and
/// writes its binary form to `output`.
pub fn convert_report(
    model: &Path,
    set: Vec<(String, Value)>,
    output: &Path,
) -> Result<Report, RunError> {
    let mut r = Report::new("robust", "convert");
    let t0 = Instant::now();
    let a = load_model(model, set, &mut r)?;
    let parse_s = t0.elapsed().as_secs_f64();
    let bytes = crate::robust::export::binary::write(&a)
        .map_err(|e| RunError::input(format!("{}: {e}", model.display())))?;
    crate::report::output::write_file(output, &bytes)?;
    r.line(format!(
        "wrote {}: {} states, {} moves, {} bytes (binary form, version {})",
        output.display(),
        a.len(),
        a.moves.total(),
        bytes.len(),
        crate::robust::export::binary::VERSION
    ));
    r.put_stats(&ConvertStats {
        parse_s,
        states: a.len(),
        moves: a.moves.total(),
        bytes: bytes.len(),
    });
    r.results = serde_json::json!({ "output": output.display().to_string(), "version": crate::robust::export::binary::VERSION });
    Ok(r)
}
