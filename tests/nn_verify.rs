//! `mavis nn verify` on hand-made networks: exit codes, the report's
//! counterexample (checked here against the network computed by hand), and
//! VNN-COMP's result file.

#[path = "support/cli.rs"]
mod cli;

use mavis::nn::{Activation, Layer, Network};
use ndarray::array;
use std::path::{Path, PathBuf};

/// y0 = relu(x0 - x1), y1 = relu(x1 - x0) + 0.25.
fn write_net(dir: &Path) -> PathBuf {
    let net = Network::from_layers(vec![
        Layer {
            weights: array![[1.0, -1.0], [-1.0, 1.0]],
            bias: array![0.0, 0.0],
            activation: Activation::Relu,
        },
        Layer {
            weights: array![[1.0, 0.0], [0.0, 1.0]],
            bias: array![0.0, 0.25],
            activation: Activation::Identity,
        },
    ])
    .unwrap();
    let path = dir.join("net.onnx");
    std::fs::write(&path, mavis::nn::to_onnx(&net)).expect("writes");
    path
}

fn by_hand(x: &[f64]) -> [f64; 2] {
    [(x[0] - x[1]).max(0.0), (x[1] - x[0]).max(0.0) + 0.25]
}

fn write_prop(dir: &Path, name: &str, output: &str) -> PathBuf {
    let text = format!(
        "; unit square\n(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n\
         (assert (>= X_0 0))\n(assert (<= X_0 1))\n(assert (>= X_1 0))\n(assert (<= X_1 1))\n{output}\n"
    );
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn verify(net: &Path, prop: &Path, extra: &[&str]) -> (serde_json::Value, i32, String) {
    let dir = prop.parent().unwrap();
    let out = dir.join("result.txt");
    let mut args = vec![
        "nn",
        "verify",
        net.to_str().unwrap(),
        prop.to_str().unwrap(),
    ];
    args.extend([
        "--vnncomp-output",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    args.extend(extra);
    let (v, code) = cli::json(&args);
    (v, code, std::fs::read_to_string(out).unwrap_or_default())
}

#[test]
fn holds_is_exit_0_and_unsat() {
    let dir = tempfile::tempdir().unwrap();
    let net = write_net(dir.path());
    // y0 - y1 <= 1 - 0.25 everywhere; asking for y0 - y1 >= 0.8 is unsafe nowhere.
    let prop = write_prop(dir.path(), "p.vnnlib", "(assert (>= (- Y_0 Y_1) 0.8))");
    let (v, code, file) = verify(&net, &prop, &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["verdict"], "holds");
    assert_eq!(v["results"]["vnncomp"], "unsat");
    assert_eq!(file, "unsat\n");
    assert!(v["stats"]["nodes"].as_u64().unwrap() >= 1);
}

#[test]
fn violated_is_exit_1_with_a_replayed_assignment() {
    let dir = tempfile::tempdir().unwrap();
    let net = write_net(dir.path());
    // Unsafe: y0 >= 0.5 or y1 >= 1.1 (the second needs x1 - x0 >= 0.85).
    let prop = write_prop(
        dir.path(),
        "p.vnnlib",
        "(assert (or (and (>= Y_0 0.5)) (and (>= Y_1 1.1))))",
    );
    let (v, code, file) = verify(&net, &prop, &[]);
    assert_eq!(code, 1, "{v}");
    let cex = &v["results"]["counterexample"];
    let x: Vec<f64> = cex["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_f64().unwrap())
        .collect();
    let y = by_hand(&x);
    assert!((0..2).all(|i| (0.0..=1.0).contains(&x[i])));
    assert!(y[0] >= 0.5 || y[1] >= 1.1, "{x:?} -> {y:?}");
    // The result file: `sat` and every X_i and Y_j with the report's values.
    let mut lines = file.lines();
    assert_eq!(lines.next(), Some("sat"));
    let assignment: Vec<(String, f64)> = file["sat\n".len()..]
        .split(['(', ')'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (name, value) = s.split_once(' ').unwrap();
            (name.to_string(), value.parse().unwrap())
        })
        .collect();
    let names: Vec<&str> = assignment.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["X_0", "X_1", "Y_0", "Y_1"]);
    assert_eq!(assignment[0].1, x[0]);
    assert_eq!(assignment[1].1, x[1]);
    assert!((assignment[2].1 - y[0]).abs() < 1e-12 && (assignment[3].1 - y[1]).abs() < 1e-12);
}

#[test]
fn a_single_unsafe_point_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let net = write_net(dir.path());
    // y0 >= 1 only at the corner (1, 0): the local search (clamped to the box) or the MILP finds it.
    let prop = write_prop(dir.path(), "p.vnnlib", "(assert (>= Y_0 1))");
    let (v, code, _) = verify(&net, &prop, &[]);
    assert_eq!(code, 1, "{v}");
    let x: Vec<f64> = v["witness"]["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_f64().unwrap())
        .collect();
    assert!(by_hand(&x)[0] >= 1.0 - 1e-6 * 2.0, "{x:?}");
}

#[test]
fn bad_input_is_exit_2_with_a_location() {
    let dir = tempfile::tempdir().unwrap();
    let net = write_net(dir.path());
    let prop = write_prop(dir.path(), "bad.vnnlib", "(assert (>= Y_0 (* Y_1 Y_0)))");
    let run = cli::run(&[
        "nn",
        "verify",
        net.to_str().unwrap(),
        prop.to_str().unwrap(),
    ])
    .expect_code(2);
    assert!(run.stderr.contains("bad.vnnlib:10:"), "{}", run.stderr);
    assert!(run.stderr.contains("not linear"), "{}", run.stderr);
    // Three outputs declared for a two-output network.
    let prop = dir.path().join("size.vnnlib");
    std::fs::write(&prop, "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)(declare-const Y_1 Real)(declare-const Y_2 Real)(assert (<= X_0 1))(assert (>= X_0 0))(assert (<= X_1 1))(assert (>= X_1 0))(assert (>= Y_2 0))").unwrap();
    let run = cli::run(&[
        "nn",
        "verify",
        net.to_str().unwrap(),
        prop.to_str().unwrap(),
    ])
    .expect_code(2);
    assert!(run.stderr.contains("3 outputs"), "{}", run.stderr);
}

#[test]
fn a_timeout_is_exit_3_and_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // A wider network whose property holds, with a deadline that has passed
    // before the branch and bound starts.
    let net = Network::from_layers(
        (0..4)
            .map(|k| Layer {
                weights: ndarray::Array2::from_shape_fn(
                    (30, if k == 0 { 2 } else { 30 }),
                    |(i, j)| ((i * 7 + j * 3 + k) % 11) as f64 / 11.0 - 0.5,
                ),
                bias: ndarray::Array1::zeros(30),
                activation: Activation::Relu,
            })
            .chain(std::iter::once(Layer {
                weights: ndarray::Array2::ones((2, 30)),
                bias: array![0.0, 0.0],
                activation: Activation::Identity,
            }))
            .collect(),
    )
    .unwrap();
    let path = dir.path().join("wide.onnx");
    std::fs::write(&path, mavis::nn::to_onnx(&net)).expect("writes");
    let prop = write_prop(dir.path(), "p.vnnlib", "(assert (>= Y_0 1e9))");
    let (v, code, file) = verify(&path, &prop, &["--timeout", "0.001"]);
    assert_eq!(code, 3, "{v}");
    assert_eq!(v["results"]["vnncomp"], "timeout");
    assert_eq!(file, "timeout\n");
}

#[test]
fn highs_nodes_and_lp_iterations_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let net = cli::repo("tests/fixtures/mlp_2_16_16_3.onnx");
    // y0 - y1 >= c over [-1, 1]^2 holds for both; with --milp-unstable 100
    // the root box goes to the MILP unless bounds refute it: for c = 1
    // HiGHS proves the MILP (27 binaries) infeasible, for c = 5 the bounds
    // alone suffice and no MILP is solved.
    for (c, milp) in [(1, true), (5, false)] {
        let prop = dir.path().join(format!("c{c}.vnnlib"));
        let text = format!(
            "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n\
             (declare-const Y_1 Real)\n(declare-const Y_2 Real)\n(assert (>= X_0 -1))\n\
             (assert (<= X_0 1))\n(assert (>= X_1 -1))\n(assert (<= X_1 1))\n\
             (assert (>= (- Y_0 Y_1) {c}))\n"
        );
        std::fs::write(&prop, text).unwrap();
        let prop = prop.display().to_string();
        let args = ["nn", "verify", &net, &prop, "--milp-unstable", "100"];
        let json_args: Vec<&str> = args.iter().copied().chain(["--format", "json"]).collect();
        let v = cli::run(&json_args).expect_code(0).json();
        let s = &v["stats"];
        let nodes = s["milp_nodes"].as_u64().unwrap();
        let iterations = s["milp_lp_iterations"].as_u64().unwrap();
        let solves = s["milp_solves"].as_u64().unwrap();
        if milp {
            assert!(solves >= 1 && nodes >= 1 && iterations >= 1, "{s}");
        } else {
            assert_eq!((solves, nodes, iterations), (0, 0, 0), "{s}");
        }
        // A second run may split differently (the MILP's budget is wall
        // time, so a loaded machine stalls it sooner): the text shows its
        // own run's counts, positive exactly when a MILP was solved.
        let text = cli::run(&args).expect_code(0).stdout;
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("HiGHS: "))
            .unwrap_or_else(|| panic!("no HiGHS line: {text}"));
        let counts: Vec<u64> = line.split(' ').filter_map(|w| w.parse().ok()).collect();
        assert_eq!(counts.len(), 2, "{line}");
        assert!(line.ends_with(" LP iterations") && line.contains(" branch-and-bound nodes, "));
        assert_eq!(counts.iter().all(|&n| n >= 1), milp, "{line}");
        if !milp {
            assert_eq!(counts, vec![0, 0], "{line}");
        }
    }
}

