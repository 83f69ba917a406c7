//! `mavis swarm sweep`: the seed's Figure 2, max p against the step bound k
//! and a swept constant (the fault probability pf), as CSV and a plot.
//! One bounded value iteration per constant value gives every k at once.

use super::check::bounded_until;
use super::concrete::Concrete;
use super::counting::{check_deterministic, Counting};
use super::engine::{self, Sem};
use super::mdp::Stop;
use super::model::Model;
use super::props::{parse_property_sources, Opt, Path, Properties};
use super::{load, load_props, Inputs};
use crate::lang::{num, Rat, Source, Span, Value};
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
    /// Threads of the value iteration (`--threads`).
    pub threads: usize,
}

/// One row: swept value, k, optimum over sizes (abstract) or at the size.
pub type Row = (Rat, usize, f64);

/// The sweep table as far as it was computed.
pub struct SweepTable {
    pub rows: Vec<Row>,
    pub opt: Opt,
    /// The property's text.
    pub prop: String,
    /// Warnings for the report.
    pub notes: Vec<String>,
}

impl Default for SweepTable {
    fn default() -> Self {
        SweepTable {
            rows: Vec::new(),
            opt: Opt::Max,
            prop: String::new(),
            notes: Vec::new(),
        }
    }
}

/// The property with the constant `k` defined as `k` (the model is a copy).
fn property_at(base: &Model, text: &str, k: usize) -> Result<(Properties, Model), RunError> {
    let mut m = base.clone();
    let src = m.source.clone();
    m.consts
        .define(&src, "k", Span::default(), Value::Num(num::int(k as i64)))?;
    let props = parse_property_sources(&[Source::new("<--prop>", text.to_string())], &m)?;
    Ok((props, m))
}

/// One row to compute: its k, the step bound the property has at that k and
/// the target and allowed sets it has there.
struct Cell {
    k: usize,
    steps: usize,
    sets: Vec<Vec<bool>>,
}

/// Every row's cell: the property is read again at each k, so the bound, the
/// target and the allowed states are those of that k (no `k + const` guess).
fn cells(
    base: &Model,
    text: &str,
    sem: &Sem,
    mdp: &super::mdp::Mdp,
    ks: (usize, usize),
    deadline: Deadline,
) -> Result<Vec<Cell>, RunError> {
    let mut out = Vec::new();
    for k in ks.0..=ks.1 {
        deadline.check()?;
        let (props, m) = property_at(base, text, k)?;
        let p = props.props.first().expect("parser requires one");
        let Path::Until { phi, steps, .. } = &p.path else {
            return Err(RunError::input("sweep needs an F or U property"));
        };
        let f = engine::path_formulas(&p.path);
        let mut sets = engine::evaluate_formulas(sem, mdp, &m, &props.refs, &f).truth;
        if phi.is_none() {
            sets.push(vec![true; mdp.num_states()]);
        }
        out.push(Cell {
            k,
            steps: *steps,
            sets,
        });
    }
    Ok(out)
}

/// The semantics a sweep explores: S(agents), or the abstraction.
fn semantics<'a>(
    l: &'a super::Loaded,
    props: &Properties,
    o: &SweepOptions,
) -> Result<Sem<'a>, RunError> {
    Ok(match &o.agents {
        Some(a) => Sem::Concrete(Concrete::new(
            &l.model,
            &l.sys,
            &super::run::counts_for(l, a)?,
        )),
        None => {
            check_deterministic(&l.model, &l.sys).map_err(RunError::input)?;
            let named = vec![0; l.model.templates.len()];
            if props
                .refs
                .iter()
                .any(|r| matches!(r, super::model::GlobalVar::Agent { .. }))
            {
                return Err(RunError::input(
                    "sweep over all sizes needs a property over the environment only",
                ));
            }
            super::run::check_threshold(o.threshold, l.model.templates.len(), o.max_states)?;
            let counts = named.iter().map(|_| (1..=o.threshold).collect()).collect();
            Sem::Counting(Counting::new(&l.model, &l.sys, &named, o.threshold, counts))
        }
    })
}

