//! Sizes and times of the MILPs of one check, and the report statistics
//! made of them.

use crate::milp::Model as Milp;
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
    /// Round contexts of one round (M_ab(m) tabulated).
    pub contexts: usize,
    /// Local states of the widest layer (M_ab(m) tabulated).
    pub layer_locals: usize,
    /// Failing (pair, context) combinations shown unreachable and excluded.
    pub faults: usize,
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

/// Solve time and infeasibility confirmations, summed over a check's MILPs.
#[derive(Default)]
pub struct SolveCounts {
    pub solve_s: f64,
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
    }
}

/// The sizes and times of one check on M(n) (or M_ab(m) by slots) as report statistics.
pub fn unrolling_stats(sizes: &Sizes, start: Instant) -> serde_json::Map<String, Value> {
    let mut stats = serde_json::Map::new();
    let mut put = |k: &str, v: Value| {
        stats.insert(k.to_string(), v);
    };
    put("milps", sizes.milps.into());
    put("milp_variables", sizes.variables.into());
    put("milp_binaries", sizes.binaries.into());
    put("milp_integers", sizes.integers.into());
    put("milp_constraints", sizes.constraints.into());
    put("network_copies", sizes.network_copies.into());
    put("network_binaries", sizes.network_binaries.into());
    put("symmetry_rows", sizes.symmetry_rows.into());
    if sizes.slots > 0 {
        put("zero_one_slots", sizes.slots.into());
    }
    put("total_time_s", start.elapsed().as_secs_f64().into());
    sizes.solving.put_stats(&mut stats);
    stats
}

/// The sizes and times of one check on tabulated M_ab(m) as report statistics.
pub fn tabulated_stats(sizes: &Sizes, start: Instant) -> serde_json::Map<String, Value> {
    let mut stats = serde_json::Map::new();
    let mut put = |k: &str, v: Value| {
        stats.insert(k.to_string(), v);
    };
    put("milps", sizes.milps.into());
    put("milp_variables", sizes.variables.into());
    put("milp_binaries", sizes.binaries.into());
    put("milp_constraints", sizes.constraints.into());
    put("round_contexts", sizes.contexts.into());
    put("layer_local_states", sizes.layer_locals.into());
    put("excluded_faults", sizes.faults.into());
    put("total_time_s", start.elapsed().as_secs_f64().into());
    sizes.solving.put_stats(&mut stats);
    stats
}
