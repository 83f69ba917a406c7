//! `-v` shows how far a long stage is (issue 34): a progress line with a
//! count and a rate appears while the stage runs, long before the run ends,
//! and the counts grow. Behaviour, not tight timing: each run takes several
//! seconds (stopped by `--timeout`), and its first progress line must come
//! while it still runs and say it was printed within a second of the start.

#[path = "support/cli.rs"]
mod cli;

use cli::repo;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `mavis -v ARGS`: each stderr line with when it arrived, and when
/// the run ended (all from the start).
fn stderr_lines(args: &[&str]) -> (Vec<(Duration, String)>, Duration) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mavis"))
        .arg("-v")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mavis starts");
    let err = child.stderr.take().expect("piped");
    let lines: Vec<(Duration, String)> = BufReader::new(err)
        .lines()
        .map_while(Result::ok)
        .map(|l| (start.elapsed(), l))
        .collect();
    child.wait().expect("mavis ends");
    (lines, start.elapsed())
}

/// The progress lines of `label`: (arrival, count, the `[t s]` they give).
fn progress(lines: &[(Duration, String)], label: &str) -> Vec<(Duration, u64, f64)> {
    lines
        .iter()
        .filter_map(|(at, l)| {
            let rest = l.strip_prefix(label)?.strip_prefix(": ")?;
            // "12,345 states (6,789 states/s) [1.5 s]" (not the final "done, ...").
            let count: String = rest.split(' ').next()?.replace(',', "");
            let count = count.parse().ok()?;
            assert!(rest.contains("/s"), "a rate: {l}");
            let t = rest.rsplit_once('[')?.1.strip_suffix(" s]")?.parse().ok()?;
            Some((*at, count, t))
        })
        .collect()
}

/// The first progress line came within a second of the start (by its own
/// clock) and well before the run ended (by ours), and the counts grew.
fn assert_shows_progress(lines: &[(Duration, String)], ended: Duration, label: &str) {
    let shown = progress(lines, label);
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    assert!(shown.len() >= 2, "progress lines of {label}: {all:#?}");
    let (arrived, first, t) = shown[0];
    assert!(t <= 1.0, "the first line at {t} s: {all:#?}");
    assert!(
        arrived + Duration::from_secs(1) < ended,
        "the first line arrived at {arrived:?}, the run ended at {ended:?}"
    );
    let last = shown.last().expect("two lines").1;
    assert!(first > 0 && last > first, "counts {first} then {last}");
}

#[test]
fn timed_check_shows_the_states_expanded_while_it_searches() {
    let model = repo("examples/cav/platoon6.mapt");
    // platoon6's collision query searches for minutes: stopped at 4 s.
    let (lines, ended) = stderr_lines(&[
        "--timeout",
        "4",
        "timed",
        "check",
        &model,
        "--name",
        "collision",
        "--search",
        "layered",
    ]);
    let label = "timed check: query `collision` (1 of 1)";
    assert_shows_progress(&lines, ended, label);
    // The layered search's level is its sweeps.
    assert!(lines
        .iter()
        .any(|(_, l)| l.starts_with(label) && l.contains("sweeps ")));
}

#[test]
fn swarm_check_shows_the_states_explored() {
    // S(5) of the foraging swarm has 1.2 million states: several seconds
    // of exploration, stopped at 3 s.
    let (lines, ended) = stderr_lines(&[
        "--timeout",
        "3",
        "swarm",
        "check",
        &repo("examples/foraging/foraging.swarm"),
        "--faults",
        &repo("examples/foraging/foraging.faults"),
        "--agents",
        "5",
        "--prop",
        "Pmin=? [ F \"deposited2\" ]",
    ]);
    assert_shows_progress(&lines, ended, "swarm: exploring");
}

#[test]
fn nis_table_says_which_cell_of_how_many() {
    let (lines, _) = stderr_lines(&[
        "nis",
        "table",
        &repo("examples/guarding/guarding.nis"),
        "--spec",
        "forall v1: EX^{k} (alive, v1)",
        "--k",
        "1..2",
        "--agents",
        "2,3",
    ]);
    let cells: Vec<&str> = lines
        .iter()
        .filter_map(|(_, l)| l.split_once("] nis table: ").map(|x| x.1))
        .collect();
    for i in 1..=4 {
        assert!(
            cells
                .iter()
                .any(|c| c.starts_with(&format!("cell {i} of 4, "))),
            "cell {i} of 4 in {cells:#?}"
        );
    }
}