/// Computes the sweep table into `table`, stopping at `deadline`
/// ([`RunError::TimedOut`], with the rows of the values done kept). One
/// model per swept value; rows whose target and allowed sets agree share
/// one value iteration, read at each row's own step bound.
pub fn sweep_rows(
    inputs: &Inputs,
    o: &SweepOptions,
    deadline: Deadline,
    table: &mut SweepTable,
) -> Result<(), RunError> {
    let (name, values) = &o.swept;
    let text = inputs.prop_texts.first().cloned().unwrap_or_default();
    for v in values {
        deadline.check()?;
        let mut inp = inputs.clone();
        inp.sets.retain(|(n, _)| n != name);
        inp.sets.push((name.clone(), Value::Num(v.clone())));
        let mut l = load(&inp)?;
        let mut base = l.model.clone();
        let src = l.source.clone();
        let hi = Value::Num(num::int(o.ks.1 as i64));
        l.model.consts.define(&src, "k", Span::default(), hi)?;
        let props: Properties = load_props(&inp, &mut l)?;
        base.set_flag_tracking(l.model.track_flags);
        let p = props.props.first().expect("parser requires one");
        table.prop = p.text.clone();
        table.opt = p.opt;
        if !matches!(p.path, Path::Until { .. }) {
            return Err(RunError::input(
                "sweep needs an F or U property whose bound uses the constant `k`",
            ));
        }
        let sem = semantics(&l, &props, o)?;
        let mdp = match engine::build(&sem, false, o.max_states, deadline.at()) {
            Ok(mdp) => mdp,
            Err(Stop::TimedOut(_)) => return Err(deadline.check().unwrap_err().into()),
            Err(stop) => return Err(RunError::Limit(super::run::stop_message(&stop))),
        };
        let cells = cells(&base, &text, &sem, &mdp, o.ks, deadline)?;
        if cells
            .windows(2)
            .all(|w| w[0].steps == w[1].steps && w[0].sets == w[1].sets)
        {
            table.notes.push(format!(
                "the property does not depend on k: every row for {name}={} has the same value",
                num::to_f64(v)
            ));
        }
        let mut values = vec![0.0; cells.len()];
        let mut done = vec![false; cells.len()];
        for i in 0..cells.len() {
            if done[i] {
                continue;
            }
            let group: Vec<usize> = (i..cells.len())
                .filter(|&j| !done[j] && cells[j].sets == cells[i].sets)
                .collect();
            let most = group.iter().map(|&j| cells[j].steps).max().unwrap_or(0);
            let (target, allowed) = (&cells[i].sets[0], &cells[i].sets[1]);
            let run = bounded_until::<f64>(
                &mdp, target, allowed, most, p.opt, true, deadline, o.threads,
            )?;
            for j in group {
                let vals = engine::Values {
                    f64s: mdp
                        .initial
                        .iter()
                        .map(|&s| run.history[cells[j].steps][s as usize])
                        .collect(),
                    exact: None,
                    witness: None,
                };
                values[j] = engine::over_initials(&vals, p.opt).0;
                done[j] = true;
            }
        }
        for (c, x) in cells.iter().zip(values) {
            table.rows.push((v.clone(), c.k, x));
        }
    }
    Ok(())
}

