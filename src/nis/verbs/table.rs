//! `mavis nis table`: verdicts and times over a grid of depths k and systems
//! (Tables 1 and 2 of Kouvaros et al., IJCAI 2024), computed whole or as
//! shard I of N (`--shard`), and rendered from the list of cell results, so
//! that `mavis merge` renders the parts' cells with the same function.

use super::json::check_stats;
use super::{instantiate, model_ref};
use crate::nis::encode::MilpOptions;
use crate::nis::engine::{decide_with, EngineChoice, Target};
use crate::nis::front::model::Model;
use crate::report::part_schema::Shape;
use crate::report::shard::{self, Merged, Part, Shard};
use crate::report::{ModelRef, Report, RunContext, RunError, Table, TableFormat, Verdict};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::time::Instant;

/// The grid: sentences (with `{k}`), depths, and agent counts (none with `abstract_system`).
#[derive(Clone, Debug)]
pub struct TableGrid {
    pub specs: Vec<String>,
    pub ks: Vec<u32>,
    pub agents: Vec<usize>,
    pub abstract_system: bool,
}

/// How the table is drawn; not part of what a shard computes.
#[derive(Clone, Copy, Debug)]
pub struct TableLook {
    pub format: TableFormat,
    /// Leave out every measured time (cells, total, `time_s` keys), so that
    /// two runs print the same bytes.
    pub no_times: bool,
}

/// One cell of the grid: a sentence, a system (n, or M_ab(m) for `None`) and a depth.
struct CellAt<'a> {
    spec: usize,
    spec_text: &'a str,
    row: Option<usize>,
    k: u32,
}

impl TableGrid {
    fn rows(&self) -> Vec<Option<usize>> {
        if self.abstract_system {
            vec![None]
        } else {
            self.agents.iter().map(|&n| Some(n)).collect()
        }
    }

    /// Every cell in the order of the output: spec, then system, then k.
    fn cells(&self) -> Vec<CellAt<'_>> {
        let rows = self.rows();
        let mut out = Vec::new();
        for (spec, spec_text) in self.specs.iter().enumerate() {
            for &row in &rows {
                for &k in &self.ks {
                    out.push(CellAt {
                        spec,
                        spec_text,
                        row,
                        k,
                    });
                }
            }
        }
        out
    }

    /// The cells' keys, as parts and messages name them.
    pub fn keys(&self) -> Vec<String> {
        self.cells().iter().map(CellAt::key).collect()
    }

    /// The estimated cost of each cell: k times the number of agents
    /// (the indexed agents plus the zero-one one for M_ab(m)).
    fn costs(&self) -> Vec<u64> {
        self.cells()
            .iter()
            .map(|c| {
                let agents = c.row.unwrap_or_else(|| {
                    crate::nis::spec(&instantiate(c.spec_text, c.k)).map_or(1, |s| s.agents() + 1)
                });
                u64::from(c.k.max(1)) * agents.max(1) as u64
            })
            .collect()
    }

    /// The query of a part: the grid and the options that change a cell.
    fn query(&self, engine: EngineChoice, milp: &MilpOptions, set: &[String]) -> Value {
        json!({
            "specs": self.specs, "k": self.ks, "agents": self.agents,
            "abstract": self.abstract_system, "engine": format!("{engine:?}"),
            "symmetry_breaking": milp.symmetry_breaking, "zero_one_slots": milp.zero_one_slots,
            "set": set,
        })
    }

    /// The grid of a part's query.
    fn from_query(query: &Value) -> Result<Self, RunError> {
        let q = query
            .as_object()
            .ok_or_else(|| RunError::input("the parts' query is not an object"))?;
        let bad = |key: &str| RunError::input(format!("the parts' query has a bad `{key}`"));
        let read = |key: &str| -> Result<Value, RunError> { shard::field(q, key).cloned() };
        Ok(TableGrid {
            specs: serde_json::from_value(read("specs")?).map_err(|_| bad("specs"))?,
            ks: serde_json::from_value(read("k")?).map_err(|_| bad("k"))?,
            agents: serde_json::from_value(read("agents")?).map_err(|_| bad("agents"))?,
            abstract_system: read("abstract")?.as_bool().ok_or_else(|| bad("abstract"))?,
        })
    }
}

impl CellAt<'_> {
    fn key(&self) -> String {
        match self.row {
            Some(n) => format!("spec {}, n={n}, k={}", self.spec + 1, self.k),
            None => format!("spec {}, abstract, k={}", self.spec + 1, self.k),
        }
    }
}

/// What a cell gave, as a part stores it: a decided cell's JSON, or the
/// strings `too few agents` (M(n) with fewer agents than the sentence names)
/// and `timeout` (the deadline came before or during the cell).
const TOO_FEW: &str = "too few agents";
const TIMEOUT: &str = "timeout";

