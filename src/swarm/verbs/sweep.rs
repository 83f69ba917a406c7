//! `mavis swarm sweep`'s report: the table, the CSV and the plots, drawn
//! from the rows of the swept values, whole or as shard I of N (one cell per
//! swept value), so that `mavis merge` draws the parts' rows with the same
//! function. The rows are computed by [`crate::swarm::decide::sweep`].

use super::plot::Figure;
use crate::lang::{num, Rat};
use crate::report::part_schema::{self, PROBABILITY};
use crate::report::shard::{self, Merged, Part, Shard};
use crate::report::{ModelRef, Report, RunContext, RunError, Table, TableFormat};
use crate::swarm::decide::sweep::{sweep_rows, Row, RowKind, SweepOptions, SweepTable};
use crate::swarm::front::load::Inputs;
use crate::swarm::front::props::Opt;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How the sweep is drawn; not part of what a shard computes.
#[derive(Clone, Debug, Default)]
pub struct SweepLook {
    /// Write PREFIX.csv, PREFIX.svg and PREFIX.png.
    pub out: Option<PathBuf>,
    /// Leave `time_s` out of the stats.
    pub no_times: bool,
    /// `-q`: no "wrote ..." line (the answer itself is never cut).
    pub quiet: bool,
}

/// What the report says about the sweep besides its rows.
struct Shape {
    name: String,
    values: usize,
    ks: (usize, usize),
    agents: Option<Vec<usize>>,
    threshold: u32,
    /// The model file's path.
    model_path: String,
    /// A shard's run: every swept value in order, those of other shards
    /// drawn as `.` (empty otherwise: the rows alone are drawn).
    all_values: Vec<Rat>,
}

/// A swept value's cell key: `NAME=VALUE`, exactly.
fn key(name: &str, v: &Rat) -> String {
    format!("{name}={}", num::display(v))
}

/// The query of a part: every option that changes a row.
fn query(inputs: &Inputs, o: &SweepOptions) -> Value {
    let faults = inputs
        .faults
        .as_deref()
        .and_then(|f| ModelRef::from_path(f).ok())
        .map(|f| f.sha256);
    json!({
        "faults_sha256": faults,
        "set": inputs.sets.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>(),
        "faulty_fraction": inputs.faulty_fraction.as_ref().map(num::display),
        "fault_flags": inputs.keep_fault_flags,
        "prop": inputs.prop_texts,
        "constant": o.swept.0,
        "values": o.swept.1.iter().map(num::display).collect::<Vec<_>>(),
        "k": [o.ks.0, o.ks.1],
        "agents": o.agents,
        "threshold": o.threshold,
        "max_states": o.max_states,
    })
}

/// Runs `sweep` (the swept values of `shard`, or all): the table, CSV and plots.
pub fn sweep(
    inputs: &Inputs,
    o: &SweepOptions,
    look: &SweepLook,
    shard: Option<Shard>,
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let t0 = Instant::now();
    let values = &o.swept.1;
    // Every value costs one model build and one value iteration of the largest k.
    let costs = vec![o.ks.1 as u64; values.len()];
    let mine = shard::cells_of(&costs, shard);
    let mut done = SweepTable::default();
    let guard = ctx.meter(crate::report::meter::Counting {
        label: format!("swarm sweep: {}", o.swept.0),
        unit: "cells",
        level: None,
        total: Some(mine.len() as u64),
    });
    let at = (ctx.deadline(), &guard.meter());
    let result = sweep_rows(inputs, o, at, &mut done, &mine);
    drop(guard);
    let (stopped, limited) = match result {
        Ok(()) => (None, None),
        Err(RunError::TimedOut(why)) => (Some(why), None),
        Err(RunError::Limit(why)) => (None, Some(why)),
        Err(e) => return Err(e),
    };
    let shape = Shape {
        name: o.swept.0.clone(),
        values: values.len(),
        ks: o.ks,
        agents: o.agents.clone(),
        threshold: o.threshold,
        model_path: inputs.model.display().to_string(),
        all_values: match shard {
            Some(_) => values.clone(),
            None => Vec::new(),
        },
    };
    let part = shard.map(|s| Part {
        shard: s,
        cells_total: values.len(),
        query: query(inputs, o),
        cells: mine
            .iter()
            .map(|&i| (key(&o.swept.0, &values[i]), cell_json(&done, i, &values[i])))
            .collect(),
    });
    let model = ModelRef::from_path(&inputs.model).ok();
    let mut r = render(model, &shape, done, look, t0.elapsed().as_secs_f64())?;
    let rows = r.results["rows"].as_array().map_or(0, Vec::len);
    // The reason a run stopped comes before the notes, as in the warnings of any report.
    let notes = std::mem::take(&mut r.warnings);
    if let Some(why) = stopped {
        r.stopped_at_deadline(&format!(
            "{why}; the table has the {rows} rows computed so far"
        ));
    }
    if let Some(why) = limited {
        r.stopped_at_limit(&format!(
            "{why}; the table has the {rows} rows computed so far"
        ));
    }
    r.warnings.extend(notes);
    r.part = part.map(Part::into_keys);
    Ok(r)
}

