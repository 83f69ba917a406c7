//! `mavis nis` end to end on the guarding example (network replaced by its threshold).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Fixture {
    _dir: tempfile::TempDir,
    model: PathBuf,
}

/// The guarding example with its network replaced by the threshold it
/// computes on the bundled and the published networks alike (argmax
/// rest_only at h = 1, 2 and volunteer at h = 3, 4), so these tests need no
/// ONNX reader.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding/guarding.nis");
    let text = std::fs::read_to_string(example).unwrap();
    let net_line = text
        .lines()
        .find(|l| l.starts_with("net policy"))
        .unwrap()
        .to_string();
    let text = text.replace(&net_line, "").replace(
        "argmax(policy(h / Mh), rest_only, volunteer)",
        "if h >= 3 then volunteer else rest_only",
    );
    assert!(!text.contains("policy("));
    let model = dir.path().join("guarding_thresholds.nis");
    std::fs::write(&model, text).unwrap();
    Fixture { model, _dir: dir }
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
    let m = f.model.to_str().unwrap();
    let v = json(&["nis", "check", m, "--agents", "3", "--spec", EX3], 0);
    assert_eq!(v["results"]["agents"], 3);
    assert_eq!(v["results"]["holds"], true);
    assert_eq!(v["witness"]["branches"][0].as_array().unwrap().len(), 4);
    let v = json(&["nis", "check", m, "--agents", "2", "--spec", EX3], 1);
    assert_eq!(v["results"]["holds"], false);
    // Text: verdict first, then the step table.
    let out = mavis()
        .args(["nis", "check", m, "--agents", "3", "--spec", EX3])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("HOLDS: M(3)"), "{text}");
    assert!(text.contains("h=3 volunteer ->"), "{text}");
}

#[test]
fn verify_gives_the_parameterised_verdict_and_threshold() {
    let f = fixture();
    let m = f.model.to_str().unwrap();
    let v = json(&["nis", "verify", m, "--spec", EX3], 1);
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
    // The MILP deciders (M_ab(m) included) give the same verdict and threshold.
    for engine in ["both", "milp"] {
        let w = json(&["nis", "verify", m, "--spec", EX3, "--engine", engine], 1);
        for key in ["holds_for_all_n", "emergence_threshold", "abstract_holds"] {
            assert_eq!(w["results"][key], v["results"][key], "{engine} {key}");
        }
        let abs = &w["results"]["checks"][0];
        assert_eq!(abs["model"], "M_ab(2)");
        let engine_name = if engine == "both" {
            "explicit+milp"
        } else {
            "milp"
        };
        assert_eq!(abs["engine"], engine_name);
        let key = if engine == "both" {
            "milp.milp_binaries"
        } else {
            "milp_binaries"
        };
        assert!(abs["stats"][key].as_u64().unwrap() > 0, "{engine}");
    }
    let v = json(
        &[
            "nis",
            "verify",
            m,
            "--spec",
            "forall v1, v2: EX^2 (alive, v1) & (alive, v2)",
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
        ],
        1,
    );
    assert_eq!(v["results"]["emergence_threshold"], Value::Null);
}

#[test]
fn table_and_simulates() {
    let f = fixture();
    let m = f.model.to_str().unwrap();
    let spec = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)";
    let v = json(
        &[
            "nis", "table", m, "--spec", spec, "--k", "1..3", "--agents", "2..3",
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
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("n \\ k,1,2"));
    let v = json(
        &["nis", "simulates", m, "--indexed", "2", "--depth", "1"],
        0,
    );
    assert_eq!(v["results"]["min_n"], 2);
}

