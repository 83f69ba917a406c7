//! What the robust verbs find, as values (issue 31): the bounds and verdict,
//! the witness (a worst-case outcome, replayed through the automaton before
//! it is put here) and the statistics, one struct per verb whose one
//! `attributes` method names the report keys. Only the verb layer renders
//! them as text or JSON.

use crate::report::{RunError, StatValue, Statistics};
use crate::robust::front::Automaton;
use crate::robust::synth::reach::{self, Strategy};

/// A worst-case outcome of a strategy from q0: per step the state and the
/// input and disturbance taken there (none at the last step), on which no
/// state comes closer to the target than the strategy's bound.
#[derive(Clone, Debug)]
pub struct WorstCase {
    /// The least distance to the target along the outcome.
    pub closest: f64,
    pub steps: Vec<(u32, Option<(usize, u32)>)>,
}

impl WorstCase {
    /// The worst-case outcome of `s` (valued `values`, bound `bound` at q0)
    /// towards `f`, replayed: an outcome that does not replay or comes
    /// closer than the bound is an internal error.
    pub fn of(
        a: &Automaton,
        f: &[u32],
        s: &Strategy,
        values: &[f64],
        bound: f64,
    ) -> Result<Self, RunError> {
        let steps = reach::worst_trace(a, s, values);
        let closest = reach::replay_trace(a, f, s, &steps).map_err(RunError::Internal)?;
        if closest + 1e-9 < bound {
            return Err(RunError::Internal(
                "worst-case trace gets closer than the bound".into(),
            ));
        }
        Ok(WorstCase { closest, steps })
    }
}

/// A reachability strategy's robustness: sigma, the bound opt at q0 it
/// achieves, the automaton's gamma-bar, and whether it wins nominally.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub sigma: f64,
    pub bound: f64,
    pub gamma_bar: f64,
    pub nominal: bool,
}

/// The statistics of `robust solve`.
#[derive(Clone, Debug, Default)]
pub struct SolveStats {
    pub parse_s: f64,
    pub states: usize,
    pub transitions: usize,
    /// None when the solver did not run to an end or a deadline.
    pub solve_s: Option<f64>,
    /// The inflation radii tried (omega-regular objectives).
    pub radii: Option<(usize, usize)>,
}

impl Statistics for SolveStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let mut a = vec![
            ("parse_s", self.parse_s.into()),
            ("states", self.states.into()),
            ("transitions", self.transitions.into()),
        ];
        a.extend(self.solve_s.map(|s| ("solve_s", s.into())));
        if let Some((candidates, solved)) = self.radii {
            a.push(("candidate_radii", candidates.into()));
            a.push(("radii_solved", solved.into()));
        }
        a
    }
}

/// The statistics of `robust check`: the time of the strategy's bounds and
/// its worst-case outcome.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckStats {
    pub check_s: f64,
}

impl Statistics for CheckStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        vec![("check_s", self.check_s.into())]
    }
}

/// The statistics of `robust parity`; the times of the phases reached.
#[derive(Clone, Debug, Default)]
pub struct ParityStats {
    pub parse_s: f64,
    pub nodes: usize,
    pub edges: usize,
    pub solve_s: f64,
    /// None when the deadline stopped the solver.
    pub verify_s: Option<f64>,
}

impl Statistics for ParityStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let mut a = vec![
            ("parse_s", self.parse_s.into()),
            ("nodes", self.nodes.into()),
            ("edges", self.edges.into()),
            ("solve_s", self.solve_s.into()),
        ];
        a.extend(self.verify_s.map(|s| ("verify_s", s.into())));
        a
    }
}

/// The statistics of `robust convert`: the model read and the bytes written.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvertStats {
    pub parse_s: f64,
    pub states: usize,
    pub moves: usize,
    pub bytes: usize,
}

impl Statistics for ConvertStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        vec![
            ("parse_s", self.parse_s.into()),
            ("states", self.states.into()),
            ("moves", self.moves.into()),
            ("bytes", self.bytes.into()),
        ]
    }
}

/// The statistics of `robust faults`: the periods solved, and the time
/// unless it is left out (`--no-times`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FaultsStats {
    pub solve_s: Option<f64>,
    pub periods_solved: usize,
}

impl Statistics for FaultsStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let mut a: Vec<(&'static str, StatValue)> = self
            .solve_s
            .map(|s| ("solve_s", s.into()))
            .into_iter()
            .collect();
        a.push(("periods_solved", self.periods_solved.into()));
        a
    }
}