/// A swept value's cell in a part: the value exactly, its rows (k and the
/// value's f64 in full), its notes, and the property as read.
fn cell_json(done: &SweepTable, index: usize, v: &Rat) -> Value {
    let rows: Vec<Value> = done
        .rows
        .iter()
        .filter(|r| &r.value == v)
        .map(|r| {
            json!([
                r.k,
                format!("{:?}", r.p),
                kind_word(r.kind),
                r.bound.map(|b| format!("{b:?}"))
            ])
        })
        .collect();
    let notes: Vec<&String> = done
        .notes
        .iter()
        .filter(|(i, _)| *i == index)
        .map(|(_, n)| n)
        .collect();
    // Probabilities and rewards have their own key, so that a probability
    // above 1 stays refused.
    let key = if done.reward { "reward_rows" } else { "rows" };
    json!({
        "value": num::display(v), key: rows, "notes": notes,
        "property": done.prop, "opt": done.word(),
    })
}

/// An expected reward as a part keeps it: at least 0, `inf` where infinite.
const REWARD: part_schema::Shape = part_schema::Shape::OneOf(&[
    part_schema::Shape::NumberText {
        lo: 0.0,
        hi: f64::MAX,
    },
    part_schema::Shape::Words(&["inf"]),
]);

/// The kinds of a row.
const KINDS: part_schema::Shape = part_schema::Shape::Words(&["at size", "exact over n", "bound"]);

/// A row `[k, p, kind, bound]` of probabilities.
const PROBABILITY_ROW: part_schema::Shape = part_schema::Shape::Tuple(&[
    part_schema::Shape::Count,
    PROBABILITY,
    KINDS,
    part_schema::Shape::OneOf(&[part_schema::Shape::Null, PROBABILITY]),
]);

/// A row `[k, p, kind, bound]` of expected rewards.
const REWARD_ROW: part_schema::Shape = part_schema::Shape::Tuple(&[
    part_schema::Shape::Count,
    REWARD,
    KINDS,
    part_schema::Shape::OneOf(&[part_schema::Shape::Null, REWARD]),
]);

/// A cell's result as [`cell_json`] writes it, which `mavis merge` checks:
/// rows `[k, p, kind, bound]`, of probabilities (`rows`) or of expected
/// rewards (`reward_rows`).
const CELL: part_schema::Shape = part_schema::Shape::Object(&[
    ("value", part_schema::Shape::Text),
    (
        "rows",
        part_schema::Shape::Optional(&part_schema::Shape::Array(&PROBABILITY_ROW)),
    ),
    (
        "reward_rows",
        part_schema::Shape::Optional(&part_schema::Shape::Array(&REWARD_ROW)),
    ),
    (
        "notes",
        part_schema::Shape::Array(&part_schema::Shape::Text),
    ),
    ("property", part_schema::Shape::Text),
    (
        "opt",
        part_schema::Shape::Words(&["Pmax", "Pmin", "Rmax", "Rmin"]),
    ),
]);

