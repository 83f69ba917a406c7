//! Networks: the internal form of a ReLU observation network (a list of
//! affine layers), exact f64 evaluation, loading and bounds.

mod network;

pub use network::{Activation, Layer, Network, NetworkError};
