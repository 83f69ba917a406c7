//! Writes small feed-forward ReLU networks as ONNX files (Gemm + Relu,
//! opset 13), so that tests can generate networks of any size.

use onnx_protobuf::tensor_shape_proto::{dimension, Dimension};
use onnx_protobuf::{
    type_proto, GraphProto, Message, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto,
};

/// One affine layer: `weights[i][j]` from input i to output j, then ReLU if `relu`.
pub struct Dense {
    pub weights: Vec<Vec<f32>>,
    pub bias: Vec<f32>,
    pub relu: bool,
}

fn tensor(name: &str, dims: &[i64], data: Vec<f32>) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: 1, // FLOAT
        float_data: data,
        ..TensorProto::default()
    }
}

fn value_info(name: &str, features: i64) -> ValueInfoProto {
    let dim = |v: i64| Dimension {
        value: Some(dimension::Value::DimValue(v)),
        ..Dimension::default()
    };
    let tensor_type = type_proto::Tensor {
        elem_type: 1,
        shape: Some(TensorShapeProto {
            dim: vec![dim(1), dim(features)],
            ..TensorShapeProto::default()
        })
        .into(),
        ..type_proto::Tensor::default()
    };
    ValueInfoProto {
        name: name.into(),
        type_: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(tensor_type)),
            ..TypeProto::default()
        })
        .into(),
        ..ValueInfoProto::default()
    }
}

fn node(op: &str, inputs: &[&str], output: &str) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        name: output.into(),
        ..NodeProto::default()
    }
}

/// The ONNX bytes of the network `layers` (at least one).
pub fn onnx_bytes(layers: &[Dense]) -> Vec<u8> {
    let mut graph = GraphProto {
        name: "generated".into(),
        ..GraphProto::default()
    };
    let inputs = layers[0].weights.len() as i64;
    graph.input.push(value_info("input", inputs));
    let mut current = "input".to_string();
    for (k, layer) in layers.iter().enumerate() {
        let (n_in, n_out) = (layer.weights.len(), layer.bias.len());
        let w: Vec<f32> = layer.weights.iter().flatten().copied().collect();
        let (wn, bn) = (format!("W{k}"), format!("B{k}"));
        graph
            .initializer
            .push(tensor(&wn, &[n_in as i64, n_out as i64], w));
        graph
            .initializer
            .push(tensor(&bn, &[n_out as i64], layer.bias.clone()));
        let gemm = format!("gemm{k}");
        graph.node.push(node("Gemm", &[&current, &wn, &bn], &gemm));
        current = gemm;
        if layer.relu {
            let relu = format!("relu{k}");
            graph.node.push(node("Relu", &[&current], &relu));
            current = relu;
        }
    }
    let outputs = layers.last().map_or(0, |l| l.bias.len()) as i64;
    graph.node.last_mut().expect("a node").output = vec!["output".into()];
    graph.output.push(value_info("output", outputs));
    let model = ModelProto {
        ir_version: 8,
        producer_name: "mavis-tests".into(),
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 13,
            ..OperatorSetIdProto::default()
        }],
        graph: Some(graph).into(),
        ..ModelProto::default()
    };
    model.write_to_bytes().expect("serialise ONNX")
}

/// A deterministic pseudo-random network `sizes[0] -> ... -> sizes[last]`,
/// ReLU on every hidden layer, weights in [-1, 1] from a linear congruential
/// generator seeded with `seed`.
pub fn random_network(sizes: &[usize], seed: u64) -> Vec<Dense> {
    let mut state = seed;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as f64 / (1u64 << 31) as f64 * 2.0 - 1.0) as f32
    };
    sizes
        .windows(2)
        .enumerate()
        .map(|(k, w)| Dense {
            weights: (0..w[0])
                .map(|_| (0..w[1]).map(|_| next()).collect())
                .collect(),
            bias: (0..w[1]).map(|_| 0.1 * next()).collect(),
            relu: k + 2 < sizes.len(),
        })
        .collect()
}
