//! A [`Network`] as ONNX bytes (opset 13): one `Gemm` per layer (`transB`
//! = 1, weights in double precision, so nothing is rounded) and a `Relu`
//! after every ReLU layer. The loader reads them back as the same network;
//! `mavis nn` verbs given a network built from arrays (Python) read it so.

use super::{Activation, Network};
use onnx_protobuf::tensor_shape_proto::{dimension, Dimension};
use onnx_protobuf::{
    attribute_proto::AttributeType, type_proto, AttributeProto, GraphProto, Message, ModelProto,
    NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

/// ONNX's element type DOUBLE.
const DOUBLE: i32 = 11;

/// The ONNX model of `net`: input `x` and output `y` of shape (batch, n).
pub fn to_onnx(net: &Network) -> Vec<u8> {
    let mut graph = GraphProto {
        name: "mavis".into(),
        input: vec![value_info("x", net.input_size())],
        output: vec![value_info("y", net.output_size())],
        ..Default::default()
    };
    let mut current = "x".to_string();
    let last = net.layers().len() - 1;
    for (k, layer) in net.layers().iter().enumerate() {
        let (w, b) = (format!("W{k}"), format!("B{k}"));
        let dims = [layer.outputs(), layer.weights.ncols()];
        graph
            .initializer
            .push(tensor(&w, &dims, layer.weights.iter().copied().collect()));
        graph
            .initializer
            .push(tensor(&b, &[layer.outputs()], layer.bias.to_vec()));
        let relu = layer.activation == Activation::Relu;
        let gemm_out = if k == last && !relu {
            "y".to_string()
        } else {
            format!("z{k}")
        };
        let trans_b = AttributeProto {
            name: "transB".into(),
            i: 1,
            type_: AttributeType::INT.into(),
            ..Default::default()
        };
        graph
            .node
            .push(node("Gemm", &[&current, &w, &b], &gemm_out, vec![trans_b]));
        current = gemm_out;
        if relu {
            let out = if k == last {
                "y".to_string()
            } else {
                format!("a{k}")
            };
            graph.node.push(node("Relu", &[&current], &out, Vec::new()));
            current = out;
        }
    }
    let model = ModelProto {
        ir_version: 8,
        producer_name: "mavis".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        opset_import: vec![OperatorSetIdProto {
            version: 13,
            ..Default::default()
        }],
        graph: Some(graph).into(),
        ..Default::default()
    };
    model.write_to_bytes().expect("an in-memory model encodes")
}

fn value_info(name: &str, features: usize) -> ValueInfoProto {
    let dim = |value| Dimension {
        value: Some(value),
        ..Default::default()
    };
    let shape = TensorShapeProto {
        dim: vec![
            dim(dimension::Value::DimParam("batch".into())),
            dim(dimension::Value::DimValue(features as i64)),
        ],
        ..Default::default()
    };
    let tensor_type = type_proto::Tensor {
        elem_type: DOUBLE,
        shape: Some(shape).into(),
        ..Default::default()
    };
    ValueInfoProto {
        name: name.into(),
        type_: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(tensor_type)),
            ..Default::default()
        })
        .into(),
        ..Default::default()
    }
}

fn tensor(name: &str, dims: &[usize], data: Vec<f64>) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type: DOUBLE,
        double_data: data,
        ..Default::default()
    }
}

fn node(op: &str, inputs: &[&str], output: &str, attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        name: output.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        attribute: attrs,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{load_bytes, Layer};
    use ndarray::array;

    #[test]
    fn a_written_network_loads_back_unchanged() {
        let net = Network::from_layers(vec![
            Layer {
                weights: array![[0.1, -2.0], [1.0 / 3.0, 0.5], [4.0, 0.0]],
                bias: array![0.0, -0.25, 1e-9],
                activation: Activation::Relu,
            },
            Layer {
                weights: array![[1.0, -1.0, 0.7]],
                bias: array![0.3],
                activation: Activation::Identity,
            },
        ])
        .unwrap();
        let back = load_bytes(&to_onnx(&net)).unwrap().network;
        assert_eq!(back.layers().len(), 2);
        for (a, b) in net.layers().iter().zip(back.layers()) {
            assert_eq!(a.weights, b.weights);
            assert_eq!(a.bias, b.bias);
            assert_eq!(a.activation, b.activation);
        }
        for x in [[0.0, 0.0], [1.0, -3.0], [-0.5, 0.25]] {
            assert_eq!(net.eval(&x), back.eval(&x));
        }
    }
}
