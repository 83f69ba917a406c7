//! `mavis swarm check`: the entry point and the concrete sizes, with
//! verdicts, witnesses and the report. The abstraction for all sizes and the
//! cutoff are [`super::run_abstract`]'s; what both share is
//! [`super::run_common`]'s.

use super::check_abstract::check_abstract;
pub use super::check_common::{
    check_threshold, counts_for, cutoff_applies, init_counts, initial_abstract_states,
    named_agents, stop_message, CheckOptions,
};
use super::check_common::{
    explore_and_label, show, sizes, stopped_exploring, unknown_from, verdict_of, witness, Outcome,
};
use crate::lang::num;
use crate::report::{Report, RunContext, RunError, Table, TableFormat, Verdict};
use crate::swarm::decide::mdp::{Mdp, Stop};
use crate::swarm::decide::property::{self, Sem};
use crate::swarm::front::model::GlobalVar;
use crate::swarm::front::props::Properties;
use crate::swarm::semantics::concrete::Concrete;
use crate::swarm::semantics::counting::{check_deterministic, Counting};
use crate::swarm::{load, load_props, Inputs, Loaded};
use serde_json::json;
use std::time::Instant;

/// Runs `check`.
pub fn check(inputs: &Inputs, opts: &CheckOptions, ctx: &RunContext) -> Result<Report, RunError> {
    let mut l = load(inputs)?;
    let props = load_props(inputs, &mut l)?;
    let mut report = Report::new("swarm", "check");
    report.model = crate::report::ModelRef::from_path(&inputs.model).ok();
    if l.model.faulty {
        let flags = if l.model.track_flags {
            "tracked"
        } else {
            "projected away (nothing reads them; --fault-flags keeps them)"
        };
        report.stat("fault_flags", flags);
    }
    if opts.exact && opts.threshold.is_some() && l.model.faulty_fraction.is_some() {
        return Err(RunError::input("--exact with --faulty-fraction needs a concrete size (--agents n): the abstract initialisation phase has cycles"));
    }
    let results = match (&opts.agents, opts.threshold) {
        (Some(a), None) => check_concrete(&l, &props, &counts_for(&l, a)?, opts, ctx, &mut report)?,
        (None, Some(t)) => check_abstract(&l, &props, t, opts, ctx, &mut report)?,
        (Some(_), Some(_)) => {
            return Err(RunError::input(
                "give either --agents n or --abstract, not both",
            ))
        }
        (None, None) => {
            return Err(RunError::input(
                "give --agents n (a concrete size) or --abstract (all sizes)",
            ))
        }
    };
    finish(&mut report, results);
    if ctx.timed_out() && !report.stats.contains_key("timed_out") {
        // The cutoff and the concrete sizes of an undecided abstract bound
        // stop quietly at the deadline: say so.
        report.stat("timed_out", true);
        report.warnings.push("the time-out was reached".into());
    }
    Ok(report)
}

fn finish(report: &mut Report, outcomes: Vec<Outcome>) {
    let verdicts: Vec<Verdict> = outcomes.iter().filter_map(|o| o.verdict).collect();
    report.verdict = if verdicts.contains(&Verdict::Violated) {
        Some(Verdict::Violated)
    } else if verdicts.contains(&Verdict::Unknown) {
        Some(Verdict::Unknown)
    } else if verdicts.is_empty() {
        None
    } else {
        Some(Verdict::Holds)
    };
    let first = match (&report.verdict, outcomes.len()) {
        (_, 1) => format!("{}: {}", outcomes[0].text, outcomes[0].result),
        (Some(v), n) => format!("{} ({n} properties)", v.word()),
        (None, n) => format!("{n} properties computed"),
    };
    let mut text = first + "\n";
    let mut t = Table::new(["property", "result"]);
    for o in &outcomes {
        t.row([o.text.clone(), o.result.clone()]);
    }
    text.push('\n');
    text.push_str(&t.render(TableFormat::Text));
    report.text = text + &std::mem::take(&mut report.text);
    report.results =
        json!({ "properties": outcomes.into_iter().map(|o| o.json).collect::<Vec<_>>() });
}

