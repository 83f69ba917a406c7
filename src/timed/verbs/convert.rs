//! `mavis timed convert`: a model's text form as JSON, or its JSON form as text.

use crate::lang::Source;
use crate::report::{ModelRef, Report, RunError};
use crate::timed::{front::build, front::json, is_json_path, parse_source};
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;

/// `mavis timed convert`: text to JSON or JSON to text, by the input's extension.
pub fn convert(path: &Path) -> Result<(String, Report), RunError> {
    let source = Source::read(path).map_err(|e| RunError::reading(path, e))?;
    let from_json = is_json_path(path);
    let ast = parse_source(&source, from_json)?;
    // Validate before converting, so that a conversion never yields an invalid model.
    build::build_model(&ast, HashMap::new())?;
    let out = if from_json {
        json::to_text(&ast)
    } else {
        let mut s = serde_json::to_string_pretty(&json::to_json(&ast))
            .map_err(|e| RunError::Internal(e.to_string()))?;
        s.push('\n');
        s
    };
    let mut r = Report::new("timed", "convert");
    r.model = ModelRef::from_path(path).ok();
    r.results = json!({"to": if from_json { "mapt" } else { "json" }});
    Ok((out, r))
}
