//! Sharded grids through GNU parallel, `mavis merge` and `mavis batch`: a
//! 3-way sharded `nis table` and `swarm sweep` run by a real `parallel`
//! merge to the bytes of the unsharded run (text, JSON, CSV, the plots);
//! parts that do not belong together are refused with exit 2; a batch line's
//! report is the report of the same command line run alone.

#[path = "support/cli.rs"]
mod cli;

use cli::repo;
use std::path::Path;
use std::process::Command;

const SPEC: &str = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)";

fn mavis_path() -> String {
    assert_cmd::cargo::cargo_bin("mavis").display().to_string()
}

/// The binary's exit status, stdout and stderr.
fn run(args: &[String]) -> (i32, String, String) {
    let out = Command::new(mavis_path())
        .args(args)
        .output()
        .expect("run mavis");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn table_args(model: &str) -> Vec<String> {
    strings(&[
        "nis", "table", model, "--spec", SPEC, "--k", "1..4", "--agents", "2..4",
    ])
}

fn sweep_args() -> Vec<String> {
    strings(&[
        "swarm",
        "sweep",
        &repo("examples/foraging/foraging_small.swarm"),
        "--faults",
        &repo("examples/foraging/foraging_small.faults"),
        "--prop",
        "Pmax=? [ F<k \"deposited2\" ]",
        "--sweep",
        "pf=0:0.25:1",
        "--k",
        "8..11",
        "--agents",
        "2",
    ])
}

/// Whether GNU parallel is installed (scripts/prereqs.sh installs it).
fn have_parallel() -> bool {
    let found = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        println!("skipped: GNU parallel is not installed (apt-get install parallel)");
    }
    found
}

/// Shards 1..3 of `args` run by GNU parallel, each writing `dir/part{}.json`.
fn shards_through_parallel(args: &[String], dir: &Path) -> Vec<String> {
    let out_pattern = dir.join("part{}.json").display().to_string();
    let status = Command::new("parallel")
        .args(["--will-cite", "-q", "--halt", "now,fail=1", &mavis_path()])
        .args(args)
        .args(["--shard", "{}/3", "--format", "json", "-o", &out_pattern])
        .args([":::", "1", "2", "3"])
        .status()
        .expect("run GNU parallel");
    assert!(status.success(), "parallel: {status}");
    (1..=3)
        .map(|i| dir.join(format!("part{i}.json")).display().to_string())
        .collect()
}

/// `mavis merge PARTS OPTIONS` must print exactly what `ARGS OPTIONS` prints.
fn assert_merge_is_unsharded(args: &[String], parts: &[String], options: &[&str]) {
    let mut whole = args.to_vec();
    whole.extend(strings(options));
    let (code, want, _) = run(&whole);
    let mut merge = strings(&["merge"]);
    merge.extend(parts.iter().cloned());
    merge.extend(strings(options));
    let (merged_code, got, err) = run(&merge);
    assert_eq!(merged_code, code, "{err}");
    assert!(!want.is_empty());
    assert_eq!(got, want, "merged output differs for {options:?}");
}

#[test]
fn parallel_sharded_nis_table_merges_to_the_unsharded_bytes() {
    if !have_parallel() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let args = table_args(&repo("examples/guarding/guarding.nis"));
    let parts = shards_through_parallel(&args, dir.path());
    for options in [
        &["--no-times"][..],
        &["--no-times", "--table-format", "csv"],
        &["--no-times", "--table-format", "markdown"],
        &["--no-times", "--format", "json"],
    ] {
        assert_merge_is_unsharded(&args, &parts, options);
    }
    // With times: the same table, each cell's time taken from its part.
    let mut merge = strings(&["merge", "--format", "json"]);
    merge.extend(parts.iter().cloned());
    let (code, text, _) = run(&merge);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cells = v["results"]["cells"].as_array().unwrap();
    // 3 agent counts x 4 depths; M(2) with 2 indexed agents exists for every k.
    assert_eq!(cells.len(), 12);
    assert!(cells.iter().all(|c| c["time_s"].is_number()));
    // Every merged cell has the verdict `nis check` gives that cell alone.
    for c in cells {
        let n = c["agents"].to_string();
        let spec = SPEC.replace("{k}", &c["k"].to_string());
        let (code, _, _) = run(&strings(&[
            "nis",
            "check",
            &repo("examples/guarding/guarding.nis"),
            "--agents",
            &n,
            "--spec",
            &spec,
        ]));
        assert_eq!(code == 0, c["holds"] == true, "{c}");
    }
}

