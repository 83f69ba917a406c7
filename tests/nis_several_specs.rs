//! `nis check|verify|emergence` take several sentences (issue 34): `--spec`
//! repeated and `--specs FILE`. Each entry must be what the sentence alone
//! gives; the verdict is their conjunction; a file's bad sentence is
//! located; a deadline keeps the sentences decided before it.

#[path = "support/cli.rs"]
mod cli;

use cli::repo;

const HOLDS_ON_M3: &str = "forall v1, v2: EX^2 (alive, v1) & (alive, v2)";
const FAILS_ON_M3: &str = "forall v1: AX^1 (alive, v1)";

/// `mavis [--format json] nis VERB examples/guarding/guarding.nis ARGS...`.
fn nis(json: bool, verb: &str, args: &[&str]) -> cli::Run {
    let model = repo("examples/guarding/guarding.nis");
    let format: &[&str] = if json { &["--format", "json"] } else { &[] };
    let mut all = format.to_vec();
    all.extend(["nis", verb, &model]);
    all.extend(args);
    cli::run(&all)
}

/// A `--specs` file with `text` in a fresh folder (kept while the folder lives).
fn specs_file(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.specs");
    std::fs::write(&file, text).unwrap();
    (dir, file.display().to_string())
}

fn verdict_alone(verb: &str, extra: &[&str], spec: &str) -> serde_json::Value {
    let mut args = vec!["--spec", spec];
    args.extend(extra);
    nis(true, verb, &args).json()["verdict"].clone()
}

#[test]
fn each_entry_is_what_its_sentence_alone_gives() {
    for (verb, extra) in [("check", &["--agents", "3"][..]), ("verify", &[][..])] {
        let mut args = extra.to_vec();
        args.extend(["--spec", HOLDS_ON_M3, "--spec", FAILS_ON_M3]);
        let both = nis(true, verb, &args).expect_code(1).json();
        let queries = both["results"]["queries"].as_array().unwrap();
        assert_eq!(queries.len(), 2);
        for (q, spec) in queries.iter().zip([HOLDS_ON_M3, FAILS_ON_M3]) {
            assert_eq!(q["query"], spec);
            assert_eq!(
                q["verdict"],
                verdict_alone(verb, extra, spec),
                "{verb} {spec}"
            );
        }
        // Hand-checked: in M(3) two guards can be alive after 2 steps, but
        // no agent is sure to be alive after one (all may rest and expire).
        assert_eq!(queries[0]["verdict"], "holds", "{verb}");
        assert_eq!(queries[1]["verdict"], "violated", "{verb}");
        assert_eq!(both["verdict"], "violated", "the conjunction");
    }
    // One sentence alone keeps the report it always had (no `queries`).
    let one = nis(true, "check", &["--agents", "3", "--spec", HOLDS_ON_M3])
        .success()
        .json();
    assert!(one["results"].get("queries").is_none(), "{one}");
}

#[test]
fn a_specs_file_reads_as_its_lines() {
    let (_dir, file) = specs_file(&format!("# guarding\n{HOLDS_ON_M3}\n\n  {HOLDS_ON_M3}\n"));
    let r = nis(true, "check", &["--agents", "3", "--specs", &file])
        .success()
        .json();
    let queries = r["results"]["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 2);
    assert!(queries
        .iter()
        .all(|q| q["verdict"] == "holds" && q["query"] == HOLDS_ON_M3));
    assert_eq!(r["verdict"], "holds");
}

#[test]
fn a_bad_sentence_of_a_file_is_located_before_any_is_decided() {
    let (_dir, file) = specs_file(&format!("{HOLDS_ON_M3}\n\nforall v1: EX^1 (alive, v2)\n"));
    let r = nis(false, "verify", &["--specs", &file]).expect_code(2);
    assert!(r.stderr.contains("q.specs:3:17"), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "nothing was decided: {}", r.stdout);
    let (_empty_dir, empty) = specs_file("# nothing\n");
    let r = nis(false, "verify", &["--specs", &empty]).expect_code(2);
    assert!(r.stderr.contains("no sentence"), "{}", r.stderr);
}

#[test]
fn the_deadline_keeps_the_sentences_decided_before_it() {
    // The second sentence explores M(30) to depth 12 (tens of seconds).
    let model = repo("examples/guarding/guarding.nis");
    let r = cli::run(&[
        "--timeout",
        "2",
        "--format",
        "json",
        "nis",
        "check",
        &model,
        "--agents",
        "30",
        "--spec",
        "forall v1, v2: EX^1 (alive, v1) & (alive, v2)",
        "--spec",
        "forall v1, v2: EX^12 (alive, v1) & (alive, v2)",
        "--spec",
        HOLDS_ON_M3,
    ])
    .expect_code(3);
    let r = r.json();
    let queries = r["results"]["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 3);
    assert_eq!(queries[0]["verdict"], "holds");
    assert_eq!(queries[1]["verdict"], "unknown");
    assert_eq!(queries[2]["verdict"], "unknown");
    assert_eq!(r["verdict"], "unknown");
}
