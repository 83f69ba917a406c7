//! The ONNX loader: walks a feed-forward graph node by node, keeping every
//! value computed from the input as an affine map of the last ReLU layer's
//! output, and closes a [`Layer`] at each `Relu`. Constant-only subgraphs are
//! not folded; shape-only ops must not change the math.

use super::load_error::{LoadError, LoadProblem, SUPPORTED_OPSETS};
use super::onnx_tensor::Tensor;
use super::{Activation, Layer, Network};
use ndarray::{Array1, Array2};
use onnx_protobuf::{
    attribute_proto::AttributeType, GraphProto, Message, ModelProto, NodeProto, ValueInfoProto,
};
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

/// A loaded model: the network and what the file says about itself.
#[derive(Clone, Debug)]
pub struct LoadedModel {
    pub network: Network,
    /// The default-domain opset the model imports.
    pub opset: i64,
    pub ir_version: i64,
    pub producer: String,
    /// Number of ONNX nodes in the graph.
    pub node_count: usize,
}

/// Loads an ONNX file as a [`Network`]. See [`load_model`].
pub fn load(path: &Path) -> Result<Network, LoadError> {
    load_model(path).map(|m| m.network)
}

/// Loads an ONNX file: feed-forward graphs of `Gemm` (`alpha`, `beta`,
/// `transA` = 0, `transB`), `MatMul` + `Add`, `Relu`, shape-only ops that do
/// not change the math, and `Add`/`Sub`/`Mul`/`Div` by constants; opsets 8
/// to 21; initializers in `float_data`, `double_data` or little-endian
/// `raw_data`. Everything else is refused with an error naming the file.
pub fn load_model(path: &Path) -> Result<LoadedModel, LoadError> {
    let wrap = |problem| LoadError {
        path: path.to_path_buf(),
        problem,
    };
    let bytes =
        super::gz::read_maybe_gzip(path).map_err(|e| wrap(LoadProblem::Io(e.to_string())))?;
    load_bytes(&bytes).map_err(wrap)
}

/// Loads a model from its bytes (errors without a file name).
pub fn load_bytes(bytes: &[u8]) -> Result<LoadedModel, LoadProblem> {
    let model =
        ModelProto::parse_from_bytes(bytes).map_err(|e| LoadProblem::Decode(e.to_string()))?;
    let graph = model.graph.as_ref().ok_or(LoadProblem::NoGraph)?;
    if graph.node.is_empty() && graph.output.is_empty() {
        return Err(LoadProblem::NoGraph);
    }
    let opset = opset(&model)?;
    let mut values: HashMap<&str, Value> = HashMap::new();
    for init in &graph.initializer {
        values.insert(
            init.name.as_str(),
            Value::Const(Rc::new(Tensor::from_proto(init, &init.name)?)),
        );
    }
    let input = only_input_and_output(graph, &values)?;
    let n = input_features(input)?;
    values.insert(
        input.name.as_str(),
        Value::Dyn(Affine::identity(Rc::new(Vec::new()), n)),
    );

    for (index, node) in graph.node.iter().enumerate() {
        let ctx = NodeCtx::new(node, index);
        let produced = apply(&ctx, &values)?;
        if let Some(out) = node.output.first() {
            values.insert(out.as_str(), produced);
        }
    }
    let output = &graph.output[0];
    let network = match values.get(output.name.as_str()) {
        Some(Value::Dyn(a)) => a.clone().into_network()?,
        _ => {
            return Err(LoadProblem::OutputNotComputed {
                name: output.name.clone(),
            })
        }
    };
    let mut network = network;
    network.input_name = input.name.clone();
    network.output_name = output.name.clone();
    Ok(LoadedModel {
        network,
        opset,
        ir_version: model.ir_version,
        producer: model.producer_name.clone(),
        node_count: graph.node.len(),
    })
}

/// The model's ONNX opset, if supported.
fn opset(model: &ModelProto) -> Result<i64, LoadProblem> {
    let opset = model
        .opset_import
        .iter()
        .filter(|o| o.domain.is_empty() || o.domain == "ai.onnx")
        .map(|o| o.version)
        .max()
        .ok_or(LoadProblem::NoOpset)?;
    if !SUPPORTED_OPSETS.contains(&opset) {
        return Err(LoadProblem::Opset(opset));
    }
    Ok(opset)
}

