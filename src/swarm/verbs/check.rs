//! `mavis swarm check`: loads the model and the properties, runs the
//! procedure ([`crate::swarm::decide::check`]) and renders its outcome as
//! the report's text and JSON.

use crate::lang::num;
use crate::report::{ModelRef, Report, RunContext, RunError, Table, TableFormat, Verdict};
use crate::swarm::decide::outcome::{
    Answer, Beyond, CheckOutcome, Cutoff, Probability, PropertyOutcome, Witness, WitnessNote,
};
use crate::swarm::decide::procedure::CheckOptions;
use crate::swarm::decide::property::Method;
use crate::swarm::front::load::{load, load_props, Inputs};
use crate::swarm::front::props::Opt;
use serde_json::{json, Value as Json};

/// Runs `check`.
pub fn check(inputs: &Inputs, opts: &CheckOptions, ctx: &RunContext) -> Result<Report, RunError> {
    let mut l = load(inputs)?;
    let props = load_props(inputs, &mut l)?;
    let outcome = crate::swarm::decide::check::check(&l, &props, opts, ctx)?;
    let mut report = Report::new("swarm", "check");
    report.model = ModelRef::from_path(&inputs.model).ok();
    render(outcome, ctx.quiet(), &mut report);
    Ok(report)
}

/// The report of `outcome`: the verdict line and the table of properties,
/// then the witnesses and (unless `-q`) the sizes; the same in JSON.
fn render(outcome: CheckOutcome, quiet: bool, report: &mut Report) {
    let CheckOutcome {
        properties,
        witnesses,
        stats,
        warnings,
    } = outcome;
    let verdicts: Vec<Verdict> = properties.iter().filter_map(|o| o.verdict).collect();
    report.verdict = if verdicts.contains(&Verdict::Violated) {
        Some(Verdict::Violated)
    } else if verdicts.contains(&Verdict::Unknown) {
        Some(Verdict::Unknown)
    } else if verdicts.is_empty() {
        None
    } else {
        Some(Verdict::Holds)
    };
    let results: Vec<String> = properties.iter().map(result_text).collect();
    let mut text = match (&report.verdict, properties.len()) {
        (_, 1) => format!("{}: {}", properties[0].property, results[0]),
        (Some(v), n) => format!("{} ({n} properties)", v.word()),
        (None, n) => format!("{n} properties computed"),
    };
    text.push_str("\n\n");
    let mut t = Table::new(["property", "result"]);
    for (o, r) in properties.iter().zip(&results) {
        t.row([o.property.clone(), r.clone()]);
    }
    text.push_str(&t.render(TableFormat::Text));
    for w in &witnesses {
        text.push_str(&witness_text(w));
        if let WitnessNote::Path(w) = w {
            report.witness = Some(witness_json(w));
        }
    }
    if let (Some(m), false) = (&stats.model, quiet) {
        text.push_str(&format!(
            "\n{} states, {} choices, {} transitions; built in {:.3} s, checked in {:.3} s\n",
            m.states, m.choices, m.transitions, m.build_s, m.check_s
        ));
    }
    report.text = text;
    report.put_stats(&stats);
    report.warnings.extend(warnings);
    report.results =
        json!({ "properties": properties.iter().map(result_json).collect::<Vec<_>>() });
}

/// A value as the table shows it; an unbounded property's says how it was
/// computed (the certified interval in f64, or the exact value).
fn show(v: &Probability) -> String {
    if v.f64 == f64::INFINITY {
        return "infinity (the target is missed with positive probability)".into();
    }
    match (&v.exact, v.method, v.bounds) {
        (Some(e), Method::Policy { .. }, _) => {
            format!(
                "{} ({}; exact, by policy iteration)",
                num::display(e),
                v.f64
            )
        }
        (Some(e), ..) => format!("{} ({})", num::display(e), v.f64),
        (None, Method::Interval { .. }, Some((lo, hi))) => {
            format!("[{lo}, {hi}] (certified by interval iteration)")
        }
        (None, ..) => format!("{}", v.f64),
    }
}

/// How an unbounded property's value was computed, into its JSON entry
/// (`key` names the interval); nothing for a step-bounded one.
fn method_json(v: &Probability, key: &str, j: &mut Json) {
    let (method, iterations, schedulers) = match v.method {
        Method::Bounded => return,
        Method::Interval { iterations } => ("interval iteration", iterations, None),
        Method::Policy {
            iterations,
            schedulers,
        } => ("policy iteration", iterations, Some(schedulers)),
    };
    j["method"] = json!(method);
    j["iterations"] = json!(iterations);
    if let Some(s) = schedulers {
        j["schedulers"] = json!(s);
    }
    if let Some((lo, hi)) = v.bounds {
        j[key] = json!([lo, hi]);
    }
}

fn exact_text(v: &Probability) -> Option<String> {
    v.exact.as_ref().map(num::display)
}

/// "sup over n <=" (Pmax) or "inf over n >=" (Pmin).
fn side(opt: Opt) -> &'static str {
    match opt {
        Opt::Max => "sup over n <=",
        Opt::Min => "inf over n >=",
    }
}

fn word(v: Option<Verdict>) -> &'static str {
    v.unwrap_or(Verdict::Unknown).word()
}

