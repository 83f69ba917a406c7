//! The command-line conventions every engine follows: help with examples,
//! exit statuses, the JSON report schema, located errors.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn mavis() -> Command {
    Command::cargo_bin("mavis").expect("binary built")
}

#[test]
fn help_lists_exit_statuses() {
    mavis()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Exit status:"))
        .stdout(predicate::str::contains("3  unknown"));
}

#[test]
fn every_verb_help_has_an_example() {
    mavis()
        .args(["lang", "eval", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Examples:"));
}

#[test]
fn unknown_verbs_and_options_exit_2() {
    mavis()
        .arg("frobnicate")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unrecognized subcommand"));
    mavis()
        .args(["lang", "eval", "1", "--bogus"])
        .assert()
        .code(2);
    mavis()
        .args(["--timeout", "-1", "lang", "eval", "1"])
        .assert()
        .code(2);
    mavis()
        .args(["--format", "xml", "lang", "eval", "1"])
        .assert()
        .code(2);
}

#[test]
fn exact_evaluation_from_the_command_line() {
    mavis()
        .args(["lang", "eval", "1/3 + 0.15"])
        .assert()
        .success()
        .stdout("29/60 (0.48333333333333334)\n");
    mavis()
        .args(["lang", "eval", "N * p", "--set", "N=4", "--set", "p=0.15"])
        .assert()
        .success()
        .stdout("3/5 (0.6)\n");
}

#[test]
fn json_report_schema() {
    let out = mavis()
        .args(["--format", "json", "lang", "eval", "0.1 + 0.2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "nothing on stderr under --format json"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool"], "mavis");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["engine"], "lang");
    assert_eq!(v["command"], "eval");
    assert!(v["model"].is_null());
    assert!(
        v.get("verdict").is_none(),
        "a query without a verdict has no verdict key"
    );
    assert_eq!(v["results"]["value"], "3/10");
    assert_eq!(v["results"]["decimal"], 0.3);
    assert!(v["stats"].is_object());
    assert!(v["warnings"].is_array());
}

#[test]
fn errors_are_located_and_exit_2() {
    mavis()
        .args(["lang", "eval", "1 + true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<expression>:1:5"))
        .stderr(predicate::str::contains("`+` needs a number, found bool"));
    let out = mavis()
        .args(["--format", "json", "lang", "eval", "(1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "input");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("expected `)`"));
    mavis()
        .args(["lang", "eval", "1/0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("division by zero"));
}

/// `mavis ... | head`: the reader closes the pipe early; mavis must stop
/// quietly with the report's exit status, not panic (exit 101).
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::process::{Command as Std, Stdio};
    let ex = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/foraging/");
    let mut child = Std::new(env!("CARGO_BIN_EXE_mavis"))
        .args(["swarm", "export", &format!("{ex}foraging_small.swarm")])
        .args([
            "--faults",
            &format!("{ex}foraging_small.faults"),
            "--agents",
            "3",
            "--to",
            "jani",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Closing the read end before mavis writes (it first reads and checks the
    // model) makes its first write fail with EPIPE, whatever the size (the
    // export is about 10 KB since S(n) is written as automata).
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}
