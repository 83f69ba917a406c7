//! Writes a [`Network`] as an ONNX file (opset 13: one `Gemm` per layer with
//! double weights, `Relu` between), so CLI tests can run `mavis nn` on a
//! network whose weights the test chose.

use mavis::nn::{Activation, Network};
use onnx_protobuf::tensor_shape_proto::{dimension, Dimension};
use onnx_protobuf::{
    attribute_proto::AttributeType, type_proto, AttributeProto, GraphProto, Message, ModelProto,
    NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use std::path::Path;

const DOUBLE: i32 = 11;

fn value_info(name: &str, features: usize) -> ValueInfoProto {
    let dims = [None, Some(features as i64)]
        .into_iter()
        .map(|d| Dimension {
            value: Some(match d {
                Some(v) => dimension::Value::DimValue(v),
                None => dimension::Value::DimParam("batch".into()),
            }),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        type_: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: DOUBLE,
                shape: Some(TensorShapeProto {
                    dim: dims,
                    ..Default::default()
                })
                .into(),
                ..Default::default()
            })),
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
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        attribute: attrs,
        ..Default::default()
    }
}

/// Writes `net` to `path`.
pub fn write_onnx(net: &Network, path: &Path) {
    let mut graph = GraphProto {
        name: "test".into(),
        input: vec![value_info("x", net.input_size())],
        output: vec![value_info("y", net.output_size())],
        ..Default::default()
    };
    let mut current = "x".to_string();
    let last = net.layers().len() - 1;
    for (k, layer) in net.layers().iter().enumerate() {
        let (w, b) = (format!("W{k}"), format!("B{k}"));
        graph.initializer.push(tensor(
            &w,
            &[layer.outputs(), layer.weights.ncols()],
            layer.weights.iter().copied().collect(),
        ));
        graph
            .initializer
            .push(tensor(&b, &[layer.outputs()], layer.bias.to_vec()));
        let gemm_out = if k == last && layer.activation == Activation::Identity {
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
        if layer.activation == Activation::Relu {
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
        producer_name: "mavis-tests".into(),
        opset_import: vec![OperatorSetIdProto {
            version: 13,
            ..Default::default()
        }],
        graph: Some(graph).into(),
        ..Default::default()
    };
    std::fs::write(path, model.write_to_bytes().expect("encodes")).expect("writes");
}
