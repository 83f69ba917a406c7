//! VNN-COMP's harness on generated benchmarks: gzip-compressed networks and
//! properties, `mavis nn verify --instances FILE.csv --out-dir DIR` (every
//! row with its timeout, one result file each, a summary, resumable), and the
//! competition's scripts in scripts/vnncomp/ run as the competition runs
//! them. Verdicts are checked against a brute force computed here: the
//! largest output on a grid of the input box, with a Lipschitz bound for the
//! points between (so "unsat" is asked only above the true maximum, "sat"
//! only below a value the grid reaches), and every `sat` assignment is
//! evaluated here by the test's own forward pass.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/onnx_writer.rs"]
mod onnx_writer;

use onnx_writer::{onnx_bytes, random_network, Dense};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The input box of every property: [-1, 1]^2.
const LO: f64 = -1.0;
const HI: f64 = 1.0;

fn forward(net: &[Dense], x: &[f64]) -> Vec<f64> {
    let mut v = x.to_vec();
    for layer in net {
        v = (0..layer.bias.len())
            .map(|j| {
                let s = f64::from(layer.bias[j])
                    + (0..v.len())
                        .map(|i| f64::from(layer.weights[i][j]) * v[i])
                        .sum::<f64>();
                if layer.relu {
                    s.max(0.0)
                } else {
                    s
                }
            })
            .collect();
    }
    v
}

/// The largest Y_0 on a 401 x 401 grid of the box, and how much larger Y_0
/// can be between grid points (a Lipschitz constant in the max norm times
/// half the grid step).
fn brute_force_max(net: &[Dense]) -> (f64, f64) {
    let n = 401;
    let step = (HI - LO) / (n - 1) as f64;
    let mut best = f64::NEG_INFINITY;
    for a in 0..n {
        for b in 0..n {
            let x = [LO + step * a as f64, LO + step * b as f64];
            best = best.max(forward(net, &x)[0]);
        }
    }
    let (last, hidden) = net.split_last().unwrap();
    let norm = |l: &Dense, outputs: std::ops::Range<usize>| {
        outputs
            .map(|j| {
                l.weights
                    .iter()
                    .map(|row| f64::from(row[j]).abs())
                    .sum::<f64>()
            })
            .fold(0.0, f64::max)
    };
    let lipschitz = hidden
        .iter()
        .map(|l| norm(l, 0..l.bias.len()))
        .product::<f64>()
        * norm(last, 0..1);
    (best, lipschitz * step / 2.0)
}

