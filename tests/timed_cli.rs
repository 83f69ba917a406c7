//! `mavis timed` end to end: verdicts and exit statuses, witnesses in JSON,
//! conversion both ways, located errors, the CAV example.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn mavis() -> Command {
    Command::cargo_bin("mavis").expect("binary built")
}

const PLATOON2: &str = "examples/cav/platoon2.mapt";

fn json_of(args: &[&str]) -> (Value, i32) {
    let out = mavis()
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (v, out.status.code().unwrap())
}

#[test]
fn ef_found_exits_0_with_a_witness_and_not_found_exits_1() {
    let (v, code) = json_of(&[
        "timed",
        "check",
        PLATOON2,
        "--horizon",
        "6p",
        "--query",
        "EF x1 - x2 <= 0",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["verdict"], "holds");
    let steps = v["witness"]["query"]["trace"]["steps"].as_array().unwrap();
    assert!(!steps.is_empty());
    let (v, code) = json_of(&[
        "timed",
        "check",
        PLATOON2,
        "--horizon",
        "1p",
        "--query",
        "EF x1 - x2 <= 0",
    ]);
    assert_eq!((code, v["verdict"].as_str()), (1, Some("violated")));
}

#[test]
fn ag_violated_exits_1_with_a_counterexample() {
    let (v, code) = json_of(&[
        "timed",
        "check",
        PLATOON2,
        "--horizon",
        "6p",
        "--query",
        "AG x1 - x2 > 0",
        "--search",
        "layered",
    ]);
    assert_eq!(code, 1);
    assert_eq!(v["witness"]["query"]["kind"], "counterexample");
    let (_, code) = json_of(&[
        "timed",
        "check",
        PLATOON2,
        "--horizon",
        "1p",
        "--query",
        "AG x1 - x2 > 0",
    ]);
    assert_eq!(code, 0);
}

#[test]
fn searches_and_semantics_agree_on_the_minimal_gap() {
    let mut values = Vec::new();
    for sem in ["plain", "accelerated"] {
        for search in ["bfs", "dfs", "layered", "best-first"] {
            let (v, code) = json_of(&[
                "timed",
                "check",
                PLATOON2,
                "--horizon",
                "4p",
                "--query",
                "min x1 - x2",
                "--semantics",
                sem,
                "--search",
                search,
            ]);
            assert_eq!(code, 0);
            values.push(
                v["results"]["queries"][0]["value"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    assert!(values.iter().all(|x| x == &values[0]), "{values:?}");
}

/// `--memory sweep` and `sweep-hyperperiod`: bfs's value and distinct
/// states; under a horizon one sweep, each state expanded once. The sweep
/// is the layered search's default memory (issue 36: the policy that holds
/// fewest states).
#[test]
fn the_sweep_line_search_agrees_with_bfs() {
    let run = |extra: &[&str]| {
        let mut args = vec!["timed", "check", PLATOON2, "--horizon", "400"];
        args.extend(["--query", "min x1 - x2"]);
        args.extend(extra);
        json_of(&args)
    };
    let (bfs, code) = run(&["--search", "bfs"]);
    assert_eq!(code, 0);
    let bfs = &bfs["results"]["queries"][0];
    for memory in ["sweep", "sweep-hyperperiod"] {
        let (v, code) = run(&["--search", "layered", "--memory", memory]);
        assert_eq!(code, 0, "{v}");
        let q = &v["results"]["queries"][0];
        assert_eq!(q["value"], bfs["value"], "{memory}");
        assert_eq!(
            (&q["states"], &q["distinct"]),
            (&bfs["states"], &bfs["states"])
        );
        assert_eq!(q["sweeps"], 1, "{memory}");
        assert!(q["peak_stored"].as_u64() < bfs["peak_stored"].as_u64());
    }
    let (default, _) = run(&["--search", "layered"]);
    let (sweep, _) = run(&["--search", "layered", "--memory", "sweep"]);
    let (d, s) = (
        &default["results"]["queries"][0],
        &sweep["results"]["queries"][0],
    );
    assert_eq!(
        (&d["sweeps"], &d["peak_stored"]),
        (&s["sweeps"], &s["peak_stored"])
    );
}

/// The memory policies are the layered search's: with another search,
/// `--memory` is an input error (it was silently ignored), and so is
/// `--memory layer` without a horizon, which would never end.
#[test]
fn memory_policies_need_the_layered_search() {
    for memory in ["border", "sweep"] {
        mavis()
            .args(["timed", "check", PLATOON2, "--memory", memory])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "--memory is the layered search's memory policy: add --search layered",
            ));
    }
    mavis()
        .args([
            "timed", "check", PLATOON2, "--search", "layered", "--memory", "layer",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give a --horizon"));
}

#[test]
fn limits_give_unknown() {
    let (v, code) = json_of(&[
        "timed",
        "check",
        PLATOON2,
        "--horizon",
        "6p",
        "--query",
        "AG x1 - x2 > -100",
        "--max-states",
        "10",
    ]);
    assert_eq!((code, v["verdict"].as_str()), (3, Some("unknown")));
    // The unknown says why (it gave no reason before), and it is not a time-out.
    assert_eq!(v["results"]["queries"][0]["states"], 10, "{v}");
    assert_eq!(v["stats"]["timed_out"], Value::Null, "{v}");
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("state cap of 10 expansions (--max-states) was reached")),
        "{v}"
    );
}

#[test]
fn conversion_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let js = dir.path().join("p.json");
    let back = dir.path().join("p.mapt");
    mavis()
        .args(["timed", "convert", PLATOON2, "-o"])
        .arg(&js)
        .assert()
        .success();
    mavis()
        .args(["timed", "convert"])
        .arg(&js)
        .arg("-o")
        .arg(&back)
        .assert()
        .success();
    let run = |p: &std::path::Path| {
        let (v, _) = json_of(&[
            "timed",
            "check",
            p.to_str().unwrap(),
            "--horizon",
            "3p",
            "--query",
            "min x1 - x2",
        ]);
        (
            v["results"]["queries"][0]["value"].clone(),
            v["results"]["queries"][0]["states"].clone(),
        )
    };
    assert_eq!(run(&js), run(std::path::Path::new(PLATOON2)));
    assert_eq!(run(&back), run(&js));
}

#[test]
fn bad_models_exit_2_with_positions() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.mapt");
    std::fs::write(&p, "agent a period 5 {\n  p -> q in [0, 7];\n}\n").unwrap();
    mavis()
        .args(["timed", "validate"])
        .arg(&p)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.mapt:2:17"));
    let j = dir.path().join("bad.json");
    std::fs::write(&j, r#"{"agents": [{"name": "a", "period": 5, "transitions": [{"from": "p", "to": "q", "lower": 0, "upper": 2, "guard": "x <"}]}]}"#).unwrap();
    mavis()
        .args(["timed", "validate"])
        .arg(&j)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "/agents/0/transitions/0/guard:1:4",
        ));
}

