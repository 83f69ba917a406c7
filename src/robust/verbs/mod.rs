//! The verbs of `mavis robust`, one file each, each returning a report.

pub mod check;
pub mod convert;
pub mod faults;
pub mod parity;
pub mod solve;

use crate::lang::source::read_capped;
use crate::lang::{Constants, Source, Value, BYTE_ORDER_MARK};
use crate::report::{sha256_hex_of, ModelRef, Report, RunError, Table, TableFormat};
use crate::robust::front::Automaton;
use crate::robust::outcome::{Bounds, WorstCase};
use serde_json::{json, Map};
use std::path::Path;

/// A number for humans: integers plainly, others with up to 4 decimals.
pub fn num(x: f64) -> String {
    if x.is_infinite() {
        return "inf".into();
    }
    if (x - x.round()).abs() < 1e-9 {
        return format!("{}", x.round() as i64);
    }
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn jnum(x: f64) -> serde_json::Value {
    if x.is_finite() {
        json!(x)
    } else {
        json!("inf")
    }
}

/// Loads a model with `--set` overrides; warnings go into the report.
pub fn load_model(
    path: &Path,
    set: Vec<(String, Value)>,
    report: &mut Report,
) -> Result<Automaton, RunError> {
    let mut consts = Constants::with_overrides(set.into_iter().collect());
    // The file is read once, and its sha256 (for the report) computed on a
    // second thread while the model is parsed: on a 166 MB model a second
    // read and the hash each cost about a tenth of a second.
    let bytes = read_capped(path).map_err(|e| RunError::reading(path, e))?;
    // The text loses a byte-order mark; the file's hash includes it.
    let mark = if bytes.starts_with(BYTE_ORDER_MARK) {
        BYTE_ORDER_MARK
    } else {
        b""
    };
    let (loaded, sha256) = if bytes.starts_with(crate::robust::export::binary::MAGIC) {
        let name = path.display().to_string();
        hashed_while(&[&bytes], || {
            crate::robust::read::binary::read(&name, &bytes)
        })
    } else {
        let source = Source::from_bytes(path.display().to_string(), bytes)
            .map_err(|e| RunError::reading(path, e))?;
        hashed_while(&[mark, source.text().as_bytes()], || {
            crate::robust::load_source(&source, &mut consts)
        })
    };
    let (a, warnings) = loaded?;
    for w in consts.unused_overrides() {
        report
            .warnings
            .push(format!("--set {w}: the model declares no such constant"));
    }
    report.warnings.extend(warnings);
    report.model = Some(ModelRef {
        path: path.display().to_string(),
        sha256,
        networks: Vec::new(),
    });
    Ok(a)
}

/// `load()`'s result, with the sha256 of `parts` computed on a second thread meanwhile.
fn hashed_while<T: Send>(parts: &[&[u8]], load: impl FnOnce() -> T) -> (T, String) {
    std::thread::scope(|scope| {
        let hash = scope.spawn(|| sha256_hex_of(parts));
        let loaded = load();
        let sha256 = hash.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        (loaded, sha256)
    })
}

/// A strategy's bounds under their JSON keys.
fn bounds_json(b: &Bounds) -> Map<String, serde_json::Value> {
    let mut m = Map::new();
    m.insert("sigma".into(), jnum(b.sigma));
    m.insert("bound".into(), jnum(b.bound));
    m.insert("gamma_bar".into(), jnum(b.gamma_bar));
    m.insert("nominally_winning".into(), b.nominal.into());
    m
}

/// A worst-case outcome under `title` as a table (its states' distances
/// `dist` to the target) and as the report's witness.
fn worst_case_witness(r: &mut Report, a: &Automaton, dist: &[f64], worst: &WorstCase, title: &str) {
    r.line(format!(
        "\n{title} (closest approach {}):",
        num(worst.closest)
    ));
    let mut w = Table::new(["step", "state", "d(q,F)", "input", "disturbance"]);
    let mut steps = Vec::new();
    for (i, (q, step)) in worst.steps.iter().enumerate() {
        let (inp, dis) = match step {
            Some((m, x)) => (
                a.input_name(&a.moves[*q as usize][*m]).to_string(),
                a.disturbances[*x as usize].clone(),
            ),
            None => ("-".into(), "-".into()),
        };
        w.row([
            i.to_string(),
            a.states[*q as usize].to_string(),
            num(dist[*q as usize]),
            inp.clone(),
            dis.clone(),
        ]);
        steps.push(json!({"state": a.states[*q as usize], "distance": dist[*q as usize], "input": inp, "disturbance": dis}));
    }
    r.text.push_str(&w.render(TableFormat::Text));
    r.witness =
        Some(json!({"kind": "worst-case outcome", "closest": worst.closest, "steps": steps}));
}
