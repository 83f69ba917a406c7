//! `mavis nis verify` and `mavis nis emergence` (Corollaries 1 and 2): a
//! sentence for every n >= m, and the emergence threshold.

use super::json::{check_json, witness_json};
use super::{model_ref, no_template, text, yes_no};
use crate::nis::engine::CheckRecord;
use crate::nis::front::formula::{Kind, Sentence};
use crate::nis::front::model::Model;
use crate::nis::outcome::MilpEffort;
use crate::nis::procedures::{verify_using, Procedure, VerifyOptions, VerifyOutcome};
use crate::report::{Report, RunContext, RunError, Statistics, Table, TableFormat, Verdict};
use serde_json::{json, Value};
use std::path::Path;

fn verify_results(o: &VerifyOutcome) -> Value {
    json!({
        "spec": o.spec,
        "kind": o.kind.word(),
        "indexed": o.m,
        "depth": o.depth,
        "corollary": o.corollary,
        "holds_for_all_n": o.holds_for_all_n,
        "emergence_threshold": o.emergence_threshold,
        "abstract_holds": o.abstract_holds,
        "procedure": o.procedure.word(),
        "min_simulating_n": o.simulation.as_ref().and_then(|s| s.n),
        "simulation_cap": o.simulation.as_ref().map(|s| s.cap),
        "simulating_bound": o.bound.and_then(|b| (b.n != usize::MAX).then_some(b.n)),
        "branching": o.bound.map(|b| b.branching),
        "fails_from": o.fails_from,
        "conclusion": o.conclusion,
        "undetermined_reason": o.undetermined_reason,
        "checks": o.checks.iter().map(check_json).collect::<Vec<_>>(),
    })
}

fn checks_table(o: &VerifyOutcome) -> Table {
    let mut t = Table::new(["check", "engine", "verdict", "time"]);
    for c in &o.checks {
        t.row([
            c.model.clone(),
            c.engine.to_string(),
            yes_no(c.holds).to_string(),
            format!("{:.3} s", c.time_s),
        ]);
    }
    t
}

/// The verdict of `verify` (or the threshold of `emergence`) and how the
/// procedure reached it: corollary, kind, depth, simulation or bound.
fn verdict_lines(r: &mut Report, o: &VerifyOutcome, threshold_only: bool) {
    let verdict = match o.holds_for_all_n {
        Some(b) => Verdict::from_bool(b),
        None => Verdict::Unknown,
    };
    let threshold = match o.emergence_threshold {
        Some(t) => format!("{t}"),
        None if o.holds_for_all_n.is_none() || o.threshold_undetermined => "undetermined".into(),
        None => "none".into(),
    };
    if threshold_only {
        r.verdict = Some(if o.holds_for_all_n.is_none() || o.threshold_undetermined {
            Verdict::Unknown
        } else {
            Verdict::from_bool(o.emergence_threshold.is_some())
        });
        r.line(format!("emergence threshold: {threshold}  ({})", o.spec));
    } else {
        r.verdict = Some(verdict);
        let head = match o.holds_for_all_n {
            Some(true) => format!("HOLDS for every n >= {}", o.m),
            Some(false) => "VIOLATED for some n".to_string(),
            None => "UNKNOWN".to_string(),
        };
        r.line(format!(
            "{head}: {}; emergence threshold: {threshold}",
            o.spec
        ));
    }
    r.line(format!(
        "{}, {} sentence, m = {}, temporal depth b = {}",
        o.corollary,
        o.kind.word(),
        o.m,
        o.depth
    ));
    if let Some(s) = &o.simulation {
        match s.n {
            Some(n) => r.line(format!(
                "least n with M_ab({}) <=_{} M(n): {n}",
                o.m, o.depth
            )),
            None => r.line(format!(
                "no n <= {} with M_ab({}) <=_{} M(n)",
                s.cap, o.m, o.depth
            )),
        }
    }
    if let Some(b) = &o.bound {
        r.line(format!(
            "no simulation search: M_ab({m}) <=_{d} M(n) for every n >= n' = {} (B = {}, the zero-one agent's branching)",
            b.describe(o.m, o.depth),
            b.branching,
            m = o.m,
            d = o.depth
        ));
    }
}

