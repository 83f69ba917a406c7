//! `mavis merge --allow-missing` (issue 34, the Slurm recipe's item 4): a
//! `nis table` whose shard never wrote its part is merged from the parts
//! there are, the missing shard's cells drawn as `.`, verdict unknown (exit
//! 3); each merged cell is the unsharded run's. Without the flag, and for
//! the verbs that do not draw missing cells, the merge refuses (exit 2).

#[path = "support/cli.rs"]
mod cli;

use cli::repo;
use serde_json::Value;

const SPEC: &str = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)";

fn table_args(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["--format", "json", "nis", "table"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend([
        repo("examples/guarding/guarding.nis"),
        "--spec".into(),
        SPEC.into(),
    ]);
    args.extend(
        ["--k", "1..3", "--agents", "2..4"]
            .iter()
            .map(|s| s.to_string()),
    );
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn run(args: &[String]) -> cli::Run {
    cli::run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// (k, agents, holds) of every cell.
fn cells(report: &Value) -> Vec<(u64, u64, bool)> {
    let mut out: Vec<_> = report["results"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["k"].as_u64().unwrap(),
                c["agents"].as_u64().unwrap(),
                c["holds"].as_bool().unwrap(),
            )
        })
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn a_missing_shard_is_drawn_as_dots_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let part = |i: usize| {
        dir.path()
            .join(format!("part{i}.json"))
            .display()
            .to_string()
    };
    for i in 1..=3 {
        let shard = format!("{i}/3");
        run(&table_args(&["--shard", &shard, "-o", &part(i)])).success();
    }
    let whole = run(&table_args(&[])).success().json();
    let refused = cli::run(&["merge", &part(1), &part(2)]).expect_code(2);
    assert!(
        refused.stderr.contains("missing shard 3/3"),
        "{}",
        refused.stderr
    );

    let merged = cli::run(&[
        "--format",
        "json",
        "merge",
        "--allow-missing",
        &part(1),
        &part(2),
    ])
    .expect_code(3)
    .json();
    assert_eq!(merged["verdict"], "unknown");
    assert_eq!(merged["stats"]["missing_shards"], 1);
    let got = cells(&merged);
    let all = cells(&whole);
    // Every merged cell is the unsharded run's, and the missing ones are few.
    assert!(
        got.iter().all(|c| all.contains(c)),
        "{got:?} not in {all:?}"
    );
    assert!(
        !got.is_empty() && got.len() < all.len(),
        "{} of {}",
        got.len(),
        all.len()
    );
    let text = cli::run(&["merge", "--allow-missing", &part(1), &part(2)]).expect_code(3);
    let dots = text.stdout.split_whitespace().filter(|w| *w == ".").count();
    assert_eq!(dots, all.len() - got.len(), "{}", text.stdout);
    assert!(text.stderr.contains("missing shard 3/3"), "{}", text.stderr);
    // All three parts: the flag changes nothing.
    let full = cli::run(&[
        "--format",
        "json",
        "merge",
        "--allow-missing",
        &part(1),
        &part(2),
        &part(3),
    ])
    .success()
    .json();
    assert_eq!(cells(&full), all);
}

#[test]
fn a_sweep_with_a_missing_shard_is_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    let part = dir.path().join("part1.json").display().to_string();
    cli::run(&[
        "--format",
        "json",
        "robust",
        "faults",
        &repo("examples/robust/icy_ramp.ma"),
        "--period",
        "1..4",
        "--shard",
        "1/2",
        "-o",
        &part,
    ])
    .success();
    let r = cli::run(&["merge", "--allow-missing", &part]).expect_code(2);
    assert!(r.stderr.contains("missing shard 2/2"), "{}", r.stderr);
    assert!(r.stderr.contains("nis table"), "{}", r.stderr);
}
