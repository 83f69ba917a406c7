//! The JSON forms of NIS outcomes, for the reports ([`super::reports`],
//! [`super::table`]): a check's record and its statistics. The witness
//! renders itself ([`super::witness::shown::Witness`]); the text forms are
//! written by the reports.

use super::engine::CheckRecord;
use super::witness::shown::Witness;
use crate::report::stats_json;
use serde_json::{json, Map, Value};

/// A check's statistics as the report's `stats` (keys sorted). With both
/// deciders, the second's keys follow under its name (`milp.milps`), and
/// each decider's time is `explicit.time_s` and `milp.time_s`.
pub fn check_stats(rec: &CheckRecord) -> Map<String, Value> {
    let mut stats = stats_json(&rec.stats);
    if let Some(both) = &rec.both {
        let (second, second_s) = both.second;
        for (k, v) in stats_json(&both.second_stats) {
            stats.insert(format!("{second}.{k}"), v);
        }
        let (first, first_s) = both.first;
        stats.insert(format!("{first}.time_s"), first_s.into());
        stats.insert(format!("{second}.time_s"), second_s.into());
    }
    stats
}

/// The report's `witness` of a check (`null` when it has none).
pub fn witness_json(rec: &CheckRecord) -> Option<Value> {
    rec.witness.as_ref().map(Witness::json)
}

/// A sub-check as `verify` lists it: `model`, `engine`, `verdict`,
/// `witness`, `time_s`, `stats`.
pub fn check_json(rec: &CheckRecord) -> Value {
    json!({
        "model": rec.model,
        "engine": rec.engine,
        "verdict": if rec.holds { "holds" } else { "violated" },
        "witness": witness_json(rec).unwrap_or(Value::Null),
        "time_s": rec.time_s,
        "stats": Value::Object(check_stats(rec)),
    })
}
