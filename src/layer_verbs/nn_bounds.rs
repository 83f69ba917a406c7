//! The report of `mavis nn bounds`: interval and symbolic bounds from `nn`,
//! LP tightening and the exact ranges from `milp`.
//!
//! JSON `results`: `box` (`lo`, `hi`), `stages`: a list of
//! `{name, unstable, time_s, outputs: [{lo, hi}]}` for `interval`, `symbolic`,
//! `lp` (with `--lp-tighten`), then `exact`: `{binaries, variables,
//! constraints, bounds_time_s, solve_time_s, outputs: [{lo, hi, status_lo,
//! status_hi, argmin, argmax}]}` (absent with `--no-exact`).

use super::nn::load_for_command;
use crate::milp::{
    exact_output_bounds_reporting, lp_tighten_budget, lp_tighten_metered, tolerance, BoundsMethod,
    EncodeOptions, ExactBounds, Extremum, MilpError, Objective, SolveOptions, Status,
};
use crate::nn::{interval_bounds, symbolic_bounds, InputBox, Network, NetworkBounds};
use crate::report::{Report, RunContext, RunError, Table, TableFormat, Verdict};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Instant;

/// What `mavis nn bounds` was asked.
#[derive(Clone, Debug)]
pub struct BoundsRequest {
    pub net: PathBuf,
    /// The box as written, e.g. `[0,1]` or `[0,1]x[-1,1]`.
    pub box_text: String,
    pub lp_tighten: bool,
    pub exact: bool,
    pub dump_lp: Option<PathBuf>,
}

fn range_text(lo: f64, hi: f64) -> String {
    format!("[{lo:.6}, {hi:.6}]")
}

fn stage_json(name: &str, b: &NetworkBounds, seconds: f64) -> Value {
    let out = b.output();
    json!({
        "name": name,
        "unstable": b.unstable_count(),
        "time_s": seconds,
        "outputs": out.lo.iter().zip(&out.hi).map(|(l, h)| json!({"lo": l, "hi": h})).collect::<Vec<_>>(),
    })
}

fn witness_json(e: &Extremum) -> Value {
    e.witness.as_ref().map_or(Value::Null, |(x, _)| json!(x))
}

/// One side as text: six decimals, `*` when the MILP stopped before optimality.
fn side_text(v: Option<f64>, e: &Extremum) -> String {
    let star = if e.status == Status::Optimal { "" } else { "*" };
    v.map_or("-".to_string(), |v| format!("{v:.6}{star}"))
}

/// A bound stage: its name, the bounds, its time in seconds.
type Stage = (String, NetworkBounds, f64);

/// `mavis nn bounds`: output ranges over a box by interval arithmetic,
/// symbolic propagation, optional LP tightening and exact MILP.
pub fn bounds_report(req: &BoundsRequest, ctx: &RunContext) -> Result<Report, RunError> {
    let (model, model_ref) = load_for_command(&req.net)?;
    let net = &model.network;
    let input = InputBox::parse(&req.box_text, net.input_size())
        .map_err(|e| RunError::input(format!("--box: {e}")))?;
    let mut r = Report::new("nn", "bounds");
    r.model = model_ref;
    let solve = SolveOptions::new(ctx.threads, ctx.deadline(), ctx.verbosity >= 2);
    let stages = propagation_stages(net, &input, req.lp_tighten, &solve, ctx)?;
    let relus: usize = net
        .layers()
        .iter()
        .filter(|l| l.activation == crate::nn::Activation::Relu)
        .map(|l| l.outputs())
        .sum();
    let exact = exact_ranges(req, net, &input, &solve, ctx, &mut r)?;
    let complete = match &exact {
        None => true,
        Some(ex) => ex
            .outputs
            .iter()
            .all(|o| o.min.status == Status::Optimal && o.max.status == Status::Optimal),
    };
    let inexact: Vec<String> = exact.as_ref().map_or(Vec::new(), |ex| {
        ex.outputs
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.is_exact())
            .map(|(j, _)| format!("y{j}"))
            .collect()
    });
    let headline = headline(&mut r, &stages, exact.as_ref(), complete, &inexact, relus);
    r.line(format!(
        "{} over {}: {headline}",
        req.net.display(),
        input.to_text()
    ));
    let table = ranges_table(net.output_size(), &stages, exact.as_ref());
    r.line(table.render(TableFormat::Text).trim_end());
    let st = stages_table(&stages, exact.as_ref(), relus);
    r.line(st.render(TableFormat::Text).trim_end());
    let mut results = json!({
        "box": {"lo": input.lo, "hi": input.hi},
        "relus": relus,
        "stages": stages.iter().map(|(n, b, s)| stage_json(n, b, *s)).collect::<Vec<_>>(),
    });
    for (name, _, s) in &stages {
        r.stat(&format!("{name}_s"), *s);
    }
    if let Some(ex) = &exact {
        r.line(format!(
            "MILP: {} variables, {} binaries, {} constraints; {} solves in {:.6} s",
            ex.stats.variables,
            ex.stats.binaries,
            ex.stats.constraints,
            2 * net.output_size(),
            ex.solve_time.as_secs_f64()
        ));
        results["exact"] = exact_json(ex, inexact.is_empty() && complete);
        r.stat(
            "exact_s",
            ex.bounds_time.as_secs_f64() + ex.solve_time.as_secs_f64(),
        );
        r.stat("binaries", ex.stats.binaries);
        r.stat("variables", ex.stats.variables);
        r.stat("constraints", ex.stats.constraints);
    }
    r.results = results;
    Ok(r)
}

