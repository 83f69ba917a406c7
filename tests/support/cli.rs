//! Running the `mavis` binary from integration tests: one place for
//! starting it, collecting its exit status and output, asserting the status
//! with the output shown on failure, and reading its JSON report.
//!
//! Include it with `#[path = "support/cli.rs"] mod cli;`; each test file
//! uses only part of it.
#![allow(dead_code)]

use std::path::PathBuf;

/// The binary under test, as an `assert_cmd` command (for `.assert()` chains).
pub fn mavis() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("mavis").expect("binary built")
}

/// The repository's root (examples and fixtures are found from here, so a
/// test does not depend on the directory it is started in).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path of the repository, as a string argument.
pub fn repo(rel: &str) -> String {
    root().join(rel).display().to_string()
}

/// `swarm sweep` of the small foraging model over pf = 0, 0.5, 1 and
/// k = 8, 9 with 2 agents: a grid of six cells for the shard and merge tests.
pub fn foraging_sweep_args() -> Vec<String> {
    let swarm = repo("examples/foraging/foraging_small.swarm");
    let faults = repo("examples/foraging/foraging_small.faults");
    [
        "swarm",
        "sweep",
        &swarm,
        "--faults",
        &faults,
        "--prop",
        "Pmax=? [ F<k \"deposited2\" ]",
        "--sweep",
        "pf=0:0.5:1",
        "--k",
        "8..9",
        "--agents",
        "2",
    ]
    .map(String::from)
    .to_vec()
}

/// What one run of the binary gave.
pub struct Run {
    /// The exit status (-1 when a signal ended the process).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts the exit status, showing both streams when it differs.
    #[track_caller]
    pub fn expect_code(self, code: i32) -> Self {
        assert_eq!(
            self.code, code,
            "exit status\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }

    /// Asserts exit 0 (see [`Run::expect_code`]).
    #[track_caller]
    pub fn success(self) -> Self {
        self.expect_code(0)
    }

    /// stdout read as one JSON document.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }
}

/// Runs a prepared command to its end.
pub fn run_command(cmd: &mut assert_cmd::Command) -> Run {
    let out = cmd.output().expect("mavis runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `mavis ARGS`.
pub fn run(args: &[&str]) -> Run {
    run_command(mavis().args(args))
}

/// Runs `mavis --format json ARGS`: the report and the exit status.
#[track_caller]
pub fn json(args: &[&str]) -> (serde_json::Value, i32) {
    let r = run(&[&["--format", "json"], args].concat());
    (r.json(), r.code)
}