/// A cell's result as [`decide_cell`] writes it, which `mavis merge` checks.
const CELL: Shape = Shape::OneOf(&[
    Shape::Words(&[TOO_FEW, TIMEOUT]),
    Shape::Object(&[
        ("spec", Shape::Text),
        ("k", Shape::Count),
        ("agents", Shape::OneOf(&[Shape::Null, Shape::Count])),
        ("holds", Shape::Bool),
        ("engine", Shape::Text),
        (
            "time_s",
            Shape::Number {
                lo: 0.0,
                hi: f64::INFINITY,
            },
        ),
        ("stats", Shape::Object(&[])),
    ]),
]);

/// What every cell is decided with.
pub struct Decide<'a> {
    pub model: &'a Model,
    pub engine: EngineChoice,
    pub milp: &'a MilpOptions,
    /// The `--set` assignments as given (they identify a shard's model).
    pub set: Vec<String>,
}

/// `mavis nis table`, whole or as one shard: the cells of `shard`, decided
/// in order, then the report drawn from them.
pub fn table(
    path: &Path,
    d: &Decide,
    grid: &TableGrid,
    look: TableLook,
    shard: Option<Shard>,
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let start = Instant::now();
    let cells = grid.cells();
    let mine = shard::cells_of(&grid.costs(), shard);
    let meter = ctx.meter(crate::report::meter::Counting {
        label: "nis table".into(),
        unit: "cells",
        level: None,
        total: Some(mine.len() as u64),
    });
    let mut outcomes: Vec<Option<Value>> = vec![None; cells.len()];
    // The report (and part) of the cells decided so far.
    let report = |outcomes: &[Option<Value>]| -> Result<Report, RunError> {
        let total = start.elapsed().as_secs_f64();
        let mut r = render(model_ref(path, d.model), grid, outcomes, look, total)?;
        if let Some(s) = shard {
            let part = Part {
                shard: s,
                cells_total: cells.len(),
                query: grid.query(d.engine, d.milp, &d.set),
                cells: mine
                    .iter()
                    .filter_map(|&i| Some((cells[i].key(), outcomes[i].clone()?)))
                    .collect(),
            };
            r.part = Some(part.into_keys());
        }
        Ok(r)
    };
    for (done, &i) in mine.iter().enumerate() {
        meter.meter().set(done as u64);
        // Kept for the run to report if this cell outlasts the deadline
        // (the cells decided stay, docs/cluster.md): the cells not decided
        // yet are drawn as `timeout` there. Published before the first cell
        // too, so that a run stopped from outside still writes its table.
        if ctx.timeout().is_some() {
            let mut partial = outcomes.clone();
            for &j in &mine {
                partial[j].get_or_insert_with(|| TIMEOUT.into());
            }
            ctx.publish(report(&partial)?);
        }
        let at = (done + 1, mine.len());
        outcomes[i] = Some(decide_cell(d, &cells[i], at, ctx)?);
    }
    meter.meter().set(mine.len() as u64);
    drop(meter);
    report(&outcomes)
}

/// One cell's outcome (see [`TOO_FEW`]); `at` is (i, N) of "cell i of N".
fn decide_cell(
    d: &Decide,
    c: &CellAt,
    at: (usize, usize),
    ctx: &RunContext,
) -> Result<Value, RunError> {
    if ctx.timed_out() {
        return Ok(TIMEOUT.into());
    }
    let s = crate::nis::spec(&instantiate(c.spec_text, c.k))?;
    let (i, of) = at;
    ctx.stage(match c.row {
        Some(n) => format!("nis table: cell {i} of {of}, M({n}), {s}"),
        None => format!("nis table: cell {i} of {of}, M_ab({}), {s}", s.agents()),
    });
    let target = match c.row {
        Some(n) if n < s.agents() => return Ok(TOO_FEW.into()),
        Some(n) => Target::Concrete { agents: n },
        None => Target::Abstract,
    };
    let rec = match decide_with(d.engine, d.milp, d.model, &s, target) {
        Ok(rec) => rec,
        // The cell in progress at the deadline; the cells done stay.
        Err(RunError::TimedOut(_)) => return Ok(TIMEOUT.into()),
        Err(e) => return Err(e),
    };
    Ok(json!({
        "spec": s.to_string(), "k": c.k, "system": rec.model,
        "agents": c.row,
        "holds": rec.holds, "engine": rec.engine, "time_s": rec.time_s,
        "stats": Value::Object(check_stats(&rec)),
    }))
}

/// `mavis merge` of `nis table` parts: the same report as the unsharded run
/// from the parts' cells (the total time is the sum of the parts' times).
pub fn merge(parts: Merged, look: TableLook) -> Result<Report, RunError> {
    let grid = TableGrid::from_query(&parts.query)?;
    let model = serde_json::from_value::<ModelRef>(parts.model.clone()).ok();
    let total = parts.sum_stat("time_s");
    let (parts, outcomes) = parts.take_present(&grid.keys(), &CELL)?;
    let mut r = render(model, &grid, &outcomes, look, total)?;
    if !parts.missing_shards.is_empty() {
        let why = format!(
            "{}: their cells are drawn as `.`",
            shard::missing_message(&parts.missing_shards)
        );
        r.verdict = Some(Verdict::Unknown);
        r.stat("missing_shards", parts.missing_shards.len());
        r.warnings.push(why);
    }
    Ok(r)
}

