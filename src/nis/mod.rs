//! NIS: neural interpreted systems of unknown size, after P. Kouvaros, E.
//! Botoeva, S. De Bonis-Campbell, "Formal Verification of Parameterised
//! Neural-symbolic Multi-agent Systems", IJCAI 2024 (below "Kouvaros et
//! al."; every Definition, Lemma, Theorem and Corollary named in `nis` is
//! that paper's).
//!
//! Text flows one way: `.nis` file -> checked [`Model`] and bICTL
//! [`Sentence`] ([`front`]), lowered once per run ([`front::core::Lowered`])
//! -> deciders behind one interface ([`engine`]): the explicit ones over the
//! finite semantics ([`explicit`]) and the MILP ones over unrollings
//! ([`encode`]) -> typed outcomes ([`outcome`]: verdict, replayed
//! [`witness`], statistics) -> the parameterised procedures of Corollaries 1
//! and 2 ([`procedures`]) -> the verbs ([`verbs`]), the only layer that
//! renders text and JSON.

pub mod atl;
pub mod encode;
pub mod engine;
pub mod explicit;
pub mod front;
pub mod outcome;
pub mod procedures;
pub mod semantics;
pub mod verbs;
pub mod witness;

#[cfg(test)]
mod tests;

use crate::lang::{Constants, LangResult, Source, Value};
use crate::nn::Network;
use crate::report::RunError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use engine::{EngineChoice, Target};
pub use front::formula::{parse_sentence, Sentence};
pub use front::model::Model;

/// How to read a model: command-line overrides of networks and constants,
/// and networks given in memory (tests, benches).
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `--network NAME=PATH`.
    pub networks: HashMap<String, PathBuf>,
    /// `--set NAME=VALUE`.
    pub constants: HashMap<String, Value>,
    pub in_memory: HashMap<String, Network>,
}

/// Reads a network file.
pub fn load_network(path: &Path) -> Result<Network, String> {
    crate::nn::load(path).map_err(|e| e.to_string())
}

/// Parses and checks a model text; relative network paths start at `base_dir`.
pub fn parse_model(source: &Source, base_dir: &Path, opts: &LoadOptions) -> LangResult<Model> {
    let raw = front::syntax::parse(source, Constants::with_overrides(opts.constants.clone()))?;
    let nets = front::build::NetworkSource {
        base_dir: base_dir.to_path_buf(),
        overrides: opts.networks.clone(),
        in_memory: opts.in_memory.clone(),
        load: &load_network,
    };
    front::build::build(source, raw, &nets)
}

/// Reads, parses and checks a `.nis` file.
pub fn load_model(path: &Path, opts: &LoadOptions) -> Result<Model, RunError> {
    let source = Source::read(path).map_err(|e| RunError::reading(path, e))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let model = parse_model(&source, &base, opts)?;
    let unused: Vec<String> = opts
        .constants
        .keys()
        .filter(|k| !model.constants.iter().any(|(n, _)| n == *k))
        .cloned()
        .collect();
    if !unused.is_empty() {
        return Err(RunError::input(format!(
            "--set names no constant of the model: {}",
            unused.join(", ")
        )));
    }
    Ok(mark_in_memory(model, &opts.in_memory))
}

/// A network given in memory has no file: its path is left empty, so that a
/// report never names the model's file (whose bytes may differ) for it.
fn mark_in_memory(mut model: Model, in_memory: &HashMap<String, Network>) -> Model {
    for decl in &mut model.networks {
        if in_memory.contains_key(&decl.name) {
            decl.path = PathBuf::new();
        }
    }
    model
}

/// The model with some of its networks replaced by networks given in memory,
/// without reading or checking the model text again: a replacement must have
/// the inputs and outputs of the network it replaces, which is all the
/// model's checks depend on (the calls' arities, the declared output names,
/// the percepts of `argmax`).
pub fn with_networks(model: &Model, given: &HashMap<String, Network>) -> Result<Model, RunError> {
    let mut names: Vec<&String> = given.keys().collect();
    names.sort();
    for name in names {
        let Some(decl) = model.networks.iter().find(|n| &n.name == name) else {
            return Err(RunError::input(format!(
                "network `{name}`: the model declares no network `{name}`"
            )));
        };
        let new = &given[name];
        let (had, has) = (
            (decl.network.input_size(), decl.network.output_size()),
            (new.input_size(), new.output_size()),
        );
        if had != has {
            return Err(RunError::input(format!(
                "network `{name}` has {} input(s) and {} output(s), but the model's has {} and {}",
                has.0, has.1, had.0, had.1
            )));
        }
    }
    let mut replaced = model.clone();
    for decl in &mut replaced.networks {
        if let Some(new) = given.get(&decl.name) {
            decl.network = new.clone();
        }
    }
    Ok(mark_in_memory(replaced, given))
}

/// Parses `--spec`, located errors included.
pub fn spec(text: &str) -> Result<Sentence, RunError> {
    Ok(parse_sentence(text)?)
}

/// Parses every `--spec`, then the sentences of a `--specs` file, each with
/// its text; located errors included (a file's name its file, line and column).
pub fn sentences(
    specs: &[String],
    file: Option<&Path>,
) -> Result<Vec<(String, Sentence)>, RunError> {
    let mut all = Vec::with_capacity(specs.len());
    for text in specs {
        all.push((text.clone(), spec(text)?));
    }
    if let Some(path) = file {
        let source = Source::read(path).map_err(|e| RunError::reading(path, e))?;
        let read = front::specs_file::parse_specs(&source)?;
        if read.is_empty() {
            return Err(RunError::input(format!(
                "{}: no sentence (one per line; `#` starts a comment line)",
                path.display()
            )));
        }
        all.extend(read);
    }
    Ok(all)
}
