//! `mavis nn verify --instances FILE.csv --out-dir DIR`: a benchmark of
//! VNN-COMP, run the way the competition runs it.
//!
//! The instances file has one instance a row, `network,property,timeout`
//! (seconds), paths relative to the file's directory (VNN-COMP's
//! `instances.csv`); a missing `x.onnx` whose `x.onnx.gz` exists is read
//! compressed. Every instance is decided with its own timeout and leaves two
//! files in DIR, both written atomically (a temporary file renamed), so a
//! run killed half-way leaves no half-written result:
//! - `NAME.txt`, the competition's result file (`unsat`, `sat` and the
//!   assignment, `timeout`, `unknown`, or `error`);
//! - `NAME.json`, mavis's report of the instance (written last: its presence
//!   means the instance is finished).
//!
//! NAME is the network's and the property's paths as written in the row,
//! each without its extensions, joined by `__` (`/` read as `_`). A run is
//! resumable: a finished instance is not run again (one that ended in an
//! error is), and `summary.csv` (line, network, property, timeout, result,
//! verdict, time_s, resumed) is rewritten after every instance.
//!
//! Exit status: 0 when every instance was decided (sat or unsat), 2 when one
//! ended in an input error, else 3 when one is unknown, timed out or not run
//! (the run's own `--timeout` stops before the next instance).

use crate::report::{error_json, Report, RunContext, RunError, Table, TableFormat, Verdict};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One row of the instances file.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// The row's line in the file (from 1).
    pub line: usize,
    /// The paths as written in the row.
    pub network_text: String,
    pub property_text: String,
    /// The paths to read: relative to the file's directory, `.gz` when only
    /// the compressed file exists.
    pub network: PathBuf,
    pub property: PathBuf,
    pub timeout: Duration,
    /// The files' name in the output directory, without extension.
    pub name: String,
}

/// How one instance is decided: `mavis nn verify NETWORK PROPERTY` within
/// the timeout, writing the competition's result file to the given path.
pub type RunOne<'a> = dyn Fn(&Instance, Duration, &Path) -> Result<Report, RunError> + 'a;

/// Reads an instances file. Blank lines and `#` comments are skipped, as is
/// a first row whose timeout is not a number (a header).
pub fn read_instances(path: &Path) -> Result<Vec<Instance>, RunError> {
    let source = crate::lang::Source::read(path).map_err(|e| RunError::reading(path, e))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut instances: Vec<Instance> = Vec::new();
    let mut names = HashSet::new();
    let mut first_row = true;
    for (i, text) in source.text().lines().enumerate() {
        let line = i + 1;
        if text.trim().is_empty() || text.trim_start().starts_with('#') {
            continue;
        }
        let at = |column: usize, what: String| {
            RunError::input(format!("{}:{line}:{column}: {what}", path.display()))
        };
        let header_allowed = std::mem::replace(&mut first_row, false);
        let fields: Vec<&str> = text.split(',').collect();
        if fields.len() != 3 {
            return Err(at(
                1,
                format!(
                    "expected `network,property,timeout`, found {} field(s)",
                    fields.len()
                ),
            ));
        }
        let timeout_column = fields[0].len() + fields[1].len() + 3;
        let timeout = match fields[2].trim().parse::<f64>() {
            Ok(t) if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t),
            Err(_) if header_allowed => continue,
            _ => {
                return Err(at(
                    timeout_column,
                    format!(
                        "the timeout `{}` is not a positive number of seconds",
                        fields[2].trim()
                    ),
                ))
            }
        };
        let (network_text, property_text) = (fields[0].trim(), fields[1].trim());
        if network_text.is_empty() || property_text.is_empty() {
            return Err(at(1, "an empty network or property path".into()));
        }
        let mut name = format!("{}__{}", file_stem(network_text), file_stem(property_text));
        if !names.insert(name.clone()) {
            name = format!("{name}__line{line}");
        }
        instances.push(Instance {
            line,
            network: resolve(dir, network_text),
            property: resolve(dir, property_text),
            network_text: network_text.to_string(),
            property_text: property_text.to_string(),
            timeout,
            name,
        });
    }
    Ok(instances)
}

