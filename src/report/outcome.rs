//! Typed outcomes, shared by every engine: a decider returns its verdict, its
//! witness and its statistics as Rust values, and only the verb layer turns
//! them into text or JSON (issue 31, section 2).
//!
//! How an engine uses this module:
//! 1. Its deciders return an [`Outcome<W, S>`]: the [`Verdict`], an engine
//!    witness type `W` (an enum over the engine's witness shapes, each
//!    already replayed through the engine's semantics), and a statistics
//!    struct `S`, one plain field per measured size or time.
//! 2. `S` implements [`Statistics`]: its one method lists the attributes as
//!    `(&'static str, StatValue)` pairs. The keys are written once, in that
//!    method, so a misspelt key cannot be read back elsewhere: code that
//!    needs a statistic reads the field, never a rendered key.
//! 3. The verb layer renders: [`super::Report::put_stats`] (JSON `stats` and, with
//!    [`stat_lines`], the `key: value` text lines) from the attributes, and
//!    the engine's own renderer per output form for the witness. Nothing
//!    below the verb layer imports `serde_json` for its results.
//!
//! The types are plain and public, so that the Python package can hand them
//! out as they are; `Serialize` is derived for that, but the JSON layout of a
//! report is decided by the renderer, not by these derives.

use super::verdict::Verdict;
use serde::Serialize;
use serde_json::{Map, Value};

/// One statistic's value. The JSON form is the value itself: a number, a
/// Boolean, a string, or an object of named numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StatValue {
    /// A count (states, MILPs, nodes).
    Count(u64),
    /// A real quantity, seconds included (keys of times end in `_s`).
    Real(f64),
    /// A yes/no fact (`timed_out`).
    Flag(bool),
    /// A word or a system's name.
    Text(String),
    /// Named numbers, e.g. an initial state by its variables.
    Named(Vec<(String, f64)>),
}

impl StatValue {
    /// The JSON value of the statistic (a real that is not finite is `null`,
    /// as `serde_json` renders it).
    pub fn to_json(&self) -> Value {
        match self {
            StatValue::Count(n) => Value::from(*n),
            StatValue::Real(x) => Value::from(*x),
            StatValue::Flag(b) => Value::from(*b),
            StatValue::Text(s) => Value::from(s.as_str()),
            StatValue::Named(pairs) => Value::Object(
                pairs
                    .iter()
                    .map(|(k, x)| (k.clone(), Value::from(*x)))
                    .collect(),
            ),
        }
    }

    /// The count, if this is one.
    pub fn as_count(&self) -> Option<u64> {
        match self {
            StatValue::Count(n) => Some(*n),
            _ => None,
        }
    }
}

impl From<usize> for StatValue {
    fn from(n: usize) -> Self {
        StatValue::Count(n as u64)
    }
}

impl From<u64> for StatValue {
    fn from(n: u64) -> Self {
        StatValue::Count(n)
    }
}

impl From<u32> for StatValue {
    fn from(n: u32) -> Self {
        StatValue::Count(u64::from(n))
    }
}

impl From<f64> for StatValue {
    fn from(x: f64) -> Self {
        StatValue::Real(x)
    }
}

impl From<bool> for StatValue {
    fn from(b: bool) -> Self {
        StatValue::Flag(b)
    }
}

impl From<&str> for StatValue {
    fn from(s: &str) -> Self {
        StatValue::Text(s.to_string())
    }
}

impl From<String> for StatValue {
    fn from(s: String) -> Self {
        StatValue::Text(s)
    }
}

/// A decider's statistics: one struct per decider, its fields the measured
/// sizes and times. `attributes` lists them under their report keys, in the
/// order the decider gives them; an attribute that does not apply to a run
/// (a count of a phase that did not happen) is left out of the list, and so
/// out of the report.
pub trait Statistics {
    fn attributes(&self) -> Vec<(&'static str, StatValue)>;
}

/// A list of attributes is itself statistics (an engine may assemble one
/// from parts).
impl Statistics for Vec<(&'static str, StatValue)> {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        self.clone()
    }
}

/// No statistics.
impl Statistics for () {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        Vec::new()
    }
}

/// What a decider found: the verdict, the witness (replayed before it is
/// put here) and its statistics. `W` is the engine's witness enum, `S` its
/// statistics struct.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome<W, S> {
    pub verdict: Verdict,
    /// The witness of a verdict that has one (existential: holds; universal:
    /// the counterexample of a violation).
    pub witness: Option<W>,
    pub stats: S,
}

impl<W, S> Outcome<W, S> {
    /// A two-valued verdict (`holds` or `violated`).
    pub fn decided(holds: bool, witness: Option<W>, stats: S) -> Self {
        Outcome {
            verdict: Verdict::from_bool(holds),
            witness,
            stats,
        }
    }

    /// Whether the verdict is `holds`.
    pub fn holds(&self) -> bool {
        self.verdict == Verdict::Holds
    }
}

/// The attributes as a JSON object (keys sorted, as every report's `stats`).
pub fn stats_json(stats: &dyn Statistics) -> Map<String, Value> {
    stats
        .attributes()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_json()))
        .collect()
}

/// The attributes as text lines `key: value`, in the JSON's (sorted) order,
/// each value written as in the JSON.
pub fn stat_lines(stats: &dyn Statistics) -> Vec<String> {
    stats_json(stats)
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Report;

    /// Statistics as a decider would keep them.
    struct Search {
        states: usize,
        seconds: f64,
        start: Option<Vec<(String, f64)>>,
    }

    impl Statistics for Search {
        fn attributes(&self) -> Vec<(&'static str, StatValue)> {
            let mut a = vec![
                ("states", self.states.into()),
                ("search_s", self.seconds.into()),
            ];
            if let Some(s) = &self.start {
                a.push(("start", StatValue::Named(s.clone())));
            }
            a
        }
    }

    #[test]
    fn attributes_render_as_sorted_json_and_as_text_lines() {
        let s = Search {
            states: 12,
            seconds: 0.25,
            start: Some(vec![("y".into(), 1.0), ("x".into(), -0.5)]),
        };
        let mut r = Report::new("nis", "check");
        r.put_stats(&s);
        let v = r.to_json();
        assert_eq!(v["stats"]["states"], 12);
        assert_eq!(v["stats"]["search_s"], 0.25);
        assert_eq!(v["stats"]["start"]["x"], -0.5);
        assert_eq!(
            stat_lines(&s),
            [
                "search_s: 0.25",
                "start: {\"x\":-0.5,\"y\":1.0}",
                "states: 12"
            ]
        );
        let none = Search {
            states: 0,
            seconds: 1.0,
            start: None,
        };
        assert!(!stats_json(&none).contains_key("start"));
    }

    #[test]
    fn an_outcome_knows_its_verdict_and_a_non_finite_real_is_null() {
        let o: Outcome<(), ()> = Outcome::decided(false, None, ());
        assert_eq!(o.verdict, Verdict::Violated);
        assert!(!o.holds());
        assert_eq!(StatValue::Real(f64::NAN).to_json(), Value::Null);
        assert_eq!(StatValue::from(3usize).as_count(), Some(3));
        assert_eq!(StatValue::from("milp").to_json(), "milp");
    }
}