#[test]
fn the_file_queries_run_by_default() {
    let (v, code) = json_of(&["timed", "check", PLATOON2, "--horizon", "5p"]);
    let names: Vec<&str> = v["results"]["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["collision", "min_gap", "recovery"]);
    assert_eq!(
        v["results"]["queries"][0]["verdict"], "violated",
        "no collision within 5 periods"
    );
    assert_eq!(v["results"]["queries"][2]["verdict"], "holds");
    // One form everywhere: the top-level verdict is written the same way.
    assert_eq!(v["verdict"], "violated");
    assert_eq!(code, 1);
}

#[test]
fn help_has_examples() {
    for verb in ["validate", "check", "convert", "export"] {
        mavis()
            .args(["timed", verb, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples:"));
    }
}

/// `-q` silences the notes of `timed export`, never the exported text.
#[test]
fn quiet_export_keeps_the_whole_model_and_drops_the_notes() {
    let loud = mavis()
        .args(["timed", "export", PLATOON2, "--to", "tchecker"])
        .output()
        .unwrap();
    let quiet = mavis()
        .args(["-q", "timed", "export", PLATOON2, "--to", "tchecker"])
        .output()
        .unwrap();
    assert_eq!(loud.status.code(), Some(0));
    assert_eq!(quiet.status.code(), Some(0));
    let text = String::from_utf8(quiet.stdout).unwrap();
    assert_eq!(text, String::from_utf8(loud.stdout).unwrap());
    assert!(text.lines().count() > 20 && text.lines().any(|l| l.starts_with("edge:car2:")));
    assert!(String::from_utf8_lossy(&loud.stderr).contains("note: V scaled"));
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("note:"));
}
