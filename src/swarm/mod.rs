//! The swarm engine: probabilistic swarms (PPIIS, Definitions 4-8) with
//! injected faults (Definitions 12-15), checked on concrete sizes by our own
//! explicit MDP model checker and for all sizes by a counting abstraction
//! (the set abstraction at threshold 1) or, where it applies, a cutoff.
//!
//! Data flow: text ([`front::syntax`]) -> typed model ([`front::model`]) ->
//! local tables ([`semantics::local`]) -> semantics ([`semantics::concrete`],
//! [`semantics::counting`]) -> MDP ([`decide::mdp`]) -> bounded value
//! iteration ([`decide::bounded`]) -> outcome ([`decide::outcome`]) -> report
//! ([`verbs`]). Exports go through one intermediate form ([`export`]).

pub mod decide;
pub mod export;
pub mod front;
pub mod semantics;
pub mod verbs;

// The engine's boundary: what the command line and the benches call.
pub use decide::procedure::CheckOptions;
pub use decide::sweep::{parse_k, parse_range, SweepOptions};
pub use verbs::check::check;
pub use verbs::export::{export, Destination as ExportDestination, Format as ExportFormat};
pub use verbs::sweep::{merge as merge_sweep, sweep, SweepLook};

#[cfg(test)]
mod tests;
pub use front::load::{load, load_props, load_sources, Inputs, Loaded};
