//! What the MILP deciders take and give: their options, their outcome, and
//! how a MILP-layer error becomes a run error.

use super::stats::MilpStats;
use crate::milp::{EncodeOptions, SolveOptions};
use crate::nis::witness::shown::Witness;
use crate::report::{Outcome, RunError};
use std::time::Duration;

/// Default cap of the slots of one unrolling of M_ab(m) by slots (the
/// encoding is exponential in the depth).
pub const MAX_SLOTS: usize = 2000;

/// Options of the MILP decider (the CLI fills them from its flags).
#[derive(Clone, Debug)]
pub struct MilpOptions {
    /// Order the interchangeable agents m+1..n (`--no-symmetry-breaking` turns it off).
    pub symmetry_breaking: bool,
    /// HiGHS threads and time limit.
    pub solve: SolveOptions,
    /// How network copies get their bounds.
    pub encode: EncodeOptions,
    /// Decide M_ab(m) by the slot encoding even when the template is finite
    /// (`--zero-one slots`; the slot encoding is the only one for real-valued templates).
    pub zero_one_slots: bool,
    /// Most slots of the zero-one agent in one MILP (the slots grow as B^depth).
    pub max_slots: usize,
    /// Input splitting of the initial interval for universal sentences.
    pub split: SplitOptions,
}

/// Input splitting of a universal sentence's MILP over an interval of
/// initial states ([`super::split`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitOptions {
    /// Time for the MILP over one box of initial states (its solves, range
    /// checks and confirmation) before the box is halved.
    pub budget: Duration,
    /// How many times a box may be halved: a box at this depth is decided
    /// by its MILP within the run's deadline alone (0: no splitting).
    pub max_depth: usize,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            budget: Duration::from_secs(2),
            max_depth: 12,
        }
    }
}

impl Default for MilpOptions {
    fn default() -> Self {
        MilpOptions {
            symmetry_breaking: true,
            solve: SolveOptions::default(),
            encode: EncodeOptions::default(),
            zero_one_slots: false,
            max_slots: MAX_SLOTS,
            split: SplitOptions::default(),
        }
    }
}

/// The outcome of a MILP check: verdict, replayed witness (shown as the
/// explicit decider shows its own), and the MILPs' statistics.
pub type MilpOutcome = Outcome<Witness, MilpStats>;

/// A MILP-layer error as a run error: missing bounds are the user's to fix
/// (exit 2), solver failures are ours (exit 3).
pub fn milp_error(e: crate::milp::MilpError) -> RunError {
    match e {
        crate::milp::MilpError::Solver(_) | crate::milp::MilpError::Replay(_) => {
            RunError::Internal(format!("MILP decider: {e}"))
        }
        other => RunError::input(format!("MILP decider: {other}")),
    }
}