/// The report from the cells' outcomes (`None`: a cell of another shard,
/// drawn as `.`).
fn render(
    model: Option<ModelRef>,
    grid: &TableGrid,
    outcomes: &[Option<Value>],
    look: TableLook,
    total_s: f64,
) -> Result<Report, RunError> {
    let mut r = Report::new("nis", "table");
    r.model = model;
    if grid.ks.len() > 1 {
        for spec in grid.specs.iter().filter(|s| !s.contains("{k}")) {
            r.warnings.push(format!(
                "`{spec}` has no `{{k}}`: every column of its table checks this same sentence"
            ));
        }
    }
    let mut header = vec![if grid.abstract_system {
        "spec \\ k".to_string()
    } else {
        "n \\ k".to_string()
    }];
    header.extend(grid.ks.iter().map(|k| k.to_string()));
    let rows = grid.rows();
    let mut next = outcomes.iter();
    let mut decided = Vec::new();
    let mut timeouts = 0;
    let mut rendered = String::new();
    // `--table-format csv`: one CSV with a `spec` column, nothing else on
    // stdout, so that a CSV reader (pandas.read_csv) takes it as it is.
    let mut csv = Table::new(std::iter::once("spec".to_string()).chain(header.clone()));
    for spec in &grid.specs {
        let mut t = Table::new(header.clone());
        for &row in &rows {
            let mut line = vec![row_label(spec, row, grid.ks[0])?];
            for _ in &grid.ks {
                let outcome = next.next().expect("one outcome per cell");
                line.push(cell_text(outcome.as_ref(), look.no_times));
                match outcome {
                    Some(Value::Object(cell)) => decided.push(timeless(cell, look.no_times)),
                    Some(v) if v == TIMEOUT => timeouts += 1,
                    _ => {}
                }
            }
            csv.row(std::iter::once(spec.clone()).chain(line.iter().cloned()));
            t.row(line);
        }
        rendered.push_str(&format!("{spec}\n"));
        rendered.push_str(&t.render(look.format));
        rendered.push('\n');
    }
    let n = decided.len();
    let summary = summary_line(&decided, timeouts, (!look.no_times).then_some(total_s));
    if look.format == TableFormat::Csv {
        r.notes.push(summary);
        r.text = csv.render(TableFormat::Csv);
    } else {
        r.line(summary);
        r.line("");
        r.text.push_str(&rendered);
    }
    if timeouts > 0 {
        r.verdict = Some(Verdict::Unknown);
        r.stat("timed_out", true);
        r.warnings
            .push("the time-out was reached before every query ran".into());
    }
    r.results = json!({ "cells": decided, "table": rendered });
    r.stat("queries", n);
    if !look.no_times {
        r.stat("time_s", total_s);
    }
    Ok(r)
}

/// The first column: n, or M_ab(m) with m the sentence's agents.
fn row_label(spec: &str, row: Option<usize>, k: u32) -> Result<String, RunError> {
    Ok(match row {
        Some(n) => n.to_string(),
        None => format!(
            "M_ab({})",
            crate::nis::spec(&instantiate(spec, k))?.agents()
        ),
    })
}

/// A cell as the table shows it: `T 0.012s`, `F`, `-`, `timeout` or `.`.
fn cell_text(outcome: Option<&Value>, no_times: bool) -> String {
    match outcome {
        None => ".".into(),
        Some(Value::Object(cell)) => {
            let verdict = if cell["holds"] == true { "T" } else { "F" };
            match cell["time_s"].as_f64() {
                Some(t) if !no_times => format!("{verdict} {t:.3}s"),
                _ => verdict.into(),
            }
        }
        Some(v) if v == TOO_FEW => "-".into(),
        Some(_) => TIMEOUT.into(),
    }
}

/// A decided cell's JSON, without its measured times under `no_times`
/// (`time_s`, and every `*time*_s` of its stats).
fn timeless(cell: &Map<String, Value>, no_times: bool) -> Value {
    let is_time = |k: &str| k.contains("time") && k.ends_with("_s");
    let mut cell = cell.clone();
    if no_times {
        cell.retain(|k, _| !is_time(k));
        if let Some(Value::Object(stats)) = cell.get_mut("stats") {
            stats.retain(|k, _| !is_time(k));
        }
    }
    Value::Object(cell)
}

/// The table's first line: how many queries (a cell the deadline cut is a
/// query too, counted as unknown, so a run stopped at its one cell does not
/// say "0 queries"), how many hold and are violated, and the time.
fn summary_line(decided: &[Value], timeouts: usize, total_s: Option<f64>) -> String {
    let holds = decided.iter().filter(|c| c["holds"] == true).count();
    let n = decided.len();
    let time = total_s.map_or(String::new(), |t| format!(" ({t:.3} s)"));
    let unknown = match timeouts {
        0 => String::new(),
        t => format!(", {t} unknown (time-out)"),
    };
    let queries = match n + timeouts {
        1 => "1 query".to_string(),
        q => format!("{q} queries"),
    };
    format!(
        "{queries}: {holds} hold, {} violated{unknown}{time}",
        n - holds
    )
}
