//! The report of `mavis nn verify NET.onnx PROP.vnnlib`: a VNN-LIB property
//! decided by `milp::verify`, and VNN-COMP's result file.
//!
//! JSON `results`: `vnncomp` (`unsat` | `sat` | `timeout` | `unknown`),
//! `inputs`, `outputs`, `cases`, `disjuncts`, and for a violation
//! `counterexample` (`case`, `disjunct`, `input`, `output`, `source`:
//! `sampling` | `local_search` | `milp`, `excess`: the largest `lhs - rhs` of
//! the disjunct's atoms at the replayed point). `stats`: `parse_s`,
//! `falsify_s`, `evaluations`, `bounds_s`, `lp_s`, `milp_s`, `milp_solves`,
//! `binaries` (most in one MILP), `binaries_total`, `milp_nodes` and
//! `milp_lp_iterations` (HiGHS's, over every MILP solve), `nodes` (boxes of
//! the input-splitting branch and bound), `splits`, `unstable_interval`, `unstable_symbolic`,
//! `unstable_lp` (of the root boxes; null when the root had no LP tightening), `unreplayed`,
//! `leaves` (MILP leaf decisions), `relu_splits` (splits on a ReLU, counted in `splits` too),
//! `threads` (the search's workers), `total_s`.

use super::nn::{load_for_command, shape_text};
use crate::milp::verify::{verify, Answer, Counterexample, SplitRule, Verification, VerifyOptions};
use crate::milp::{tolerance, SolveOptions, TIME_LIMIT};
use crate::nn::vnnlib;
use crate::report::{Report, RunContext, RunError, Verdict};
use serde_json::json;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

/// What `mavis nn verify` was asked.
#[derive(Clone, Debug)]
pub struct VerifyRequest {
    pub net: PathBuf,
    pub property: PathBuf,
    /// Where to write VNN-COMP's result file.
    pub vnncomp_output: Option<PathBuf>,
    /// See [`VerifyOptions::milp_unstable`].
    pub milp_unstable: usize,
    pub lp_tighten: bool,
    pub split: SplitRule,
    /// See [`VerifyOptions::branch_after`].
    pub relu_split_after: usize,
}

/// VNN-COMP's result file for an answer.
pub fn vnncomp_result(answer: &Answer) -> String {
    match answer {
        Answer::Holds => "unsat\n".to_string(),
        Answer::Violated(c) => {
            let mut s = "sat\n(".to_string();
            let pairs: Vec<String> = c
                .input
                .iter()
                .enumerate()
                .map(|(i, v)| format!("(X_{i} {v:?})"))
                .chain(
                    c.output
                        .iter()
                        .enumerate()
                        .map(|(j, v)| format!("(Y_{j} {v:?})")),
                )
                .collect();
            let _ = writeln!(s, "{})", pairs.join("\n "));
            s
        }
        Answer::Unknown(why) if why == TIME_LIMIT => "timeout\n".to_string(),
        Answer::Unknown(_) => "unknown\n".to_string(),
    }
}

fn vector_text(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.6}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The property file, read and checked against the network's sizes.
fn read_property(
    req: &VerifyRequest,
    net: &crate::nn::Network,
) -> Result<vnnlib::Property, RunError> {
    let bytes = crate::nn::read_maybe_gzip(&req.property)
        .map_err(|e| RunError::reading(&req.property, e))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        RunError::input(format!(
            "{}: the property is not UTF-8 text",
            req.property.display()
        ))
    })?;
    let prop = vnnlib::parse(&req.property.display().to_string(), &text)?;
    let network = req.net.display().to_string();
    prop.check_sizes(&network, net.input_size(), net.output_size())
        .map_err(RunError::input)?;
    prop.check_finite(net)
        .map_err(|why| RunError::input(format!("{}: {why}", req.property.display())))?;
    Ok(prop)
}

/// The search of `nn verify`, under a meter of the boxes processed (its
/// level: the boxes still open).
fn search(
    net: &crate::nn::Network,
    prop: &vnnlib::Property,
    req: &VerifyRequest,
    ctx: &RunContext,
) -> Result<Verification, RunError> {
    let searching = ctx.meter(crate::report::meter::Counting {
        label: "nn verify: search".into(),
        unit: "boxes",
        level: Some("open boxes"),
        total: None,
    });
    // The search runs parts on `threads` workers, each MILP on one thread.
    let opts = VerifyOptions {
        solve: SolveOptions::new(1, ctx.deadline(), ctx.verbosity >= 2),
        threads: ctx.threads,
        milp_unstable: req.milp_unstable,
        lp_tighten: req.lp_tighten,
        split: req.split,
        branch_after: req.relu_split_after,
        meter: searching.meter(),
        ..VerifyOptions::default()
    };
    verify(net, prop, &opts).map_err(|e| RunError::Internal(e.to_string()))
}