/// A path of a row, relative to the instances file; `p.gz` when `p` does
/// not exist but `p.gz` does (VNN-COMP's repositories ship compressed files
/// under the names of the plain ones).
fn resolve(dir: &Path, written: &str) -> PathBuf {
    let path = dir.join(written);
    let packed = dir.join(format!("{written}.gz"));
    if !path.exists() && packed.exists() {
        packed
    } else {
        path
    }
}

/// `onnx/acas_1_1.onnx.gz` as `onnx_acas_1_1`: the path without its
/// extensions, every character but letters, digits, `-` and `.` as `_`.
fn file_stem(written: &str) -> String {
    let mut stem = written.trim_start_matches("./");
    for ext in [".gz", ".onnx", ".vnnlib"] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes a file by writing a temporary file beside it and renaming it, so
/// that the file is either absent or whole.
pub fn write_atomically(path: &Path, contents: &str) -> Result<(), RunError> {
    let tmp = temporary(path);
    std::fs::write(&tmp, contents)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| RunError::input(format!("cannot write {}: {e}", path.display())))
}

fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// What one instance gave: the competition's result, mavis's verdict and the time.
#[derive(Clone, Debug)]
struct Outcome {
    result: String,
    verdict: String,
    time_s: f64,
    resumed: bool,
}

/// Runs every instance of the file (see the module's documentation).
pub fn run_instances(
    csv: &Path,
    out_dir: &Path,
    ctx: &RunContext,
    run_one: &RunOne<'_>,
) -> Result<Report, RunError> {
    let instances = read_instances(csv)?;
    std::fs::create_dir_all(out_dir)
        .map_err(|e| RunError::input(format!("cannot create {}: {e}", out_dir.display())))?;
    let mut outcomes: Vec<Option<Outcome>> = vec![None; instances.len()];
    let mut progress = ctx.progress(instances.len() as u64, "nn verify", "instances");
    for (i, instance) in instances.iter().enumerate() {
        let outcome = match finished(out_dir, instance) {
            Some(done) => done,
            None => {
                let Some(budget) = budget(instance, ctx) else {
                    break;
                };
                decide(out_dir, instance, budget, run_one)?
            }
        };
        ctx.note(format!(
            "instance {} of {}: {}: {} ({:.3} s{})",
            i + 1,
            instances.len(),
            instance.name,
            outcome.result,
            outcome.time_s,
            if outcome.resumed {
                ", from an earlier run"
            } else {
                ""
            }
        ));
        outcomes[i] = Some(outcome);
        progress.inc(1);
        write_atomically(
            &out_dir.join("summary.csv"),
            &summary(&instances, &outcomes).render(TableFormat::Csv),
        )?;
    }
    progress.finish_and_clear();
    write_atomically(
        &out_dir.join("summary.csv"),
        &summary(&instances, &outcomes).render(TableFormat::Csv),
    )?;
    Ok(harness_report(csv, out_dir, &instances, &outcomes))
}

/// The time an instance may take: its own timeout, cut to what is left of
/// the run's `--timeout`; `None` when nothing is left.
fn budget(instance: &Instance, ctx: &RunContext) -> Option<Duration> {
    match ctx.remaining() {
        None => Some(instance.timeout),
        Some(left) if left.is_zero() => None,
        Some(left) => Some(instance.timeout.min(left)),
    }
}

/// The outcome of an instance an earlier run finished: its report exists and
/// did not end in an error.
fn finished(out_dir: &Path, instance: &Instance) -> Option<Outcome> {
    let text = std::fs::read_to_string(out_dir.join(format!("{}.json", instance.name))).ok()?;
    let json: Value = serde_json::from_str(&text).ok()?;
    let result = json["vnncomp"].as_str()?;
    if result == "error" || !out_dir.join(format!("{}.txt", instance.name)).exists() {
        return None;
    }
    Some(Outcome {
        result: result.to_string(),
        verdict: json["verdict"].as_str().unwrap_or("").to_string(),
        time_s: json["time_s"].as_f64().unwrap_or(0.0),
        resumed: true,
    })
}

