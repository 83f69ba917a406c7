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

/// The JSON `nis table` of SPEC, k 1..3 on M(2)..M(4), with `extra`.
fn table(extra: &[&str]) -> cli::Run {
    let model = repo("examples/guarding/guarding.nis");
    let mut args = vec!["--format", "json", "nis", "table", &model, "--spec", SPEC];
    args.extend(["--k", "1..3", "--agents", "2..4"]);
    args.extend(extra);
    cli::run(&args)
}

/// `mavis [--format json] merge --allow-missing PARTS...`.
fn merge_allowing_missing(json: bool, parts: &[&str]) -> cli::Run {
    let format: &[&str] = if json { &["--format", "json"] } else { &[] };
    let mut args = format.to_vec();
    args.extend(["merge", "--allow-missing"]);
    args.extend(parts);
    cli::run(&args)
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
        table(&["--shard", &shard, "-o", &part(i)]).success();
    }
    let (p1, p2, p3) = (part(1), part(2), part(3));
    let whole = table(&[]).success().json();
    let refused = cli::run(&["merge", &p1, &p2]).expect_code(2);
    assert!(
        refused.stderr.contains("missing shard 3/3"),
        "{}",
        refused.stderr
    );

    let merged = merge_allowing_missing(true, &[&p1, &p2])
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
    let text = merge_allowing_missing(false, &[&p1, &p2]).expect_code(3);
    let dots = text.stdout.split_whitespace().filter(|w| *w == ".").count();
    assert_eq!(dots, all.len() - got.len(), "{}", text.stdout);
    assert!(text.stderr.contains("missing shard 3/3"), "{}", text.stderr);
    // All three parts: the flag changes nothing.
    let full = merge_allowing_missing(true, &[&p1, &p2, &p3])
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
    let r = merge_allowing_missing(false, &[&part]).expect_code(2);
    assert!(r.stderr.contains("missing shard 2/2"), "{}", r.stderr);
    assert!(r.stderr.contains("nis table"), "{}", r.stderr);
}
