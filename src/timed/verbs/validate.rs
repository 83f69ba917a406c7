//! `mavis timed validate`: the model is a MAPT; its sizes.

use super::{acceleration_warning, load};
use crate::lang::Value;
use crate::report::{Report, RunError, Table, TableFormat};
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;

/// `mavis timed validate`: the model is a MAPT; its sizes.
pub fn validate(path: &Path, overrides: HashMap<String, Value>) -> Result<Report, RunError> {
    let (_, model, mref) = load(path, overrides)?;
    let mut r = Report::new("timed", "validate");
    r.model = Some(mref);
    r.line(format!(
        "valid MAPT: {} agents, {} components of V, {} queries",
        model.agents.len(),
        model.vars.len(),
        model.queries.len()
    ));
    let mut t = Table::new([
        "agent",
        "period",
        "clock",
        "localities",
        "transitions",
        "initial",
        "final",
    ]);
    for a in &model.agents {
        t.row([
            a.name.clone(),
            a.period.to_string(),
            a.init_clock.to_string(),
            a.localities.len().to_string(),
            a.transitions.len().to_string(),
            a.localities[a.initial].clone(),
            a.localities[a.final_loc].clone(),
        ]);
    }
    r.line(t.render(TableFormat::Text).trim_end());
    let exact = model.acceleration_obstacle().is_none();
    r.warnings.extend(acceleration_warning(&model));
    r.results = json!({
        "agents": model.agents.iter().map(|a| json!({"name": a.name, "period": a.period, "clock": a.init_clock,
            "localities": a.localities, "transitions": a.transitions.len()})).collect::<Vec<_>>(),
        "variables": model.vars.iter().map(|v| json!({"name": v.name, "type": v.ty.name(), "init": v.init.to_string()})).collect::<Vec<_>>(),
        "queries": model.queries.iter().map(|q| q.name.clone()).collect::<Vec<_>>(),
        "accelerated_exact": exact,
    });
    Ok(r)
}
