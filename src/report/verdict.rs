//! The verdict of a run and the exit statuses, the same for every engine.

use serde::Serialize;

/// Exit statuses, the same for every engine.
pub mod exit {
    /// The property holds, or a query without a verdict completed.
    pub const HOLDS: u8 = 0;
    /// The property is violated.
    pub const VIOLATED: u8 = 1;
    /// Bad input or usage: model, network, formula, option.
    pub const BAD_INPUT: u8 = 2;
    /// Unknown: time-out, solver limit, incomplete procedure, internal error.
    pub const UNKNOWN: u8 = 3;
}

/// The answer of a check or a run, the same for every engine: `holds`,
/// `violated`, or `unknown` (no answer within the limits). A decider's
/// [`super::Outcome`] carries one; the report's exit status follows from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Holds,
    Violated,
    Unknown,
}

impl Verdict {
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Holds => exit::HOLDS,
            Verdict::Violated => exit::VIOLATED,
            Verdict::Unknown => exit::UNKNOWN,
        }
    }

    pub fn from_bool(holds: bool) -> Self {
        if holds {
            Verdict::Holds
        } else {
            Verdict::Violated
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Verdict::Holds => "HOLDS",
            Verdict::Violated => "VIOLATED",
            Verdict::Unknown => "UNKNOWN",
        }
    }
}
