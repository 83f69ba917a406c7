//! The entry point of exploration: the layered search ([`super::layered`]),
//! its sweep-line form (`--memory sweep`, [`super::sweep`]) or the flat ones ([`crate::timed::explore::flat`]), by [`Options::search`].

use crate::report::RunError;
use crate::timed::explore::{flat, Memory, Options, Search, Stats, Visitor};
use crate::timed::semantics::Semantics;

/// Explores the state space of `sem` with the chosen strategy, calling `visit` on every state.
pub fn explore(sem: &Semantics, opts: &Options, visit: &mut Visitor) -> Result<Stats, RunError> {
    match opts.search {
        Search::Layered => match opts.memory {
            Memory::Sweep(measure) => super::sweep::sweep_with(sem, opts, measure, visit),
            _ => super::layered::layered(sem, opts, visit),
        },
        _ => flat(sem, opts, visit),
    }
}
