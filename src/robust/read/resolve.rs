//! Symbols of a raw model resolved to states, with the located error for an
//! unknown one: shared by the automaton's construction and its metric's.

use super::raw::{Loc, Locator, Names, Sym};
use crate::lang::Span;
use crate::report::RunError;

/// "Not declared" in a table indexed by symbol.
pub const NONE: u32 = u32::MAX;

/// Symbols to states, inputs or disturbances, with the located error for an
/// unknown one.
pub struct Resolver<'a> {
    pub at: Locator<'a>,
    pub names: &'a Names,
    /// The state of each symbol, or [`NONE`].
    pub state_of: Vec<u32>,
}

impl Resolver<'_> {
    /// The state named `s`, or the located error for an unknown one.
    pub fn state(&self, s: Sym, loc: &Loc) -> Result<u32, RunError> {
        match self.state_of[s.0 as usize] {
            NONE => Err(self
                .at
                .err(loc, format!("unknown state `{}`", self.names.name(s)))),
            q => Ok(q),
        }
    }

    /// A set of states, sorted, each once; empty is an error.
    pub fn states(&self, set: &[Sym], loc: &Loc) -> Result<Vec<u32>, RunError> {
        let mut v = set
            .iter()
            .map(|&s| self.state(s, loc))
            .collect::<Result<Vec<_>, _>>()?;
        v.sort_unstable();
        v.dedup();
        if v.is_empty() {
            return Err(self.at.err(loc, "an accepting set must not be empty"));
        }
        Ok(v)
    }
}

/// For each symbol its position in `list`; `None` if a symbol is listed twice.
pub fn positions(symbols: usize, list: &[Sym]) -> Option<Vec<u32>> {
    let mut pos = vec![NONE; symbols];
    for (i, s) in list.iter().enumerate() {
        if std::mem::replace(&mut pos[s.0 as usize], i as u32) != NONE {
            return None;
        }
    }
    Some(pos)
}

/// The whole file: where errors without a place of their own are reported.
pub fn whole() -> Loc {
    Loc::span(Span::new(0, 0))
}
