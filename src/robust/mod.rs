//! The robust engine (seed 002, "A theory of robust software synthesis"): metric
//! automata with gamma-bounded disturbances, optimally robust strategies for
//! reachability (the opt* fixed point), Buchi, generalised Buchi and parity
//! objectives by inflation (notes/robust.md), parity games, transient faults.

pub mod export;
pub mod front;
pub mod outcome;
pub mod parity;
pub mod read;
pub mod synth;
pub mod verbs;

use crate::lang::{Constants, Source};
use crate::report::RunError;
use front::Automaton;
use read::{binary, build, dense, json, text};

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
    if bytes.starts_with(export::binary::MAGIC) {
        return binary::read(&name, &bytes);
    }
    let source = Source::from_bytes(name, bytes).map_err(|e| RunError::reading(path, e))?;
    load_source(&source, consts)
}