#[test]
fn table_refuses_a_depth_beyond_u32_instead_of_clamping_it() {
    let f = fixture();
    let m = f.model.to_str().unwrap();
    let too_deep = (u64::from(u32::MAX) + 1).to_string();
    // Without `{k}` the spec parses whatever --k is: a clamped depth would
    // be a column titled 4294967295 and exit 0.
    for spec in ["forall v1: EX (alive, v1)", "forall v1: EX^{k} (alive, v1)"] {
        let out = mavis()
            .args(["nis", "table", m, "--spec", spec, "--k", &too_deep])
            .args(["--agents", "2"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("--k 4294967296: a depth is at most 4294967295"),
            "{err}"
        );
    }
}

#[test]
fn bad_input_exits_2_with_a_location() {
    let f = fixture();
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
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("<spec>:1:"));
    // M_ab(m) by MILP: EX^3 holds there (exit 0), with the MILP's sizes.
    let v = json(
        &[
            "nis",
            "check",
            m,
            "--abstract",
            "--spec",
            EX3,
            "--engine",
            "milp",
        ],
        0,
    );
    assert_eq!(v["results"]["engine"], "milp");
    assert!(v["stats"]["round_contexts"].as_u64().unwrap() > 0);
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

#[test]
fn milp_and_both_engines_from_the_command_line() {
    let f = fixture();
    let m = f.model.to_str().unwrap();
    for (n, code) in [("2", 1), ("3", 0)] {
        let v = json(
            &[
                "nis",
                "check",
                m,
                "--agents",
                n,
                "--spec",
                EX3,
                "--engine",
                "milp",
                // The MILP alone (no search first), whose sizes are asserted.
                "--falsify-samples",
                "0",
            ],
            code,
        );
        assert_eq!(v["results"]["engine"], "milp");
        assert!(v["stats"]["milp_binaries"].as_u64().unwrap() > 0);
        assert!(v["stats"]["milp_constraints"].as_u64().unwrap() > 0);
    }
    // `both` agrees (exit 0, not 3) and keeps the MILP's sizes under `milp.`.
    let v = json(
        &[
            "nis",
            "check",
            m,
            "--agents",
            "4",
            "--spec",
            EX3,
            "--engine",
            "both",
            "--no-symmetry-breaking",
            // The MILP alone (no search first), whose sizes are asserted.
            "--falsify-samples",
            "0",
        ],
        0,
    );
    assert_eq!(v["stats"]["milp.symmetry_rows"], 0);
    assert!(v["stats"]["milp.milp_variables"].as_u64().unwrap() > 0);
    // A universal counterexample by MILP, replayed and printed as a step table.
    let out = mavis()
        .args([
            "nis",
            "check",
            m,
            "--agents",
            "3",
            "--spec",
            "forall v1, v2: AX^2 (alive, v1) & (alive, v2)",
            "--engine",
            "milp",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("counterexample, branch 1 of 1"), "{text}");
    assert!(text.contains("agent 3"), "{text}");
}

#[test]
fn verify_and_emergence_take_the_bound_procedure_on_request() {
    let f = fixture();
    let m = f.model.to_str().unwrap();
    let search = json(&["nis", "verify", m, "--spec", EX3], 1);
    let bound = json(
        &["nis", "verify", m, "--spec", EX3, "--simulation", "bound"],
        1,
    );
    assert_eq!(search["results"]["procedure"], "search");
    assert_eq!(search["results"]["min_simulating_n"], 4);
    assert_eq!(search["results"]["simulating_bound"], Value::Null);
    assert_eq!(bound["results"]["procedure"], "bound");
    assert_eq!(bound["results"]["min_simulating_n"], Value::Null);
    // B = 2 on the threshold model (two actions, no argmax ties): n' = 2 + 2^3.
    assert_eq!(bound["results"]["branching"], 2);
    assert_eq!(bound["results"]["simulating_bound"], 10);
    for key in ["holds_for_all_n", "emergence_threshold", "abstract_holds"] {
        assert_eq!(bound["results"][key], search["results"][key], "{key}");
    }
    // The bound procedure stops at M(3), the first system that satisfies it.
    let checks: Vec<&Value> = bound["results"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["model"])
        .collect();
    assert_eq!(checks, ["M_ab(2)", "M(2)", "M(3)"]);
    let v = json(
        &[
            "nis",
            "emergence",
            m,
            "--simulation",
            "bound",
            "--spec",
            "forall v1, v2: AX (alive, v1) & (alive, v2)",
        ],
        1,
    );
    assert_eq!(v["results"]["emergence_threshold"], Value::Null);
    assert_eq!(v["results"]["fails_from"], 2);
    let out = mavis()
        .args(["nis", "verify", m, "--simulation", "bound", "--spec", EX3])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("n' = 2 + 2^3 = 10 (B = 2"), "{text}");
}

/// A diagnostic without its wrapping and frame.
fn one_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .replace(['│', '×'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_search_is_refused_on_the_real_valued_example() {
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding_real/guarding_real.nis");
    let model = model.to_str().unwrap();
    for args in [
        vec!["nis", "verify", model, "--simulation", "search"],
        vec!["nis", "emergence", model, "--simulation", "search"],
    ] {
        let out = mavis()
            .args(&args)
            .args(["--spec", "forall v1: EX (alive, v1)"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = one_line(&out.stderr);
        assert!(err.contains("needs a finite model"), "{err}");
        assert!(err.contains("--simulation bound"), "{err}");
    }
    let out = mavis()
        .args(["nis", "simulates", model, "--indexed", "2", "--depth", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = one_line(&out.stderr);
    assert!(err.contains("verify --simulation bound"), "{err}");
    assert!(err.contains("2 + 4^3 = 66"), "{err}");
}

/// Corollaries for every n on the real-valued example (examples/guarding_real/README.md):
/// the abstraction by slots, the bound procedure by default.
#[test]
fn verify_and_emergence_on_the_real_valued_example() {
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding_real/guarding_real.nis");
    let m = model.to_str().unwrap();
    let ex2 = "forall v1, v2: EX^2 (alive, v1) & (alive, v2)";
    let v = json(&["nis", "verify", m, "--spec", ex2], 1);
    let r = &v["results"];
    assert_eq!(r["procedure"], "bound");
    assert_eq!(r["branching"], 4);
    assert_eq!(r["simulating_bound"], 18);
    assert_eq!(r["abstract_holds"], true);
    assert_eq!(r["holds_for_all_n"], false);
    assert_eq!(r["emergence_threshold"], 3);
    let checks: Vec<(&Value, &Value, &Value)> = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (&c["model"], &c["engine"], &c["verdict"]))
        .collect();
    assert_eq!(
        checks,
        [
            (
                &Value::from("M_ab(2)"),
                &Value::from("milp"),
                &Value::from("holds")
            ),
            (
                &Value::from("M(2)"),
                &Value::from("milp"),
                &Value::from("violated")
            ),
            (
                &Value::from("M(3)"),
                &Value::from("milp"),
                &Value::from("holds")
            ),
        ]
    );
    // The abstract witnesses need a third agent (M(2) fails from b = -1).
    assert!(r["checks"][0]["stats"]["witness_agents"].as_u64().unwrap() >= 3);
    let v = json(&["nis", "emergence", m, "--spec", ex2], 0);
    assert_eq!(v["results"]["emergence_threshold"], 3);
    // k = 3: the abstraction fails from b = -1, so every n fails.
    let ex3 = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)";
    let v = json(&["nis", "verify", m, "--spec", ex3], 1);
    assert_eq!(v["results"]["abstract_holds"], false);
    assert_eq!(v["results"]["emergence_threshold"], Value::Null);
    assert_eq!(v["results"]["holds_for_all_n"], false);
    // Universal: M(2) already has a counterexample.
    let ax1 = "forall v1, v2: AX (alive, v1) & (alive, v2)";
    let v = json(&["nis", "verify", m, "--spec", ax1], 1);
    assert_eq!(v["results"]["fails_from"], 2);
    assert_eq!(
        v["results"]["checks"][0]["witness"]["kind"],
        "counterexample"
    );
    // Universal, holding in M(1) (alone, nobody guards: it dies) but not with
    // a second agent: the abstract counterexample replays in M(2).
    let eager = "forall v1: AX^2 (eager, v1) | (dead, v1)";
    let v = json(&["nis", "verify", m, "--spec", eager], 1);
    let r = &v["results"];
    assert_eq!(r["abstract_holds"], false);
    assert_eq!(r["checks"][1]["model"], "M(1)");
    assert_eq!(r["checks"][1]["verdict"], "holds");
    assert_eq!(r["checks"][0]["stats"]["counterexample_agents"], 2);
    assert_eq!(r["fails_from"], 2);
    assert_eq!(r["emergence_threshold"], Value::Null);
    let text = mavis()
        .args(["nis", "verify", m, "--spec", eager])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("holds at n = 1, fails for every n >= 2"),
        "{text}"
    );
}
