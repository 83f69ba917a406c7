//! Sizes and times of the MILPs of one check, and the statistics made of
//! them ([`MilpStats`], whose attributes the reports list).

use crate::milp::{Effort, Model as Milp, ObbtStats};
use crate::report::{StatValue, Statistics};
use std::time::Instant;

/// Sizes and times of the MILPs of one check (the largest MILP's sizes).
#[derive(Clone, Debug, Default)]
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
    /// Adds the MILPs of `other` (decided on another thread): counts are
    /// summed, the largest sizes kept.
    pub fn merge(&mut self, other: &Sizes) {
        self.milps += other.milps;
        self.variables = self.variables.max(other.variables);
        self.binaries = self.binaries.max(other.binaries);
        self.integers = self.integers.max(other.integers);
        self.constraints = self.constraints.max(other.constraints);
        self.network_copies = self.network_copies.max(other.network_copies);
        self.network_binaries = self.network_binaries.max(other.network_binaries);
        self.symmetry_rows += other.symmetry_rows;
        self.slots = self.slots.max(other.slots);
        self.tie_cuts += other.tie_cuts;
        self.contexts = self.contexts.max(other.contexts);
        self.layer_locals = self.layer_locals.max(other.layer_locals);
        self.faults += other.faults;
        self.obbt.add(&other.obbt);
        let s = &mut self.solving;
        s.solve_s += other.solving.solve_s;
        s.effort += other.solving.effort;
        s.confirmations += other.solving.confirmations;
        s.presolve_disagreements += other.solving.presolve_disagreements;
    }

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
#[derive(Clone, Debug, Default)]
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
    /// The attributes of these counts.
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        vec![
            ("infeasibility_confirmations", self.confirmations.into()),
            ("presolve_disagreements", self.presolve_disagreements.into()),
            ("solve_time_s", self.solve_s.into()),
            ("milp_nodes", self.effort.nodes.into()),
            ("milp_lp_iterations", self.effort.lp_iterations.into()),
        ]
    }
}

/// What the input splitting of a universal sentence's initial box did
/// ([`super::split`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SplitStats {
    /// Boxes whose MILP was tried (the whole initial box included).
    pub boxes: usize,
    /// Boxes halved after their MILP stalled.
    pub splits: usize,
    /// The deepest box tried (0: the whole initial box).
    pub depth: usize,
    /// Boxes not halved because their halves' MILPs would not have fewer
    /// binaries (decided whole, within the run's deadline alone).
    pub refused: usize,
    /// Seconds spent in the attempts that stalled.
    pub stalled_s: f64,
    /// Parts split over the environment's action of their next unpinned
    /// round (one part per action).
    pub choice_splits: usize,
    /// Parts not so split because their parts' MILPs would not have fewer
    /// binaries.
    pub choices_refused: usize,
    /// The most rounds a part pinned.
    pub pinned_rounds: usize,
}

impl SplitStats {
    /// Adds the counts of `other` (a part decided on another thread).
    pub fn merge(&mut self, other: &SplitStats) {
        self.boxes += other.boxes;
        self.splits += other.splits;
        self.depth = self.depth.max(other.depth);
        self.refused += other.refused;
        self.stalled_s += other.stalled_s;
        self.choice_splits += other.choice_splits;
        self.choices_refused += other.choices_refused;
        self.pinned_rounds = self.pinned_rounds.max(other.pinned_rounds);
    }
}

impl Statistics for SplitStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        vec![
            ("split_boxes", self.boxes.into()),
            ("splits", self.splits.into()),
            ("split_depth", self.depth.into()),
            ("splits_refused", self.refused.into()),
            ("split_stalled_s", self.stalled_s.into()),
            ("choice_splits", self.choice_splits.into()),
            ("choice_splits_refused", self.choices_refused.into()),
            ("pinned_rounds", self.pinned_rounds.into()),
        ]
    }
}

/// What the falsifier did before the MILP ([`super::falsify`]; the statistics `falsify_*`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FalsifyStats {
    /// Initial states scored.
    pub samples: usize,
    /// Successor states computed by the walks.
    pub states: usize,
    /// Counterexample runs found (the first ends the search).
    pub traces: usize,
    /// Runs found that the replay rejected (the MILP then decided).
    pub unreplayed: usize,
    pub time_s: f64,
}

impl Statistics for FalsifyStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        vec![
            ("falsify_samples", self.samples.into()),
            ("falsify_states", self.states.into()),
            ("falsify_traces", self.traces.into()),
            ("falsify_unreplayed", self.unreplayed.into()),
            ("falsify_time_s", self.time_s.into()),
        ]
    }
}

/// What the box proof before the MILP did ([`super::box_proof`]).
#[derive(Clone, Debug, Default)]
pub struct BoxStats {
    /// Whether it proved the sentence (no MILP was then solved).
    pub proved: bool,
    /// Initial boxes tried, halvings, box states computed.
    pub boxes: usize,
    pub splits: usize,
    pub states: usize,
    /// Why the last box that failed had no sound successors, if so.
    pub lost: Option<String>,
    /// An existential sentence was refuted at a point by boxes.
    pub refuted_at: bool,
    pub time_s: f64,
}

impl Statistics for BoxStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let mut a = vec![
            ("box_proved", self.proved.into()),
            ("box_boxes", self.boxes.into()),
            ("box_splits", self.splits.into()),
            ("box_states", self.states.into()),
            ("box_time_s", self.time_s.into()),
        ];
        if self.refuted_at {
            a.push(("box_refuted", true.into()));
        }
        if let Some(why) = &self.lost {
            a.push(("box_lost", StatValue::Text(why.clone())));
        }
        a
    }
}

