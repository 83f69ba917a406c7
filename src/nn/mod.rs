//! Networks: the internal form of a ReLU observation network (a list of
//! affine layers), exact f64 evaluation, the ONNX loader and bounds over an
//! input box (interval and symbolic; LP tightening is in `milp`), VNN-LIB
//! properties (`vnnlib`); files may be gzip compressed (`gz`). Falsification
//! is the shared search's (`search`).

mod bounds;
mod gz;
mod load_error;
mod network;
mod onnx;
mod onnx_tensor;
mod onnx_write;
mod symbolic;
pub mod vnnlib;

pub use bounds::{
    affine_interval, interval_bounds, InputBox, LayerBounds, NetworkBounds, Stability,
};
pub use gz::read_maybe_gzip;
pub use load_error::{LoadError, LoadProblem, SUPPORTED_OPS, SUPPORTED_OPSETS};
pub use network::{Activation, Layer, Network, NetworkError};
pub use onnx::{load, load_bytes, load_model, LoadedModel};
pub use onnx_write::to_onnx;
pub use symbolic::{
    output_linear_bounds, symbolic_bounds, symbolic_bounds_within, symbolic_layer, LinearBounds,
};
