//! What a search is asked ([`SearchOptions`]) and what it answers
//! ([`Outcome`], [`SearchStats`]).

use super::falsify::FalsifyOptions;
use super::split::SplitRule;
use crate::report::Deadline;
use std::time::Duration;

/// How to search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// The first falsification, over each whole root box.
    pub falsify: FalsifyOptions,
    /// The most of the time left that the first falsification may take.
    pub falsify_share: f64,
    /// The falsification of each part below the roots.
    pub part_falsify: FalsifyOptions,
    /// Parts with at most this many unstable neurons go to the leaf decision.
    pub leaf_unstable: usize,
    /// Time for one leaf decision.
    pub leaf_budget: Duration,
    pub split: SplitRule,
    /// Input splits in a row that do not lower the unstable count before a
    /// part is branched instead ([`super::Problem::branch`]); 0: never branch
    /// while the box can be split.
    pub branch_after: usize,
    /// Worker threads.
    pub threads: usize,
    pub deadline: Deadline,
    /// Counts the parts processed (bounded, falsified, decided or split);
    /// its level is the parts still open, after each wave.
    pub meter: crate::report::meter::Meter,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            falsify: FalsifyOptions::default(),
            falsify_share: 0.1,
            part_falsify: FalsifyOptions {
                samples: 20,
                starts: 1,
                steps: 40,
                seed: 1,
            },
            leaf_unstable: 4,
            leaf_budget: Duration::from_secs(2),
            split: SplitRule::Influence,
            branch_after: 0,
            threads: 1,
            deadline: Deadline::NONE,
            meter: crate::report::meter::Meter::none(),
        }
    }
}

/// The answer of a search.
#[derive(Clone, Debug)]
pub enum Outcome<W> {
    /// No part has a counterexample.
    Holds,
    /// A replayed counterexample.
    Violated(W),
    /// The deadline came first.
    Deadline,
    /// Some part stayed open for good (the reason).
    Unknown(String),
}

/// What the search did. Times in seconds, summed over the threads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Evaluations of the concrete semantics by falsification.
    pub samples: usize,
    /// Parts bounded.
    pub parts: usize,
    /// Leaf decisions.
    pub leaves: usize,
    pub input_splits: usize,
    /// Splits by [`super::Problem::branch`] (ReLU splits).
    pub branches: usize,
    /// Leaf points that did not replay.
    pub unreplayed: usize,
    pub falsify_s: f64,
    pub bound_s: f64,
    pub leaf_s: f64,
    /// Wall-clock time of the search.
    pub time_s: f64,
    pub threads: usize,
}

impl SearchStats {
    /// Adds a worker's counters (not the wall time nor the threads).
    pub(super) fn add(&mut self, o: &SearchStats) {
        self.samples += o.samples;
        self.parts += o.parts;
        self.leaves += o.leaves;
        self.input_splits += o.input_splits;
        self.branches += o.branches;
        self.unreplayed += o.unreplayed;
        self.falsify_s += o.falsify_s;
        self.bound_s += o.bound_s;
        self.leaf_s += o.leaf_s;
    }
}