/// The property "some x in the box has Y_0 >= c" (the unsafe set).
fn property(c: f64) -> String {
    let mut s = String::from("; generated\n");
    for v in ["X_0", "X_1", "Y_0", "Y_1"] {
        s += &format!("(declare-const {v} Real)\n");
    }
    for x in ["X_0", "X_1"] {
        s += &format!("(assert (>= {x} {LO:?}))\n(assert (<= {x} {HI:?}))\n");
    }
    s + &format!("(assert (>= Y_0 {c:?}))\n")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// One generated instance: files, the expected result, the network.
struct Case {
    network: String,
    property: String,
    c: f64,
    expected: &'static str,
    net: Vec<Dense>,
}

/// A benchmark folder as VNN-COMP lays one out (`onnx/`, `vnnlib/`,
/// `instances.csv`), some files gzip-compressed: networks `n0` (plain) and
/// `n1` (only `n1.onnx.gz`, named `onnx/n1.onnx` in the CSV as the
/// competition's repositories do), each with an unsat and a sat property.
fn benchmark(dir: &Path) -> Vec<Case> {
    std::fs::create_dir_all(dir.join("onnx")).unwrap();
    std::fs::create_dir_all(dir.join("vnnlib")).unwrap();
    let mut cases = Vec::new();
    for (k, seed) in [(0, 7u64), (1, 42)] {
        let net = random_network(&[2, 8, 8, 2], seed);
        let bytes = onnx_bytes(&net);
        if k == 0 {
            std::fs::write(dir.join("onnx/n0.onnx"), bytes).unwrap();
        } else {
            std::fs::write(dir.join("onnx/n1.onnx.gz"), gzip(&bytes)).unwrap();
        }
        let (max, slack) = brute_force_max(&net);
        for (expected, c) in [("unsat", max + slack + 0.05), ("sat", max - 0.05)] {
            let name = format!("vnnlib/n{k}_{expected}.vnnlib");
            let text = property(c);
            let property = if expected == "sat" && k == 0 {
                std::fs::write(dir.join(format!("{name}.gz")), gzip(text.as_bytes())).unwrap();
                format!("{name}.gz")
            } else {
                std::fs::write(dir.join(&name), text).unwrap();
                name
            };
            let net = random_network(&[2, 8, 8, 2], seed);
            cases.push(Case {
                network: format!("onnx/n{k}.onnx"),
                property,
                c,
                expected,
                net,
            });
        }
    }
    let rows: String = cases
        .iter()
        .map(|c| format!("{},{},60\n", c.network, c.property))
        .collect();
    std::fs::write(dir.join("instances.csv"), rows).unwrap();
    cases
}

/// Checks a result file: the expected word, and for `sat` an assignment
/// inside the box whose Y_0, computed here, reaches c.
#[track_caller]
fn check_result(text: &str, case: &Case) {
    let first = text.lines().next().unwrap_or("");
    assert_eq!(first, case.expected, "{}: {text}", case.property);
    if case.expected != "sat" {
        assert_eq!(text, format!("{}\n", case.expected));
        return;
    }
    let value = |var: &str| -> f64 {
        let at = text
            .find(&format!("({var} "))
            .unwrap_or_else(|| panic!("{var} in {text}"));
        let rest = &text[at + var.len() + 2..];
        rest[..rest.find(')').unwrap()].parse().unwrap()
    };
    let x = [value("X_0"), value("X_1")];
    assert!(x.iter().all(|v| (LO..=HI).contains(v)), "{x:?}");
    let y = forward(&case.net, &x);
    assert!(
        y[0] >= case.c - 1e-6,
        "Y_0 = {} < {} at {x:?}",
        y[0],
        case.c
    );
    assert!((value("Y_0") - y[0]).abs() < 1e-6);
}

fn run_instances(dir: &Path, out: &Path) -> cli::Run {
    let csv = dir.join("instances.csv");
    cli::run(&[
        "nn",
        "verify",
        "--instances",
        csv.to_str().unwrap(),
        "--out-dir",
        out.to_str().unwrap(),
        "--format",
        "json",
    ])
}

fn result_file(out: &Path, case: &Case) -> PathBuf {
    let stem = |p: &str| {
        p.trim_end_matches(".gz")
            .trim_end_matches(".onnx")
            .trim_end_matches(".vnnlib")
            .replace('/', "_")
    };
    out.join(format!(
        "{}__{}.txt",
        stem(&case.network),
        stem(&case.property)
    ))
}

#[test]
fn an_instances_file_is_run_row_by_row_and_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let cases = benchmark(dir.path());
    let out = dir.path().join("results");
    let run = run_instances(dir.path(), &out).success();
    let report = run.json();
    assert_eq!(
        report["results"]["counts"],
        serde_json::json!({"sat": 2, "unsat": 2})
    );
    for case in &cases {
        check_result(
            &std::fs::read_to_string(result_file(&out, case)).unwrap(),
            case,
        );
    }
    // The summary: a header and a row per instance, in the file's order.
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(
        lines[0],
        "line,network,property,timeout,result,verdict,time_s,resumed"
    );
    assert_eq!(lines.len(), 1 + cases.len());
    for (line, case) in lines[1..].iter().zip(&cases) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(
            &cells[1..5],
            [
                case.network.as_str(),
                case.property.as_str(),
                "60",
                case.expected
            ]
        );
        assert_eq!(
            cells[5],
            if case.expected == "sat" {
                "violated"
            } else {
                "holds"
            }
        );
        assert!(cells[6].parse::<f64>().unwrap() >= 0.0);
        assert_eq!(cells[7], "false");
    }
    // Only files of finished instances, no temporary file left behind.
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2 * cases.len() + 1, "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");

    // A run killed half-way: instance 2 left only its result file (no
    // report), instance 3 nothing. Both are run again, the others are not.
    let report_of = |case: &Case| result_file(&out, case).with_extension("json");
    std::fs::remove_file(report_of(&cases[1])).unwrap();
    std::fs::write(result_file(&out, &cases[1]), "garbage from a killed run").unwrap();
    std::fs::remove_file(result_file(&out, &cases[2])).unwrap();
    std::fs::remove_file(report_of(&cases[2])).unwrap();
    let again = run_instances(dir.path(), &out).success().json();
    let resumed: Vec<bool> = again["results"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["resumed"].as_bool().unwrap())
        .collect();
    assert_eq!(resumed, [true, false, false, true]);
    for case in &cases {
        check_result(
            &std::fs::read_to_string(result_file(&out, case)).unwrap(),
            case,
        );
    }
}

