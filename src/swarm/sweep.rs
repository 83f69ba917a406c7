//! `mavis swarm sweep`: the seed's Figure 2, max p against the step bound k
//! and a swept constant (the fault probability pf), as CSV and a plot.
//! One bounded value iteration per constant value gives every k at once.

use super::check::bounded_until;
use super::concrete::Concrete;
use super::counting::{check_deterministic, Counting};
use super::engine::{self, Sem};
use super::mdp::Stop;
use super::props::{Opt, Path, Properties};
use super::{load, load_props, Inputs};
use crate::lang::{num, Rat, Span, Value};
use crate::report::{Deadline, Report, RunContext, RunError, Table, TableFormat};
use plotters::prelude::*;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// The most values one `--sweep` range may have (each is one model build and check).
pub const MAX_SWEEP_VALUES: u32 = 10_000;

/// The largest step bound `--k` accepts.
pub const MAX_SWEEP_K: usize = 100_000;

/// `pf=0:0.1:1`: a constant and its values, exactly.
pub fn parse_range(text: &str) -> Result<(String, Vec<Rat>), String> {
    let (name, range) = text.split_once('=').ok_or("expected NAME=START:STEP:END")?;
    let parts: Vec<&str> = range.split(':').collect();
    let read = |s: &str| match crate::lang::parse_value_text(s)? {
        Value::Num(r) => Ok(r),
        other => Err(format!("`{other}` is not a number")),
    };
    let values = match parts.as_slice() {
        [single] => vec![read(single)?],
        [a, step, b] => {
            let (a, step, b) = (read(a)?, read(step)?, read(b)?);
            if step <= Rat::default() || a > b {
                return Err("the range needs START <= END and a positive STEP".into());
            }
            // Counted exactly before any value is made: a range is never cut short.
            let count = ((&b - &a) / &step).floor().to_integer() + 1;
            if count > MAX_SWEEP_VALUES.into() {
                return Err(format!(
                    "the range has {count} values; the limit is {MAX_SWEEP_VALUES}"
                ));
            }
            let mut v = Vec::new();
            let mut x = a;
            while x <= b {
                v.push(x.clone());
                x += &step;
            }
            v
        }
        _ => return Err("expected NAME=START:STEP:END or NAME=VALUE".into()),
    };
    Ok((name.trim().to_string(), values))
}

/// `8..20`
pub fn parse_k(text: &str) -> Result<(usize, usize), String> {
    let (a, b) = text.split_once("..").ok_or("expected LO..HI")?;
    let (a, b): (usize, usize) = (
        a.trim().parse().map_err(|_| "bad LO")?,
        b.trim().parse().map_err(|_| "bad HI")?,
    );
    if a == 0 || a > b || b > MAX_SWEEP_K {
        return Err(format!("expected 1 <= LO <= HI <= {MAX_SWEEP_K}"));
    }
    Ok((a, b))
}

pub struct SweepOptions {
    pub swept: (String, Vec<Rat>),
    pub ks: (usize, usize),
    pub agents: Option<Vec<usize>>,
    pub threshold: u32,
    /// Output prefix: PREFIX.csv, PREFIX.svg, PREFIX.png.
    pub out: Option<PathBuf>,
    pub max_states: usize,
}

/// One row: swept value, k, optimum over sizes (abstract) or at the size.
pub type Row = (Rat, usize, f64);

/// The sweep table as far as it was computed.
pub struct SweepTable {
    pub rows: Vec<Row>,
    pub opt: Opt,
    /// The property's text.
    pub prop: String,
}

impl Default for SweepTable {
    fn default() -> Self {
        SweepTable {
            rows: Vec::new(),
            opt: Opt::Max,
            prop: String::new(),
        }
    }
}

/// Computes the sweep table into `table`, stopping at `deadline`
/// ([`RunError::TimedOut`], with the rows of the values done kept).
pub fn sweep_rows(
    inputs: &Inputs,
    o: &SweepOptions,
    deadline: Deadline,
    table: &mut SweepTable,
) -> Result<(), RunError> {
    let (name, values) = &o.swept;
    let SweepTable {
        rows,
        opt,
        prop: text,
    } = table;
    for v in values {
        deadline.check()?;
        let mut inp = inputs.clone();
        inp.sets.retain(|(n, _)| n != name);
        inp.sets.push((name.clone(), Value::Num(v.clone())));
        let mut l = load(&inp)?;
        let src = l.source.clone();
        l.model.consts.define(
            &src,
            "k",
            Span::default(),
            Value::Num(num::int(o.ks.1 as i64)),
        )?;
        let props: Properties = load_props(&inp, &l.model)?;
        let p = props.props.first().expect("parser requires one");
        *text = p.text.clone();
        *opt = p.opt;
        let Path::Until { phi, steps, .. } = &p.path else {
            return Err(RunError::input(
                "sweep needs an F or U property whose bound is the constant `k`",
            ));
        };
        let sem = match &o.agents {
            Some(a) => Sem::Concrete(Concrete::new(
                &l.model,
                &l.sys,
                &super::run::counts_for(&l, a)?,
            )),
            None => {
                check_deterministic(&l.model, &l.sys).map_err(RunError::input)?;
                let named = vec![0; l.model.templates.len()];
                if !props
                    .refs
                    .iter()
                    .all(|r| !matches!(r, super::model::GlobalVar::Agent { .. }))
                {
                    return Err(RunError::input(
                        "sweep over all sizes needs a property over the environment only",
                    ));
                }
                let counts = named.iter().map(|_| (1..=o.threshold).collect()).collect();
                Sem::Counting(Counting::new(&l.model, &l.sys, &named, o.threshold, counts))
            }
        };
        let mdp = match engine::build(&sem, false, o.max_states, deadline.at()) {
            Ok(mdp) => mdp,
            Err(Stop::TimedOut(_)) => return Err(deadline.check().unwrap_err().into()),
            Err(Stop::StateLimit(n)) => {
                return Err(RunError::input(format!(
                    "more than {n} states (raise --max-states)"
                )))
            }
        };
        let f = engine::path_formulas(&p.path);
        let truth = engine::evaluate_formulas(&sem, &mdp, &l.model, &props.refs, &f).truth;
        let all = vec![true; mdp.num_states()];
        let allowed = if phi.is_some() { &truth[1] } else { &all };
        let run = bounded_until::<f64>(&mdp, &truth[0], allowed, *steps, p.opt, true, deadline)?;
        for k in o.ks.0..=o.ks.1 {
            // The property was read with k = HI; k = HI - d has d fewer steps.
            let Some(r) = steps.checked_sub(o.ks.1 - k) else {
                rows.push((v.clone(), k, 0.0));
                continue;
            };
            let vals = engine::Values {
                f64s: mdp
                    .initial
                    .iter()
                    .map(|&i| run.history[r][i as usize])
                    .collect(),
                exact: None,
                witness: None,
            };
            rows.push((v.clone(), k, engine::over_initials(&vals, p.opt).0));
        }
    }
    Ok(())
}

