//! What the MILP deciders take and give: their options, their outcome, and
//! how a MILP-layer error becomes a run error.

use super::stats::MilpStats;
use crate::milp::{EncodeOptions, SolveOptions};
use crate::nis::witness::shown::Witness;
use crate::report::meter::Meter;
use crate::report::{Deadline, Outcome, RunError};
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
    /// Falsification before the MILP of a universal sentence on a
    /// real-valued model ([`super::falsify`]).
    pub falsify: FalsifyOptions,
}

/// How hard the falsifier looks before the MILP ([`super::falsify`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FalsifyOptions {
    /// Initial states sampled per root (0: no falsification).
    pub samples: usize,
    /// Local (pattern) searches from the best samples, and their evaluations each.
    pub starts: usize,
    pub steps: usize,
    /// Most successors of a state the walk follows; more are sampled.
    pub branches: usize,
    /// Most successor states one initial state's walk computes.
    pub states_per_sample: usize,
    /// The seed of the points and of the branches sampled.
    pub seed: u64,
    /// The most of the run's time left the falsifier may take, and the
    /// most without a deadline.
    pub share: f64,
    pub max_time: Duration,
    /// The box proof of a universal sentence on a real-valued model
    /// ([`super::box_proof`]): the most box states it computes (0: off),
    /// and the most boxes the initial set is halved into.
    pub box_states: usize,
    pub box_splits: usize,
    /// Counts the walks' successor states, and as its level the walks
    /// (the falsifier's sampled initial states, search first's walks).
    pub meter: Meter,
    /// Counts the box proof's box states, and as its level its boxes.
    pub box_meter: Meter,
}

impl Default for FalsifyOptions {
    fn default() -> Self {
        FalsifyOptions {
            samples: 128,
            starts: 2,
            steps: 48,
            branches: 16,
            states_per_sample: 4096,
            seed: 0,
            share: 0.2,
            max_time: Duration::from_secs(1),
            box_states: 20_000,
            box_splits: 64,
            meter: Meter::none(),
            box_meter: Meter::none(),
        }
    }
}

impl FalsifyOptions {
    /// No falsification: the MILP decides alone.
    pub fn off() -> Self {
        FalsifyOptions {
            samples: 0,
            ..FalsifyOptions::default()
        }
    }

    /// The falsifier's time: [`FalsifyOptions::share`] of what `deadline`
    /// leaves, at most [`FalsifyOptions::max_time`].
    pub fn share_of(&self, deadline: &Deadline) -> Duration {
        deadline
            .remaining()
            .map_or(self.max_time, |r| r.mul_f64(self.share).min(self.max_time))
    }

    /// The shared sampler's options.
    pub fn sampler(&self) -> crate::search::FalsifyOptions {
        crate::search::FalsifyOptions {
            samples: self.samples,
            starts: self.starts,
            steps: self.steps,
            seed: self.seed,
        }
    }
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
    /// The most rounds, from the first, whose environment action a part
    /// may pin (the choice split; 0: none).
    pub choice_rounds: usize,
    /// Pin the environment's actions of the first `choice_rounds` rounds
    /// before any MILP, whatever the parts' binaries (tests; otherwise a
    /// part is split over a choice only when its MILP stalls and the
    /// parts' MILPs are smaller).
    pub eager_choices: bool,
    /// Parts decided at once, each on its own thread (`--threads`).
    pub threads: usize,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            budget: Duration::from_secs(2),
            max_depth: 12,
            choice_rounds: 3,
            eager_choices: false,
            threads: 1,
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
            falsify: FalsifyOptions::default(),
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
