//! `-v` shows how far a long stage is (issue 34): a progress line with a
//! count and a rate appears while the stage runs, long before the run ends,
//! and the counts grow. Behaviour, not tight timing: each run takes several
//! seconds (stopped by `--timeout`), and its first progress line must come
//! while it still runs and say it was printed within a second of the start.

#[path = "support/cli.rs"]
mod cli;
#[path = "support/onnx_writer.rs"]
mod onnx_writer;

use cli::repo;
use onnx_writer::{onnx_bytes, random_network, Dense};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `mavis -v ARGS`: each stderr line with when it arrived, and when
/// the run ended (all from the start).
/// `mavis -v --timeout SECONDS swarm check` of the foraging swarm with its
/// faults on S(agents), one `--prop` each: [`stderr_lines`].
fn foraging_check(
    seconds: u32,
    agents: u32,
    props: &[&str],
) -> (Vec<(Duration, String)>, Duration) {
    let (seconds, agents) = (seconds.to_string(), agents.to_string());
    let (model, faults) = (
        repo("examples/foraging/foraging.swarm"),
        repo("examples/foraging/foraging.faults"),
    );
    let mut args = vec![
        "--timeout",
        &seconds,
        "swarm",
        "check",
        &model,
        "--faults",
        &faults,
    ];
    args.extend(["--agents", &agents]);
    for p in props {
        args.extend(["--prop", p]);
    }
    stderr_lines(&args)
}

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

/// The deadline cut the stage `label`: its last line says "timed out"
/// (with what was done), and no line says "done" (as the old meters did).
fn assert_cut(lines: &[(Duration, String)], label: &str) {
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    let last = all
        .iter()
        .rfind(|l| l.starts_with(&format!("{label}: ")))
        .unwrap_or_else(|| panic!("lines of {label}: {all:#?}"));
    assert!(
        last.starts_with(&format!("{label}: timed out, ")),
        "{all:#?}"
    );
    assert!(
        !all.iter().any(|l| l.starts_with(&format!("{label}: done"))),
        "{all:#?}"
    );
}

#[test]
#[ignore = "timing: on a quiet 2-core machine (load 0.1) the query ends in 3.9 s, before the test's deadline cuts it, so the meter says done; passed only under load"]
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
    // The deadline cut the search: its last line says so (issue 34).
    assert_cut(&lines, label);
}

#[test]
fn swarm_check_shows_the_states_explored() {
    // S(6) of the foraging swarm: far over 3 s of exploration (S(5)'s 1.2
    // million states took 2.2 s on a quiet 2-core machine, under the
    // deadline: so S(6)), stopped at 3 s.
    let (lines, ended) = foraging_check(3, 6, &["Pmin=? [ F \"deposited2\" ]"]);
    assert_shows_progress(&lines, ended, "swarm: exploring");
    // The deadline cut the exploration: its last line says so.
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    assert!(
        all.iter()
            .any(|l| l.starts_with("swarm: exploring: timed out, ")),
        "{all:#?}"
    );
    assert!(
        !all.iter().any(|l| l.starts_with("swarm: exploring: done")),
        "{all:#?}"
    );
}

