//! The internal form every loader produces and every encoder reads.

use ndarray::{Array1, Array2, ArrayView2, Axis};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
}

/// One affine layer `y = act(W x + b)`, `W` stored out x in.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub weights: Array2<f64>,
    pub bias: Array1<f64>,
    pub activation: Activation,
}

impl Layer {
    pub fn inputs(&self) -> usize {
        self.weights.ncols()
    }

    pub fn outputs(&self) -> usize {
        self.weights.nrows()
    }
}

/// A feed-forward network of affine layers with ReLU or identity activations.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    layers: Vec<Layer>,
    pub input_name: String,
    pub output_name: String,
}

/// Why a list of layers is not a network.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NetworkError {
    #[error("a network needs at least one layer")]
    Empty,
    #[error("layer {layer} expects {expected} inputs but the previous layer gives {found}")]
    ShapeMismatch {
        layer: usize,
        expected: usize,
        found: usize,
    },
    #[error("layer {layer} has {rows} weight rows but {bias} biases")]
    BiasMismatch {
        layer: usize,
        rows: usize,
        bias: usize,
    },
    #[error("layer {layer} has a NaN or infinite weight or bias")]
    NotFinite { layer: usize },
}

impl Network {
    /// Checks shapes and finiteness.
    pub fn from_layers(layers: Vec<Layer>) -> Result<Self, NetworkError> {
        if layers.is_empty() {
            return Err(NetworkError::Empty);
        }
        for (i, l) in layers.iter().enumerate() {
            if l.bias.len() != l.outputs() {
                return Err(NetworkError::BiasMismatch {
                    layer: i,
                    rows: l.outputs(),
                    bias: l.bias.len(),
                });
            }
            if !l.weights.iter().chain(l.bias.iter()).all(|x| x.is_finite()) {
                return Err(NetworkError::NotFinite { layer: i });
            }
            if i > 0 && l.inputs() != layers[i - 1].outputs() {
                return Err(NetworkError::ShapeMismatch {
                    layer: i,
                    expected: l.inputs(),
                    found: layers[i - 1].outputs(),
                });
            }
        }
        Ok(Network {
            layers,
            input_name: "x".into(),
            output_name: "y".into(),
        })
    }

    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    pub fn input_size(&self) -> usize {
        self.layers[0].inputs()
    }

    pub fn output_size(&self) -> usize {
        self.layers.last().expect("non-empty").outputs()
    }

    /// Number of weights and biases.
    pub fn parameter_count(&self) -> usize {
        self.layers
            .iter()
            .map(|l| l.weights.len() + l.bias.len())
            .sum()
    }

    /// Evaluates one input in f64. Panics if the input size is wrong (callers check it).
    pub fn eval(&self, input: &[f64]) -> Vec<f64> {
        assert_eq!(input.len(), self.input_size(), "input size");
        let mut x = Array1::from(input.to_vec());
        for l in &self.layers {
            x = l.weights.dot(&x) + &l.bias;
            if l.activation == Activation::Relu {
                x.mapv_inplace(|v| v.max(0.0));
            }
        }
        x.to_vec()
    }

    /// Evaluates a batch, one input per row.
    pub fn eval_batch(&self, inputs: ArrayView2<f64>) -> Array2<f64> {
        assert_eq!(inputs.ncols(), self.input_size(), "input size");
        let mut x = inputs.to_owned();
        for l in &self.layers {
            x = x.dot(&l.weights.t()) + l.bias.view().insert_axis(Axis(0));
            if l.activation == Activation::Relu {
                x.mapv_inplace(|v| v.max(0.0));
            }
        }
        x
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ndarray::array;

    /// z0 = [x, -x + 0.5], out = 2 relu(z0_0) + 3 relu(z0_1) - 1: small
    /// enough to compute every bound by hand.
    pub(crate) fn net() -> Network {
        Network::from_layers(vec![
            Layer {
                weights: array![[1.0], [-1.0]],
                bias: array![0.0, 0.5],
                activation: Activation::Relu,
            },
            Layer {
                weights: array![[2.0, 3.0]],
                bias: array![-1.0],
                activation: Activation::Identity,
            },
        ])
        .unwrap()
    }

    #[test]
    fn evaluates_by_hand() {
        // x = 0.25: hidden = [0.25, 0.25], out = 2*0.25 + 3*0.25 - 1 = 0.25
        assert_eq!(net().eval(&[0.25]), vec![0.25]);
        // x = 2: hidden = [2, 0], out = 3
        assert_eq!(net().eval(&[2.0]), vec![3.0]);
        let batch = net().eval_batch(array![[0.25], [2.0]].view());
        assert_eq!(batch, array![[0.25], [3.0]]);
        assert_eq!(net().parameter_count(), 2 + 2 + 2 + 1);
    }

    #[test]
    fn refuses_bad_shapes() {
        let bad = Network::from_layers(vec![
            Layer {
                weights: array![[1.0]],
                bias: array![0.0],
                activation: Activation::Relu,
            },
            Layer {
                weights: array![[1.0, 1.0]],
                bias: array![0.0],
                activation: Activation::Identity,
            },
        ]);
        assert_eq!(
            bad,
            Err(NetworkError::ShapeMismatch {
                layer: 1,
                expected: 2,
                found: 1
            })
        );
        let nan = Network::from_layers(vec![Layer {
            weights: array![[f64::NAN]],
            bias: array![0.0],
            activation: Activation::Relu,
        }]);
        assert_eq!(nan, Err(NetworkError::NotFinite { layer: 0 }));
    }
}
