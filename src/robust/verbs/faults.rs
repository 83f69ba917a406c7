//! `mavis robust faults`: the achieved bound against the fault period T,
//! whole or as shard I of N (one cell per period), drawn from the list of
//! rows so that `mavis merge` draws the parts' rows with the same function.

use super::{load_model, num};
use crate::lang::Value;
use crate::report::part_schema::Shape;
use crate::report::shard::{self, Merged, Part, Shard};
use crate::report::{ModelRef, Report, RunContext, RunError, Table, TableFormat};
use crate::robust::export::plot;
use crate::robust::outcome::FaultsStats;
use crate::robust::synth::faults::{self, FaultRow};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How the trade-off is drawn; not part of what a shard computes.
#[derive(Clone, Debug, Default)]
pub struct FaultsLook {
    /// Write the trade-off plot as SVG.
    pub plot: Option<PathBuf>,
    /// Leave `solve_s` out of the stats.
    pub no_times: bool,
}

/// A period's cell key.
fn key(period: usize) -> String {
    format!("T={period}")
}

/// `mavis robust faults` over the periods `lo..=hi` (those of `shard`, or all).
pub fn faults_report(
    path: &Path,
    set: Vec<(String, Value)>,
    (lo, hi): (usize, usize),
    look: &FaultsLook,
    shard: Option<Shard>,
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let set_texts: Vec<String> = set.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let mut r = Report::new("robust", "faults");
    let a = load_model(path, set, &mut r)?;
    let t = Instant::now();
    let periods: Vec<usize> = (lo..=hi).collect();
    // A period T's product has about T times the automaton's states.
    let costs: Vec<u64> = periods.iter().map(|&p| p as u64).collect();
    let mine: Vec<usize> = shard::cells_of(&costs, shard)
        .into_iter()
        .map(|i| periods[i])
        .collect();
    let mut rows = Vec::new();
    // One period at a time, so that a bar shows how many are done.
    let mut bar = ctx.progress(mine.len() as u64, "robust faults", "periods");
    let mut stopped = None;
    for &period in &mine {
        match faults::tradeoff_until(&a, period..=period, ctx.deadline(), &mut rows) {
            Ok(()) => bar.inc(1),
            Err(RunError::TimedOut(why)) => {
                stopped = Some(why);
                break;
            }
            Err(e) => return Err(e),
        }
    }
    bar.finish_and_clear();
    let solve_s = t.elapsed().as_secs_f64();
    let title = format!("{}: bound against fault period", a.name);
    if let Some(s) = shard {
        let query = json!({
            "periods": [lo, hi], "set": set_texts, "title": title, "model_warnings": r.warnings,
        });
        let part = Part {
            shard: s,
            cells_total: periods.len(),
            query,
            cells: rows.iter().map(|x| (key(x.period), row_json(x))).collect(),
        };
        r.part = Some(part.into_keys());
    }
    if let Some(why) = stopped {
        stopped_report(&mut r, &rows, lo, &why, solve_s, look);
        return Ok(r);
    }
    render(&mut r, &rows, (lo, hi), &title, look, solve_s)?;
    Ok(r)
}

/// A report cut by the deadline: the reason and the periods solved.
fn stopped_report(
    r: &mut Report,
    rows: &[FaultRow],
    lo: usize,
    why: &str,
    solve_s: f64,
    look: &FaultsLook,
) {
    stats(r, rows.len(), solve_s, look);
    let done = rows
        .last()
        .map_or("none".to_string(), |x| format!("T = {lo}..{}", x.period));
    r.stopped_at_deadline(&format!("{why}; periods solved: {done}"));
    r.line("");
    r.text.push_str(&table(rows).render(TableFormat::Text));
    r.results = json!({ "rows": rows });
}

fn stats(r: &mut Report, rows: usize, solve_s: f64, look: &FaultsLook) {
    r.put_stats(&FaultsStats {
        solve_s: (!look.no_times).then_some(solve_s),
        periods_solved: rows,
    });
}

/// The trade-off of every period in `lo..=hi`, from its rows.
fn render(
    r: &mut Report,
    rows: &[FaultRow],
    (lo, hi): (usize, usize),
    title: &str,
    look: &FaultsLook,
    solve_s: f64,
) -> Result<(), RunError> {
    stats(r, rows.len(), solve_s, look);
    let best = rows
        .iter()
        .filter_map(|x| x.bound)
        .fold(f64::INFINITY, f64::min);
    // A period this run did not compute (another shard's) is `.`, never
    // a neighbour's bound.
    let bound_at = |t: usize| match rows.iter().find(|x| x.period == t) {
        Some(x) => x.bound.map(num).unwrap_or_else(|| "none".into()),
        None => ".".into(),
    };
    let all = rows.len() == hi + 1 - lo;
    let (what, least) = if all {
        (String::new(), "the least")
    } else {
        let n = rows.len();
        (
            format!(" (this shard: {n} of the periods; the others' are `.`)"),
            "the least of these",
        )
    };
    r.line(format!(
        "trade-off computed for T = {lo}..{hi}{what}: bound {} at T = {lo}, {} at T = {hi} ({least} is {})",
        bound_at(lo),
        bound_at(hi),
        num(best)
    ));
    r.line("");
    let shown = if all {
        table(rows)
    } else {
        table_with_dots(rows, (lo, hi))
    };
    r.text.push_str(&shown.render(TableFormat::Text));
    if let Some(out) = &look.plot {
        let svg = plot::tradeoff_svg(rows, title).map_err(RunError::Internal)?;
        crate::report::output::write_file(out, svg.as_bytes())?;
        r.line(format!("plot written to {}", out.display()));
    }
    r.results = json!({ "rows": rows });
    Ok(())
}