/// `mavis merge` of `swarm sweep` parts: the report of the unsharded run from
/// the parts' rows (the time is the sum of the parts' times).
pub fn merge(parts: Merged, look: &SweepLook) -> Result<Report, RunError> {
    let bad = |what: &str| RunError::input(format!("the parts' query has a bad `{what}`"));
    let q = parts.query.as_object().ok_or_else(|| bad("query"))?.clone();
    let name = shard::field(&q, "constant")?
        .as_str()
        .ok_or_else(|| bad("constant"))?
        .to_string();
    let values: Vec<String> =
        serde_json::from_value(shard::field(&q, "values")?.clone()).map_err(|_| bad("values"))?;
    let ks: (usize, usize) =
        serde_json::from_value(shard::field(&q, "k")?.clone()).map_err(|_| bad("k"))?;
    let shape = Shape {
        name: name.clone(),
        values: values.len(),
        ks,
        agents: serde_json::from_value(shard::field(&q, "agents")?.clone())
            .map_err(|_| bad("agents"))?,
        threshold: serde_json::from_value(shard::field(&q, "threshold")?.clone())
            .map_err(|_| bad("threshold"))?,
        model_path: parts.model["path"].as_str().unwrap_or_default().to_string(),
        all_values: Vec::new(),
    };
    let model = serde_json::from_value::<ModelRef>(parts.model.clone()).ok();
    let total = parts.sum_stat("time_s");
    let keys: Vec<String> = values.iter().map(|v| format!("{name}={v}")).collect();
    parts.refuse_missing()?;
    let (_, cells) = parts.take(&keys, &CELL)?;
    let mut table = SweepTable::default();
    for (index, cell) in cells.iter().enumerate() {
        read_cell(cell, index, &mut table).ok_or_else(|| {
            RunError::input(format!("the parts' cell `{}` is malformed", keys[index]))
        })?;
    }
    render(model, &shape, table, look, total)
}

/// A part's cell back into `table` (None: malformed).
fn read_cell(cell: &Value, index: usize, table: &mut SweepTable) -> Option<()> {
    let v: Rat = cell["value"].as_str()?.parse().ok()?;
    let rows = cell.get("rows").or(cell.get("reward_rows"));
    for row in rows?.as_array()? {
        let k = row[0].as_u64()? as usize;
        let p: f64 = row[1].as_str()?.parse().ok()?;
        let kind = match row[2].as_str()? {
            "at size" => RowKind::AtSize,
            "exact over n" => RowKind::ExactOverN,
            "bound" => RowKind::Bound,
            _ => return None,
        };
        let bound = match &row[3] {
            Value::Null => None,
            b => Some(b.as_str()?.parse().ok()?),
        };
        table.rows.push(Row {
            value: v.clone(),
            k,
            p,
            kind,
            bound,
        });
    }
    for n in cell["notes"].as_array()? {
        table.notes.push((index, n.as_str()?.to_string()));
    }
    table.prop = cell["property"].as_str()?.to_string();
    let word = cell["opt"].as_str()?;
    table.opt = if word.ends_with("min") {
        Opt::Min
    } else {
        Opt::Max
    };
    table.reward = word.starts_with('R');
    Some(())
}

