//! The robust engine (seed 002, "A theory of robust software synthesis"): metric
//! automata with gamma-bounded disturbances, optimally robust strategies for
//! reachability (the opt* fixed point), Buchi, generalised Buchi and parity
//! objectives by inflation (notes/robust.md), parity games, transient faults.

pub mod binary;
pub mod binary_read;
pub mod build;
pub mod build_metric;
pub mod clf;
pub mod convert;
pub mod cycles;
pub mod dense;
pub mod dense_guess;
pub mod faults;
pub mod faults_report;
pub mod game;
pub mod json;
pub mod minmax;
pub mod model;
pub mod moves;
pub mod omega;
pub mod omega_common;
pub mod omega_parity;
pub mod pgsolver;
pub mod plan;
pub mod plot;
pub mod points;
pub mod raw;
pub mod reach;
pub mod repeats;
pub mod resolve;
pub mod run;
pub mod run_games;
pub mod scc;
pub mod spm;
pub mod state_names;
pub mod strategy;
pub mod text;
pub mod zielonka;

use crate::lang::{Constants, Source};
use crate::report::RunError;
use model::Automaton;

/// Reads a model: JSON if the text starts with `{`, `.ma` otherwise (the dense
/// form by the fast reader, anything else by the general parser).
pub fn load_source(
    source: &Source,
    consts: &mut Constants,
) -> Result<(Automaton, Vec<String>), RunError> {
    let raw = if source.text().trim_start().starts_with('{') {
        json::parse(source.name(), source.text()).map_err(RunError::input)?
    } else if let Some(raw) = dense::parse(source.text()) {
        raw
    } else {
        text::parse(source, consts)?
    };
    build::build(raw, source)
}

/// Reads a model file: the binary form ([`binary`]) if it starts with its
/// magic bytes, text or JSON otherwise.
pub fn load(
    path: &std::path::Path,
    consts: &mut Constants,
) -> Result<(Automaton, Vec<String>), RunError> {
    let bytes = crate::lang::source::read_capped(path).map_err(|e| RunError::reading(path, e))?;
    let name = path.display().to_string();
    if bytes.starts_with(binary::MAGIC) {
        return binary_read::read(&name, &bytes);
    }
    let source = Source::from_bytes(name, bytes).map_err(|e| RunError::reading(path, e))?;
    load_source(&source, consts)
}
