//! The Python extension module `mavis._native` (cargo feature `python`,
//! built by maturin from `pyproject.toml`; the package around it is
//! `python/mavis/`). It parses nothing itself: a call is a command line run
//! in this process by [`crate::cli::run_in_process`], the very path of the `mavis`
//! binary, with networks and a loaded `.nis` model handed over in memory.
//! The GIL is released while the verb runs.

mod call;
mod model;
mod network;

use crate::cli::Given;
use call::{run_released, Answer, InputError, InternalError};
use pyo3::prelude::*;
use std::collections::HashMap;

/// Runs `argv` (`argv[0]` is the program's name) as the `mavis` binary
/// would; `networks` are used instead of the model's network files.
/// Returns (the JSON report as Python values, text, notes).
#[pyfunction]
#[pyo3(signature = (argv, networks = None))]
fn run(
    py: Python<'_>,
    argv: Vec<String>,
    networks: Option<HashMap<String, PyRef<'_, network::Network>>>,
) -> PyResult<Answer> {
    let given = Given {
        networks: network::unwrap_all(networks),
        nis_model: None,
    };
    run_released(py, argv, given)
}

/// The native part of the `mavis` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_class::<network::Network>()?;
    m.add_class::<model::NisModel>()?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