/// Decides one instance and writes its two files (the report last).
fn decide(
    out_dir: &Path,
    instance: &Instance,
    budget: Duration,
    run_one: &RunOne<'_>,
) -> Result<Outcome, RunError> {
    let result_file = out_dir.join(format!("{}.txt", instance.name));
    let written = temporary(&result_file);
    let _ = std::fs::remove_file(&written);
    let start = Instant::now();
    let answer = run_one(instance, budget, &written);
    let time_s = start.elapsed().as_secs_f64();
    let (mut json, result) = match &answer {
        Ok(report) => (report.to_json(), vnncomp_result(report)),
        Err(e) => (error_json(e), "error".to_string()),
    };
    // The result file the verb wrote, or the bare result when it wrote none
    // (an error, or a run stopped from outside at its deadline).
    if written.exists() && answer.is_ok() {
        std::fs::rename(&written, &result_file)
            .map_err(|e| RunError::input(format!("cannot write {}: {e}", result_file.display())))?;
    } else {
        let _ = std::fs::remove_file(&written);
        write_atomically(&result_file, &format!("{result}\n"))?;
    }
    let verdict = json["verdict"].as_str().unwrap_or("").to_string();
    if let Some(m) = json.as_object_mut() {
        m.insert(
            "instance".into(),
            json!({
                "line": instance.line, "network": instance.network_text,
                "property": instance.property_text, "timeout": instance.timeout.as_secs_f64(),
            }),
        );
        m.insert("vnncomp".into(), result.clone().into());
        m.insert("time_s".into(), time_s.into());
    }
    let text = serde_json::to_string_pretty(&json).expect("JSON values serialise");
    write_atomically(
        &out_dir.join(format!("{}.json", instance.name)),
        &format!("{text}\n"),
    )?;
    Ok(Outcome {
        result,
        verdict,
        time_s,
        resumed: false,
    })
}

/// The competition's word for a report: `results.vnncomp` when the verb
/// says it, `timeout` for a run stopped at its deadline, else `unknown`.
fn vnncomp_result(report: &Report) -> String {
    if let Some(tag) = report.results.get("vnncomp").and_then(Value::as_str) {
        return tag.to_string();
    }
    if report.stats.get("timed_out") == Some(&Value::Bool(true)) {
        "timeout".to_string()
    } else {
        "unknown".to_string()
    }
}

fn summary(instances: &[Instance], outcomes: &[Option<Outcome>]) -> Table {
    let mut t = Table::new([
        "line", "network", "property", "timeout", "result", "verdict", "time_s", "resumed",
    ]);
    for (instance, outcome) in instances.iter().zip(outcomes) {
        let (result, verdict, time, resumed) = match outcome {
            Some(o) => (
                o.result.as_str(),
                o.verdict.as_str(),
                format!("{:.3}", o.time_s),
                o.resumed.to_string(),
            ),
            None => ("not run", "", String::new(), String::new()),
        };
        t.row([
            instance.line.to_string(),
            instance.network_text.clone(),
            instance.property_text.clone(),
            instance.timeout.as_secs_f64().to_string(),
            result.to_string(),
            verdict.to_string(),
            time,
            resumed,
        ]);
    }
    t
}

