//! The swarm engine at scale (issues 13 and 18): absurd sizes are refused or
//! stopped by a documented budget before memory runs out, a state limit is
//! an unknown answer (exit 3) that falls back on the cutoff, `sweep` rows
//! equal `check` on the same cells, and `sweep` and `export` keep to
//! `--timeout`.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a run stopped at a deadline of 1 s may take before the test
/// calls the deadline ignored: a generous bound, not a measurement (a tight
/// one is a flake on a shared machine; exit 3 is what shows the stop).
const GENEROUS: Duration = Duration::from_secs(30);

fn mavis() -> Command {
    Command::cargo_bin("mavis").expect("binary built")
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/foraging")
        .join(name)
        .display()
        .to_string()
}

/// Runs `mavis --format json swarm ARGS`; exit status and the JSON on stdout.
fn json(args: &[&str]) -> (i32, Value, String) {
    let out = mavis()
        .args(["--format", "json", "swarm"])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v, stdout + &stderr)
}

fn small(verb: &str) -> Vec<String> {
    vec![
        verb.into(),
        example("foraging_small.swarm"),
        "--faults".into(),
        example("foraging_small.faults"),
    ]
}

fn seed(verb: &str) -> Vec<String> {
    vec![
        verb.into(),
        example("foraging.swarm"),
        "--faults".into(),
        example("foraging.faults"),
    ]
}

fn run(base: Vec<String>, more: &[&str]) -> (i32, Value, String) {
    let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
    args.extend_from_slice(more);
    json(&args)
}

#[test]
fn absurd_agent_counts_and_thresholds_are_refused_naming_the_limit() {
    let prop = ["--prop", "Pmax=? [ F<13 \"deposited2\" ]"];
    for agents in ["1000000", "18446744073709551615"] {
        let (code, _, text) = run(small("check"), &[&["--agents", agents][..], &prop].concat());
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("the limit is 100000"), "{text}");
    }
    let (code, _, text) = run(
        small("check"),
        &[&["--abstract", "--threshold", "4294967295"][..], &prop].concat(),
    );
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("over the limit of 65536"), "{text}");
    let (code, _, text) = run(
        small("export"),
        &["--abstract", "--threshold", "4294967295", "--to", "jani"],
    );
    assert_eq!(code, 2, "{text}");
}

#[test]
fn a_system_too_wide_for_memory_stops_on_the_budget_with_exit_3() {
    // 50,000 robots: one state is ~19 KB and the first state alone has
    // 100,000 successors, past the 256 MiB budget of one successor list.
    let (code, v, text) = run(
        small("check"),
        &[
            "--agents",
            "50000",
            "--prop",
            "Pmax=? [ F<13 \"deposited2\" ]",
        ],
    );
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("successors need more than 256 MiB"), "{text}");
    assert_eq!(v["verdict"], "unknown", "{text}");
    // Stopped by the budget before the exploration, not by a clock.
    assert!(v["stats"]["timed_out"].is_null(), "{text}");
}

#[test]
fn a_state_limit_in_abstract_mode_is_unknown_and_tries_the_cutoff() {
    // The set abstraction of the seed's model has tens of thousands of
    // states; a property of 3 steps is answered by the cutoff all the same.
    let (code, v, text) = run(
        seed("check"),
        &[
            "--abstract",
            "--max-states",
            "2000",
            "--prop",
            "P<=0.5 [ F<4 \"deposited1\" ]",
        ],
    );
    assert_eq!(code, 0, "{text}");
    let p = &v["results"]["properties"][0];
    assert_eq!(p["verdict"], "holds", "{text}");
    assert_eq!(p["cutoff"]["value"].as_f64(), Some(0.0), "{text}");
    assert!(p["abstraction"]
        .as_str()
        .unwrap()
        .contains("more than 2000 states"));
    // Where no cutoff fits the budget either, the answer is unknown (exit 3).
    let (code, v, text) = run(
        seed("check"),
        &[
            "--abstract",
            "--max-states",
            "200",
            "--prop",
            "P<=0.5 [ F<20 \"deposited2\" ]",
        ],
    );
    assert_eq!(code, 3, "{text}");
    assert_eq!(v["verdict"], "unknown", "{text}");
}