/// The interval and symbolic bounds, and the LP-tightened ones when asked.
fn propagation_stages(
    net: &Network,
    input: &InputBox,
    tighten: bool,
    solve: &SolveOptions,
    ctx: &RunContext,
) -> Result<Vec<Stage>, RunError> {
    let mut stages: Vec<Stage> = Vec::new();
    let t = Instant::now();
    ctx.stage("nn bounds: interval propagation");
    let interval = interval_bounds(net, input);
    stages.push(("interval".into(), interval, t.elapsed().as_secs_f64()));
    let t = Instant::now();
    ctx.stage("nn bounds: symbolic propagation");
    let symbolic = symbolic_bounds(net, input);
    stages.push((
        "symbolic".into(),
        symbolic.clone(),
        t.elapsed().as_secs_f64(),
    ));
    if tighten {
        let t = Instant::now();
        ctx.stage("nn bounds: LP tightening of the unstable ReLUs");
        // LPs solved of the most it can take (two per unstable ReLU).
        let lps = ctx.meter(crate::report::meter::Counting {
            label: "nn bounds: LP tightening".into(),
            unit: "LPs",
            level: None,
            total: Some(lp_tighten_budget(net, &symbolic)),
        });
        let tightened = lp_tighten_metered(net, &symbolic, solve, &lps.meter())
            .map_err(|e| RunError::Internal(e.to_string()))?;
        drop(lps);
        stages.push(("lp".into(), tightened, t.elapsed().as_secs_f64()));
    }
    Ok(stages)
}

/// The exact ranges by MILP (with `--exact`; also computed for
/// `--dump-lp`, which writes the program and warns in `r`).
fn exact_ranges(
    req: &BoundsRequest,
    net: &Network,
    input: &InputBox,
    solve: &SolveOptions,
    ctx: &RunContext,
    r: &mut Report,
) -> Result<Option<ExactBounds>, RunError> {
    let encode = EncodeOptions {
        bounds: if req.lp_tighten {
            BoundsMethod::SymbolicLp
        } else {
            BoundsMethod::Symbolic
        },
        lp: solve.clone(),
        ..EncodeOptions::default()
    };
    let exact = if req.exact || req.dump_lp.is_some() {
        ctx.stage(format!(
            "nn bounds: exact ranges, {} MILPs (a minimum and a maximum per output)",
            2 * net.output_size()
        ));
        // One bar step per MILP; the bar replaces the stage's spinner.
        ctx.finish_stages();
        let mut bar = ctx.progress(2 * net.output_size() as u64, "nn bounds", "MILPs");
        let ranges = exact_output_bounds_reporting(net, input, &encode, solve, &mut || bar.inc(1));
        bar.finish_and_clear();
        Some(ranges.map_err(|e| match e {
            MilpError::Replay(_) => RunError::Internal(e.to_string()),
            other => RunError::input(other),
        })?)
    } else {
        None
    };
    if let (Some(path), Some(ex)) = (&req.dump_lp, &exact) {
        let lp = ex.model.to_lp(&Objective::Feasibility);
        crate::report::output::write_file(path, lp.as_bytes())?;
        r.warnings.push(format!(
            "MILP written to {} (objective left empty)",
            path.display()
        ));
    }
    let exact = if req.exact { exact } else { None };
    if exact.is_some() && ctx.timed_out() {
        r.stat("timed_out", true);
        r.warnings.push(
            "the time-out was reached: the MILPs left unsolved give the relaxation bounds".into(),
        );
    }
    Ok(exact)
}