/// The report of the whole run: the summary table, the counts per result,
/// and the exit status of the module's documentation.
fn harness_report(
    csv: &Path,
    out_dir: &Path,
    instances: &[Instance],
    outcomes: &[Option<Outcome>],
) -> Report {
    let mut r = Report::new("nn", "verify");
    let mut counts = serde_json::Map::new();
    for o in outcomes {
        let key = o.as_ref().map_or("not run", |o| o.result.as_str());
        let n = counts.get(key).and_then(Value::as_u64).unwrap_or(0);
        counts.insert(key.to_string(), (n + 1).into());
    }
    let count = |k: &str| counts.get(k).and_then(Value::as_u64).unwrap_or(0);
    let decided = count("sat") + count("unsat");
    r.line(format!(
        "{}: {} instances, {decided} decided ({} unsat, {} sat); results in {}",
        csv.display(),
        instances.len(),
        count("unsat"),
        count("sat"),
        out_dir.display()
    ));
    r.line(
        summary(instances, outcomes)
            .render(TableFormat::Text)
            .trim_end(),
    );
    let rows: Vec<Value> = instances
        .iter()
        .zip(outcomes)
        .map(|(i, o)| {
            json!({
                "line": i.line, "network": i.network_text, "property": i.property_text,
                "timeout": i.timeout.as_secs_f64(), "name": i.name,
                "result": o.as_ref().map_or("not run", |o| o.result.as_str()),
                "verdict": o.as_ref().map(|o| o.verdict.clone()),
                "time_s": o.as_ref().map(|o| o.time_s),
                "resumed": o.as_ref().map(|o| o.resumed),
            })
        })
        .collect();
    r.exit_status = Some(if count("error") > 0 {
        2
    } else if decided as usize == instances.len() {
        0
    } else {
        3
    });
    if r.exit_status == Some(3) {
        r.verdict = Some(Verdict::Unknown);
    }
    r.results =
        json!({ "instances": rows, "counts": counts, "out_dir": out_dir.display().to_string() });
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_resolve_relative_to_the_file_and_prefer_plain_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("onnx")).unwrap();
        std::fs::write(dir.path().join("onnx/a.onnx.gz"), b"").unwrap();
        std::fs::write(dir.path().join("onnx/b.onnx"), b"").unwrap();
        std::fs::write(dir.path().join("onnx/b.onnx.gz"), b"").unwrap();
        let csv = dir.path().join("instances.csv");
        std::fs::write(&csv, "network,property,timeout\nonnx/a.onnx,p/x.vnnlib,10\n\n# c\nonnx/b.onnx, p/x.vnnlib.gz ,0.5\nonnx/a.onnx,p/x.vnnlib,3\n").unwrap();
        let rows = read_instances(&csv).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].network, dir.path().join("onnx/a.onnx.gz"));
        assert_eq!(rows[1].network, dir.path().join("onnx/b.onnx"));
        assert_eq!(rows[1].property, dir.path().join("p/x.vnnlib.gz"));
        assert_eq!((rows[0].line, rows[1].line), (2, 5));
        assert_eq!(rows[1].timeout, Duration::from_millis(500));
        assert_eq!(rows[0].name, "onnx_a__p_x");
        assert_eq!(rows[1].name, "onnx_b__p_x");
        assert_eq!(rows[2].name, "onnx_a__p_x__line6");
    }

    #[test]
    fn bad_rows_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("i.csv");
        for (text, place) in [
            ("a.onnx,b.vnnlib,10\na.onnx,b.vnnlib\n", ":2:1: expected"),
            (
                "a.onnx,b.vnnlib,10\na.onnx,b.vnnlib,-1\n",
                ":2:17: the timeout `-1`",
            ),
            ("a.onnx,b.vnnlib,ten\n", ""),
            ("h,h,h\na.onnx,b.vnnlib,x\n", ":2:17: the timeout `x`"),
        ] {
            std::fs::write(&csv, text).unwrap();
            match read_instances(&csv)
                .map_err(|e| format!("{:?}", error_json(&e)["error"]["message"]))
            {
                Ok(rows) => assert!(place.is_empty() && rows.is_empty(), "{text}"),
                Err(e) => assert!(
                    e.to_string().contains(place) && !place.is_empty(),
                    "{text}: {e}"
                ),
            }
        }
    }

    #[test]
    fn an_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.txt");
        write_atomically(&path, "unsat\n").unwrap();
        write_atomically(&path, "sat\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "sat\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