fn rows(v: &Value) -> Vec<(usize, f64)> {
    v["results"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["k"].as_u64().unwrap() as usize, r["p"].as_f64().unwrap()))
        .collect()
}

fn checked(prop: &str) -> f64 {
    let (code, v, text) = run(
        small("check"),
        &["--set", "pf=0.4", "--agents", "2", "--prop", prop],
    );
    assert!(code == 0 || code == 1, "{text}");
    v["results"]["properties"][0]["value"].as_f64().unwrap()
}

#[test]
fn sweep_rows_equal_check_on_the_same_cells() {
    // The bound is 2k: row k = 5 is F<10, not F<15 (the old k + const guess).
    let (code, v, text) = run(
        small("sweep"),
        &[
            "--prop",
            "Pmax=? [ F<2*k \"deposited2\" ]",
            "--sweep",
            "pf=0.4",
            "--k",
            "5..7",
            "--agents",
            "2",
        ],
    );
    assert_eq!(code, 0, "{text}");
    let got = rows(&v);
    assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), vec![5, 6, 7]);
    for (k, p) in got {
        let want = checked(&format!("Pmax=? [ F<{} \"deposited2\" ]", 2 * k));
        assert_eq!(p, want, "k = {k}");
    }
    // A target that depends on k too.
    let (_, v, text) = run(
        small("sweep"),
        &[
            "--prop",
            "Pmax=? [ F<=12 foodDeposited_E >= k ]",
            "--sweep",
            "pf=0.4",
            "--k",
            "1..2",
            "--agents",
            "2",
        ],
    );
    for (k, p) in rows(&v) {
        let want = checked(&format!("Pmax=? [ F<=12 foodDeposited_E >= {k} ]"));
        assert_eq!(p, want, "k = {k}: {text}");
    }
    // A property that does not read k: every row is the same cell, and a warning says so.
    let (_, v, text) = run(
        small("sweep"),
        &[
            "--prop",
            "Pmax=? [ F<13 \"deposited2\" ]",
            "--sweep",
            "pf=0.4",
            "--k",
            "8..10",
            "--agents",
            "2",
        ],
    );
    let want = checked("Pmax=? [ F<13 \"deposited2\" ]");
    assert!(rows(&v).iter().all(|r| r.1 == want), "{text}");
    assert!(text.contains("does not depend on k"), "{text}");
}

#[test]
fn sweep_at_a_state_limit_is_unknown_without_debug_text() {
    let (code, v, text) = run(
        small("sweep"),
        &[
            "--prop",
            "Pmax=? [ F<k \"deposited2\" ]",
            "--sweep",
            "pf=0.4",
            "--k",
            "8..9",
            "--agents",
            "3",
            "--max-states",
            "10",
        ],
    );
    assert_eq!(code, 3, "{text}");
    assert_eq!(v["verdict"], "unknown", "{text}");
    assert!(text.contains("more than 10 states"), "{text}");
    assert!(!text.contains("StateLimit"), "{text}");
}

#[test]
fn sweep_and_export_keep_to_the_timeout() {
    // S(5) of the seed's model has 1.6 million states: far more than 1 s.
    let t0 = Instant::now();
    let (code, _, text) = run(
        seed("sweep"),
        &[
            "--timeout",
            "1",
            "--prop",
            "Pmax=? [ F<k \"deposited2\" ]",
            "--sweep",
            "pf=0:0.1:1",
            "--k",
            "10..20",
            "--agents",
            "5",
        ],
    );
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("time-out"), "{text}");
    assert!(t0.elapsed() < GENEROUS, "{:?}", t0.elapsed());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t2.jani");
    let t0 = Instant::now();
    // Definition 15's start is global-synchronous, so its abstraction is
    // explored before it is written: more than a minute (S(n), and the
    // abstraction without global-synchronous actions, are written without
    // exploring).
    let (code, _, text) = run(
        seed("export"),
        &[
            "--timeout",
            "1",
            "--faulty-fraction",
            "1/2",
            "--abstract",
            "--to",
            "jani",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("time-out"), "{text}");
    assert!(t0.elapsed() < GENEROUS, "{:?}", t0.elapsed());
    assert!(!out.exists(), "a stopped export leaves no file");
}

