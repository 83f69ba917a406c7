//! The ONNX loader against onnxruntime's reference outputs (written by
//! tests/fixtures/make_fixtures.py), and its refusals through the binary.

use assert_cmd::Command;
use mavis::nn::{load, load_bytes, load_model, Activation};
use ndarray::Array2;
use predicates::prelude::*;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const ACCEPTED: &[&str] = &[
    "policy_1_4_4_2",
    "mlp_2_16_16_3",
    "matmul_add_3_8_8_2",
    "gemm_transb0_3_5_2",
    "normalised_2_6_2",
    "double_2_3_1",
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

type Rows = Vec<Vec<f64>>;

/// (inputs, outputs on the f64 twin, outputs on the f32 file)
fn reference(name: &str) -> (Rows, Rows, Rows) {
    let text = std::fs::read_to_string(fixture(&format!("{name}.json"))).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rows = |key: &str| -> Rows { serde_json::from_value(v[key].clone()).unwrap() };
    (rows("inputs"), rows("outputs"), rows("outputs_f32"))
}

fn mavis() -> Command {
    Command::cargo_bin("mavis").unwrap()
}

#[test]
fn agrees_with_onnxruntime_to_1e_6_relative() {
    for name in ACCEPTED {
        let net = load(&fixture(&format!("{name}.onnx"))).unwrap_or_else(|e| panic!("{e}"));
        let (inputs, outputs, outputs_f32) = reference(name);
        assert!(inputs.len() >= 25, "{name}: too few reference points");
        for ((x, want), want32) in inputs.iter().zip(&outputs).zip(&outputs_f32) {
            let got = net.eval(x);
            assert_eq!(got.len(), want.len(), "{name}");
            for ((g, w), w32) in got.iter().zip(want).zip(want32) {
                assert!(
                    (g - w).abs() <= 1e-6 * w.abs() + 1e-12,
                    "{name} at {x:?}: {g} vs onnxruntime (f64) {w}"
                );
                assert!(
                    (g - w32).abs() <= 1e-4 * (1.0 + w32.abs()),
                    "{name} at {x:?}: {g} vs onnxruntime (f32) {w32}"
                );
            }
        }
        // The batched evaluation is the same computation.
        let flat: Vec<f64> = inputs.iter().flatten().copied().collect();
        let batch = Array2::from_shape_vec((inputs.len(), net.input_size()), flat).unwrap();
        let out = net.eval_batch(batch.view());
        for (i, x) in inputs.iter().enumerate() {
            for (j, v) in net.eval(x).iter().enumerate() {
                assert!(
                    (out[[i, j]] - v).abs() <= 1e-12 * (1.0 + v.abs()),
                    "{name}: batch row {i}"
                );
            }
        }
    }
}

#[test]
fn internal_form_of_the_fixtures() {
    let sizes = |name: &str| {
        let m = load_model(&fixture(&format!("{name}.onnx"))).unwrap();
        let n = &m.network;
        let mut s = vec![n.input_size()];
        s.extend(n.layers().iter().map(|l| l.outputs()));
        let acts: Vec<Activation> = n.layers().iter().map(|l| l.activation).collect();
        (s, acts, n.parameter_count(), m.opset)
    };
    use Activation::{Identity as I, Relu as R};
    assert_eq!(
        sizes("policy_1_4_4_2"),
        (vec![1, 4, 4, 2], vec![R, R, I], 8 + 20 + 10, 13)
    );
    assert_eq!(
        sizes("mlp_2_16_16_3"),
        (vec![2, 16, 16, 3], vec![R, R, I], 48 + 272 + 51, 21)
    );
    assert_eq!(sizes("matmul_add_3_8_8_2").0, vec![3, 8, 8, 2]);
    assert_eq!(
        sizes("gemm_transb0_3_5_2"),
        (vec![3, 5, 2], vec![R, I], 20 + 12, 9)
    );
    // The normalisation folds into the first layer, the gain into the last.
    assert_eq!(
        sizes("normalised_2_6_2"),
        (vec![2, 6, 2], vec![R, I], 18 + 14, 11)
    );
    let net = load(&fixture("policy_1_4_4_2.onnx")).unwrap();
    assert_eq!(
        (net.input_name.as_str(), net.output_name.as_str()),
        ("input", "output")
    );
}

/// Runs `mavis nn info FILE` and checks it fails with status 2 and the given message parts.
fn refused(file: &str, parts: &[&str]) {
    let path = fixture(file);
    let out = mavis().args(["nn", "info"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{file}");
    // The diagnostic renderer wraps lines with a gutter; compare the words.
    // It also breaks a word longer than its width, such as the path of a
    // deep checkout, so the path is looked for in the JSON message, which
    // is never wrapped.
    let stderr: String = String::from_utf8_lossy(&out.stderr)
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for p in parts {
        assert!(stderr.contains(p), "{file}: {stderr}");
    }
    let out = mavis()
        .args(["nn", "info", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{file}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "input", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains(&path.display().to_string()), "{message}");
    for p in parts {
        assert!(message.contains(p), "{file}: {message}");
    }
    // The library error says the same.
    let e = load(&path).unwrap_err().to_string();
    for p in parts {
        assert!(e.contains(p), "{e}");
    }
}

#[test]
fn refuses_bad_files_with_clear_messages() {
    refused(
        "unsupported_op.onnx",
        &[
            "node 'squash' has op type 'Tanh', which is not supported",
            "supported: Gemm, MatMul, Add, Sub, Mul, Div, Relu",
        ],
    );
    refused("truncated.onnx", &["not an ONNX model, or a truncated one"]);
    refused("not_onnx.onnx", &["not an ONNX model"]);
    refused(
        "nan_weights.onnx",
        &["tensor 'W1' contains a NaN or infinite value"],
    );
    refused(
        "shape_mismatch.onnx",
        &["node 'fc1' (Gemm): shape mismatch: the input has 4 features but B"],
    );
    refused(
        "two_outputs.onnx",
        &["2 outputs ('output', 'also'); exactly one is needed"],
    );
    let out = mavis()
        .args([
            "nn",
            "info",
            "tests/fixtures/does_not_exist.onnx",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "input");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with(
            "cannot load network tests/fixtures/does_not_exist.onnx: cannot read the file"
        ),
        "{msg}"
    );
}

#[test]
fn info_prints_layers_and_json() {
    mavis()
        .args(["nn", "info", "tests/fixtures/policy_1_4_4_2.onnx"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "1 -> 4 -> 4 -> 2 (3 affine layers, 38 parameters), opset 13",
        ));
    let out = mavis()
        .args([
            "nn",
            "info",
            "tests/fixtures/mlp_2_16_16_3.onnx",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"]["parameters"], 371);
    assert_eq!(v["results"]["opset"], 21);
    assert_eq!(v["results"]["layers"][1]["inputs"], 16);
    assert_eq!(v["results"]["layers"][2]["activation"], "identity");
}

#[test]
fn eval_json_has_inputs_and_outputs_as_lists_of_lists() {
    let (inputs, outputs, _) = reference("policy_1_4_4_2");
    // inputs[10] = 0.25 and inputs[30] = 0.75 exactly (the grid is 0, 0.025, ..., 1).
    let out = mavis()
        .args([
            "nn",
            "eval",
            "tests/fixtures/policy_1_4_4_2.onnx",
            "--input",
            "0.25",
            "--input",
            "0.75",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got_in: Vec<Vec<f64>> = serde_json::from_value(v["results"]["inputs"].clone()).unwrap();
    let got_out: Vec<Vec<f64>> = serde_json::from_value(v["results"]["outputs"].clone()).unwrap();
    assert_eq!(got_in, vec![inputs[10].clone(), inputs[30].clone()]);
    for (g, w) in got_out.iter().zip([&outputs[10], &outputs[30]]) {
        for (a, b) in g.iter().zip(w) {
            assert!((a - b).abs() <= 1e-6 * b.abs() + 1e-12);
        }
    }
    // Comma-separated values on a 1-input network are several inputs.
    let out = mavis()
        .args([
            "nn",
            "eval",
            "tests/fixtures/policy_1_4_4_2.onnx",
            "--input",
            "0.25,0.75",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v2: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v2["results"], v["results"]);
}

#[test]
fn eval_reads_csv_and_checks_sizes() {
    let (inputs, outputs, _) = reference("mlp_2_16_16_3");
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("in.csv");
    let text: String = std::iter::once("a,b\n".to_string())
        .chain(inputs[..3].iter().map(|x| format!("{},{}\n", x[0], x[1])))
        .collect();
    std::fs::write(&csv, text).unwrap();
    let out = mavis()
        .args([
            "nn",
            "eval",
            "tests/fixtures/mlp_2_16_16_3.onnx",
            "--format",
            "json",
            "--csv",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<Vec<f64>> = serde_json::from_value(v["results"]["outputs"].clone()).unwrap();
    assert_eq!(got.len(), 3);
    for (g, w) in got.iter().zip(&outputs) {
        for (a, b) in g.iter().zip(w) {
            assert!((a - b).abs() <= 1e-6 * b.abs() + 1e-12);
        }
    }
    mavis()
        .args([
            "nn",
            "eval",
            "tests/fixtures/mlp_2_16_16_3.onnx",
            "--input",
            "1,2,3",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("input 1 has 3 values but"));
    mavis()
        .args([
            "nn",
            "eval",
            "tests/fixtures/mlp_2_16_16_3.onnx",
            "--input",
            "1,x",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`x` is not a finite number"));
    std::fs::write(&csv, "1,2\n1,oops\n").unwrap();
    mavis()
        .args(["nn", "eval", "tests/fixtures/mlp_2_16_16_3.onnx", "--csv"])
        .arg(&csv)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "in.csv:2: `oops` is not a finite number",
        ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Mutated and truncated fixtures are refused or loaded, never a panic.
    #[test]
    fn loader_never_panics(which in 0usize..ACCEPTED.len(), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6), cut in any::<prop::sample::Index>()) {
        let mut bytes = std::fs::read(fixture(&format!("{}.onnx", ACCEPTED[which]))).unwrap();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len());
            match kind {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => { bytes.remove(i); }
            }
            if bytes.is_empty() { break; }
        }
        let keep = cut.index(bytes.len() + 1);
        let _ = load_bytes(&bytes);
        let _ = load_bytes(&bytes[..keep]);
    }
}