fn check_concrete(
    l: &Loaded,
    props: &Properties,
    counts: &[usize],
    opts: &CheckOptions,
    ctx: &RunContext,
    report: &mut Report,
) -> Result<Vec<Outcome>, RunError> {
    let sem = Sem::Concrete(Concrete::new(&l.model, &l.sys, counts));
    if let Sem::Concrete(c) = &sem {
        for r in &props.refs {
            if let GlobalVar::Agent {
                template, agent, ..
            } = r
            {
                if c.agent_index(*template, *agent).is_none() {
                    return Err(RunError::input(format!(
                        "a label or property names agent {} of template {} but --agents gives {}",
                        agent + 1,
                        template + 1,
                        counts[*template]
                    )));
                }
            }
        }
    }
    let ex = match explore_and_label(l, &sem, props, opts.exact, opts.max_states, ctx) {
        Ok(ex) => ex,
        Err(stop) => return Ok(stopped_exploring(report, props, &stop, "the system")),
    };
    let t1 = Instant::now();
    let rounds = counts.iter().sum::<usize>() + 2;
    let mut out = Vec::new();
    for (i, p) in props.props.iter().enumerate() {
        let v = match ex.compute(props, i, opts, ctx, rounds) {
            Ok(v) => v,
            Err(e) => {
                out.extend(unknown_from(report, props, i, e));
                break;
            }
        };
        let (f, e) = (v.f64s[0], v.exact.as_ref().map(|e| e[0].clone()));
        let verdict = verdict_of(p, f, e.as_ref());
        if opts.witness {
            witness(l, &sem, &ex.mdp, p, &ex.truth[i], &v, report)?;
        }
        let result = match verdict {
            Some(vd) => format!("{} ({} = {})", vd.word(), p.opt.word(), show(f, e.as_ref())),
            None => show(f, e.as_ref()),
        };
        out.push(Outcome {
            text: p.text.clone(),
            verdict,
            result,
            json: json!({"property": p.text, "mode": "concrete", "agents": counts, "value": f, "exact": e.as_ref().map(num::display), "verdict": verdict}),
        });
    }
    sizes(report, &ex, t1.elapsed().as_secs_f64(), ctx.quiet());
    Ok(out)
}

/// A label's name and its truth at every state.
pub type LabelTruth = (String, Vec<bool>);

/// Explores a concrete (`counts`) or abstract model with its labels (for `export`, tests and benches).
pub fn explore_model(
    l: &Loaded,
    counts: Option<&[usize]>,
    threshold: u32,
    exact: bool,
    max_states: usize,
    deadline: crate::report::Deadline,
) -> Result<(Mdp, Vec<LabelTruth>), RunError> {
    let sem = match counts {
        Some(c) => Sem::Concrete(Concrete::new(&l.model, &l.sys, c)),
        None => {
            check_threshold(threshold, l.model.templates.len(), max_states)?;
            check_deterministic(&l.model, &l.sys).map_err(RunError::input)?;
            let named = named_agents(l, &l.model.label_refs);
            Sem::Counting(Counting::new(
                &l.model,
                &l.sys,
                &named,
                threshold,
                init_counts(&named, threshold),
            ))
        }
    };
    let mdp = match property::build(&sem, exact, max_states, deadline.at()) {
        Ok(mdp) => mdp,
        Err(stop @ Stop::TimedOut(_)) => return Err(RunError::TimedOut(stop_message(&stop))),
        Err(stop) => return Err(RunError::Limit(stop_message(&stop))),
    };
    let formulas: Vec<&crate::lang::TExpr> = l.model.labels.iter().map(|(_, t)| t).collect();
    let truth =
        property::evaluate_formulas(&sem, &mdp, &l.model, &l.model.label_refs, &formulas).truth;
    Ok((
        mdp,
        l.model
            .labels
            .iter()
            .map(|(n, _)| n.clone())
            .zip(truth)
            .collect(),
    ))
}