fn table(rows: &[FaultRow]) -> Table {
    let mut table = Table::new(["T", "bound", "sigma", "product states"]);
    for row in rows {
        table.row(row_cells(row));
    }
    table
}

/// The table of every period `lo..=hi`, those without a row (computed by
/// other shards) drawn as `.` (docs/cluster.md).
fn table_with_dots(rows: &[FaultRow], (lo, hi): (usize, usize)) -> Table {
    let mut table = Table::new(["T", "bound", "sigma", "product states"]);
    for t in lo..=hi {
        match rows.iter().find(|x| x.period == t) {
            Some(row) => table.row(row_cells(row)),
            None => table.row([t.to_string(), ".".into(), ".".into(), ".".into()]),
        }
    }
    table
}

/// One row of the trade-off table as text.
fn row_cells(row: &FaultRow) -> [String; 4] {
    [
        row.period.to_string(),
        row.bound.map(num).unwrap_or_else(|| "none".into()),
        row.sigma.map(num).unwrap_or_else(|| "none".into()),
        row.states.to_string(),
    ]
}

/// A row in a part, its numbers in full (`{:?}` reads back to the same f64).
fn row_json(row: &FaultRow) -> serde_json::Value {
    let full = |x: Option<f64>| x.map(|x| format!("{x:?}"));
    json!({
        "period": row.period, "bound": full(row.bound), "sigma": full(row.sigma),
        "states": row.states,
    })
}

/// A cell's result as [`row_json`] writes it, which `mavis merge` checks
/// (the bound and sigma are absent, `null`, when unachievable).
const CELL: Shape = Shape::Object(&[
    ("period", Shape::Count),
    ("bound", Shape::OneOf(&[Shape::Null, FINITE])),
    ("sigma", Shape::OneOf(&[Shape::Null, FINITE])),
    ("states", Shape::Count),
]);

const FINITE: Shape = Shape::NumberText {
    lo: f64::MIN,
    hi: f64::MAX,
};

/// A part's row back (None: malformed).
fn read_row(v: &serde_json::Value) -> Option<FaultRow> {
    let number = |x: &serde_json::Value| -> Option<Option<f64>> {
        match x {
            serde_json::Value::Null => Some(None),
            x => x.as_str()?.parse().ok().map(Some),
        }
    };
    Some(FaultRow {
        period: v["period"].as_u64()? as usize,
        bound: number(&v["bound"])?,
        sigma: number(&v["sigma"])?,
        states: v["states"].as_u64()? as usize,
    })
}

/// `mavis merge` of `robust faults` parts: the report of the unsharded run
/// from the parts' rows (the solve time is the sum of the parts').
pub fn merge(parts: Merged, look: &FaultsLook) -> Result<Report, RunError> {
    let bad = |what: &str| RunError::input(format!("the parts' query has a bad `{what}`"));
    let q = parts.query.as_object().ok_or_else(|| bad("query"))?.clone();
    let (lo, hi): (usize, usize) =
        serde_json::from_value(shard::field(&q, "periods")?.clone()).map_err(|_| bad("periods"))?;
    let title = shard::field(&q, "title")?
        .as_str()
        .ok_or_else(|| bad("title"))?;
    let warnings: Vec<String> = serde_json::from_value(shard::field(&q, "model_warnings")?.clone())
        .map_err(|_| bad("model_warnings"))?;
    let mut r = Report::new("robust", "faults");
    r.model = serde_json::from_value::<ModelRef>(parts.model.clone()).ok();
    r.warnings = warnings;
    let solve_s = parts.sum_stat("solve_s");
    let keys: Vec<String> = (lo..=hi).map(key).collect();
    parts.refuse_missing()?;
    let (_, cells) = parts.take(&keys, &CELL)?;
    let rows = cells
        .iter()
        .zip(&keys)
        .map(|(c, k)| {
            read_row(c)
                .ok_or_else(|| RunError::input(format!("the parts' cell `{k}` is malformed")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    render(&mut r, &rows, (lo, hi), title, look, solve_s)?;
    Ok(r)
}