#[test]
fn an_instance_in_error_is_reported_and_run_again_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let cases = benchmark(dir.path());
    let out = dir.path().join("results");
    // The first network is missing: its rows are errors (exit 2), the rest run.
    let n0 = dir.path().join("onnx/n0.onnx");
    let saved = std::fs::read(&n0).unwrap();
    std::fs::remove_file(&n0).unwrap();
    let run = run_instances(dir.path(), &out).expect_code(2);
    let report = run.json();
    assert_eq!(
        report["results"]["counts"],
        serde_json::json!({"error": 2, "sat": 1, "unsat": 1})
    );
    assert_eq!(
        std::fs::read_to_string(result_file(&out, &cases[0])).unwrap(),
        "error\n"
    );
    let error: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(result_file(&out, &cases[0]).with_extension("json")).unwrap(),
    )
    .unwrap();
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("n0.onnx"),
        "{error}"
    );
    std::fs::write(&n0, saved).unwrap();
    let again = run_instances(dir.path(), &out).success().json();
    let resumed: Vec<bool> = again["results"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["resumed"].as_bool().unwrap())
        .collect();
    assert_eq!(resumed, [false, false, true, true]);
    for case in &cases {
        check_result(
            &std::fs::read_to_string(result_file(&out, case)).unwrap(),
            case,
        );
    }
}

#[test]
fn a_malformed_instances_file_is_refused_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("instances.csv");
    std::fs::write(&csv, "a.onnx,b.vnnlib,10\na.onnx,b.vnnlib,soon\n").unwrap();
    let run = cli::run(&[
        "nn",
        "verify",
        "--instances",
        csv.to_str().unwrap(),
        "--out-dir",
        dir.path().join("o").to_str().unwrap(),
    ])
    .expect_code(2);
    assert!(
        run.stderr
            .contains(&format!("{}:2:17: the timeout `soon`", csv.display())),
        "{}",
        run.stderr
    );
    // --out-dir is required with --instances, and a single property is not.
    cli::run(&["nn", "verify", "--instances", csv.to_str().unwrap()]).expect_code(2);
}

fn script(name: &str, args: &[&str]) -> (i32, String) {
    let out = Command::new("bash")
        .arg(cli::root().join("scripts/vnncomp").join(name))
        .args(args)
        .env("MAVIS_BIN", env!("CARGO_BIN_EXE_mavis"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_competition_scripts_decide_generated_instances() {
    let dir = tempfile::tempdir().unwrap();
    let cases = benchmark(dir.path());
    for (i, case) in cases.iter().enumerate() {
        // The competition passes the files it ships: n1 only as .onnx.gz.
        let onnx = dir.path().join(&case.network);
        let onnx = if onnx.exists() {
            onnx
        } else {
            dir.path().join(format!("{}.gz", case.network))
        };
        let (onnx, vnnlib) = (onnx.to_str().unwrap(), dir.path().join(&case.property));
        let vnnlib = vnnlib.to_str().unwrap();
        let (code, text) = script("prepare_instance.sh", &["v1", "generated", onnx, vnnlib]);
        assert_eq!(code, 0, "{text}");
        let results = dir.path().join(format!("result{i}.txt"));
        std::fs::write(&results, "stale").unwrap();
        let (code, text) = script(
            "run_instance.sh",
            &[
                "v1",
                "generated",
                onnx,
                vnnlib,
                results.to_str().unwrap(),
                "60",
            ],
        );
        assert_eq!(code, 0, "{text}");
        check_result(&std::fs::read_to_string(&results).unwrap(), case);
    }
    // Not a network: prepare refuses it, run writes `error`.
    let bad = dir.path().join("bad.onnx");
    std::fs::write(&bad, b"not onnx").unwrap();
    let vnnlib = dir.path().join(&cases[0].property);
    let (code, text) = script(
        "prepare_instance.sh",
        &[
            "v1",
            "generated",
            bad.to_str().unwrap(),
            vnnlib.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("bad.onnx"), "{text}");
    let results = dir.path().join("bad.txt");
    let (code, text) = script(
        "run_instance.sh",
        &[
            "v1",
            "generated",
            bad.to_str().unwrap(),
            vnnlib.to_str().unwrap(),
            results.to_str().unwrap(),
            "10",
        ],
    );
    assert_eq!(code, 0, "{text}");
    assert_eq!(std::fs::read_to_string(&results).unwrap(), "error\n");
    // Another interface version is refused by every script.
    for name in ["install_tool.sh", "prepare_instance.sh", "run_instance.sh"] {
        let (code, text) = script(name, &["v2"]);
        assert_eq!(code, 1, "{name}: {text}");
        assert!(
            text.contains("expected the version string 'v1'"),
            "{name}: {text}"
        );
    }
}