/// Runs `sweep`: the table, CSV and plots.
pub fn sweep(inputs: &Inputs, o: &SweepOptions, ctx: &RunContext) -> Result<Report, RunError> {
    let t0 = Instant::now();
    let mut done = SweepTable::default();
    let (stopped, limited) = match sweep_rows(inputs, o, ctx.deadline(), &mut done) {
        Ok(()) => (None, None),
        Err(RunError::TimedOut(why)) => (Some(why), None),
        Err(RunError::Limit(why)) => (None, Some(why)),
        Err(e) => return Err(e),
    };
    let SweepTable {
        rows,
        opt,
        prop,
        notes,
    } = done;
    let name = &o.swept.0;
    let (mode, measure) = match &o.agents {
        Some(a) => (
            format!(
                "n = {}",
                a.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            opt.word().to_string(),
        ),
        None => (
            format!("all n (abstraction, threshold {})", o.threshold),
            format!(
                "{} bound ({} over n {} this)",
                opt.word(),
                if opt == Opt::Max { "sup" } else { "inf" },
                if opt == Opt::Max { "<=" } else { ">=" }
            ),
        ),
    };
    let mut table = Table::new([name.as_str(), "k", measure.as_str()]);
    let mut csv = Table::new([name.as_str(), "k", measure.as_str()]);
    for (v, k, p) in &rows {
        table.row([num::to_f64(v).to_string(), k.to_string(), format!("{p:.6}")]);
        // The CSV keeps every digit (shortest text that reads back to the same f64).
        csv.row([num::display(v), k.to_string(), format!("{p:?}")]);
    }
    let mut r = Report::new("swarm", "sweep");
    r.model = crate::report::ModelRef::from_path(&inputs.model).ok();
    r.text = format!(
        "{prop} for {name} in {} values and k = {}..{}, {mode}\n\n",
        o.swept.1.len(),
        o.ks.0,
        o.ks.1
    );
    r.text.push_str(&table.render(TableFormat::Text));
    if let Some(prefix) = &o.out {
        let csv_path = prefix.with_extension("csv");
        std::fs::write(&csv_path, csv.render(TableFormat::Csv))
            .map_err(|e| RunError::input(format!("cannot write {}: {e}", csv_path.display())))?;
        let model_name = inputs
            .model
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let figure = Figure {
            rows: &rows,
            name,
            title: format!("{model_name}: {prop}, {mode}"),
            measure: &measure,
        };
        let svg = prefix.with_extension("svg");
        let png = prefix.with_extension("png");
        figure
            .plot(&svg, true)
            .map_err(|e| RunError::Internal(format!("plot {}: {e}", svg.display())))?;
        figure
            .plot(&png, false)
            .map_err(|e| RunError::Internal(format!("plot {}: {e}", png.display())))?;
        r.text.push_str(&format!(
            "\nwrote {}, {} and {}\n",
            csv_path.display(),
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
    if let Some(why) = limited {
        r.stopped_at_limit(&format!(
            "{why}; the table has the {} rows computed so far",
            rows.len()
        ));
    }
    r.warnings.extend(notes);
    r.results = json!({"property": prop, "constant": name, "rows": rows.iter().map(|(v, k, p)| json!({"value": num::to_f64(v), "k": k, "p": p})).collect::<Vec<_>>()});
    Ok(r)
}

/// Twelve colours told apart easily (Tableau 10 and two more), cycled.
const COLOURS: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(0, 0, 128),
];

/// The figure: one line per swept value, p against k.
struct Figure<'a> {
    rows: &'a [Row],
    name: &'a str,
    /// Model, property and n (or "all n").
    title: String,
    /// What the y axis shows (a value, or a bound on it).
    measure: &'a str,
}

impl Figure<'_> {
    /// SVG, or PNG with the bundled font.
    fn plot(&self, path: &std::path::Path, svg: bool) -> Result<(), Box<dyn std::error::Error>> {
        // Both backends measure text with the font (the PNG also draws it).
        crate::report::register_plot_font()?;
        if svg {
            self.draw(SVGBackend::new(path, (900, 500)).into_drawing_area())
        } else {
            self.draw(BitMapBackend::new(path, (900, 500)).into_drawing_area())
        }
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error>>
    where
        DB::ErrorType: 'static,
    {
        let rows = self.rows;
        let kmin = rows.iter().map(|r| r.1).min().unwrap_or(0) as i64;
        let kmax = rows.iter().map(|r| r.1).max().unwrap_or(1) as i64;
        let top = rows.iter().map(|r| r.2).fold(0.0f64, f64::max);
        // The y axis fits the data (with a little room), within [0, 1].
        let ymax = (top * 1.08).clamp(0.01, 1.0);
        let mut values: Vec<Rat> = rows.iter().map(|r| r.0.clone()).collect();
        values.dedup();
        root.fill(&WHITE)?;
        // The legend gets its own panel right of the plot, never over a curve.
        let (plot_area, legend_area) = root.split_horizontally(740);
        let mut b = ChartBuilder::on(&plot_area);
        b.margin(15);
        b.caption(&self.title, ("sans-serif", 15))
            .x_label_area_size(40)
            .y_label_area_size(60);
        let mut chart = b.build_cartesian_2d(kmin..kmax.max(kmin + 1), 0f64..ymax)?;
        let ticks = ((kmax - kmin) as usize + 1).min(21);
        chart
            .configure_mesh()
            .x_desc("k")
            .y_desc(self.measure)
            .x_labels(ticks)
            .x_label_formatter(&|k| k.to_string())
            .draw()?;
        for (i, v) in values.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let pts: Vec<(i64, f64)> = rows
                .iter()
                .filter(|r| &r.0 == v)
                .map(|r| (r.1 as i64, r.2))
                .collect();
            chart.draw_series(LineSeries::new(pts, colour.stroke_width(2)))?;
            let y = 40 + 18 * i as i32;
            legend_area.draw(&PathElement::new(
                vec![(10, y), (40, y)],
                colour.stroke_width(2),
            ))?;
            legend_area.draw(&Text::new(
                format!("{}={}", self.name, num::to_f64(v)),
                (46, y - 7),
                ("sans-serif", 13),
            ))?;
        }
        root.present()?;
        Ok(())
    }
}
