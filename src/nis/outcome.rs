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

/// What `nis simulates --agents N` explored to decide one bounded
/// simulation (Definition 14).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimulationStats {
    /// Pairs of states (abstract, concrete) the simulation visited.
    pub pairs_visited: usize,
    /// States of M_ab(m) explored.
    pub abstract_states: usize,
    /// States of M(n) explored.
    pub concrete_states: usize,
}

impl Statistics for SimulationStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        vec![
            ("pairs_visited", self.pairs_visited.into()),
            ("abstract_states", self.abstract_states.into()),
            ("concrete_states", self.concrete_states.into()),
        ]
    }
}

/// HiGHS's work summed over the sub-checks of `nis verify` that a MILP
/// decider ran (first or second with `--engine both`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MilpEffort {
    pub nodes: u64,
    pub lp_iterations: u64,
}

impl MilpEffort {
    /// The sum over the MILP deciders' statistics; `None` without any.
    pub fn sum<'a>(stats: impl IntoIterator<Item = &'a MilpStats>) -> Option<MilpEffort> {
        let efforts: Vec<_> = stats.into_iter().map(|s| s.sizes.solving.effort).collect();
        (!efforts.is_empty()).then(|| MilpEffort {
            nodes: efforts.iter().map(|e| e.nodes).sum(),
            lp_iterations: efforts.iter().map(|e| e.lp_iterations).sum(),
        })
    }
}

impl Statistics for MilpEffort {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        vec![
            ("milp_nodes", self.nodes.into()),
            ("milp_lp_iterations", self.lp_iterations.into()),
        ]
    }
}