/// Runs `sweep`: the table, CSV and plots.
pub fn sweep(inputs: &Inputs, o: &SweepOptions, ctx: &RunContext) -> Result<Report, RunError> {
    let t0 = Instant::now();
    let mut done = SweepTable::default();
    let stopped = match sweep_rows(inputs, o, ctx.deadline(), &mut done) {
        Ok(()) => None,
        Err(RunError::TimedOut(why)) => Some(why),
        Err(e) => return Err(e),
    };
    let SweepTable { rows, opt, prop } = done;
    let name = &o.swept.0;
    let mut table = Table::new([name.as_str(), "k", opt.word()]);
    for (v, k, p) in &rows {
        table.row([num::to_f64(v).to_string(), k.to_string(), format!("{p:.6}")]);
    }
    let mut r = Report::new("swarm", "sweep");
    r.model = crate::report::ModelRef::from_path(&inputs.model).ok();
    let mode = match &o.agents {
        Some(a) => format!("S({a:?})"),
        None => format!("every size (abstraction, threshold {})", o.threshold),
    };
    r.text = format!(
        "{prop} for {name} in {} values and k = {}..{}, {mode}\n\n",
        o.swept.1.len(),
        o.ks.0,
        o.ks.1
    );
    r.text.push_str(&table.render(TableFormat::Text));
    if let Some(prefix) = &o.out {
        let csv = prefix.with_extension("csv");
        std::fs::write(&csv, table.render(TableFormat::Csv))
            .map_err(|e| RunError::input(format!("cannot write {}: {e}", csv.display())))?;
        let svg = prefix.with_extension("svg");
        let png = prefix.with_extension("png");
        plot(&rows, name, opt, &svg, true)
            .map_err(|e| RunError::Internal(format!("plot {}: {e}", svg.display())))?;
        plot(&rows, name, opt, &png, false)
            .map_err(|e| RunError::Internal(format!("plot {}: {e}", png.display())))?;
        r.text.push_str(&format!(
            "\nwrote {}, {} and {} (the PNG has no text: no font is bundled)\n",
            csv.display(),
            svg.display(),
            png.display()
        ));
    }
    r.stat("time_s", t0.elapsed().as_secs_f64());
    if let Some(why) = stopped {
        r.stopped_at_deadline(&format!(
            "{why}; the table has the {} rows computed so far",
            rows.len()
        ));
    }
    r.results = json!({"property": prop, "constant": name, "rows": rows.iter().map(|(v, k, p)| json!({"value": num::to_f64(v), "k": k, "p": p})).collect::<Vec<_>>()});
    Ok(r)
}

/// The figure: one line per swept value, p against k. SVG has captions and
/// axis labels; the PNG has none, as plotters needs a font file to draw text.
fn plot(
    rows: &[Row],
    name: &str,
    opt: Opt,
    path: &std::path::Path,
    text: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    if text {
        draw(
            SVGBackend::new(path, (800, 500)).into_drawing_area(),
            rows,
            name,
            opt,
            true,
        )
    } else {
        draw(
            BitMapBackend::new(path, (800, 500)).into_drawing_area(),
            rows,
            name,
            opt,
            false,
        )
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    rows: &[Row],
    name: &str,
    opt: Opt,
    text: bool,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let kmin = rows.iter().map(|r| r.1).min().unwrap_or(0) as f64;
    let kmax = rows.iter().map(|r| r.1).max().unwrap_or(1) as f64;
    let mut values: Vec<Rat> = rows.iter().map(|r| r.0.clone()).collect();
    values.dedup();
    root.fill(&WHITE)?;
    let mut b = ChartBuilder::on(&root);
    b.margin(20);
    if text {
        b.caption(
            format!("{} against k, one line per {name}", opt.word()),
            ("sans-serif", 20),
        )
        .x_label_area_size(40)
        .y_label_area_size(50);
    }
    let mut chart = b.build_cartesian_2d(kmin..kmax.max(kmin + 1.0), 0f64..1.05f64)?;
    if text {
        chart
            .configure_mesh()
            .x_desc("k")
            .y_desc(opt.word())
            .draw()?;
    } else {
        chart.configure_mesh().x_labels(0).y_labels(0).draw()?;
    }
    for (i, v) in values.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| &r.0 == v)
            .map(|r| (r.1 as f64, r.2))
            .collect();
        let series = chart.draw_series(LineSeries::new(pts, color.stroke_width(2)))?;
        if text {
            series
                .label(format!("{name}={}", num::to_f64(v)))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
    }
    if text {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