/// The report from the rows: text table, JSON rows, and with `look.out`
/// the CSV, SVG and PNG files.
fn render(
    model: Option<ModelRef>,
    shape: &Shape,
    done: SweepTable,
    look: &SweepLook,
    time_s: f64,
) -> Result<Report, RunError> {
    let word = done.word();
    let SweepTable {
        rows,
        opt,
        prop,
        notes,
        ..
    } = done;
    let name = &shape.name;
    let (mode, measure) = headings(shape, opt, word, &rows);
    let (mut table, csv) = tables(&rows, name, &measure);
    if !shape.all_values.is_empty() {
        table = with_dots(table, &rows, shape);
    }
    let mut r = Report::new("swarm", "sweep");
    r.model = model;
    r.text = format!(
        "{prop} for {name} in {} values and k = {}..{}, {mode}\n\n",
        shape.values, shape.ks.0, shape.ks.1
    );
    r.text.push_str(&table.render(TableFormat::Text));
    if let Some(prefix) = &look.out {
        let title = format!("{}: {prop}, {mode}", file_name(&shape.model_path));
        let figure = Figure {
            rows: &rows,
            name,
            title,
            measure: &measure,
        };
        write_files(prefix, &csv, &figure, &mut r, look.quiet)?;
    }
    if !look.no_times {
        r.stat("time_s", time_s);
    }
    r.warnings.extend(notes.into_iter().map(|(_, n)| n));
    r.results = json!({"property": prop, "constant": name, "rows": rows.iter().map(row_json).collect::<Vec<_>>()});
    Ok(r)
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The title's "n = ..." or "all n (...)" and the y axis's measure: over all
/// n, the exact optimum where the cutoff gave every row, else a bound.
fn headings(shape: &Shape, opt: Opt, word: &str, rows: &[Row]) -> (String, String) {
    let (sup, rel) = if opt == Opt::Max {
        ("sup", "<=")
    } else {
        ("inf", ">=")
    };
    if let Some(a) = &shape.agents {
        let sizes: Vec<String> = a.iter().map(|x| x.to_string()).collect();
        return (format!("n = {}", sizes.join(",")), word.to_string());
    }
    let exact = rows
        .iter()
        .filter(|r| r.kind == RowKind::ExactOverN)
        .count();
    if exact > 0 && exact == rows.len() {
        (
            "all n (exact, by the cutoff)".into(),
            format!("{word} over all n ({sup}, exact)"),
        )
    } else if exact > 0 {
        (
            "all n (exact by the cutoff, or a bound)".into(),
            format!("{word} {sup} over n: exact, or a bound"),
        )
    } else {
        (
            format!("all n (abstraction bound, threshold {})", shape.threshold),
            format!("{word} bound ({sup} over n {rel} this)"),
        )
    }
}

/// The text table and the CSV (every digit); over all n both also have the
/// abstraction's bound and what each row's value is.
fn tables(rows: &[Row], name: &str, measure: &str) -> (Table, Table) {
    let all_n = rows.iter().any(|r| r.bound.is_some());
    let mut head = vec![name, "k", measure];
    if all_n {
        head.extend(["abstraction bound", "row is"]);
    }
    // The CSV writes the swept value as a decimal (a spreadsheet reads
    // `1/5` as a date) and its exact value in a last column.
    let exact_head = format!("{name} exact");
    let csv_head = head.iter().copied().chain([exact_head.as_str()]);
    let (mut table, mut csv) = (Table::new(head.clone()), Table::new(csv_head));
    for r in rows {
        let mut shown = vec![
            num::to_f64(&r.value).to_string(),
            r.k.to_string(),
            format!("{:.6}", r.p),
        ];
        // The CSV keeps every digit (shortest text that reads back to the same f64).
        let mut full = vec![
            format!("{:?}", num::to_f64(&r.value)),
            r.k.to_string(),
            format!("{:?}", r.p),
        ];
        if let Some(b) = r.bound {
            let is = if r.kind == RowKind::ExactOverN {
                "exact"
            } else {
                "bound"
            };
            shown.extend([format!("{b:.6}"), is.to_string()]);
            full.extend([format!("{b:?}"), is.to_string()]);
        }
        full.push(num::display(&r.value));
        table.row(shown);
        csv.row(full);
    }
    (table, csv)
}

/// A shard's text table with the rows of the other shards' values drawn
/// as `.` (docs/cluster.md), one per k, in the order of the swept values.
fn with_dots(table: Table, rows: &[Row], shape: &Shape) -> Table {
    let head = table.header().to_vec();
    let mut shown = table.into_rows().into_iter();
    let mut out = Table::new(head.clone());
    for v in &shape.all_values {
        let mine = rows.iter().filter(|r| &r.value == v).count();
        for _ in 0..mine {
            out.row(shown.next().unwrap_or_default());
        }
        if mine == 0 {
            for k in shape.ks.0..=shape.ks.1 {
                let mut dots = vec![num::to_f64(v).to_string(), k.to_string()];
                dots.resize(head.len(), ".".to_string());
                out.row(dots);
            }
        }
    }
    out
}

fn kind_word(kind: RowKind) -> &'static str {
    match kind {
        RowKind::AtSize => "at size",
        RowKind::ExactOverN => "exact over n",
        RowKind::Bound => "bound",
    }
}

/// A row in the JSON report.
fn row_json(r: &Row) -> Value {
    json!({"value": num::to_f64(&r.value), "k": r.k, "p": r.p, "is": kind_word(r.kind), "abstraction_bound": r.bound})
}

/// PREFIX.csv, PREFIX.svg and PREFIX.png, and a line saying so.
fn write_files(
    prefix: &Path,
    csv: &Table,
    figure: &Figure,
    r: &mut Report,
    quiet: bool,
) -> Result<(), RunError> {
    let csv_path = prefix.with_extension("csv");
    let csv_text = csv.render(TableFormat::Csv);
    crate::report::output::write_file(&csv_path, csv_text.as_bytes())?;
    let svg = prefix.with_extension("svg");
    let png = prefix.with_extension("png");
    // Each plot whole or not at all; a failure to write (a full disk) is
    // exit 2 naming the file, as for every output.
    crate::report::output::write_via(&svg, |tmp| figure.plot(tmp, true))?;
    crate::report::output::write_via(&png, |tmp| figure.plot(tmp, false))?;
    if !quiet {
        r.text.push_str(&format!(
            "\nwrote {}, {} and {}\n",
            csv_path.display(),
            svg.display(),
            png.display()
        ));
    }
    Ok(())
}
