//! One report for several queries of one verb (`nis check --spec A --spec B`,
//! `--specs FILE`): each query's own report, in order, under a verdict that
//! is their conjunction. A query the deadline stopped, or one that was
//! never started, is unknown; the queries decided before it are kept.

use super::{Report, RunContext, RunError, Verdict};
use serde_json::{json, Value};

/// How one query of several ended.
pub enum QueryEnd {
    /// The verb's report for the query.
    Done(Box<Report>),
    /// The verb gave no report: the deadline passed, or a numerical limit
    /// or an internal error stopped it (the message says which).
    Failed(RunError),
    /// Not started: the deadline had passed before its turn.
    NotStarted,
}

/// Runs `decide` on every query in turn. One query gives its own report
/// unchanged; several give [`combine`]'s. Bad input stops the run (exit 2);
/// a query the deadline or a limit stopped is unknown, the later ones are not
/// started once the deadline has passed, and after each query the report so
/// far is published for the deadline's backstop.
///
/// `decide` gets, besides the query, a function to call with the query's
/// report as it stands before the decider runs (the model, the system, the
/// sentence): it is published with the queries decided before, so that a
/// decider the backstop has to stop (a solver that does not look at the
/// clock) still leaves a report that says what was being asked.
pub fn run_each<T>(
    (engine, command): (&'static str, &'static str),
    queries: Vec<(String, T)>,
    ctx: &RunContext,
    mut decide: impl FnMut(&T, &dyn Fn(Report)) -> Result<Report, RunError>,
) -> Result<Report, RunError> {
    if queries.len() == 1 {
        return decide(&queries[0].1, &|head| ctx.publish(head));
    }
    let mut ends: Vec<(String, QueryEnd)> = Vec::with_capacity(queries.len());
    for (i, (label, query)) in queries.iter().enumerate() {
        let end = if ctx.deadline().check().is_err() {
            QueryEnd::NotStarted
        } else {
            let started = |mut head: Report| {
                head.stopped_at_deadline(STOPPED_WHILE_DECIDING);
                let mut so_far = copies(&ends);
                so_far.push((label.clone(), QueryEnd::Done(Box::new(head))));
                so_far.extend(not_started(&queries[i + 1..]));
                ctx.publish(combine(engine, command, so_far));
            };
            match decide(query, &started) {
                Ok(report) => QueryEnd::Done(Box::new(report)),
                Err(e @ RunError::Input(_)) => return Err(e),
                Err(e) => QueryEnd::Failed(e),
            }
        };
        ends.push((label.clone(), end));
        let mut so_far = copies(&ends);
        so_far.extend(not_started(&queries[i + 1..]));
        ctx.publish(combine(engine, command, so_far));
    }
    Ok(combine(engine, command, ends))
}

/// Why a query published by its `started` report has no verdict.
const STOPPED_WHILE_DECIDING: &str =
    "the run was stopped at the deadline while this query was being decided";

fn copies(ends: &[(String, QueryEnd)]) -> Vec<(String, QueryEnd)> {
    ends.iter().map(|(l, e)| (l.clone(), copy_of(e))).collect()
}

fn not_started<T>(rest: &[(String, T)]) -> impl Iterator<Item = (String, QueryEnd)> + '_ {
    rest.iter().map(|(l, _)| (l.clone(), QueryEnd::NotStarted))
}

/// A copy of an end for the published partial report.
fn copy_of(end: &QueryEnd) -> QueryEnd {
    match end {
        QueryEnd::Done(r) => QueryEnd::Done(r.clone()),
        QueryEnd::Failed(_) => {
            QueryEnd::Failed(RunError::TimedOut(why_unknown(end).unwrap_or_default()))
        }
        QueryEnd::NotStarted => QueryEnd::NotStarted,
    }
}

/// The conjunction of the queries' verdicts: violated if one is, else
/// unknown if one is, else holds; `None` when no query has a verdict.
fn conjunction(ends: &[(String, QueryEnd)]) -> Option<Verdict> {
    let verdicts: Vec<Option<Verdict>> = ends.iter().map(|(_, e)| verdict_of(e)).collect();
    if verdicts.iter().all(Option::is_none) {
        return None;
    }
    if verdicts.contains(&Some(Verdict::Violated)) {
        Some(Verdict::Violated)
    } else if verdicts.iter().any(|v| v != &Some(Verdict::Holds)) {
        Some(Verdict::Unknown)
    } else {
        Some(Verdict::Holds)
    }
}

fn verdict_of(end: &QueryEnd) -> Option<Verdict> {
    match end {
        QueryEnd::Done(r) => r.verdict,
        QueryEnd::Failed(_) | QueryEnd::NotStarted => Some(Verdict::Unknown),
    }
}

fn why_unknown(end: &QueryEnd) -> Option<String> {
    match end {
        QueryEnd::Done(_) => None,
        QueryEnd::Failed(e) => Some(match e {
            RunError::Input(m) => m.to_string(),
            RunError::Internal(m)
            | RunError::TimedOut(m)
            | RunError::Undetermined(m)
            | RunError::Limit(m) => m.clone(),
        }),
        QueryEnd::NotStarted => Some("not started: the deadline had passed".to_string()),
    }
}

