//! `mavis merge` checks every part against the form its verb writes (issue
//! 33, item 3): a verdict `"maybe"` was counted as violated, a probability
//! 2.5 was printed and plotted, and a cell without `holds` (or `{}`)
//! panicked with exit 101. Each is now exit 2 naming the file and the cell;
//! a part changed after it was written fails its checksum.

#[path = "support/cli.rs"]
mod cli;

use cli::{foraging_sweep_args, repo, run};
use serde_json::Value;
use std::path::Path;

/// A change to a cell's result.
type Edit = fn(&mut Value);

const SPEC: &str = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)";

/// Writes the two parts of a 2-way sharded run of `args`; their paths.
fn parts(args: &[&str], dir: &Path, tag: &str) -> Vec<String> {
    (1..=2)
        .map(|i| {
            let path = dir.join(format!("{tag}{i}.json")).display().to_string();
            let shard = format!("{i}/2");
            let mut a = args.to_vec();
            a.extend(["--shard", &shard, "--format", "json", "-o", &path]);
            run(&a).success();
            path
        })
        .collect()
}

fn read(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Writes `part` to `path`, resealed (its checksum made to match, as a
/// writer with a bug would) unless `seal` is false.
fn write(path: &str, mut part: Value, seal: bool) {
    if seal {
        mavis::report::shard::seal(&mut part);
    }
    std::fs::write(path, part.to_string()).unwrap();
}

/// `mavis merge` of `files`: exit 2 (never a panic), naming `file` and the
/// message `want`.
#[track_caller]
fn assert_refused(files: &[String], file: &str, want: &str) {
    let mut args = vec!["--format", "json", "merge"];
    args.extend(files.iter().map(String::as_str));
    let r = run(&args).expect_code(2);
    // The message on one line (stderr wraps it).
    let message = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message.contains(file),
        "the file {file} is not named: {message}"
    );
    assert!(message.contains(want), "expected `{want}` in: {message}");
}

#[test]
fn table_cells_that_cannot_be_are_refused_with_file_and_cell() {
    let dir = tempfile::tempdir().unwrap();
    let model = repo("examples/guarding/guarding_thresholds.nis");
    let args = [
        "nis", "table", &model, "--spec", SPEC, "--k", "1..2", "--agents", "2..3",
    ];
    let p = parts(&args, dir.path(), "t");
    let mut merge = vec!["merge"];
    merge.extend(p.iter().map(String::as_str));
    run(&merge).success();
    let original = read(&p[1]);
    let key = original["cells"][0]["key"].as_str().unwrap().to_string();
    assert!(original["cells"][0]["result"].is_object(), "{original}");
    let edits: [(Edit, &str); 4] = [
        (
            |r| r["holds"] = "maybe".into(),
            "`holds` is \"maybe\", expected true or false",
        ),
        (
            |r| {
                r.as_object_mut().unwrap().remove("holds");
            },
            "has no `holds`",
        ),
        (|r| *r = serde_json::json!({}), "has no `spec`"),
        (
            |r| r["time_s"] = (-1.0).into(),
            "`time_s` is -1.0, expected a number in [0, inf)",
        ),
    ];
    let edited = dir.path().join("edited.json").display().to_string();
    for (edit, want) in &edits {
        let mut part = original.clone();
        edit(&mut part["cells"][0]["result"]);
        write(&edited, part, true);
        let files = [p[0].clone(), edited.clone()];
        assert_refused(&files, &edited, &format!("cell `{key}`: the result {want}"));
    }
    // The same edit without resealing: the checksum names the file.
    let mut part = original.clone();
    part["cells"][0]["result"]["holds"] =
        (!part["cells"][0]["result"]["holds"].as_bool().unwrap()).into();
    write(&edited, part, false);
    assert_refused(
        &[p[0].clone(), edited.clone()],
        &edited,
        "do not match the checksum",
    );
}

#[test]
fn a_sweep_probability_above_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let owned = foraging_sweep_args();
    let args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let p = parts(&args, dir.path(), "s");
    let mut part = read(&p[0]);
    let key = part["cells"][0]["key"].as_str().unwrap().to_string();
    assert_eq!(
        part["cells"][0]["result"]["rows"][0]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    part["cells"][0]["result"]["rows"][0][1] = "2.5".into();
    let edited = dir.path().join("edited.json").display().to_string();
    write(&edited, part, true);
    assert_refused(
        &[edited.clone(), p[1].clone()],
        &edited,
        &format!("cell `{key}`: the result `rows[0][1]` is \"2.5\", expected a number (as text) in [0, 1]"),
    );
}