/// The report's first line after the box (and the verdict or warning it implies).
fn headline(
    r: &mut Report,
    stages: &[Stage],
    exact: Option<&ExactBounds>,
    complete: bool,
    inexact: &[String],
    relus: usize,
) -> String {
    match exact {
        Some(_) if !complete => {
            r.verdict = Some(Verdict::Unknown);
            "UNKNOWN: a MILP stopped before optimality; sides marked * are sound bounds, not attained".to_string()
        }
        Some(ex) if inexact.is_empty() => format!(
            "exact output ranges by MILP ({} binaries for {relus} ReLUs; attained and proven agree within {:e})",
            ex.stats.binaries,
            tolerance::EXACT_AGREEMENT
        ),
        Some(ex) => {
            r.warnings.push(format!(
                "the attained and proven bounds of {} differ by more than {:e} (relative): each range lies between them",
                inexact.join(", "),
                tolerance::EXACT_AGREEMENT
            ));
            format!(
                "output ranges by MILP ({} binaries for {relus} ReLUs); not exact for {}",
                ex.stats.binaries,
                inexact.join(", ")
            )
        }
        None => format!(
            "output bounds by {} propagation",
            stages.last().expect("stages").0
        ),
    }
}

/// One row per output: its range at every stage, then the MILP's attained
/// and proven ranges and their arguments.
fn ranges_table(outputs: usize, stages: &[Stage], exact: Option<&ExactBounds>) -> Table {
    let mut header: Vec<String> = vec!["output".into()];
    header.extend(stages.iter().map(|s| s.0.clone()));
    if exact.is_some() {
        header.extend([
            "attained".to_string(),
            "proven".to_string(),
            "argmin".to_string(),
            "argmax".to_string(),
        ]);
    }
    let mut table = Table::new(header);
    for j in 0..outputs {
        let mut row = vec![format!("y{j}")];
        for (_, b, _) in stages {
            let o = b.output();
            row.push(range_text(o.lo[j], o.hi[j]));
        }
        if let Some(ex) = exact {
            let o = &ex.outputs[j];
            row.push(match (o.min.inner(), o.max.inner()) {
                (None, None) => "-".to_string(),
                (lo, hi) => format!("[{}, {}]", side_text(lo, &o.min), side_text(hi, &o.max)),
            });
            row.push(format!(
                "[{}, {}]",
                side_text(Some(o.min.outer), &o.min),
                side_text(Some(o.max.outer), &o.max)
            ));
            row.push(argument_text(&o.min));
            row.push(argument_text(&o.max));
        }
        table.row(row);
    }
    table
}

/// Where an extremum is attained, as text.
fn argument_text(e: &Extremum) -> String {
    e.witness.as_ref().map_or("-".to_string(), |(x, _)| {
        format!(
            "({})",
            x.iter()
                .map(|v| format!("{v:.4}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// One row per stage: unstable ReLUs, binaries, time.
fn stages_table(stages: &[Stage], exact: Option<&ExactBounds>, relus: usize) -> Table {
    let mut st = Table::new(["stage", "unstable ReLUs", "binaries", "time"]);
    for (name, b, s) in stages {
        st.row([
            name.clone(),
            format!("{} of {relus}", b.unstable_count()),
            "-".into(),
            format!("{s:.6} s"),
        ]);
    }
    if let Some(ex) = exact {
        st.row([
            "exact".to_string(),
            format!("{} of {relus}", ex.bounds.unstable_count()),
            ex.stats.binaries.to_string(),
            format!(
                "{:.6} s",
                ex.bounds_time.as_secs_f64() + ex.solve_time.as_secs_f64()
            ),
        ]);
    }
    st
}

/// The JSON `exact` stage.
fn exact_json(ex: &ExactBounds, exact: bool) -> Value {
    json!({
        "binaries": ex.stats.binaries,
        "variables": ex.stats.variables,
        "constraints": ex.stats.constraints,
        "bounds_time_s": ex.bounds_time.as_secs_f64(),
        "solve_time_s": ex.solve_time.as_secs_f64(),
        "exact": exact,
        "tolerance": tolerance::EXACT_AGREEMENT,
        "outputs": ex.outputs.iter().map(|o| json!({
            "lo": o.min.value(), "hi": o.max.value(),
            "exact_lo": o.min.exact, "exact_hi": o.max.exact,
            "attained": {"lo": o.min.inner(), "hi": o.max.inner()},
            "proven": {"lo": o.min.outer, "hi": o.max.outer},
            "status_lo": o.min.status, "status_hi": o.max.status,
            "argmin": witness_json(&o.min), "argmax": witness_json(&o.max),
        })).collect::<Vec<_>>(),
    })
}