/// A property's result in the table.
fn result_text(o: &PropertyOutcome) -> String {
    let opt = o.word;
    match &o.answer {
        Answer::AtSize { value, .. } => match o.verdict {
            Some(v) => format!("{} ({opt} = {})", v.word(), show(value)),
            None => show(value),
        },
        Answer::Unknown { reason } => format!("unknown: {reason}"),
        Answer::AllSizes { bound, beyond, .. } => {
            let (side, b) = (side(o.opt), show(bound));
            match (beyond, o.verdict) {
                (Beyond::Nothing, None) => format!("{opt} {side} {b}"),
                (Beyond::Nothing, v) => format!("{} for every size ({opt} {side} {b})", word(v)),
                (Beyond::Cutoff(c), None) => format!(
                    "{opt} over every n = {} by the cutoff (abstract {opt} {side} {b})",
                    show(&c.value)
                ),
                (Beyond::Cutoff(c), v) => format!(
                    "{} for every size by the cutoff (exact {opt} over n = {}; abstract bound {b})",
                    word(v),
                    show(&c.value)
                ),
                (Beyond::Sizes(sizes), _) => {
                    let shown: Vec<String> =
                        sizes.iter().map(|(n, v)| format!("n={n}: {v}")).collect();
                    format!(
                        "UNKNOWN: abstract {opt} {side} {b} does not prove it; concrete {}",
                        shown.join(", ")
                    )
                }
            }
        }
        Answer::ByCutoff {
            abstraction,
            cutoff,
        } => {
            let head = o
                .verdict
                .map_or(String::new(), |v| format!("{} for every size: ", v.word()));
            format!(
                "{head}{opt} over every n = {} by the cutoff (the abstraction: {abstraction})",
                show(&cutoff.value)
            )
        }
    }
}

fn cutoff_json(c: &Cutoff) -> Json {
    json!({"value": c.value.f64, "exact": exact_text(&c.value), "per_n": c.per_n})
}

/// A property's entry in the JSON `results.properties`.
fn result_json(o: &PropertyOutcome) -> Json {
    let mut j = match &o.answer {
        Answer::AtSize { agents, value } => {
            let mut j = json!({"mode": "concrete", "agents": agents, "value": value.f64, "exact": exact_text(value)});
            if value.f64 == f64::INFINITY {
                j["infinite"] = json!(true);
            }
            method_json(value, "interval", &mut j);
            j
        }
        Answer::Unknown { reason } => json!({ "reason": reason }),
        Answer::AllSizes {
            threshold,
            bound,
            beyond,
        } => {
            let mut j = json!({"mode": "abstract", "threshold": threshold, "abstract_bound": bound.f64, "abstract_bound_exact": exact_text(bound)});
            // JSON has no infinity: the number is null, and this says why.
            if bound.f64 == f64::INFINITY {
                j["abstract_bound_infinite"] = json!(true);
            }
            method_json(bound, "abstract_bound_interval", &mut j);
            match beyond {
                Beyond::Nothing => {}
                Beyond::Cutoff(c) => j["cutoff"] = cutoff_json(c),
                Beyond::Sizes(sizes) => {
                    j["concrete"] = sizes
                        .iter()
                        .map(|(n, v)| match *v == f64::INFINITY {
                            true => json!({"agents": n, "value": v, "infinite": true}),
                            false => json!({"agents": n, "value": v}),
                        })
                        .collect()
                }
            }
            j
        }
        Answer::ByCutoff {
            abstraction,
            cutoff,
        } => json!({"mode": "abstract", "abstraction": abstraction, "cutoff": cutoff_json(cutoff)}),
    };
    j["property"] = json!(o.property);
    j["verdict"] = json!(o.verdict);
    j
}

/// A witness (or its absence) as the text after the table.
fn witness_text(w: &WitnessNote) -> String {
    let w = match w {
        WitnessNote::Unreachable { property, steps } => {
            return format!(
                "\nno witness for {property}: the target is unreachable within {steps} steps\n"
            )
        }
        WitnessNote::Path(w) => w,
    };
    let mut cols = vec!["step".to_string(), "action".into(), "p".into()];
    cols.extend(w.columns.iter().cloned());
    let mut t = Table::new(cols);
    let mut first = vec!["0".to_string(), "(initial)".into(), "".into()];
    first.extend(w.initial.iter().cloned());
    t.row(first);
    for (i, s) in w.steps.iter().enumerate() {
        let mut row = vec![
            (i + 1).to_string(),
            s.action.clone(),
            format!("{}", s.probability),
        ];
        row.extend(s.state.iter().cloned());
        t.row(row);
    }
    // The step-dependent scheduler: the optimal choice at each step along the path.
    format!(
        "\nmost likely witness of {} under the optimal step-dependent scheduler (probability {:e}, {} steps, replayed):\n{}",
        w.property,
        w.probability,
        w.steps.len(),
        t.render(TableFormat::Text)
    )
}

fn witness_json(w: &Witness) -> Json {
    let steps: Vec<Json> = w
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"step": i + 1, "action": s.action, "probability": s.probability, "state": s.state}))
        .collect();
    json!({"property": w.property, "probability": w.probability, "columns": w.columns, "steps": steps})
}