/// The graph's one input that is not an initializer (in `values`), once
/// the graph is checked to have one input and one output.
fn only_input_and_output<'g>(
    graph: &'g GraphProto,
    values: &HashMap<&str, Value>,
) -> Result<&'g ValueInfoProto, LoadProblem> {
    let inputs: Vec<_> = graph
        .input
        .iter()
        .filter(|i| !values.contains_key(i.name.as_str()))
        .collect();
    if inputs.len() != 1 {
        let names = inputs
            .iter()
            .map(|i| format!("'{}'", i.name))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(LoadProblem::Inputs {
            count: inputs.len(),
            names,
        });
    }
    if graph.output.len() != 1 {
        let names = graph
            .output
            .iter()
            .map(|o| format!("'{}'", o.name))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(LoadProblem::Outputs {
            count: graph.output.len(),
            names,
        });
    }
    Ok(inputs[0])
}

/// Inputs larger than this are refused (the loader builds an identity map of this size).
const MAX_INPUT_FEATURES: usize = 4096;

/// The feature count of the graph input: rank 1 `[n]`, or `[batch, d1, ...]`
/// with the product of the fixed dims after the batch one.
fn input_features(input: &onnx_protobuf::ValueInfoProto) -> Result<usize, LoadProblem> {
    use onnx_protobuf::tensor_shape_proto::dimension::Value as Dim;
    use onnx_protobuf::type_proto::Value as Ty;
    let bad = |detail: &str| LoadProblem::InputShape {
        name: input.name.clone(),
        detail: detail.into(),
    };
    let shape = match input.type_.as_ref().and_then(|t| t.value.as_ref()) {
        Some(Ty::TensorType(t)) => t.shape.as_ref().ok_or_else(|| bad("has no shape"))?,
        _ => return Err(bad("is not a tensor")),
    };
    let dims: Vec<Option<i64>> = shape
        .dim
        .iter()
        .map(|d| match d.value {
            Some(Dim::DimValue(v)) if v > 0 => Some(v),
            _ => None,
        })
        .collect();
    let features = match dims.as_slice() {
        [] => return Err(bad("is a scalar; a feature vector is needed")),
        [single] => vec![*single],
        [_batch, rest @ ..] => rest.to_vec(),
    };
    let mut n: usize = 1;
    for d in features {
        let d = d.ok_or_else(|| bad("has a feature dimension of unknown size"))?;
        n = n
            .checked_mul(d as usize)
            .filter(|&n| n <= MAX_INPUT_FEATURES)
            .ok_or_else(|| bad("has more than 4096 features"))?;
    }
    Ok(n)
}

/// A value of the graph: a constant, or computed from the network input as
/// `w · z + b` where `z` is the output of `prefix` (the input itself when empty).
#[derive(Clone, Debug)]
enum Value {
    Const(Rc<Tensor>),
    Dyn(Affine),
}

#[derive(Clone, Debug)]
struct Affine {
    prefix: Rc<Vec<Layer>>,
    w: Array2<f64>,
    b: Array1<f64>,
}

impl Affine {
    fn identity(prefix: Rc<Vec<Layer>>, n: usize) -> Self {
        Affine {
            prefix,
            w: Array2::eye(n),
            b: Array1::zeros(n),
        }
    }

    fn features(&self) -> usize {
        self.w.nrows()
    }

    fn is_identity(&self) -> bool {
        self.w.is_square()
            && self.w == Array2::<f64>::eye(self.w.nrows())
            && self.b.iter().all(|&v| v == 0.0)
    }

    /// Applies `x -> m x + c` (m: out x features) to this value.
    fn then(&self, m: &Array2<f64>, c: &Array1<f64>) -> Affine {
        Affine {
            prefix: self.prefix.clone(),
            w: m.dot(&self.w),
            b: m.dot(&self.b) + c,
        }
    }

    fn relu(self) -> Affine {
        let n = self.features();
        let mut layers = (*self.prefix).clone();
        layers.push(Layer {
            weights: self.w,
            bias: self.b,
            activation: Activation::Relu,
        });
        Affine::identity(Rc::new(layers), n)
    }

    fn into_network(self) -> Result<Network, LoadProblem> {
        let mut layers = (*self.prefix).clone();
        if layers.is_empty() || !self.is_identity() {
            layers.push(Layer {
                weights: self.w,
                bias: self.b,
                activation: Activation::Identity,
            });
        }
        Ok(Network::from_layers(layers)?)
    }
}

struct NodeCtx<'a> {
    node: &'a NodeProto,
    name: String,
}

impl<'a> NodeCtx<'a> {
    fn new(node: &'a NodeProto, index: usize) -> Self {
        let name = if node.name.is_empty() {
            format!("#{index}")
        } else {
            node.name.clone()
        };
        NodeCtx { node, name }
    }

