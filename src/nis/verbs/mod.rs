//! The `mavis nis` verbs, one file per verb, each a function from parsed
//! arguments to a [`Report`]; the only layer of nis that renders text
//! ([`text`]) and JSON ([`json`]). JSON `results` keys are documented in
//! docs/nis.md.

pub mod check;
pub mod json;
pub mod simulates;
pub mod table;
pub mod text;
pub mod verify;

use crate::nis::front::model::Model;
use crate::report::{ModelRef, NetworkRef, RunError};
use std::path::Path;

/// The model file and every network it loaded, each with its sha256.
pub fn model_ref(path: &Path, model: &Model) -> Option<ModelRef> {
    let mut r = ModelRef::from_path(path).ok()?;
    for n in &model.networks {
        if let Ok(net) = ModelRef::from_path(&n.path) {
            r.networks.push(NetworkRef {
                name: n.name.clone(),
                path: net.path,
                sha256: net.sha256,
            });
        }
    }
    Some(r)
}

pub fn yes_no(b: bool) -> &'static str {
    if b {
        "holds"
    } else {
        "violated"
    }
}

/// `{k}` in a spec template becomes k.
pub fn instantiate(spec: &str, k: u32) -> String {
    spec.replace("{k}", &k.to_string())
}

/// The refusal of a verb that needs the parameterised template.
pub fn no_template(why: &str) -> RunError {
    RunError::input(format!(
        "the model declares no parameterised `agent` template (only named agents), so it {why}: check its fixed agents with `nis check MODEL --spec SPEC` without --agents"
    ))
}
