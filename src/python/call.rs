//! What every entry point of the extension module shares: the exceptions,
//! the report handed back, and a command line run with the GIL released.

use crate::cli::{self, Given};
use crate::report::{error_json, Report, RunError};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};
use serde_json::{json, Value};

create_exception!(
    mavis,
    InputError,
    PyException,
    "Bad input or usage (the CLI's exit status 2): a model, network, formula or option. The message is the CLI's, with file:line:column where there is one."
);
create_exception!(
    mavis,
    InternalError,
    PyException,
    "A failure of mavis itself (the CLI's exit status 3 without a report), for instance a witness that does not replay."
);

/// A Python exception carrying the message the CLI prints in its JSON error
/// object (`error.message`).
pub(super) fn to_py_err(err: RunError) -> PyErr {
    match err {
        RunError::Input(report) => InputError::new_err(report.to_string()),
        RunError::Internal(msg) => InternalError::new_err(msg),
        // `run_in_process` turns a time-out into a report; kept for completeness.
        RunError::TimedOut(msg) => InternalError::new_err(format!("unknown: {msg}")),
        // A size limit or an answer only up to the solver's tolerances:
        // `run_released` makes a report with verdict unknown of them; here
        // (loading a model) they are carried as the CLI's exit 3.
        RunError::Undetermined(msg) | RunError::Limit(msg) => {
            InternalError::new_err(format!("unknown: {msg}"))
        }
    }
}

/// The report as the Python side reads it: the report's JSON object as
/// Python values (dicts, lists, str, int, float, bool, None: what
/// `json.loads` would give for the CLI's `--format json`, without writing
/// and parsing the text), the human rendering, and the notes.
pub(super) type Answer = (Py<PyAny>, String, Vec<String>);

/// One JSON value as the Python value `json.loads` makes of it. The report
/// reaches this module already rendered (engines keep their typed outcomes
/// up to the verb layer, which writes the report), so this is the Python
/// renderer of that form, as `emit` is the text one.
fn python_value<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            // A number that is not an integer is an f64 (non-finite ones are
            // already `null` in a `Value`).
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(python_value(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, python_value(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn answer(py: Python<'_>, report: &Report) -> PyResult<Answer> {
    Ok((
        python_value(py, &report.to_json())?.unbind(),
        report.text.clone(),
        report.notes.clone(),
    ))
}

/// A run stopped by a size limit (`--max-states`) or by an answer that
/// holds only up to the solver's tolerances: the CLI's exit 3 with an error
/// object of kind `limit` or `undetermined`. Python gets a report with
/// verdict unknown instead (a verdict is never an exception): `results`
/// has the error's `kind` and its message as `reason`, as a time-out's
/// report has its `reason`.
fn unknown_answer(py: Python<'_>, names: (String, String), err: &RunError) -> PyResult<Answer> {
    let error = error_json(err)["error"].clone();
    let reason = error["message"].as_str().unwrap_or_default().to_string();
    let report = json!({
        "tool": "mavis", "version": env!("CARGO_PKG_VERSION"),
        "engine": names.0, "command": names.1, "model": null,
        "verdict": "unknown", "results": {"kind": error["kind"], "reason": reason},
        "stats": {}, "warnings": [],
    });
    let text = format!("UNKNOWN: {reason}\n");
    Ok((python_value(py, &report)?.unbind(), text, Vec::new()))
}

/// Runs a command line with the GIL released.
pub(super) fn run_released(py: Python<'_>, argv: Vec<String>, given: Given) -> PyResult<Answer> {
    let word = |i: usize| argv.get(i).cloned().unwrap_or_default();
    let names = (word(1), word(2));
    let outcome = py.detach(move || cli::run_in_process(argv, given));
    match outcome {
        Ok(report) => answer(py, &report),
        Err(err @ (RunError::Limit(_) | RunError::Undetermined(_))) => {
            unknown_answer(py, names, &err)
        }
        Err(err) => Err(to_py_err(err)),
    }
}
