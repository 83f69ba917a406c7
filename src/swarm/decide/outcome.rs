//! What `swarm check` finds, as values: per property its verdict and
//! answer, the witnesses (each replayed through the semantics before it is
//! put here) and the statistics. The verb layer renders them as text or
//! JSON ([`crate::swarm::verbs::check`]).

use super::property::{Method, Values};
use crate::lang::Rat;
use crate::report::{StatValue, Statistics, Verdict};
use crate::swarm::front::props::Opt;

/// The outcome of `swarm check`.
#[derive(Clone, Debug, Default)]
pub struct CheckOutcome {
    pub properties: Vec<PropertyOutcome>,
    /// The witnesses asked for, in the order of the properties.
    pub witnesses: Vec<WitnessNote>,
    pub stats: CheckStats,
    pub warnings: Vec<String>,
}

/// A probability, in f64 and (under `--exact`) exactly; for an unbounded
/// property the certified interval, and how it was computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Probability {
    pub f64: f64,
    pub exact: Option<Rat>,
    pub bounds: Option<(f64, f64)>,
    pub method: Method,
}

impl Probability {
    /// The value at initial state `i` of `v`.
    pub fn of(v: &Values, i: usize) -> Self {
        Probability {
            f64: v.f64s[i],
            exact: v.exact.as_ref().map(|e| e[i].clone()),
            bounds: v.bounds.as_ref().map(|b| b[i]),
            method: v.method,
        }
    }
}

#[derive(Clone, Debug)]
pub struct PropertyOutcome {
    /// The property as written.
    pub property: String,
    pub opt: Opt,
    /// `Pmax`, `Pmin`, `Rmax` or `Rmin`.
    pub word: &'static str,
    /// None for a query (`Pmax=?`) that was answered.
    pub verdict: Option<Verdict>,
    pub answer: Answer,
}

#[derive(Clone, Debug)]
pub enum Answer {
    /// The value on S(agents).
    AtSize {
        agents: Vec<usize>,
        value: Probability,
    },
    /// Undecided, with the reason.
    Unknown { reason: String },
    /// For every size: the abstraction's bound (sup over n for Pmax, inf for
    /// Pmin), and what was tried when it did not prove the bound asked.
    AllSizes {
        threshold: u32,
        bound: Probability,
        beyond: Beyond,
    },
    /// For every size by the cutoff alone: the abstraction could not be
    /// built (`abstraction` says why).
    ByCutoff { abstraction: String, cutoff: Cutoff },
}

/// What an abstract check tried past a bound that proves nothing.
#[derive(Clone, Debug)]
pub enum Beyond {
    /// Nothing: the bound decided the property, or none was asked.
    Nothing,
    /// The exact optimum over every size, by the cutoff.
    Cutoff(Cutoff),
    /// The values on S(n) for the sizes n that fit (unknown for all n).
    Sizes(Vec<(usize, f64)>),
}

/// The cutoff's answer: the optimum over every size, and the value at each
/// initial count of the quotient (one per size up to the cutoff).
#[derive(Clone, Debug)]
pub struct Cutoff {
    pub value: Probability,
    pub per_n: Vec<f64>,
}

/// A witness asked for with `--witness`.
#[derive(Clone, Debug)]
pub enum WitnessNote {
    Path(Witness),
    /// No path reaches the target within the bound.
    Unreachable {
        property: String,
        steps: usize,
    },
}

/// The most likely path to the target under the optimal step-dependent
/// scheduler, replayed through the semantics.
#[derive(Clone, Debug)]
pub struct Witness {
    pub property: String,
    /// The path's probability, from the replay.
    pub probability: f64,
    /// What each state shows (one column per variable or count).
    pub columns: Vec<String>,
    pub initial: Vec<String>,
    pub steps: Vec<WitnessStep>,
}

#[derive(Clone, Debug)]
pub struct WitnessStep {
    pub action: String,
    pub probability: f64,
    pub state: Vec<String>,
}

/// The sizes and times of a check.
#[derive(Clone, Debug, Default)]
pub struct CheckStats {
    /// Whether Definition 13's flags are tracked (faulty models only).
    pub fault_flags: Option<&'static str>,
    /// The explored model and the times, when it was explored.
    pub model: Option<ModelStats>,
    /// How far exploring got before the time-out.
    pub states_explored: Option<u64>,
    pub timed_out: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct ModelStats {
    pub states: usize,
    pub choices: usize,
    pub transitions: usize,
    pub build_s: f64,
    pub check_s: f64,
}

impl Statistics for CheckStats {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let mut a = Vec::new();
        if let Some(f) = self.fault_flags {
            a.push(("fault_flags", f.into()));
        }
        if let Some(n) = self.states_explored {
            a.push(("states_explored", n.into()));
        }
        if self.timed_out {
            a.push(("timed_out", true.into()));
        }
        if let Some(m) = &self.model {
            a.extend([
                ("states", m.states.into()),
                ("choices", m.choices.into()),
                ("transitions", m.transitions.into()),
                ("build_s", m.build_s.into()),
                ("check_s", m.check_s.into()),
            ]);
        }
        a
    }
}