/// `mavis nn verify`.
pub fn verify_report(req: &VerifyRequest, ctx: &RunContext) -> Result<Report, RunError> {
    let start = Instant::now();
    let (model, model_ref) = load_for_command(&req.net)?;
    let net = &model.network;
    let prop = read_property(req, net)?;
    let parse_s = start.elapsed().as_secs_f64();
    ctx.stage("nn verify: falsification, bounds, MILP and input splitting");
    let v = search(net, &prop, req, ctx)?;
    ctx.finish_stages();
    if let Some(path) = &req.vnncomp_output {
        crate::report::output::write_file(path, vnncomp_result(&v.answer).as_bytes())?;
    }
    let mut r = Report::new("nn", "verify");
    r.model = model_ref;
    r.warnings.extend(prop.warnings.iter().cloned());
    let head = format!(
        "{} ({}) against {} ({} input boxes, {} output conjunctions)",
        req.net.display(),
        shape_text(net),
        req.property.display(),
        prop.cases.len(),
        prop.disjunct_count()
    );
    let mut results = json!({
        "inputs": prop.inputs, "outputs": prop.outputs,
        "cases": prop.cases.len(), "disjuncts": prop.disjunct_count(),
    });
    match &v.answer {
        Answer::Holds => {
            r.verdict = Some(Verdict::Holds);
            results["vnncomp"] = "unsat".into();
            r.line(format!(
                "HOLDS: {head}: no input reaches an unsafe output (VNN-COMP: unsat)"
            ));
        }
        Answer::Violated(c) => {
            r.verdict = Some(Verdict::Violated);
            results["vnncomp"] = "sat".into();
            r.line(format!(
                "VIOLATED: {head}: a counterexample (VNN-COMP: sat)"
            ));
            counterexample_lines(&mut r, c);
            let cex = json!({
                "case": c.case, "disjunct": c.disjunct, "input": c.input,
                "output": c.output, "source": c.source, "excess": c.excess,
            });
            results["counterexample"] = cex.clone();
            r.witness = Some(cex);
        }
        Answer::Unknown(why) => {
            r.verdict = Some(Verdict::Unknown);
            let tag = if why == TIME_LIMIT {
                "timeout"
            } else {
                "unknown"
            };
            results["vnncomp"] = tag.into();
            r.line(format!("UNKNOWN: {head}: {why} (VNN-COMP: {tag})"));
        }
    }
    stats_lines(&mut r, &v.stats, parse_s, start.elapsed().as_secs_f64());
    r.results = results;
    Ok(r)
}

fn counterexample_lines(r: &mut Report, c: &Counterexample) {
    r.line(format!("  input  x = ({})", vector_text(&c.input)));
    r.line(format!("  output y = ({})", vector_text(&c.output)));
    let how = match c.source {
        crate::milp::verify::Source::Sampling => "found by sampling",
        crate::milp::verify::Source::LocalSearch => "found by local search",
        crate::milp::verify::Source::Milp => "found by the MILP",
    };
    let within = if c.excess <= 0.0 {
        "exactly".to_string()
    } else {
        format!(
            "within {:e} (largest excess {:e})",
            tolerance::COUNTEREXAMPLE,
            c.excess
        )
    };
    r.line(format!(
        "  {how}; replayed in f64: disjunct {} of input box {} holds {within}",
        c.disjunct, c.case
    ));
}

fn stats_lines(r: &mut Report, s: &crate::milp::verify::VerifyStats, parse_s: f64, total_s: f64) {
    r.line(format!(
        "stages: parse {parse_s:.3} s, falsify {:.3} s ({} evaluations), bounds {:.3} s, LP {:.3} s, MILP {:.3} s ({} solves, at most {} binaries)",
        s.falsify_s, s.evaluations, s.bounds_s, s.lp_s, s.milp.seconds, s.milp.solves, s.milp.binaries_max
    ));
    r.line(format!(
        "HiGHS: {} branch-and-bound nodes, {} LP iterations",
        s.milp.effort.nodes, s.milp.effort.lp_iterations
    ));
    let lp = if s.root_lp {
        s.root_unstable[2].to_string()
    } else {
        "-".to_string()
    };
    r.line(format!(
        "branch and bound: {} boxes, {} splits; unstable ReLUs at the root: interval {}, symbolic {}, LP {lp}",
        s.boxes, s.splits, s.root_unstable[0], s.root_unstable[1]
    ));
    for (k, v) in [
        ("parse_s", json!(parse_s)),
        ("falsify_s", json!(s.falsify_s)),
        ("evaluations", json!(s.evaluations)),
        ("bounds_s", json!(s.bounds_s)),
        ("lp_s", json!(s.lp_s)),
        ("milp_s", json!(s.milp.seconds)),
        ("milp_solves", json!(s.milp.solves)),
        ("binaries", json!(s.milp.binaries_max)),
        ("binaries_total", json!(s.milp.binaries_total)),
        ("milp_nodes", json!(s.milp.effort.nodes)),
        ("milp_lp_iterations", json!(s.milp.effort.lp_iterations)),
        ("nodes", json!(s.boxes)),
        ("splits", json!(s.splits)),
        ("unstable_interval", json!(s.root_unstable[0])),
        ("unstable_symbolic", json!(s.root_unstable[1])),
        (
            "unstable_lp",
            if s.root_lp {
                json!(s.root_unstable[2])
            } else {
                json!(null)
            },
        ),
        ("unreplayed", json!(s.unreplayed)),
        ("leaves", json!(s.search.leaves)),
        ("relu_splits", json!(s.search.branches)),
        ("threads", json!(s.search.threads)),
        ("total_s", json!(total_s)),
    ] {
        r.stat(k, v);
    }
}