#[test]
fn abstraction_exports_are_automata_written_without_exploring() {
    // Threshold 2 of the seed's model has 14,348,904 states (3 min to
    // explore); as automata over counts it is written at once.
    let dir = tempfile::tempdir().unwrap();
    for to in ["jani", "prism"] {
        let out = dir.path().join(format!("t2.{to}"));
        let args = [
            "--timeout",
            "2",
            "--abstract",
            "--threshold",
            "2",
            "--to",
            to,
        ];
        let (code, _, text) = run(
            seed("export"),
            &[&args[..], &["-o", out.to_str().unwrap()]].concat(),
        );
        // Exit 0 under `--timeout 2`: written before the deadline, which
        // exploring (3 min) could not be.
        assert_eq!(code, 0, "{text}");
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(written.len() < 40_000, "{to}: {} bytes", written.len());
        if to == "jani" {
            let j: serde_json::Value = serde_json::from_str(&written).unwrap();
            let automata: Vec<&str> = j["automata"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["name"].as_str().unwrap())
                .collect();
            assert_eq!(automata, ["counts", "nest"], "{to}");
            assert_eq!(j["variables"][0]["type"]["upper-bound"], 2);
        } else {
            assert!(written.contains("module counts"), "{to}");
        }
    }
}

#[test]
fn sweep_csv_has_full_precision_and_the_plots_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("sweep");
    let (code, v, text) = run(
        small("sweep"),
        &[
            "--prop",
            "Pmax=? [ F<k \"deposited2\" ]",
            "--sweep",
            "pf=0:0.5:1",
            "--k",
            "9..11",
            "--agents",
            "2",
            "--out",
            prefix.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{text}");
    let csv = std::fs::read_to_string(prefix.with_extension("csv")).unwrap();
    let lines: Vec<&str> = csv.lines().skip(1).collect();
    for (line, row) in lines.iter().zip(v["results"]["rows"].as_array().unwrap()) {
        let p: f64 = line.split(',').nth(2).unwrap().parse().unwrap();
        assert_eq!(p, row["p"].as_f64().unwrap(), "{line}");
    }
    let svg = std::fs::read_to_string(prefix.with_extension("svg")).unwrap();
    assert!(
        svg.contains("foraging_small.swarm"),
        "the title names the model"
    );
    assert!(svg.contains("n = 2"), "the title names n");
    let png = std::fs::read(prefix.with_extension("png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
}

#[test]
fn jani_export_of_seven_agents_is_written_without_exploring() {
    // S(7) has 3 * 14^7 = 316 million states: the export is the network of
    // automata (an edge per local state and command), so it stays small.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s7.jani");
    let (code, _, text) = run(
        seed("export"),
        &[
            "--timeout",
            "60",
            "--agents",
            "7",
            "--to",
            "jani",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    // Exit 0 under `--timeout 60`: exploring 316 million states could not
    // have finished.
    assert_eq!(code, 0, "{text}");
    let jani: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let automata = jani["automata"].as_array().unwrap();
    // Seven robots and the nest; each robot an edge per local state and command.
    assert_eq!(automata.len(), 8);
    let edges: Vec<usize> = automata[..7]
        .iter()
        .map(|a| a["edges"].as_array().unwrap().len())
        .collect();
    assert!(edges.iter().all(|&e| e == edges[0] && e == 14), "{edges:?}");
    // The nest's deposit, once per robot, each synchronised with its robot.
    assert_eq!(jani["system"]["syncs"].as_array().unwrap().len(), 7);
    assert!(std::fs::metadata(&out).unwrap().len() < 200_000);
}

#[test]
fn jani_export_past_its_agent_limit_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big.jani");
    let (code, _, text) = run(
        seed("export"),
        &[
            "--agents",
            "1001",
            "--to",
            "jani",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("1001 agents") && text.contains("the limit is 1000"),
        "{text}"
    );
    assert!(!out.exists());
    // PRISM has no such vectors: its text grows linearly.
    let (code, _, text) = run(
        seed("export"),
        &[
            "--agents",
            "1001",
            "--to",
            "prism",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{text}");
}