/// The first sub-check's witness, shown with whose it is. A check's witness
/// shows that check's verdict (existential: a witness that it holds;
/// universal: a counterexample); when it does not show the run's verdict
/// (the abstraction's witness of a violated existential sentence), it says so.
fn witness_section(r: &mut Report, o: &VerifyOutcome, results: &mut Value) {
    let witnessed = o.checks.iter().find(|c| c.witness.is_some());
    let Some(c) = witnessed else {
        return;
    };
    let kind = if c.holds { "witness" } else { "counterexample" };
    let shows_verdict = o.holds_for_all_n == Some(c.holds);
    let about = if shows_verdict {
        String::new()
    } else {
        format!(
            "; it shows that {} {} phi[{}], not the verdict",
            c.model,
            if c.holds { "satisfies" } else { "violates" },
            o.m
        )
    };
    if let Some(w) = &c.witness {
        r.line("");
        r.line(format!("{} ({kind} of phi[{}]{about}):", c.model, o.m));
        r.text.push_str(&text::witness(w));
    }
    r.witness = witness_json(c);
    results["witness_system"] = c.model.clone().into();
    results["witness_kind"] = kind.into();
    results["witness_shows_verdict"] = shows_verdict.into();
}

/// What `mavis nis verify` (or `emergence`) is asked.
pub struct VerifyRequest<'a> {
    /// The model file (the report names it, with its networks' files).
    pub path: &'a Path,
    pub model: &'a Model,
    pub sentence: &'a Sentence,
    pub opts: &'a VerifyOptions,
    /// The procedure chosen (`None`: the default of [`Procedure::select`]).
    pub procedure: Option<Procedure>,
    /// `emergence`: report the threshold only.
    pub threshold_only: bool,
}

/// `mavis nis verify` (Corollaries 1 and 2).
pub fn verify_report(req: &VerifyRequest, ctx: &RunContext) -> Result<Report, RunError> {
    let (model, sentence, threshold_only) = (req.model, req.sentence, req.threshold_only);
    if !model.parameterised {
        return Err(no_template("has no number of agents n to verify over"));
    }
    if sentence.kind() == Kind::Propositional && sentence.agents() == 0 {
        return Err(RunError::input("the sentence names no agent"));
    }
    let o = verify_using(model, sentence, req.opts, req.procedure, ctx)?;
    let mut r = Report::new(
        "nis",
        if threshold_only {
            "emergence"
        } else {
            "verify"
        },
    );
    r.model = model_ref(req.path, model);
    verdict_lines(&mut r, &o, threshold_only);
    r.line(o.conclusion.clone());
    if ctx.timed_out() {
        r.stat("timed_out", true);
        r.warnings
            .push("the time-out was reached: the sub-checks below are those completed".into());
    }
    r.line("");
    r.text.push_str(&checks_table(&o).render(TableFormat::Text));
    let mut results = verify_results(&o);
    witness_section(&mut r, &o, &mut results);
    r.results = results;
    effort_stats(&mut r, &o.checks);
    r.line(format!("time: {:.3} s", o.time_s));
    r.stat("time_s", o.time_s);
    r.stat("checks", o.checks.len());
    Ok(r)
}

/// HiGHS's work summed over the sub-checks a MILP decider ran, as stats
/// and text lines; absent when no MILP decider ran.
fn effort_stats(r: &mut Report, checks: &[CheckRecord]) {
    let Some(effort) = MilpEffort::sum(checks.iter().filter_map(CheckRecord::milp_stats)) else {
        return;
    };
    for (key, sum) in effort.attributes() {
        r.line(format!("{key}: {}", sum.to_json()));
    }
    r.put_stats(&effort);
}
