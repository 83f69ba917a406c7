//! What every entry point of the extension module shares: the exceptions,
//! the report handed back, and a command line run with the GIL released.

use crate::cli::{self, Given};
use crate::report::{Report, RunError};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

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
        // A size limit or an answer only up to the solver's tolerances: the
        // CLI's exit 3 with an error object, carried the same way.
        RunError::Undetermined(msg) | RunError::Limit(msg) => {
            InternalError::new_err(format!("unknown: {msg}"))
        }
    }
}

/// The report as the Python side reads it: the CLI's JSON report (text),
/// the human rendering, and the notes.
pub(super) type Answer = (String, String, Vec<String>);

fn answer(report: &Report) -> Answer {
    (
        report.to_json().to_string(),
        report.text.clone(),
        report.notes.clone(),
    )
}

/// Runs a command line with the GIL released.
pub(super) fn run_released(py: Python<'_>, argv: Vec<String>, given: Given) -> PyResult<Answer> {
    let outcome = py.detach(move || cli::run_in_process(argv, given));
    outcome.map(|r| answer(&r)).map_err(to_py_err)
}