#[test]
fn swarm_check_counts_a_timed_out_property_as_timed_out_not_done() {
    // Two properties on S(3): ten steps, done at once, then a million
    // steps, cut by the deadline at 4 s. The last line of the checking
    // phase says "timed out" and counts one property done, not two.
    let (lines, _) = foraging_check(
        4,
        3,
        &[
            "Pmin=? [ F<=10 \"deposited2\" ]",
            "Pmin=? [ F<=1000000 \"deposited2\" ]",
        ],
    );
    let label = "swarm: checking 2 properties";
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    let last = lines
        .iter()
        .map(|(_, l)| l)
        .rfind(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("lines of {label}: {all:#?}"));
    assert!(
        last.starts_with(&format!("{label}: timed out, ")),
        "{all:#?}"
    );
    assert!(last.ends_with(']'), "{last}");
    assert!(last.contains(", properties done 1) ["), "{last}");
    // While it ran, the first property was done and the second not.
    assert!(
        lines
            .iter()
            .any(|(_, l)| l.starts_with(&format!("{label}: ")) && l.contains("properties done 1)")),
        "{all:#?}"
    );
    assert!(
        !all.iter().any(|l| l.contains("properties done 2")),
        "{all:#?}"
    );
    assert!(
        !all.iter().any(|l| l.starts_with(&format!("{label}: done"))),
        "{all:#?}"
    );
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

/// The lines of a meter with a total: (arrival, done, total, `[t s]`), from
/// "LABEL: UNIT DONE of TOTAL (RATE UNIT/s) [T s]".
fn progress_of_total(
    lines: &[(Duration, String)],
    label: &str,
    unit: &str,
) -> Vec<(Duration, u64, u64, f64)> {
    lines
        .iter()
        .filter_map(|(at, l)| {
            let rest = l.strip_prefix(label)?.strip_prefix(": ")?;
            let rest = rest.strip_prefix(unit)?.strip_prefix(' ')?;
            let (done, rest) = rest.split_once(" of ")?;
            let (total, rest) = rest.split_once(' ')?;
            assert!(rest.contains(&format!("{unit}/s")), "a rate: {l}");
            let t = rest.rsplit_once('[')?.1.strip_suffix(" s]")?.parse().ok()?;
            Some((*at, done.parse().ok()?, total.parse().ok()?, t))
        })
        .collect()
}

#[test]
fn swarm_check_shows_the_iterations_inside_one_long_property() {
    // S(3) is explored at once; a million steps of value iteration take
    // far longer than the 4 s the run is given.
    let (lines, ended) = foraging_check(4, 3, &["Pmin=? [ F<=1000000 \"deposited2\" ]"]);
    let label = "swarm: checking 1 property";
    assert_shows_progress(&lines, ended, label);
    // Still inside the first (and only) property.
    assert!(lines
        .iter()
        .any(|(_, l)| l.starts_with(label) && l.contains("state updates/s, properties done 0)")));
}

#[test]
#[ignore = "timing: on a quiet 2-core machine (load 0.1) the sweep's 11 cells take 1.4 s, one progress line where two are asserted; passed only under load"]
fn swarm_sweep_counts_the_cells_done() {
    // Eleven values of pf, each a model of S(3) and a bounded iteration of
    // 800 steps (about 0.5 s on a loaded 2-core machine): stopped at 8 s.
    let (lines, ended) = stderr_lines(&[
        "--timeout",
        "8",
        "swarm",
        "sweep",
        &repo("examples/foraging/foraging.swarm"),
        "--faults",
        &repo("examples/foraging/foraging.faults"),
        "--prop",
        "Pmax=? [ F<k \"deposited2\" ]",
        "--sweep",
        "pf=0:0.1:1",
        "--k",
        "800..801",
        "--agents",
        "3",
    ]);
    let shown = progress_of_total(&lines, "swarm sweep: pf", "cells");
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    assert!(shown.len() >= 2, "{all:#?}");
    let (arrived, first, total, t) = shown[0];
    assert_eq!(total, 11, "{all:#?}");
    assert!(t <= 1.0, "the first line at {t} s: {all:#?}");
    assert!(arrived + Duration::from_secs(1) < ended, "{all:#?}");
    let last = shown.last().expect("two lines").1;
    assert!(
        last > first && last <= total,
        "cells {first} then {last}: {all:#?}"
    );
}

/// A random PGSolver game: `n` nodes, priorities below `d`, three
/// successors (as tests/deadline.rs writes it).
fn random_game(n: usize, d: u64) -> String {
    let mut state = 7u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let mut text = format!("parity {};\n", n - 1);
    for v in 0..n {
        let mut succ: Vec<u64> = (0..3).map(|_| next() % n as u64).collect();
        succ.sort_unstable();
        succ.dedup();
        let succ: Vec<String> = succ.iter().map(u64::to_string).collect();
        text.push_str(&format!(
            "{v} {} {} {};\n",
            next() % d,
            next() % 2,
            succ.join(",")
        ));
    }
    text
}

#[test]
fn robust_parity_counts_the_lifts_of_the_progress_measures() {
    // A million nodes and 1000 priorities: unfinished after 120 s
    // (tests/deadline.rs); stopped at 14 s, the game read first (3 s, and
    // up to 10 s beside other tests on a loaded machine); the first pass
    // lifts every node once, counted too.
    let dir = tempfile::tempdir().expect("temp dir");
    let game = dir.path().join("big.pg");
    std::fs::write(&game, random_game(1_000_000, 1000)).expect("writes");
    let game = game.display().to_string();
    let (lines, ended) = stderr_lines(&[
        "--timeout",
        "14",
        "robust",
        "parity",
        &game,
        "--solver",
        "spm",
    ]);
    // Quiet until the first lift (after the measures' tables are set up):
    // no bound on the first line's time, only that the counts grow.
    let shown = progress(&lines, "robust parity: solving");
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    assert!(shown.len() >= 2, "{all:#?}");
    assert!(shown[0].0 + Duration::from_secs(1) < ended, "{all:#?}");
    let (first, last) = (shown[0].1, shown.last().expect("two lines").1);
    assert!(first > 0 && last > first, "lifts {first} then {last}");
    assert!(lines
        .iter()
        .any(|(_, l)| l.starts_with("robust parity: solving: ") && l.contains(" lifts/s)")));
    assert_cut(&lines, "robust parity: solving");
}

#[test]
fn robust_faults_counts_the_periods_done() {
    // Periods 1..1000 of the grid patrol: the cost grows with the cube of
    // the period (1..100 took 1.7 s), stopped at 6 s.
    let (lines, ended) = stderr_lines(&[
        "--timeout",
        "6",
        "robust",
        "faults",
        &repo("examples/robust/grid_patrol.ma"),
        "--period",
        "1..1000",
    ]);
    let shown = progress_of_total(&lines, "robust faults", "periods");
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    assert!(shown.len() >= 2, "{all:#?}");
    let (arrived, first, total, t) = shown[0];
    assert_eq!(total, 1000, "{all:#?}");
    assert!(t <= 1.0, "the first line at {t} s: {all:#?}");
    assert!(arrived + Duration::from_secs(1) < ended, "{all:#?}");
    let last = shown.last().expect("two lines").1;
    assert!(
        last > first && last < total,
        "periods {first} then {last}: {all:#?}"
    );
}

/// The HiGHS lines of a `nis` verb: (arrival, solves, nodes, `[t s]`),
/// from "LABEL: N solves (R solves/s, branch-and-bound nodes M) [T s]".
fn highs_lines(lines: &[(Duration, String)], label: &str) -> Vec<(Duration, u64, u64, f64)> {
    let number = |s: &str| s.replace(',', "").parse::<u64>().ok();
    lines
        .iter()
        .filter_map(|(at, l)| {
            let rest = l.strip_prefix(label)?.strip_prefix(": ")?;
            let (solves, rest) = rest.split_once(" solves (")?;
            let (_, rest) = rest.split_once("solves/s, branch-and-bound nodes ")?;
            let (nodes, rest) = rest.split_once(") [")?;
            let t = rest.strip_suffix(" s]")?.parse().ok()?;
            Some((*at, number(solves)?, number(nodes)?, t))
        })
        .collect()
}

/// `nis check` of five sentences on M(6) of the guarding example by MILP,
/// one MILP each of about 0.7 s (docs/performance/nis.md; far longer on a
/// loaded machine), after the global options `front`. The MILPs
/// themselves, not the witness search that answers first.
fn guarding_milps(front: &[&str]) -> Vec<String> {
    let spec = |q: &str, k: u32| format!("forall v1, v2: {q}^{k} (alive, v1) & (alive, v2)");
    let specs = [("EX", 6), ("AX", 6), ("EX", 5), ("AX", 5), ("EX", 4)];
    let model = repo("examples/guarding/guarding.nis");
    let command = ["nis", "check", &model, "--agents", "6", "--engine", "milp"];
    let mut args: Vec<String> = front
        .iter()
        .chain(&command)
        .map(|a| a.to_string())
        .collect();
    args.extend(["--falsify-samples".into(), "0".into()]);
    for (q, k) in specs {
        args.extend(["--spec".into(), spec(q, k)]);
    }
    args
}

#[test]
fn nis_check_counts_the_milps_and_their_nodes_while_highs_solves() {
    let args = guarding_milps(&[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (lines, ended) = stderr_lines(&args);
    let shown = highs_lines(&lines, "nis check: HiGHS");
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    assert!(shown.len() >= 2, "{all:#?}");
    let (arrived, solves, nodes, _) = shown[0];
    assert!(arrived + Duration::from_millis(500) < ended, "{all:#?}");
    let (_, last_solves, last_nodes, _) = *shown.last().expect("two lines");
    assert!(
        last_solves > solves && last_nodes >= nodes,
        "solves {solves} then {last_solves}, nodes {nodes} then {last_nodes}: {all:#?}"
    );
    // The last line, at the end, has every solve: one per sentence at
    // least (the nodes of a MILP HiGHS decides at the root: 0 or 1).
    let done = lines
        .iter()
        .find_map(|(_, l)| l.strip_prefix("nis check: HiGHS: done, "))
        .unwrap_or_else(|| panic!("a last line: {all:#?}"));
    let total: u64 = done
        .split(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(total >= 5, "{done}");
}

/// The network's outputs at `x` (f64, as the test computes them).
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

/// A network of three hidden layers of 32 ReLUs over [-1, 1]^6 and the
/// property "Y_0 >= c" for c a fifth above the largest Y_0 of 20,000
/// samples: the falsifier finds nothing and the bounds refute it only on
/// small boxes, so the search splits for long (seed 3: undecided after 6 s,
/// 11,000 boxes, at a load of 9). Returns the files' paths.
fn hard_instance(dir: &std::path::Path, name: &str) -> (String, String) {
    let d = 6;
    let net = random_network(&[d, 32, 32, 32, 2], 3);
    let mut state = 11u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as f64 / (1u64 << 31) as f64 * 2.0 - 1.0
    };
    let mut best = f64::NEG_INFINITY;
    for _ in 0..20_000 {
        let x: Vec<f64> = (0..d).map(|_| next()).collect();
        best = best.max(forward(&net, &x)[0]);
    }
    let c = best + 0.2 * (1.0 + best.abs());
    let onnx = dir.join(format!("{name}.onnx"));
    std::fs::write(&onnx, onnx_bytes(&net)).expect("writes");
    let mut text = String::from("; generated\n");
    for i in 0..d {
        text += &format!("(declare-const X_{i} Real)\n");
    }
    for v in ["Y_0", "Y_1"] {
        text += &format!("(declare-const {v} Real)\n");
    }
    for i in 0..d {
        text += &format!("(assert (>= X_{i} -1.0))\n(assert (<= X_{i} 1.0))\n");
    }
    text += &format!("(assert (>= Y_0 {c:?}))\n");
    let vnnlib = dir.join(format!("{name}.vnnlib"));
    std::fs::write(&vnnlib, text).expect("writes");
    (onnx.display().to_string(), vnnlib.display().to_string())
}

#[test]
fn nn_verify_counts_the_boxes_of_its_search() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (net, prop) = hard_instance(dir.path(), "hard");
    let (lines, ended) = stderr_lines(&["--timeout", "6", "nn", "verify", &net, &prop]);
    let label = "nn verify: search";
    // The meter is quiet until the first box is done (after the
    // falsification of the whole box, a tenth of the time): no bound on
    // its first line's time, only that it comes long before the end.
    let shown = progress(&lines, label);
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    assert!(shown.len() >= 2, "{all:#?}");
    let (arrived, first, _) = shown[0];
    assert!(arrived + Duration::from_secs(1) < ended, "{all:#?}");
    let last = shown.last().expect("two lines").1;
    assert!(first > 0 && last > first, "boxes {first} then {last}");
    assert!(lines
        .iter()
        .any(|(_, l)| l.starts_with(label) && l.contains(" boxes/s, open boxes ")));
    assert_cut(&lines, label);
}

#[test]
fn nn_verify_instances_counts_the_instances_done() {
    // Four hard instances, each stopped at its timeout of 1.5 s: 6 s in all.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rows = String::new();
    for k in 0..4 {
        let (net, prop) = hard_instance(dir.path(), &format!("i{k}"));
        rows += &format!("{net},{prop},1.5\n");
    }
    let csv = dir.path().join("instances.csv");
    std::fs::write(&csv, rows).expect("writes");
    let out = dir.path().join("out");
    let (lines, ended) = stderr_lines(&[
        "nn",
        "verify",
        "--instances",
        &csv.display().to_string(),
        "--out-dir",
        &out.display().to_string(),
    ]);
    let shown = progress_of_total(&lines, "nn verify", "instances");
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    assert!(shown.len() >= 2, "{all:#?}");
    let (arrived, first, total, t) = shown[0];
    assert_eq!(total, 4, "{all:#?}");
    assert!(t <= 1.0, "the first line at {t} s: {all:#?}");
    assert!(arrived + Duration::from_secs(1) < ended, "{all:#?}");
    let last = shown.last().expect("two lines").1;
    assert!(last > first, "instances {first} then {last}: {all:#?}");
}

/// The totals line of `label`: the count and the level, from
/// "LABEL: done, COUNT UNIT (RATE UNIT/s[, LEVEL_WORD LEVEL]) [T s]".
fn done_line(lines: &[(Duration, String)], label: &str) -> (u64, Option<u64>) {
    let number = |s: &str| s.replace(',', "").parse::<u64>().ok();
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    let rest = lines
        .iter()
        .find_map(|(_, l)| l.strip_prefix(label)?.strip_prefix(": done, "))
        .unwrap_or_else(|| panic!("the totals of {label}: {all:#?}"));
    let count = number(rest.split(' ').next().unwrap()).expect("a count");
    let (inside, _) = rest.split_once(") [").expect("a rate");
    let level = inside
        .split_once("/s, ")
        .and_then(|(_, l)| number(l.rsplit(' ').next()?));
    (count, level)
}

/// The `gen-buchi` patrol of examples/robust/gen_grid.py on a `w` x `h`
/// grid (Manhattan metric, a river in row 0 that carries the robot west, a
/// gust south on moves east, two walls in the top row's east end), visiting
/// the top row's west end and row 1's east end forever.
fn grid_patrol(w: usize, h: usize) -> String {
    let walls = [(w - 2, h - 1), (w - 1, h - 1)];
    let free = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && !walls.contains(&(x as usize, y as usize))
    };
    let mut text = String::from(
        "automaton grid;\nmetric manhattan;\ninputs N, S, E, W, swim;\ndisturbances gust;\n",
    );
    let cells: Vec<(i64, i64)> = (0..h as i64)
        .flat_map(|y| (0..w as i64).map(move |x| (x, y)))
        .filter(|&(x, y)| free(x, y))
        .collect();
    for &(x, y) in &cells {
        text += &format!("state c{x}_{y} at ({x}, {y});\n");
    }
    text += "init c0_1;\n";
    for &(x, y) in &cells {
        if y == 0 {
            text += &if x > 0 {
                format!("trans c{x}_0 swim -> c{}_0;\n", x - 1)
            } else {
                "trans c0_0 N -> c0_1;\n".to_string()
            };
            continue;
        }
        for (input, dx, dy) in [("N", 0, 1), ("S", 0, -1), ("E", 1, 0), ("W", -1, 0)] {
            let (tx, ty) = (x + dx, y + dy);
            if !free(tx, ty) {
                continue;
            }
            text += &format!("trans c{x}_{y} {input} -> c{tx}_{ty}");
            if input == "E" && free(tx, ty - 1) {
                text += &format!(" | gust -> c{tx}_{}", ty - 1);
            }
            text += ";\n";
        }
    }
    text += &format!("gen-buchi {{c0_{}}}, {{c{}_1}};\n", h - 1, w - 1);
    text
}

#[test]
fn robust_solve_counts_the_radii_its_report_gives() {
    // The patrol on a 400 x 400 grid: 160,000 states, about ten inflated
    // games of 0.3 to 1 s each (4 s in all at a load of 6).
    let (w, h) = (400, 400);
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("patrol.ma");
    std::fs::write(&model, grid_patrol(w, h)).expect("writes");
    let report = dir.path().join("report.json");
    let (lines, ended) = stderr_lines(&[
        "--format",
        "json",
        "robust",
        "solve",
        "-o",
        &report.display().to_string(),
        &model.display().to_string(),
    ]);
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    let shown = progress(&lines, "robust solve");
    assert!(shown.len() >= 2, "{all:#?}");
    assert!(shown[0].0 + Duration::from_secs(1) < ended, "{all:#?}");
    let (first, last) = (shown[0].1, shown.last().expect("two lines").1);
    assert!(first > 0 && last > first, "radii {first} then {last}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("a report")).expect("JSON");
    let stats = &report["stats"];
    // The candidate radii are the distinct Manhattan distances to either
    // set: 0 ..= w + h - 2 (to the top row's west end; the dock's are
    // among them).
    let candidates = stats["candidate_radii"].as_u64().expect("candidates");
    assert_eq!(candidates, (w + h - 1) as u64, "{stats}");
    // A binary search over them solves between floor(log2 C) and
    // ceil(log2 (C + 1)) games, and the meter counted each one.
    let solved = stats["radii_solved"].as_u64().expect("radii solved");
    let log2 = |x: u64| 63 - u64::from(x.leading_zeros());
    assert!(
        solved >= log2(candidates) && solved <= log2(candidates) + 1,
        "{solved} of {candidates}"
    );
    assert_eq!(done_line(&lines, "robust solve").0, solved, "{all:#?}");
    assert!(last <= solved, "{last} of {solved}");
}

#[test]
fn robust_parity_counts_zielonkas_attractions_and_calls() {
    // n nodes with self-loops only, node i of priority i: Zielonka peels
    // the top node, recurses on the rest, then removes the opponent's
    // nodes and recurses on the nodes of the top's parity: about n^2/4
    // calls, n^3/24 work (2,000 nodes: 6 s at a load of 6).
    let n = 2000u64;
    let dir = tempfile::tempdir().expect("temp dir");
    let game = dir.path().join("ladder.pg");
    let mut text = format!("parity {};\n", n - 1);
    for v in 0..n {
        text += &format!("{v} {v} {} {v};\n", v % 2);
    }
    std::fs::write(&game, text).expect("writes");
    let (lines, ended) = stderr_lines(&["robust", "parity", &game.display().to_string()]);
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    let label = "robust parity: solving";
    let shown = progress(&lines, label);
    assert!(shown.len() >= 2, "{all:#?}");
    assert!(shown[0].0 + Duration::from_secs(1) < ended, "{all:#?}");
    let (first, last) = (shown[0].1, shown.last().expect("two lines").1);
    assert!(first > 0 && last > first, "attracted {first} then {last}");
    // The recursive calls (the level) grow too.
    let calls: Vec<u64> = lines
        .iter()
        .filter(|(_, l)| l.starts_with(&format!("{label}: ")) && !l.contains(": done, "))
        .filter_map(|(_, l)| {
            let (_, rest) = l.split_once("recursive calls ")?;
            rest.split(')').next()?.replace(',', "").parse().ok()
        })
        .collect();
    assert!(calls.len() >= 2 && calls[0] > 0, "{all:#?}");
    assert!(calls.last() > calls.first(), "{calls:?}");
    // The totals, computed independently: on nodes 0..k the call peels
    // k - 1 (1 call, 1 node), solves 0..k - 1, and if the opponent of
    // k - 1's parity owns some of them, attracts those (o nodes) and solves
    // the s nodes of k - 1's parity, one call and one node at a time.
    let (mut want_calls, mut want_attracted) = (0u64, 0u64);
    for k in 1..=n {
        let p = (k - 1) % 2;
        let o = (0..k - 1).filter(|i| i % 2 != p).count() as u64;
        let s = (0..k).filter(|i| i % 2 == p).count() as u64;
        want_calls += 1;
        want_attracted += 1;
        if o > 0 {
            want_calls += s;
            want_attracted += o + s;
        }
    }
    assert_eq!((want_calls, want_attracted), (1_002_999, 2_002_999));
    assert_eq!(
        done_line(&lines, label),
        (want_attracted, Some(want_calls)),
        "{all:#?}"
    );
}

#[test]
fn nn_bounds_counts_the_lps_of_its_tightening() {
    // Three hidden layers of 64 ReLUs over [-1, 1]^8: 128 ReLUs unstable
    // past the first layer, two LPs each over the relaxed layers below
    // (256 LPs in 3.8 s at a load of 9).
    let (d, width) = (8, 64);
    let net = random_network(&[d, width, width, width, 2], 5);
    let dir = tempfile::tempdir().expect("temp dir");
    let onnx = dir.path().join("wide.onnx");
    std::fs::write(&onnx, onnx_bytes(&net)).expect("writes");
    let report = dir.path().join("report.json");
    let (lines, ended) = stderr_lines(&[
        "--format",
        "json",
        "nn",
        "bounds",
        "-o",
        &report.display().to_string(),
        &onnx.display().to_string(),
        "--box",
        "[-1,1]",
        "--lp-tighten",
        "--no-exact",
    ]);
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    let label = "nn bounds: LP tightening";
    let shown = progress_of_total(&lines, label, "LPs");
    assert!(shown.len() >= 2, "{all:#?}");
    let (arrived, first, total, t) = shown[0];
    assert!(t <= 1.0, "the first line at {t} s: {all:#?}");
    assert!(arrived + Duration::from_secs(1) < ended, "{all:#?}");
    let last = shown.last().expect("two lines").1;
    assert!(
        last > first && last <= total,
        "LPs {first} then {last} of {total}"
    );
    // The first layer's pre-activations over the box are exact intervals
    // (no LP): its unstable ReLUs, computed here.
    let first_layer_unstable = (0..width)
        .filter(|&j| {
            let b = f64::from(net[0].bias[j]);
            let spread: f64 = (0..d).map(|i| f64::from(net[0].weights[i][j]).abs()).sum();
            b - spread < 0.0 && b + spread > 0.0
        })
        .count() as u64;
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("a report")).expect("JSON");
    let unstable = |stage: &str| {
        report["results"]["stages"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["name"] == stage))
            .and_then(|s| s["unstable"].as_u64())
            .unwrap_or_else(|| panic!("stage {stage} in {report}"))
    };
    // Two LPs per ReLU unstable under the symbolic bounds past the first
    // layer, at most; at least two per ReLU still unstable after.
    let (symbolic, lp) = (unstable("symbolic"), unstable("lp"));
    assert_eq!(total, 2 * (symbolic - first_layer_unstable), "{all:#?}");
    let done = lines
        .iter()
        .find_map(|(_, l)| l.strip_prefix(&format!("{label}: done, LPs ")))
        .unwrap_or_else(|| panic!("the totals: {all:#?}"));
    let solved: u64 = done.split(' ').next().unwrap().parse().unwrap();
    assert!(
        solved >= 2 * (lp - first_layer_unstable) && solved <= total,
        "{solved} LPs, {lp} unstable after, {total} at most"
    );
}