/// The report of several queries, `label` naming each (its sentence).
pub fn combine(
    engine: &'static str,
    command: &'static str,
    ends: Vec<(String, QueryEnd)>,
) -> Report {
    let mut r = Report::new(engine, command);
    r.verdict = conjunction(&ends);
    let n = ends.len();
    let count = |v: Verdict| {
        ends.iter()
            .filter(|(_, e)| verdict_of(e) == Some(v))
            .count()
    };
    r.line(format!(
        "{}: {n} queries, {} hold, {} violated, {} unknown",
        r.verdict.map_or("DONE", Verdict::word),
        count(Verdict::Holds),
        count(Verdict::Violated),
        count(Verdict::Unknown),
    ));
    // As a single query's report says it (`Report::stopped_at_deadline`),
    // so that a program reads the deadline at one place for one query or
    // several, whether the decider stopped itself or the backstop did.
    if ends.iter().any(|(_, e)| cut_by_deadline(e)) {
        r.stat("timed_out", true);
    }
    let mut entries = Vec::with_capacity(n);
    for (i, (label, end)) in ends.into_iter().enumerate() {
        r.line("");
        r.line(format!("query {} of {n}: {label}", i + 1));
        entries.push(entry(&mut r, &label, i + 1, end));
    }
    r.stat("queries", n);
    r.results = json!({ "queries": entries });
    r
}

/// Whether the deadline ended this query: stopped while deciding, or never
/// started.
fn cut_by_deadline(end: &QueryEnd) -> bool {
    match end {
        QueryEnd::Done(r) => r.stats.get("timed_out") == Some(&Value::Bool(true)),
        QueryEnd::Failed(e) => matches!(e, RunError::TimedOut(_)),
        QueryEnd::NotStarted => true,
    }
}

/// One query's part of the report: its text under the header, its warnings
/// and notes named by its number, its JSON entry.
fn entry(r: &mut Report, label: &str, number: usize, end: QueryEnd) -> Value {
    let verdict = verdict_of(&end);
    if let Some(reason) = why_unknown(&end) {
        r.line(format!("UNKNOWN: {reason}"));
        r.warnings.push(format!("query {number}: {reason}"));
        return json!({ "query": label, "verdict": verdict, "reason": reason });
    }
    let QueryEnd::Done(done) = end else {
        unreachable!("every other end has a reason")
    };
    if r.model.is_none() {
        r.model = done.model.clone();
    }
    r.text.push_str(&done.text);
    r.warnings
        .extend(done.warnings.iter().map(|w| format!("query {number}: {w}")));
    r.notes
        .extend(done.notes.iter().map(|w| format!("query {number}: {w}")));
    json!({
        "query": label,
        "verdict": done.verdict,
        "results": done.results,
        "witness": done.witness,
        "stats": done.stats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(v: Option<Verdict>) -> QueryEnd {
        let mut r = Report::new("nis", "check");
        r.verdict = v;
        r.line(format!("{} (inner)", v.map_or("DONE", Verdict::word)));
        QueryEnd::Done(Box::new(r))
    }

    fn ends(v: Vec<QueryEnd>) -> Vec<(String, QueryEnd)> {
        v.into_iter()
            .enumerate()
            .map(|(i, e)| (format!("q{i}"), e))
            .collect()
    }

    #[test]
    fn the_verdict_is_the_conjunction() {
        let h = || done(Some(Verdict::Holds));
        let v = || done(Some(Verdict::Violated));
        let u = || done(Some(Verdict::Unknown));
        let c = |e| combine("nis", "check", ends(e)).verdict;
        assert_eq!(c(vec![h(), h()]), Some(Verdict::Holds));
        assert_eq!(c(vec![h(), v(), u()]), Some(Verdict::Violated));
        assert_eq!(c(vec![h(), u()]), Some(Verdict::Unknown));
        assert_eq!(c(vec![h(), QueryEnd::NotStarted]), Some(Verdict::Unknown));
        assert_eq!(c(vec![done(None), done(None)]), None);
    }

    #[test]
    fn a_stopped_query_keeps_the_ones_before() {
        let e = ends(vec![
            done(Some(Verdict::Holds)),
            QueryEnd::Failed(RunError::TimedOut("the deadline".into())),
            QueryEnd::NotStarted,
        ]);
        let r = combine("nis", "check", e);
        assert_eq!(r.verdict, Some(Verdict::Unknown));
        assert!(r
            .text
            .starts_with("UNKNOWN: 3 queries, 1 hold, 0 violated, 2 unknown\n"));
        assert!(
            r.text.contains("query 1 of 3: q0\nHOLDS (inner)"),
            "{}",
            r.text
        );
        let q = &r.results["queries"];
        assert_eq!(q[0]["verdict"], "holds");
        assert_eq!(q[1]["verdict"], "unknown");
        assert_eq!(q[2]["reason"], "not started: the deadline had passed");
        assert_eq!(r.warnings.len(), 2);
        assert_eq!(r.stats["timed_out"], true);
    }

    /// `timed_out` is set exactly when a query was cut by the deadline: a
    /// query stopped by another limit, or all decided, leave it out.
    #[test]
    fn the_deadline_is_said_once_for_all_the_queries() {
        let timed_out = |e| {
            combine("nis", "check", ends(e))
                .stats
                .get("timed_out")
                .cloned()
        };
        let h = || done(Some(Verdict::Holds));
        let mut stopped = Report::new("nis", "check");
        stopped.stopped_at_deadline("the deadline");
        assert_eq!(timed_out(vec![h(), h()]), None);
        let limit = QueryEnd::Failed(RunError::Limit("too many states".into()));
        assert_eq!(timed_out(vec![h(), limit]), None);
        assert_eq!(
            timed_out(vec![h(), QueryEnd::NotStarted]),
            Some(true.into())
        );
        let done_stopped = QueryEnd::Done(Box::new(stopped));
        assert_eq!(timed_out(vec![done_stopped, h()]), Some(true.into()));
    }
}
