//! How `nn verify` decides: its options.

use crate::milp::solve::SolveOptions;
use crate::search::{FalsifyOptions, SplitRule};
use std::time::Duration;

/// How to decide.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// HiGHS options; their deadline is the run's.
    pub solve: SolveOptions,
    /// The first falsification, over each whole box.
    pub falsify: FalsifyOptions,
    /// The falsification of each sub-box of the branch and bound.
    pub box_falsify: FalsifyOptions,
    /// LP tightening before each MILP.
    pub lp_tighten: bool,
    /// Time for the MILPs of one box before it is split.
    pub milp_budget: Duration,
    /// Boxes with at most this many unstable ReLUs (by symbolic bounds) go
    /// to LP tightening and the MILP; others are split first.
    pub milp_unstable: usize,
    pub split: SplitRule,
    /// Input splits in a row that leave the unstable ReLUs as many before a
    /// part is split on a ReLU instead; 0: never while the box can be split.
    pub branch_after: usize,
    /// Worker threads of the search (each MILP runs on one of them, with
    /// `solve.threads` HiGHS threads).
    pub threads: usize,
    /// Counts the boxes processed; its level is the boxes still open
    /// ([`crate::search::SearchOptions::meter`]).
    pub meter: crate::report::meter::Meter,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            solve: SolveOptions::default(),
            falsify: FalsifyOptions::default(),
            box_falsify: FalsifyOptions {
                samples: 20,
                starts: 1,
                steps: 40,
                seed: 1,
            },
            lp_tighten: true,
            milp_budget: Duration::from_secs(2),
            milp_unstable: 4,
            split: SplitRule::Influence,
            branch_after: BRANCH_AFTER,
            threads: 1,
            meter: crate::report::meter::Meter::none(),
        }
    }
}

/// The default [`VerifyOptions::branch_after`].
pub const BRANCH_AFTER: usize = 8;