/// Which MILPs a check built, hence which sizes it lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MilpForm {
    /// Unrollings of M(n), of M(0) for strategic sentences, or of M_ab(m)
    /// by slots.
    Unrolling,
    /// M_ab(m) tabulated (finite templates).
    Tabulated,
}

/// What the f64 deciders (models that are not finite) add: input
/// splitting, the covering of an initial interval.
#[derive(Clone, Debug, Default)]
pub struct RealStats {
    /// Input splitting of a universal sentence's initial box.
    pub split: Option<SplitStats>,
    /// Rounds of the covering of an initial interval by witnesses.
    pub cover_rounds: Option<usize>,
    /// An initial environment state (by variable) from which no witness
    /// exists, when the covering found one.
    pub uncovered: Option<Vec<(String, f64)>>,
    /// Falsification before the MILP ([`super::falsify`]).
    pub falsify: Option<FalsifyStats>,
    /// The box proof before the MILP ([`super::box_proof`]).
    pub boxes: Option<BoxStats>,
}

impl Statistics for RealStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let mut a = Vec::new();
        if let Some(f) = &self.falsify {
            a.extend(f.attributes());
        }
        if let Some(b) = &self.boxes {
            a.extend(b.attributes());
        }
        if let Some(s) = &self.split {
            a.extend(s.attributes());
        }
        if let Some(r) = self.cover_rounds {
            a.push(("cover_rounds", r.into()));
        }
        if let Some(u) = &self.uncovered {
            a.push(("initial_env_without_witness", StatValue::Named(u.clone())));
        }
        a
    }
}

/// The statistics of one check by a MILP decider.
#[derive(Clone, Debug)]
pub struct MilpStats {
    pub form: MilpForm,
    pub sizes: Sizes,
    /// Seconds of the whole check.
    pub total_s: f64,
    pub real: RealStats,
    /// M_ab(m) by slots: the number of agents of the concrete system in
    /// which the trees were replayed (the largest), and whether they are
    /// counterexamples (`counterexample_agents`) or witnesses
    /// (`witness_agents`).
    pub replayed_in: Option<(usize, bool)>,
    /// Strategic sentences of real-valued models: how the MILPs were set up.
    pub strategic_method: Option<&'static str>,
}

impl MilpStats {
    /// The statistics of the MILPs of `sizes`, timed from `start`.
    pub fn new(form: MilpForm, sizes: Sizes, start: Instant) -> Self {
        MilpStats {
            form,
            sizes,
            total_s: start.elapsed().as_secs_f64(),
            real: RealStats::default(),
            replayed_in: None,
            strategic_method: None,
        }
    }

    /// The number of agents of M(n0) in which M_ab(m)'s counterexample was
    /// replayed (so M(n0) fails too).
    pub fn counterexample_agents(&self) -> Option<usize> {
        self.replayed_in.filter(|r| r.1).map(|r| r.0)
    }

    /// The sizes of an unrolling.
    fn unrolling(&self) -> Vec<(&'static str, StatValue)> {
        let s = &self.sizes;
        let mut a: Vec<(&'static str, StatValue)> = vec![
            ("milp_integers", s.integers.into()),
            ("milp_constraints", s.constraints.into()),
            ("network_copies", s.network_copies.into()),
            ("network_binaries", s.network_binaries.into()),
            ("symmetry_rows", s.symmetry_rows.into()),
        ];
        if s.slots > 0 {
            a.push(("zero_one_slots", s.slots.into()));
        }
        if s.tie_cuts > 0 {
            a.push(("near_tie_cuts", s.tie_cuts.into()));
        }
        if s.obbt.lps > 0 {
            a.extend([
                ("obbt_lps", s.obbt.lps.into()),
                ("obbt_binaries_removed", s.obbt.binaries_removed.into()),
                ("obbt_lp_iterations", s.obbt.lp_iterations.into()),
                ("obbt_s", s.obbt.seconds.into()),
            ]);
        }
        a
    }

    /// The sizes of tabulated M_ab(m).
    fn tabulated(&self) -> Vec<(&'static str, StatValue)> {
        let s = &self.sizes;
        vec![
            ("milp_constraints", s.constraints.into()),
            ("round_contexts", s.contexts.into()),
            ("layer_local_states", s.layer_locals.into()),
            ("excluded_faults", s.faults.into()),
        ]
    }
}

impl Statistics for MilpStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let s = &self.sizes;
        let mut a: Vec<(&'static str, StatValue)> = vec![
            ("milps", s.milps.into()),
            ("milp_variables", s.variables.into()),
            ("milp_binaries", s.binaries.into()),
        ];
        a.extend(match self.form {
            MilpForm::Unrolling => self.unrolling(),
            MilpForm::Tabulated => self.tabulated(),
        });
        a.push(("total_time_s", self.total_s.into()));
        a.extend(s.solving.attributes());
        a.extend(self.real.attributes());
        if let Some((n, counterexample)) = self.replayed_in {
            let key = if counterexample {
                "counterexample_agents"
            } else {
                "witness_agents"
            };
            a.push((key, n.into()));
        }
        if let Some(m) = self.strategic_method {
            a.push(("strategic_method", m.into()));
        }
        a
    }
}