/// `-vv` shows HiGHS's log on standard error, never on standard output
/// (which carries the report, here JSON that must still parse).
#[test]
fn highs_log_goes_to_stderr_with_vv() {
    let dir = tempfile::tempdir().unwrap();
    let net = cli::repo("tests/fixtures/mlp_2_16_16_3.onnx");
    let prop = dir.path().join("c1.vnnlib");
    let text = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n\
         (declare-const Y_1 Real)\n(declare-const Y_2 Real)\n(assert (>= X_0 -1))\n\
         (assert (<= X_0 1))\n(assert (>= X_1 -1))\n(assert (<= X_1 1))\n\
         (assert (>= (- Y_0 Y_1) 1))\n";
    std::fs::write(&prop, text).unwrap();
    let prop = prop.display().to_string();
    let args = [
        "nn",
        "verify",
        &net,
        &prop,
        "--milp-unstable",
        "100",
        "--format",
        "json",
    ];
    let quiet = cli::run(&args).expect_code(0);
    assert!(!quiet.stderr.contains("Solving report"), "{}", quiet.stderr);
    let loud: Vec<&str> = args.iter().copied().chain(["-vv"]).collect();
    let run = cli::run(&loud).expect_code(0);
    assert!(run.stderr.contains("Solving report"), "{}", run.stderr);
    assert!(!run.stdout.contains("HiGHS"), "{}", run.stdout);
    assert_eq!(run.json()["verdict"], "holds");
}
