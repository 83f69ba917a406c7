//! The guarding example on the bundled ONNX network (read by `nn::load`)
//! against the same model with the network's decision written as thresholds:
//! both must give the same answers, and the seed's section-4 conclusions.

use assert_cmd::Command;
use serde_json::Value;

fn run(model: &str, args: &[&str]) -> (i32, Value) {
    let out = Command::cargo_bin("mavis")
        .unwrap()
        .args(["--format", "json", "nis"])
        .args(args)
        .arg(model)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    (out.status.code().unwrap(), v)
}

const NET: &str = "examples/guarding/guarding.nis";
const THRESHOLDS: &str = "examples/guarding/guarding_thresholds.nis";

#[test]
fn bundled_network_matches_its_threshold_rewriting() {
    for k in 1..=4 {
        for q in ["EX", "AX"] {
            let spec = format!("forall v1, v2: {q}^{k} (alive, v1) & (alive, v2)");
            let (code_net, net) = run(NET, &["verify", "--spec", &spec]);
            let (code_thr, thr) = run(THRESHOLDS, &["verify", "--spec", &spec]);
            assert_eq!(code_net, code_thr, "{spec}");
            assert_eq!(net["verdict"], thr["verdict"], "{spec}");
            assert_eq!(
                net["results"]["holds_for_all_n"], thr["results"]["holds_for_all_n"],
                "{spec}"
            );
            assert_eq!(
                net["results"]["emergence_threshold"], thr["results"]["emergence_threshold"],
                "{spec}"
            );
            assert_eq!(
                net["results"]["min_simulating_n"], thr["results"]["min_simulating_n"],
                "{spec}"
            );
        }
    }
}

#[test]
fn seed_conclusions_on_the_bundled_network() {
    // EX^2 holds for every n (threshold 2); EX^3 fails for n = 2 only (threshold 3);
    // AX^1 fails (paths on which nobody guards), no threshold.
    let (code, v) = run(
        NET,
        &[
            "verify",
            "--spec",
            "forall v1, v2: EX^2 (alive, v1) & (alive, v2)",
        ],
    );
    assert_eq!(
        (code, v["results"]["holds_for_all_n"].clone()),
        (0, Value::Bool(true))
    );
    assert_eq!(v["results"]["emergence_threshold"], 2);
    let (code, v) = run(
        NET,
        &[
            "verify",
            "--spec",
            "forall v1, v2: EX^3 (alive, v1) & (alive, v2)",
        ],
    );
    assert_eq!(
        (code, v["results"]["holds_for_all_n"].clone()),
        (1, Value::Bool(false))
    );
    assert_eq!(v["results"]["emergence_threshold"], 3);
    let (code, v) = run(
        NET,
        &[
            "verify",
            "--spec",
            "forall v1, v2: AX (alive, v1) & (alive, v2)",
        ],
    );
    assert_eq!(code, 1);
    assert!(v["results"]["emergence_threshold"].is_null());
    // A network path override that does not exist is bad input.
    let (code, v) = run(
        NET,
        &[
            "check",
            "--agents",
            "2",
            "--network",
            "policy=/nonexistent.onnx",
            "--spec",
            "forall v1: EX (alive, v1)",
        ],
    );
    assert_eq!(code, 2);
    assert_eq!(v["error"]["kind"], "input");
}
