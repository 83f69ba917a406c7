//! Why an ONNX file is not a network mavis can use.

use super::NetworkError;
use std::fmt;
use std::path::PathBuf;

/// The operator types the loader accepts (default ONNX domain).
pub const SUPPORTED_OPS: &[&str] = &[
    "Gemm",
    "MatMul",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Relu",
    "Flatten",
    "Reshape",
    "Identity",
    "Squeeze",
    "Unsqueeze",
    "Constant",
];

/// The opsets of the default domain the loader accepts. Opset 8 (the ACAS Xu
/// networks of VNN-COMP 2021 use it) is in: every supported op means the same
/// there as in opset 9 (opset 9 only widened the types of Flatten, Gemm,
/// MatMul and the elementwise ops; their broadcasting dates from opset 7).
pub const SUPPORTED_OPSETS: std::ops::RangeInclusive<i64> = 8..=21;

/// A network file that could not be loaded: the file and the problem.
///
/// Its `Display` always names the file, e.g.
/// `cannot load network nets/p.onnx: node 'conv1' has op type 'Conv', which is not supported (supported: Gemm, MatMul, ...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub path: PathBuf,
    pub problem: LoadProblem,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot load network {}: {}",
            self.path.display(),
            self.problem
        )
    }
}

impl std::error::Error for LoadError {}

/// What is wrong with the file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LoadProblem {
    #[error("cannot read the file: {0}")]
    Io(String),
    #[error("not an ONNX model, or a truncated one (protobuf decoding failed: {0})")]
    Decode(String),
    #[error("the model contains no graph (not an ONNX model, or a truncated one)")]
    NoGraph,
    #[error("the model imports no opset of the default ONNX domain")]
    NoOpset,
    #[error("opset {0} is not supported (supported: {min} to {max})", min = SUPPORTED_OPSETS.start(), max = SUPPORTED_OPSETS.end())]
    Opset(i64),
    #[error("node '{node}' has op type '{op}'{domain}, which is not supported (supported: {list})", list = SUPPORTED_OPS.join(", "))]
    UnsupportedOp {
        node: String,
        op: String,
        domain: String,
    },
    #[error("node '{node}' ({op}): {detail}")]
    UnsupportedUse {
        node: String,
        op: String,
        detail: String,
    },
    #[error("node '{node}' ({op}): shape mismatch: {detail}")]
    Shape {
        node: String,
        op: String,
        detail: String,
    },
    #[error("node '{node}' ({op}) uses '{name}', which no earlier node, initializer or graph input defines")]
    Undefined {
        node: String,
        op: String,
        name: String,
    },
    #[error("tensor '{name}' contains a NaN or infinite value")]
    NotFinite { name: String },
    #[error("tensor '{name}': {detail}")]
    Tensor { name: String, detail: String },
    #[error(
        "the graph has {count} inputs ({names}) besides its initializers; exactly one is needed"
    )]
    Inputs { count: usize, names: String },
    #[error("the graph has {count} outputs ({names}); exactly one is needed")]
    Outputs { count: usize, names: String },
    #[error("graph input '{name}': {detail}")]
    InputShape { name: String, detail: String },
    #[error("the graph output '{name}' is never computed from the input")]
    OutputNotComputed { name: String },
    #[error("{0}")]
    Network(#[from] NetworkError),
}