    fn op(&self) -> &str {
        &self.node.op_type
    }

    fn shape(&self, detail: String) -> LoadProblem {
        LoadProblem::Shape {
            node: self.name.clone(),
            op: self.op().into(),
            detail,
        }
    }

    fn unsupported(&self, detail: impl Into<String>) -> LoadProblem {
        LoadProblem::UnsupportedUse {
            node: self.name.clone(),
            op: self.op().into(),
            detail: detail.into(),
        }
    }

    fn attr(&self, name: &str) -> Option<&'a onnx_protobuf::AttributeProto> {
        self.node.attribute.iter().find(|a| a.name == name)
    }

    fn attr_int(&self, name: &str, default: i64) -> i64 {
        self.attr(name).map_or(default, |a| a.i)
    }

    fn attr_float(&self, name: &str, default: f64) -> f64 {
        self.attr(name).map_or(default, |a| a.f as f64)
    }

    /// The `i`-th input, or `None` when absent or empty (optional inputs).
    fn input<'v>(
        &self,
        values: &'v HashMap<&str, Value>,
        i: usize,
    ) -> Result<Option<&'v Value>, LoadProblem> {
        match self.node.input.get(i).filter(|s| !s.is_empty()) {
            None => Ok(None),
            Some(name) => {
                values
                    .get(name.as_str())
                    .map(Some)
                    .ok_or_else(|| LoadProblem::Undefined {
                        node: self.name.clone(),
                        op: self.op().into(),
                        name: name.clone(),
                    })
            }
        }
    }

    fn required<'v>(
        &self,
        values: &'v HashMap<&str, Value>,
        i: usize,
    ) -> Result<&'v Value, LoadProblem> {
        self.input(values, i)?
            .ok_or_else(|| self.unsupported(format!("input {} is missing", i + 1)))
    }
}

/// Computes the value a node produces.
fn apply(ctx: &NodeCtx, values: &HashMap<&str, Value>) -> Result<Value, LoadProblem> {
    let node = ctx.node;
    if !(node.domain.is_empty() || node.domain == "ai.onnx") {
        return Err(LoadProblem::UnsupportedOp {
            node: ctx.name.clone(),
            op: node.op_type.clone(),
            domain: format!(" in domain '{}'", node.domain),
        });
    }
    if node.output.len() > 1 && node.output[1..].iter().any(|o| !o.is_empty()) {
        return Err(ctx.unsupported("only one output is supported"));
    }
    match ctx.op() {
        "Constant" => constant(ctx).map(|t| Value::Const(Rc::new(t))),
        "Identity" | "Flatten" | "Squeeze" | "Unsqueeze" => {
            Ok(Value::Dyn(dynamic(ctx, ctx.required(values, 0)?)?.clone()))
        }
        "Reshape" => reshape(ctx, values),
        "Relu" => Ok(Value::Dyn(
            dynamic(ctx, ctx.required(values, 0)?)?.clone().relu(),
        )),
        "Gemm" => gemm(ctx, values),
        "MatMul" => matmul(ctx, values),
        "Add" | "Sub" | "Mul" | "Div" => elementwise(ctx, values),
        _ => Err(LoadProblem::UnsupportedOp {
            node: ctx.name.clone(),
            op: node.op_type.clone(),
            domain: String::new(),
        }),
    }
}

fn dynamic<'v>(ctx: &NodeCtx, v: &'v Value) -> Result<&'v Affine, LoadProblem> {
    match v {
        Value::Dyn(a) => Ok(a),
        Value::Const(_) => Err(ctx.unsupported(
            "operations on constants only are not supported (fold them when exporting)",
        )),
    }
}

fn constant(ctx: &NodeCtx) -> Result<Tensor, LoadProblem> {
    if let Some(a) = ctx.attr("value") {
        let t =
            a.t.as_ref()
                .ok_or_else(|| ctx.unsupported("attribute 'value' holds no tensor"))?;
        return Tensor::from_proto(t, &ctx.name);
    }
    if let Some(a) = ctx.attr("value_float") {
        return Ok(Tensor::scalar(a.f as f64)).and_then(|t| finite(ctx, t));
    }
    if let Some(a) = ctx.attr("value_floats") {
        return finite(
            ctx,
            Tensor::vector(a.floats.iter().map(|&v| v as f64).collect()),
        );
    }
    if let Some(a) = ctx.attr("value_int") {
        return Ok(Tensor::scalar(a.i as f64));
    }
    if let Some(a) = ctx.attr("value_ints") {
        return Ok(Tensor::vector(a.ints.iter().map(|&v| v as f64).collect()));
    }
    Err(ctx.unsupported("needs a 'value', 'value_float(s)' or 'value_int(s)' attribute"))
}