#[test]
fn parallel_sharded_swarm_sweep_merges_to_the_unsharded_bytes_and_plots() {
    if !have_parallel() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let args = sweep_args();
    let parts = shards_through_parallel(&args, dir.path());
    assert_merge_is_unsharded(&args, &parts, &[]);
    assert_merge_is_unsharded(&args, &parts, &["--no-times", "--format", "json"]);
    // CSV and plots: both runs write the same prefix, one after the other.
    let prefix = dir.path().join("sweep").display().to_string();
    let files = ["csv", "svg", "png"].map(|e| dir.path().join(format!("sweep.{e}")));
    let mut whole = args.clone();
    whole.extend(strings(&["--out", &prefix]));
    assert_eq!(run(&whole).0, 0);
    let unsharded: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    files.iter().for_each(|f| std::fs::remove_file(f).unwrap());
    let mut merge = strings(&["merge", "--out", &prefix]);
    merge.extend(parts.iter().cloned());
    assert_eq!(run(&merge).0, 0);
    for (file, want) in files.iter().zip(&unsharded) {
        assert_eq!(&std::fs::read(file).unwrap(), want, "{}", file.display());
    }
    // The CSV holds the computed values: pf = 0 at k = 9 is 0.0225 (as the unsharded table prints).
    let csv = String::from_utf8(unsharded[0].clone()).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("0.0,9,0.0225")), "{csv}");
}

/// The 3 parts of `args`, run one after the other (no parallel needed).
fn parts_of(args: &[String], dir: &Path, tag: &str) -> Vec<String> {
    (1..=3)
        .map(|i| {
            let path = dir.join(format!("{tag}{i}.json")).display().to_string();
            let mut a = args.to_vec();
            let shard = format!("{i}/3");
            a.extend(strings(&[
                "--shard", &shard, "--format", "json", "-o", &path,
            ]));
            let (code, _, err) = run(&a);
            assert_eq!(code, 0, "{err}");
            path
        })
        .collect()
}

/// `mavis merge PARTS` fails with exit 2 and a message containing `want`.
fn assert_refused(parts: &[&String], want: &str) {
    let mut merge = strings(&["merge"]);
    merge.extend(parts.iter().map(|p| p.to_string()));
    let (code, out, err) = run(&merge);
    assert_eq!(code, 2, "stdout: {out}\nstderr: {err}");
    assert!(err.contains(want), "expected `{want}` in: {err}");
}

#[test]
fn merge_refuses_missing_duplicated_and_foreign_parts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = table_args(&repo("examples/guarding/guarding.nis"));
    let p = parts_of(&args, d, "a");
    assert_refused(&[&p[0], &p[2]], "missing shard 2/3");
    assert_refused(&[&p[0], &p[1], &p[1], &p[2]], "shard 2/3 is given twice");
    // Another model file.
    let other = parts_of(
        &table_args(&repo("examples/guarding/guarding_thresholds.nis")),
        d,
        "b",
    );
    assert_refused(&[&p[0], &p[1], &other[2]], "different model (sha256)");
    // Another option that changes the cells.
    let mut milp = args.clone();
    milp.extend(strings(&["--engine", "milp"]));
    let q = parts_of(&milp, d, "c");
    assert_refused(
        &[&p[0], &p[1], &q[2]],
        "option `engine`: \"Auto\" and \"Milp\"",
    );
    // Another sweep: a different verb altogether.
    let sweep = parts_of(&sweep_args(), d, "d");
    assert_refused(&[&p[0], &p[1], &sweep[2]], "different verb");
    // The same cell in two parts (a part edited to claim another's cell).
    let mut forged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p[2]).unwrap()).unwrap();
    let stolen =
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&p[1]).unwrap())
            .unwrap()["cells"][0]
            .clone();
    let key = stolen["key"].as_str().unwrap().to_string();
    forged["cells"].as_array_mut().unwrap().push(stolen);
    let forged_path = d.join("forged.json").display().to_string();
    std::fs::write(&forged_path, forged.to_string()).unwrap();
    assert_refused(
        &[&p[0], &p[1], &forged_path],
        &format!("cell `{key}` is in two parts"),
    );
    // A part of another mavis version.
    let mut older: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p[2]).unwrap()).unwrap();
    older["version"] = "0.0.1".into();
    let older_path = d.join("older.json").display().to_string();
    std::fs::write(&older_path, older.to_string()).unwrap();
    assert_refused(&[&p[0], &p[1], &older_path], "different mavis version");
    // A part that lost a cell: its checksum no longer matches; resealed
    // (as by a writer with a bug), the cell is named as missing.
    forged["cells"].as_array_mut().unwrap().truncate(0);
    std::fs::write(&forged_path, forged.to_string()).unwrap();
    assert_refused(&[&p[0], &p[1], &forged_path], "do not match the checksum");
    mavis::report::shard::seal(&mut forged);
    std::fs::write(&forged_path, forged.to_string()).unwrap();
    assert_refused(&[&p[0], &p[1], &forged_path], "missing: `spec 1");
    // Not a part at all.
    let (code, plain, _) = run(&args
        .iter()
        .cloned()
        .chain(strings(&["--format", "json"]))
        .collect::<Vec<_>>());
    assert_eq!(code, 0);
    let plain_path = d.join("plain.json").display().to_string();
    std::fs::write(&plain_path, plain).unwrap();
    assert_refused(&[&plain_path], "is not a part of a sharded run");
}

