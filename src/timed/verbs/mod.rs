//! The verbs of `mavis timed`, one file each, each returning a report.

pub mod check;
pub mod convert;
pub mod export;
pub mod trace;
pub mod validate;

use crate::lang::{Source, Value};
use crate::report::{ModelRef, RunError};
use crate::timed::front::ast::ModelAst;
use crate::timed::front::model::Model;
use crate::timed::{front::build, is_json_path, parse_source};
use std::collections::HashMap;
use std::path::Path;

/// Reads and validates a model file (text or JSON by extension).
pub fn load(
    path: &Path,
    overrides: HashMap<String, Value>,
) -> Result<(ModelAst, Model, ModelRef), RunError> {
    let source = Source::read(path).map_err(|e| RunError::reading(path, e))?;
    let ast = parse_source(&source, is_json_path(path))?;
    let model = build::build_model(&ast, overrides)?;
    let mref = ModelRef::from_path(path)
        .map_err(|e| RunError::input(format!("cannot read {}: {e}", path.display())))?;
    Ok((ast, model, mref))
}

/// Resolves an agent name given on the command line.
pub fn agent_named(model: &Model, name: &str) -> Result<usize, RunError> {
    model.agent_index(name).ok_or_else(|| {
        let names: Vec<&str> = model.agents.iter().map(|a| a.name.as_str()).collect();
        RunError::input(format!("no agent `{name}` (agents: {})", names.join(", ")))
    })
}

/// The warning of a model whose deadlines decrease (the accelerated
/// semantics then also stops at downstream deadlines), naming the first
/// offending pair of transitions; `None` for a model the seed's
/// acceleration covers as it is.
pub fn acceleration_warning(model: &Model) -> Option<String> {
    let (i, tin, tout) = model.acceleration_obstacle()?;
    let a = &model.agents[i];
    let t = &a.transitions[tout];
    let loc = crate::lang::error_at(&t.loc.source, t.loc.span, "").location;
    Some(format!(
        "deadlines decrease in agent `{}` ({loc}: `{}` ends at {} but `{}` entering `{}` ends at {}): \
         the accelerated semantics also stops at the deadlines of later localities (docs/timed.md)",
        a.name,
        a.transition_label(tout),
        t.upper,
        a.transition_label(tin),
        a.localities[t.from],
        a.transitions[tin].upper
    ))
}