fn finite(ctx: &NodeCtx, t: Tensor) -> Result<Tensor, LoadProblem> {
    if t.data.iter().all(|v| v.is_finite()) {
        Ok(t)
    } else {
        Err(LoadProblem::NotFinite {
            name: ctx.name.clone(),
        })
    }
}

/// Reshape keeps the math when the whole feature vector stays in the last
/// axis: every other target dim is 1, 0 (copy) or -1 (batch).
fn reshape(ctx: &NodeCtx, values: &HashMap<&str, Value>) -> Result<Value, LoadProblem> {
    let x = dynamic(ctx, ctx.required(values, 0)?)?;
    let n = x.features() as f64;
    let shape: Vec<f64> = match ctx.input(values, 1)? {
        Some(Value::Const(t)) => t.data.clone(),
        Some(Value::Dyn(_)) => {
            return Err(ctx.unsupported("a computed target shape is not supported"))
        }
        None => ctx
            .attr("shape")
            .map(|a| a.ints.iter().map(|&v| v as f64).collect())
            .unwrap_or_default(),
    };
    let keeps = match shape.split_last() {
        None => false,
        Some((&last, rest)) => {
            (last == n || (last == -1.0 && !rest.contains(&-1.0)))
                && rest.iter().all(|&d| d == 1.0 || d == 0.0 || d == -1.0)
        }
    };
    if !keeps {
        return Err(ctx.shape(format!(
            "reshaping {n} features to {shape:?} changes the layout"
        )));
    }
    Ok(Value::Dyn(x.clone()))
}

fn attr_is_int(ctx: &NodeCtx, name: &str) -> bool {
    match ctx.attr(name) {
        None => true,
        Some(a) => a.type_.value() == AttributeType::INT as i32 || a.type_.value() == 0,
    }
}

/// Gemm: `Y = alpha * A' B' + beta * C`, `A` the computed value (transA = 0),
/// `B` and `C` constants.
fn gemm(ctx: &NodeCtx, values: &HashMap<&str, Value>) -> Result<Value, LoadProblem> {
    if !attr_is_int(ctx, "transA") || !attr_is_int(ctx, "transB") {
        return Err(ctx.unsupported("transA and transB must be integers"));
    }
    if ctx.attr_int("transA", 0) != 0 {
        return Err(ctx.unsupported("transA = 1 on the computed input is not supported"));
    }
    let x = match ctx.required(values, 0)? {
        Value::Dyn(a) => a,
        Value::Const(_) => {
            return Err(ctx.unsupported("the first operand must be computed from the input"))
        }
    };
    let b = constant_operand(ctx, ctx.required(values, 1)?, "B")?;
    if b.dims.len() != 2 {
        return Err(ctx.shape(format!("B has shape {:?}; a matrix is needed", b.dims)));
    }
    let (rows, cols) = (b.dims[0], b.dims[1]);
    let stored = Array2::from_shape_vec((rows, cols), b.data.clone())
        .map_err(|e| ctx.shape(e.to_string()))?;
    // Our weights are out x in: B^T when B is in x out (transB = 0), B itself otherwise.
    let m = if ctx.attr_int("transB", 0) != 0 {
        stored
    } else {
        stored.reversed_axes()
    };
    let k = x.features();
    if m.ncols() != k {
        return Err(ctx.shape(format!(
            "the input has {k} features but B (shape {:?}, transB = {}) expects {}",
            b.dims,
            ctx.attr_int("transB", 0),
            m.ncols()
        )));
    }
    let alpha = ctx.attr_float("alpha", 1.0);
    let beta = ctx.attr_float("beta", 1.0);
    let c = match ctx.input(values, 2)? {
        None => Array1::zeros(m.nrows()),
        Some(v) => broadcast(ctx, constant_operand(ctx, v, "C")?, m.nrows())? * beta,
    };
    Ok(Value::Dyn(x.then(&(m * alpha), &c)))
}