#[test]
fn robust_faults_shards_merge_to_the_unsharded_output() {
    let dir = tempfile::tempdir().unwrap();
    let args = strings(&[
        "robust",
        "faults",
        &repo("examples/robust/icy_ramp.ma"),
        "--period",
        "1..7",
    ]);
    let parts = parts_of(&args, dir.path(), "f");
    assert_merge_is_unsharded(&args, &parts, &["--no-times"]);
    assert_merge_is_unsharded(&args, &parts, &["--no-times", "--format", "json"]);
}

/// A report without its measured times (the `stats` and `*time*_s` keys).
fn timeless(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => serde_json::Value::Object(
            m.iter()
                .filter(|(k, _)| *k != "stats" && !(k.contains("time") && k.ends_with("_s")))
                .map(|(k, v)| (k.clone(), timeless(v)))
                .collect(),
        ),
        serde_json::Value::Array(a) => a.iter().map(timeless).collect(),
        other => other.clone(),
    }
}

#[test]
fn batch_lines_report_as_the_same_command_lines_alone() {
    let dir = tempfile::tempdir().unwrap();
    let guarding = repo("examples/guarding/guarding.nis");
    let check = format!(
        "nis check '{guarding}' --agents 2 --spec 'forall v1, v2: EX^3 (alive, v1) & (alive, v2)'"
    );
    let ok = format!("mavis nis check '{guarding}' --agents 3 --spec \"forall v1, v2: EX^3 (alive, v1) & (alive, v2)\"");
    let file = dir.path().join("queries.txt");
    std::fs::write(&file, format!("# two queries and a bad one\n{check}\n\n{ok}\nnis check /no/such/file.nis --agents 2 --spec x\n")).unwrap();
    let file = file.display().to_string();
    let (code, out, err) = run(&strings(&["batch", &file]));
    // The largest status: 2 (the missing file).
    assert_eq!(code, 2, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(
        lines
            .iter()
            .map(|l| (
                l["line"].as_u64().unwrap(),
                l["exit_status"].as_u64().unwrap()
            ))
            .collect::<Vec<_>>(),
        [(2, 1), (4, 0), (5, 2)]
    );
    assert_eq!(lines[2]["error"]["kind"], "input");
    // Line 2 alone, as a Slurm array task runs it, equals the command line run directly.
    let out_dir = dir.path().join("reports");
    let (code, _, _) = run(&strings(&[
        "batch",
        &file,
        "--line",
        "2",
        "--out-dir",
        &out_dir.display().to_string(),
    ]));
    assert_eq!(code, 1);
    let alone: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("line-2.json")).unwrap())
            .unwrap();
    let mut direct = strings(&[
        "--format", "json", "nis", "check", &guarding, "--agents", "2",
    ]);
    direct.extend(strings(&[
        "--spec",
        "forall v1, v2: EX^3 (alive, v1) & (alive, v2)",
    ]));
    let (direct_code, direct_out, _) = run(&direct);
    assert_eq!(direct_code, 1);
    let mut want: serde_json::Value = serde_json::from_str(&direct_out).unwrap();
    want["line"] = 2.into();
    want["exit_status"] = 1.into();
    assert_eq!(timeless(&alone), timeless(&want));
    // A blank line is not a query.
    let (code, _, err) = run(&strings(&["batch", &file, "--line", "3"]));
    assert_eq!(code, 2);
    assert!(err.contains(":3: no query on line 3"), "{err}");
}