#[test]
fn nis_check_says_the_deadline_cut_its_milps() {
    // The five MILPs of guarding_milps, cut at 2 s (issue 34).
    let args = guarding_milps(&["--timeout", "2"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (lines, _) = stderr_lines(&args);
    assert_cut(&lines, "nis check: HiGHS");
}

#[test]
#[ignore = "timing: on a quiet 2-core machine S(9)'s exact policy iteration ends within the meter's first half second, so no line is printed (passed only under load); the counts are asserted by swarm::decide's lib test of the meter"]
fn swarm_check_exact_counts_the_policy_iterations_solves() {
    // The aggregation swarm on S(9) with --exact: an unbounded property's
    // exact values come from policy iteration over the rationals, seconds
    // of eliminations on its states (issue 34).
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let (lines, _) = stderr_lines(&[
        "--format",
        "json",
        "swarm",
        "check",
        "-o",
        &report.display().to_string(),
        &repo("examples/aggregation/aggregation.swarm"),
        "--faults",
        &repo("examples/aggregation/aggregation.faults"),
        "--agents",
        "9",
        "--exact",
        "--prop",
        "Pmax=? [ !\"crashed\" U \"aggregate2\" ]",
    ]);
    let all: Vec<&String> = lines.iter().map(|(_, l)| l).collect();
    let label = "swarm: exact policy iteration";
    let shown = progress(&lines, label);
    assert!(!shown.is_empty(), "{all:#?}");
    assert!(lines
        .iter()
        .any(|(_, l)| l.starts_with(label)
            && l.contains(" states eliminated/s, schedulers evaluated ")));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("a report")).expect("JSON");
    let p = &report["results"]["properties"][0];
    assert_eq!(p["method"], "policy iteration", "{p}");
    // The totals: the schedulers the report counts, and at least one
    // elimination per scheduler.
    let schedulers = p["schedulers"].as_u64().expect("schedulers");
    let (eliminated, level) = done_line(&lines, label);
    assert_eq!(level, Some(schedulers), "{all:#?}");
    assert!(eliminated >= schedulers, "{all:#?}");
}