/// MatMul `x · B` with `B` a constant `[K, N]` matrix or `[K]` vector.
fn matmul(ctx: &NodeCtx, values: &HashMap<&str, Value>) -> Result<Value, LoadProblem> {
    let x = match ctx.required(values, 0)? {
        Value::Dyn(a) => a,
        Value::Const(_) => {
            return Err(ctx.unsupported("the first operand must be computed from the input"))
        }
    };
    let b = constant_operand(ctx, ctx.required(values, 1)?, "B")?;
    let (rows, cols) = match b.dims.as_slice() {
        [k] => (*k, 1),
        [k, n] => (*k, *n),
        other => {
            return Err(ctx.shape(format!(
                "B has shape {other:?}; a matrix or vector is needed"
            )))
        }
    };
    if rows != x.features() {
        return Err(ctx.shape(format!(
            "the input has {} features but B has shape {:?}",
            x.features(),
            b.dims
        )));
    }
    let m = Array2::from_shape_vec((rows, cols), b.data.clone())
        .map_err(|e| ctx.shape(e.to_string()))?;
    Ok(Value::Dyn(x.then(&m.reversed_axes(), &Array1::zeros(cols))))
}

fn constant_operand<'v>(
    ctx: &NodeCtx,
    v: &'v Value,
    what: &str,
) -> Result<&'v Tensor, LoadProblem> {
    match v {
        Value::Const(t) => Ok(t),
        Value::Dyn(_) => Err(ctx.unsupported(format!(
            "{what} must be a constant (initializer or Constant node)"
        ))),
    }
}

/// A constant as a length-`n` vector: a single value, or `n` values in the
/// last axis with every other dim 1.
fn broadcast(ctx: &NodeCtx, t: &Tensor, n: usize) -> Result<Array1<f64>, LoadProblem> {
    if t.len() == 1 {
        return Ok(Array1::from_elem(n, t.data[0]));
    }
    let leading_ones = t
        .dims
        .split_last()
        .is_some_and(|(_, rest)| rest.iter().all(|&d| d == 1));
    if t.len() == n && leading_ones {
        return Ok(Array1::from(t.data.clone()));
    }
    Err(ctx.shape(format!(
        "a constant of shape {:?} does not broadcast to {n} features",
        t.dims
    )))
}

/// Add, Sub, Mul, Div with a constant (input normalisation); Add and Sub of
/// two computed values after the same layers (a linear combination).
fn elementwise(ctx: &NodeCtx, values: &HashMap<&str, Value>) -> Result<Value, LoadProblem> {
    let a = ctx.required(values, 0)?;
    let b = ctx.required(values, 1)?;
    let op = ctx.op();
    match (a, b) {
        (Value::Dyn(x), Value::Dyn(y)) => {
            if !(op == "Add" || op == "Sub") {
                return Err(ctx.unsupported(format!("{op} of two computed values is not linear")));
            }
            if !Rc::ptr_eq(&x.prefix, &y.prefix) || x.w.dim() != y.w.dim() {
                return Err(ctx.unsupported(
                    "combining values from different layers (skip connections) is not supported",
                ));
            }
            let sign = if op == "Add" { 1.0 } else { -1.0 };
            Ok(Value::Dyn(Affine {
                prefix: x.prefix.clone(),
                w: &x.w + &(&y.w * sign),
                b: &x.b + &(&y.b * sign),
            }))
        }
        (Value::Dyn(x), Value::Const(c)) => {
            let c = broadcast(ctx, c, x.features())?;
            let n = x.features();
            let (scale, shift) = match op {
                "Add" => (Array1::ones(n), c),
                "Sub" => (Array1::ones(n), -c),
                "Mul" => (c, Array1::zeros(n)),
                _ => {
                    if c.iter().any(|&v| v == 0.0) {
                        return Err(ctx.unsupported("division by zero"));
                    }
                    (c.mapv(|v| 1.0 / v), Array1::zeros(n))
                }
            };
            Ok(Value::Dyn(x.then(&Array2::from_diag(&scale), &shift)))
        }
        (Value::Const(c), Value::Dyn(x)) => {
            let c = broadcast(ctx, c, x.features())?;
            let n = x.features();
            let (scale, shift) = match op {
                "Add" => (Array1::ones(n), c),
                "Sub" => (-Array1::ones(n), c),
                "Mul" => (c, Array1::zeros(n)),
                _ => {
                    return Err(
                        ctx.unsupported("dividing a constant by a computed value is not linear")
                    )
                }
            };
            Ok(Value::Dyn(x.then(&Array2::from_diag(&scale), &shift)))
        }
        (Value::Const(_), Value::Const(_)) => Err(ctx.unsupported(
            "operations on constants only are not supported (fold them when exporting)",
        )),
    }
}
