//! Networks from Python: an ONNX file, ONNX bytes, or weight arrays.

use super::call::InputError;
use crate::nn::{self, Activation, Layer};
use ndarray::{Array1, Array2};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::HashMap;
use std::path::Path;

/// A feed-forward ReLU network, checked when it is made (shapes, finite
/// weights, supported ONNX operators).
#[pyclass(module = "mavis._native", frozen)]
pub struct Network {
    pub(super) network: nn::Network,
}

#[pymethods]
impl Network {
    /// Reads an ONNX file, with the messages of `mavis nn info`.
    #[staticmethod]
    fn from_file(path: &str) -> PyResult<Self> {
        nn::load(Path::new(path))
            .map(|network| Network { network })
            .map_err(|e| InputError::new_err(e.to_string()))
    }

    /// Reads ONNX bytes (an exported model that was never written to a file).
    #[staticmethod]
    fn from_onnx(bytes: &[u8]) -> PyResult<Self> {
        nn::load_bytes(bytes)
            .map(|m| Network { network: m.network })
            .map_err(|e| InputError::new_err(format!("ONNX bytes: {e}")))
    }

    /// Layers `(W, b)` with `W` of shape outputs x inputs (as
    /// `torch.nn.Linear.weight`): ReLU after every layer but the last.
    #[staticmethod]
    fn from_layers(layers: Vec<(Vec<Vec<f64>>, Vec<f64>)>) -> PyResult<Self> {
        let count = layers.len();
        let mut built = Vec::with_capacity(count);
        for (i, (weights, bias)) in layers.into_iter().enumerate() {
            let activation = if i + 1 == count {
                Activation::Identity
            } else {
                Activation::Relu
            };
            built.push(layer(i, weights, bias, activation)?);
        }
        nn::Network::from_layers(built)
            .map(|network| Network { network })
            .map_err(|e| InputError::new_err(format!("network layers: {e}")))
    }

    /// The network as ONNX bytes (opset 13, Gemm and Relu in double
    /// precision), which the `mavis nn` verbs read as this very network.
    fn to_onnx<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &nn::to_onnx(&self.network))
    }

    /// Number of inputs.
    #[getter]
    fn input_size(&self) -> usize {
        self.network.input_size()
    }

    /// Number of outputs.
    #[getter]
    fn output_size(&self) -> usize {
        self.network.output_size()
    }

    /// The outputs on one input, in f64 (as `mavis nn eval`).
    fn eval(&self, input: Vec<f64>) -> PyResult<Vec<f64>> {
        if input.len() != self.network.input_size() {
            return Err(InputError::new_err(format!(
                "the network has {} input(s), the input has {}",
                self.network.input_size(),
                input.len()
            )));
        }
        Ok(self.network.eval(&input))
    }

    fn __repr__(&self) -> String {
        format!(
            "Network(inputs={}, outputs={}, layers={})",
            self.network.input_size(),
            self.network.output_size(),
            self.network.layers().len()
        )
    }
}

/// One layer from rows of weights; ragged rows are refused by number.
fn layer(
    i: usize,
    weights: Vec<Vec<f64>>,
    bias: Vec<f64>,
    activation: Activation,
) -> PyResult<Layer> {
    let rows = weights.len();
    let cols = weights.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 {
        return Err(InputError::new_err(format!(
            "network layers: layer {i} has an empty weight matrix"
        )));
    }
    if let Some(r) = weights.iter().position(|row| row.len() != cols) {
        return Err(InputError::new_err(format!(
            "network layers: layer {i}, weight row {r} has {} entries, row 0 has {cols}",
            weights[r].len()
        )));
    }
    let flat: Vec<f64> = weights.into_iter().flatten().collect();
    let weights = Array2::from_shape_vec((rows, cols), flat).expect("rows x cols entries");
    Ok(Layer {
        weights,
        bias: Array1::from(bias),
        activation,
    })
}

/// The networks of a call, by name.
pub(super) fn unwrap_all(
    networks: Option<HashMap<String, PyRef<'_, Network>>>,
) -> HashMap<String, nn::Network> {
    networks
        .unwrap_or_default()
        .into_iter()
        .map(|(name, n)| (name, n.network.clone()))
        .collect()
}
