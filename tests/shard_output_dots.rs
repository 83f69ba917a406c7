//! A shard's text output claims only what the shard computed (issue 33,
//! item 4): `robust faults --shard 1/3` said "bound 4 at T = 1" when the
//! shard had computed only T = 3, and sharded `robust faults` and `swarm
//! sweep` outputs left out the other shards' rows instead of drawing them
//! as `.` (docs/cluster.md).

#[path = "support/cli.rs"]
mod cli;

use cli::{foraging_sweep_args, repo, run};

/// The first line that starts with `prefix` (after spaces), split on spaces.
fn row<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines()
        .find(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no row `{prefix}` in:\n{text}"))
        .split_whitespace()
        .collect()
}

#[test]
fn a_faults_shard_states_only_its_own_periods() {
    let model = repo("examples/robust/icy_ramp.ma");
    let whole = run(&["robust", "faults", &model, "--period", "1..3"]).success();
    // Which period shard 1/3 computes: the shard's cells are its JSON part's.
    let part = run(&[
        "--format", "json", "robust", "faults", &model, "--period", "1..3", "--shard", "1/3",
    ])
    .success()
    .json();
    let mine: Vec<&str> = part["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert_eq!(mine.len(), 1, "{part}");
    let shard = run(&[
        "robust", "faults", &model, "--period", "1..3", "--shard", "1/3",
    ])
    .success();
    for t in 1..=3 {
        let (w, s) = (
            row(&whole.stdout, &format!("{t} ")),
            row(&shard.stdout, &format!("{t} ")),
        );
        if mine[0] == format!("T={t}") {
            assert_eq!(s, w, "the shard's own period T = {t}");
        } else {
            assert_eq!(
                s,
                vec![t.to_string().as_str(), ".", ".", "."],
                "T = {t} of another shard"
            );
        }
    }
    // The summary line names a bound at T = 1 and T = 3 only where computed.
    let head = shard
        .stdout
        .lines()
        .find(|l| l.starts_with("trade-off"))
        .unwrap()
        .to_string();
    let whole_head = whole
        .stdout
        .lines()
        .find(|l| l.starts_with("trade-off"))
        .unwrap();
    let bound = |line: &str, t: usize| -> String {
        let at = line.find(&format!(" at T = {t}")).unwrap();
        line[..at].rsplit(' ').next().unwrap().to_string()
    };
    for t in [1, 3] {
        let want = if mine[0] == format!("T={t}") {
            bound(whole_head, t)
        } else {
            ".".into()
        };
        assert_eq!(bound(&head, t), want, "T = {t}: {head}");
    }
    assert!(head.contains("the others' are `.`"), "{head}");
}

#[test]
fn a_sweep_shard_draws_the_other_values_as_dots() {
    let owned = foraging_sweep_args();
    let args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let whole = run(&args).success();
    let mut sharded = args.to_vec();
    sharded.extend(["--shard", "2/3"]);
    let shard = run(&sharded).success();
    // Equal costs: shard 2 of 3 computes the second value, pf = 0.5.
    let lines = |t: &str| -> Vec<Vec<String>> {
        t.lines()
            .map(|l| l.split_whitespace().map(String::from).collect::<Vec<_>>())
            .filter(|w| w.len() == 3 && w[1].parse::<usize>().is_ok())
            .collect()
    };
    let (w, s) = (lines(&whole.stdout), lines(&shard.stdout));
    assert_eq!(w.len(), 6, "{}", whole.stdout);
    assert_eq!(s.len(), 6, "every value and k has a row: {}", shard.stdout);
    for (a, b) in w.iter().zip(&s) {
        assert_eq!(a[..2], b[..2]);
        if a[0] == "0.5" {
            assert_eq!(a, b);
        } else {
            assert_eq!(b[2], ".", "{b:?}");
        }
    }
}
