//! Networks: the internal form of a ReLU observation network (a list of
//! affine layers), exact f64 evaluation and the ONNX loader.

pub mod commands;
mod load_error;
mod network;
mod onnx;
mod onnx_tensor;

pub use load_error::{LoadError, LoadProblem, SUPPORTED_OPS, SUPPORTED_OPSETS};
pub use network::{Activation, Layer, Network, NetworkError};
pub use onnx::{load, load_bytes, load_model, LoadedModel};
