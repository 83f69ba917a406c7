//! Loading a swarm: the model file, the faults file and the properties,
//! into the typed model with its local tables.

use crate::lang::{Constants, Rat, Source, Value};
use crate::report::RunError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a run reads.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub model: PathBuf,
    pub faults: Option<PathBuf>,
    /// A properties file.
    pub props: Option<PathBuf>,
    /// Properties given on the command line.
    pub prop_texts: Vec<String>,
    /// `--set NAME=VALUE` constant overrides.
    pub sets: Vec<(String, Value)>,
    /// Definition 15's faultiness probability (`--faulty-fraction p`).
    pub faulty_fraction: Option<Rat>,
    /// Keep Definition 13's `faulty`/`injected` flags in the state even when
    /// no label or property reads them (`--fault-flags`).
    pub keep_fault_flags: bool,
}

/// A model with its local tables.
#[derive(Debug)]
pub struct Loaded {
    pub model: super::model::Model,
    pub sys: crate::swarm::semantics::local::LocalSystem,
    pub source: Source,
    pub faults_source: Option<Source>,
}

fn read(path: &Path) -> Result<Source, RunError> {
    Source::read(path).map_err(|e| RunError::reading(path, e))
}

/// Parses and resolves a swarm file (and faults file) from texts.
pub fn load_sources(
    source: &Source,
    faults: Option<&Source>,
    sets: &[(String, Value)],
    faulty_fraction: Option<Rat>,
    keep_fault_flags: bool,
) -> Result<Loaded, RunError> {
    let overrides: HashMap<String, Value> = sets.iter().cloned().collect();
    let mut consts = Constants::with_overrides(overrides);
    let syntax = super::syntax::parse_swarm(source, &mut consts)?;
    let blocks = match faults {
        Some(f) => Some(super::syntax::parse_faults(f, &mut consts)?),
        None => None,
    };
    let unused = consts.unused_overrides();
    if !unused.is_empty() {
        return Err(RunError::input(format!(
            "--set names no constant of the model: {}",
            unused.join(", ")
        )));
    }
    let opts = super::build::BuildOptions {
        faulty_fraction,
        keep_fault_flags,
    };
    let model = super::build::build_model(
        source,
        &syntax,
        faults.zip(blocks.as_deref()),
        consts,
        &opts,
    )?;
    let sys = crate::swarm::semantics::local::build_system(&model, faults)?;
    Ok(Loaded {
        model,
        sys,
        source: source.clone(),
        faults_source: faults.cloned(),
    })
}

/// Reads the files of `inputs` and loads the model.
pub fn load(inputs: &Inputs) -> Result<Loaded, RunError> {
    let source = read(&inputs.model)?;
    let faults = inputs.faults.as_deref().map(read).transpose()?;
    load_sources(
        &source,
        faults.as_ref(),
        &inputs.sets,
        inputs.faulty_fraction.clone(),
        inputs.keep_fault_flags,
    )
}

/// The properties of a run: the file's, then the command line's, each
/// `--prop` its own source (`<--prop>`, line 1) so that errors point into it.
/// When a property reads Definition 13's flags and the model projected them
/// away, the local tables are rebuilt with the flags tracked.
pub fn load_props(inputs: &Inputs, l: &mut Loaded) -> Result<super::props::Properties, RunError> {
    let mut sources = Vec::new();
    if let Some(p) = &inputs.props {
        sources.push(read(p)?);
    }
    for t in &inputs.prop_texts {
        sources.push(Source::new("<--prop>", t.clone()));
    }
    let props = super::props::parse_property_sources(&sources, &l.model)?;
    if l.model.faulty && !l.model.track_flags && l.model.reads_fault_flags(&props.refs) {
        l.model.set_flag_tracking(true);
        l.sys = crate::swarm::semantics::local::build_system(&l.model, l.faults_source.as_ref())?;
    }
    Ok(props)
}
