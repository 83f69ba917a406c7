//! Sizes and times of the MILPs of one check, and the report statistics
//! made of them.

use crate::milp::{Effort, Model as Milp, ObbtStats};
use serde_json::Value;
use std::time::Instant;

/// Sizes and times of the MILPs of one check (the largest MILP's sizes).
#[derive(Default)]
pub struct Sizes {
    pub milps: usize,
    pub variables: usize,
    pub binaries: usize,
    pub integers: usize,
    pub constraints: usize,
    pub network_copies: usize,
    pub network_binaries: usize,
    pub symmetry_rows: usize,
    /// Slots of the zero-one agent (M_ab(m) by slots).
    pub slots: usize,
    /// Solutions refused for an argmax near-tie and cut off ([`super::ties`]).
    pub tie_cuts: usize,
    /// Round contexts of one round (M_ab(m) tabulated).
    pub contexts: usize,
    /// Local states of the widest layer (M_ab(m) tabulated).
    pub layer_locals: usize,
    /// Failing (pair, context) combinations shown unreachable and excluded.
    pub faults: usize,
    /// Bound tightening in the MILPs' context, summed over the MILPs.
    pub obbt: ObbtStats,
    pub solving: SolveCounts,
}

impl Sizes {
    /// Records the sizes of one MILP (the largest are kept).
    pub fn record(&mut self, milp: &Milp) {
        let st = milp.stats();
        self.variables = self.variables.max(st.variables);
        self.binaries = self.binaries.max(st.binaries);
        self.integers = self.integers.max(st.integers);
        self.constraints = self.constraints.max(st.constraints);
    }
}

/// Solve time, HiGHS's work and infeasibility confirmations, summed over
/// every MILP a check solves (the range and fault checks and the
/// confirming re-solves included).
#[derive(Default)]
pub struct SolveCounts {
    pub solve_s: f64,
    /// Branch-and-bound nodes and LP iterations.
    pub effort: Effort,
    /// Infeasibility claims re-solved without presolve.
    pub confirmations: usize,
    /// Of those, the second solves that disagreed.
    pub presolve_disagreements: usize,
}

impl SolveCounts {
    /// Adds the report statistics of these counts.
    pub fn put_stats(&self, stats: &mut serde_json::Map<String, Value>) {
        stats.insert(
            "infeasibility_confirmations".into(),
            self.confirmations.into(),
        );
        stats.insert(
            "presolve_disagreements".into(),
            self.presolve_disagreements.into(),
        );
        stats.insert("solve_time_s".into(), self.solve_s.into());
        stats.insert("milp_nodes".into(), self.effort.nodes.into());
        stats.insert(
            "milp_lp_iterations".into(),
            self.effort.lp_iterations.into(),
        );
    }
}

/// The statistics: the counts in order, the total time, the solve counts.
fn stats_of(
    counts: &[(&str, usize)],
    sizes: &Sizes,
    start: Instant,
) -> serde_json::Map<String, Value> {
    let mut stats = serde_json::Map::new();
    for &(k, v) in counts {
        stats.insert(k.to_string(), v.into());
    }
    stats.insert("total_time_s".into(), start.elapsed().as_secs_f64().into());
    sizes.solving.put_stats(&mut stats);
    stats
}

/// The counts every MILP decider reports first.
fn milp_counts(sizes: &Sizes) -> Vec<(&'static str, usize)> {
    vec![
        ("milps", sizes.milps),
        ("milp_variables", sizes.variables),
        ("milp_binaries", sizes.binaries),
    ]
}

/// The sizes and times of one check on M(n) (or M_ab(m) by slots) as report statistics.
pub fn unrolling_stats(sizes: &Sizes, start: Instant) -> serde_json::Map<String, Value> {
    let mut counts = milp_counts(sizes);
    counts.extend([
        ("milp_integers", sizes.integers),
        ("milp_constraints", sizes.constraints),
        ("network_copies", sizes.network_copies),
        ("network_binaries", sizes.network_binaries),
        ("symmetry_rows", sizes.symmetry_rows),
    ]);
    if sizes.slots > 0 {
        counts.push(("zero_one_slots", sizes.slots));
    }
    if sizes.tie_cuts > 0 {
        counts.push(("near_tie_cuts", sizes.tie_cuts));
    }
    let obbt = sizes.obbt.lps > 0;
    if obbt {
        counts.extend([
            ("obbt_lps", sizes.obbt.lps),
            ("obbt_binaries_removed", sizes.obbt.binaries_removed),
        ]);
    }
    let mut stats = stats_of(&counts, sizes, start);
    if obbt {
        stats.insert("obbt_lp_iterations".into(), sizes.obbt.lp_iterations.into());
        stats.insert("obbt_s".into(), sizes.obbt.seconds.into());
    }
    stats
}

/// The sizes and times of one check on tabulated M_ab(m) as report statistics.
pub fn tabulated_stats(sizes: &Sizes, start: Instant) -> serde_json::Map<String, Value> {
    let mut counts = milp_counts(sizes);
    counts.extend([
        ("milp_constraints", sizes.constraints),
        ("round_contexts", sizes.contexts),
        ("layer_local_states", sizes.layer_locals),
        ("excluded_faults", sizes.faults),
    ]);
    stats_of(&counts, sizes, start)
}
