//! A `.nis` model loaded once and checked many times (a training loop
//! verifying each checkpoint's network).

use super::call::{run_released, to_py_err, Answer, InputError};
use super::network::{self, Network};
use crate::cli::Given;
use crate::lang;
use crate::nis::{self, LoadOptions};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// A checked `.nis` model with its networks and constants.
#[pyclass(module = "mavis._native", frozen)]
pub struct NisModel {
    path: PathBuf,
    model: Arc<nis::Model>,
}

#[pymethods]
impl NisModel {
    /// Reads and checks the model file once. `networks` replace the files
    /// the model names (as `--network`); `constants` are `NAME=VALUE`
    /// overrides (as `--set`).
    #[staticmethod]
    #[pyo3(signature = (path, networks = None, constants = Vec::new()))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        networks: Option<HashMap<String, PyRef<'_, Network>>>,
        constants: Vec<String>,
    ) -> PyResult<Self> {
        let constants = constants
            .iter()
            .map(|c| {
                let assignment = lang::parse_assignment(c)
                    .map_err(|e| InputError::new_err(format!("set {c}: {e}")))?;
                assignment
                    .evaluate()
                    .map_err(|e| InputError::new_err(format!("set {c}: {e}")))
            })
            .collect::<PyResult<HashMap<_, _>>>()?;
        let opts = LoadOptions {
            networks: HashMap::new(),
            constants,
            in_memory: network::unwrap_all(networks),
        };
        let loaded = py.detach(|| nis::load_model(&path, &opts));
        let model = loaded.map_err(to_py_err)?;
        Ok(NisModel {
            path,
            model: Arc::new(model),
        })
    }

    /// The model file this model was read from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The names of the model's networks, in declaration order.
    #[getter]
    fn network_names(&self) -> Vec<String> {
        self.model.networks.iter().map(|n| n.name.clone()).collect()
    }

    /// Runs a `nis` command line whose model argument is this model's file,
    /// on this model (with `networks` replacing some of its networks, shapes
    /// unchanged). Returns (the JSON report as Python values, text, notes).
    #[pyo3(signature = (argv, networks = None))]
    fn run(
        &self,
        py: Python<'_>,
        argv: Vec<String>,
        networks: Option<HashMap<String, PyRef<'_, Network>>>,
    ) -> PyResult<Answer> {
        let replacements = network::unwrap_all(networks);
        let model = if replacements.is_empty() {
            Arc::clone(&self.model)
        } else {
            Arc::new(nis::with_networks(&self.model, &replacements).map_err(to_py_err)?)
        };
        let given = Given {
            networks: HashMap::new(),
            nis_model: Some(model),
        };
        run_released(py, argv, given)
    }
}
