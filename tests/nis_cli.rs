//! `mavis nis` end to end: the guarding example with a fixture ONNX network
//! written by this test (argmax rest_only at h = 1, 2 and volunteer at h = 3, 4).

use assert_cmd::Command;
use onnx_protobuf::{
    tensor_shape_proto, type_proto, AttributeProto, GraphProto, Message, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn tensor(name: &str, dims: &[i64], data: &[f32]) -> TensorProto {
    let mut t = TensorProto::new();
    t.name = name.into();
    t.dims = dims.to_vec();
    t.data_type = 1;
    t.float_data = data.to_vec();
    t
}

fn value_info(name: &str, dims: &[i64]) -> ValueInfoProto {
    let mut shape = TensorShapeProto::new();
    for &d in dims {
        let mut dim = tensor_shape_proto::Dimension::new();
        dim.set_dim_value(d);
        shape.dim.push(dim);
    }
    let mut tt = type_proto::Tensor::new();
    tt.elem_type = 1;
    tt.shape = Some(shape).into();
    let mut ty = TypeProto::new();
    ty.set_tensor_type(tt);
    let mut v = ValueInfoProto::new();
    v.name = name.into();
    v.type_ = Some(ty).into();
    v
}

fn node(op: &str, inputs: &[&str], output: &str, trans_b: bool) -> NodeProto {
    let mut n = NodeProto::new();
    n.op_type = op.into();
    n.input = inputs.iter().map(|s| s.to_string()).collect();
    n.output = vec![output.into()];
    if trans_b {
        let mut a = AttributeProto::new();
        a.name = "transB".into();
        a.i = 1;
        a.type_ = onnx_protobuf::attribute_proto::AttributeType::INT.into();
        n.attribute.push(a);
    }
    n
}

/// 1 -> 4 -> 4 -> 2 with Q(rest) = `rest`, Q(guard) = x (x = h / 4).
fn write_policy(path: &Path, rest: f32) {
    let mut g = GraphProto::new();
    g.name = "policy".into();
    let eye: Vec<f32> = (0..16)
        .map(|i| if i % 5 == 0 { 1.0 } else { 0.0 })
        .collect();
    g.initializer = vec![
        tensor("W1", &[4, 1], &[1.0, 0.0, 0.0, 0.0]),
        tensor("B1", &[4], &[0.0; 4]),
        tensor("W2", &[4, 4], &eye),
        tensor("B2", &[4], &[0.0; 4]),
        tensor("W3", &[2, 4], &[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
        tensor("B3", &[2], &[rest, 0.0]),
    ];
    g.node = vec![
        node("Gemm", &["x", "W1", "B1"], "h1", true),
        node("Relu", &["h1"], "r1", false),
        node("Gemm", &["r1", "W2", "B2"], "h2", true),
        node("Relu", &["h2"], "r2", false),
        node("Gemm", &["r2", "W3", "B3"], "q", true),
    ];
    g.input = vec![value_info("x", &[1, 1])];
    g.output = vec![value_info("q", &[1, 2])];
    let mut m = ModelProto::new();
    m.ir_version = 8;
    let mut op = OperatorSetIdProto::new();
    op.version = 13;
    m.opset_import = vec![op];
    m.graph = Some(g).into();
    std::fs::write(path, m.write_to_bytes().unwrap()).unwrap();
}

struct Fixture {
    _dir: tempfile::TempDir,
    model: PathBuf,
    net: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("policy.onnx");
    write_policy(&net, 0.6);
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding/guarding.nis");
    Fixture {
        model,
        net,
        _dir: dir,
    }
}

fn mavis() -> Command {
    Command::cargo_bin("mavis").unwrap()
}

fn json(args: &[&str], code: i32) -> Value {
    let out = mavis()
        .args(args)
        .arg("--format")
        .arg("json")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const EX3: &str = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)";

#[test]
fn check_reports_verdict_agents_and_a_replayed_witness() {
    let f = fixture();
    let net = format!("policy={}", f.net.display());
    let m = f.model.to_str().unwrap();
    let v = json(
        &[
            "nis",
            "check",
            m,
            "--agents",
            "3",
            "--spec",
            EX3,
            "--network",
            &net,
        ],
        0,
    );
    assert_eq!(v["results"]["agents"], 3);
    assert_eq!(v["results"]["holds"], true);
    assert_eq!(v["witness"]["branches"][0].as_array().unwrap().len(), 4);
    let v = json(
        &[
            "nis",
            "check",
            m,
            "--agents",
            "2",
            "--spec",
            EX3,
            "--network",
            &net,
        ],
        1,
    );
    assert_eq!(v["results"]["holds"], false);
    // Text: verdict first, then the step table.
    let out = mavis()
        .args([
            "nis",
            "check",
            m,
            "--agents",
            "3",
            "--spec",
            EX3,
            "--network",
            &net,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("HOLDS: M(3)"), "{text}");
    assert!(text.contains("h=3 volunteer ->"), "{text}");
}

#[test]
fn verify_gives_the_parameterised_verdict_and_threshold() {
    let f = fixture();
    let net = format!("policy={}", f.net.display());
    let m = f.model.to_str().unwrap();
    let v = json(&["nis", "verify", m, "--spec", EX3, "--network", &net], 1);
    assert_eq!(v["results"]["holds_for_all_n"], false);
    assert_eq!(v["results"]["emergence_threshold"], 3);
    let checks = v["results"]["checks"].as_array().unwrap();
    assert!(checks
        .iter()
        .any(|c| c["model"] == "M(2)" && c["verdict"] == "violated"));
    assert!(checks
        .iter()
        .any(|c| c["model"] == "M(3)" && c["verdict"] == "holds"));
    for c in checks {
        assert!(c["time_s"].as_f64().unwrap() >= 0.0);
        assert_eq!(c["engine"], "explicit");
    }
    let v = json(
        &[
            "nis",
            "verify",
            m,
            "--spec",
            "forall v1, v2: EX^2 (alive, v1) & (alive, v2)",
            "--network",
            &net,
        ],
        0,
    );
    assert_eq!(v["results"]["holds_for_all_n"], true);
    let v = json(
        &[
            "nis",
            "emergence",
            m,
            "--spec",
            "forall v1, v2: AX (alive, v1) & (alive, v2)",
            "--network",
            &net,
        ],
        1,
    );
    assert_eq!(v["results"]["emergence_threshold"], Value::Null);
}

#[test]
fn table_and_simulates() {
    let f = fixture();
    let net = format!("policy={}", f.net.display());
    let m = f.model.to_str().unwrap();
    let spec = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)";
    let v = json(
        &[
            "nis",
            "table",
            m,
            "--spec",
            spec,
            "--k",
            "1..3",
            "--agents",
            "2..3",
            "--network",
            &net,
        ],
        0,
    );
    let cells = v["results"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    let cell = |n: u64, k: u64| {
        cells
            .iter()
            .find(|c| c["agents"] == n && c["k"] == k)
            .unwrap()["holds"]
            .clone()
    };
    assert_eq!(
        (cell(2, 2), cell(2, 3), cell(3, 3)),
        (Value::Bool(true), Value::Bool(false), Value::Bool(true))
    );
    let out = mavis()
        .args([
            "nis",
            "table",
            m,
            "--spec",
            spec,
            "--k",
            "1..2",
            "--agents",
            "2",
            "--table-format",
            "csv",
            "--network",
            &net,
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("n \\ k,1,2"));
    let v = json(
        &[
            "nis",
            "simulates",
            m,
            "--indexed",
            "2",
            "--depth",
            "1",
            "--network",
            &net,
        ],
        0,
    );
    assert_eq!(v["results"]["min_n"], 2);
}

#[test]
fn bad_input_exits_2_with_a_location() {
    let f = fixture();
    let net = format!("policy={}", f.net.display());
    let m = f.model.to_str().unwrap();
    let out = mavis()
        .args([
            "nis",
            "check",
            m,
            "--agents",
            "2",
            "--spec",
            "forall v: EX (alive, w)",
            "--network",
            &net,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("<spec>:1:"));
    let out = mavis()
        .args([
            "nis",
            "check",
            m,
            "--agents",
            "2",
            "--spec",
            EX3,
            "--engine",
            "milp",
            "--network",
            &net,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not available yet"));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.nis");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&f.model)
            .unwrap()
            .replace("rest_only -> {rest};", "rest_only -> {};"),
    )
    .unwrap();
    let out = mavis()
        .args([
            "nis",
            "check",
            bad.to_str().unwrap(),
            "--agents",
            "2",
            "--spec",
            EX3,
            "--network",
            &net,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.nis:"));
    let out = mavis()
        .args([
            "nis",
            "check",
            m,
            "--agents",
            "2",
            "--spec",
            EX3,
            "--network",
            "other=x.onnx",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
