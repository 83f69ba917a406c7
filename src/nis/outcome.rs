//! What a NIS decider returns, as Rust values (issue 31, section 2): the
//! verdict and the replayed witness ([`Witness`]) in a
//! [`crate::report::Outcome`], and the statistics of the decider that ran
//! ([`DeciderStats`]). The verbs render them ([`super::verbs`]); nothing
//! here knows JSON.

use super::encode::MilpStats;
use super::witness::shown::Witness;
use crate::report::{Outcome, StatValue, Statistics};

/// What the explicit decider explored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Explored {
    /// States of M(n) (counter representation), or of M(0) for a strategic
    /// sentence.
    States(usize),
    /// States of M_ab(m).
    AbstractStates(usize),
}

/// The statistics of one check by the explicit decider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExplicitStats {
    pub explored: Explored,
    /// Distinct network evaluations (the semantics' caches).
    pub network_evaluations: usize,
    /// A winning strategy was found but not shown: it has more nodes than this.
    pub strategy_not_shown_over: Option<usize>,
}

impl Statistics for ExplicitStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let mut a = vec![match self.explored {
            Explored::States(n) => ("states", n.into()),
            Explored::AbstractStates(n) => ("abstract_states", n.into()),
        }];
        a.push(("network_evaluations", self.network_evaluations.into()));
        if let Some(n) = self.strategy_not_shown_over {
            a.push(("strategy_not_shown_nodes_over", n.into()));
        }
        a
    }
}

/// The statistics of the decider that ran a check.
#[derive(Clone, Debug)]
pub enum DeciderStats {
    Explicit(ExplicitStats),
    /// Boxed: the MILP's sizes are many times the explicit decider's.
    Milp(Box<MilpStats>),
}

impl DeciderStats {
    /// The MILP decider's statistics, if it was the one.
    pub fn milp(&self) -> Option<&MilpStats> {
        match self {
            DeciderStats::Milp(s) => Some(&**s),
            DeciderStats::Explicit(_) => None,
        }
    }
}

impl Statistics for DeciderStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        match self {
            DeciderStats::Explicit(s) => s.attributes(),
            DeciderStats::Milp(s) => s.attributes(),
        }
    }
}

/// What a decider found: verdict, replayed witness, statistics.
pub type Decided = Outcome<Witness, DeciderStats>;

/// The explicit decider's outcome.
pub type ExplicitOutcome = Outcome<Witness, ExplicitStats>;
