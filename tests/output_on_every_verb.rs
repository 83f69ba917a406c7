//! `-o FILE` works on every verb (issue 34, "Outputs for spreadsheets and
//! scripts"): what would go to standard output goes to FILE instead, whole,
//! with the same exit status; a folder that does not exist is refused
//! before the run. A verb whose `-o` names its product (an export, a
//! conversion) keeps that meaning.

#[path = "support/cli.rs"]
mod cli;

use cli::repo;

/// Every verb of the command line, as its path of subcommand names.
fn leaf_verbs(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
    let subs: Vec<_> = cmd.get_subcommands().collect();
    if subs.is_empty() {
        out.push((path, cmd.clone()));
        return;
    }
    for sub in subs {
        let mut p = path.clone();
        p.push(sub.get_name().to_string());
        leaf_verbs(sub, p, out);
    }
}

#[test]
fn every_verb_takes_dash_o() {
    let mut cmd = mavis::cli::command();
    cmd.build();
    let mut verbs = Vec::new();
    leaf_verbs(&cmd, Vec::new(), &mut verbs);
    // lang 1, nn 4, nis 5, timed 4, robust 5, swarm 3, merge, batch.
    assert!(verbs.len() >= 24, "{} verbs", verbs.len());
    for (path, verb) in verbs
        .iter()
        .filter(|(p, _)| !p.contains(&"help".to_string()))
    {
        let o = verb
            .get_arguments()
            .find(|a| a.get_short() == Some('o'))
            .unwrap_or_else(|| panic!("`mavis {}` has no -o", path.join(" ")));
        assert_eq!(o.get_long(), Some("output"), "mavis {}", path.join(" "));
    }
}

/// Measured times differ between two runs: every decimal number (times
/// are printed with a point: `0.001 s`, a `time (s)` column) and every
/// value of a key that names a time (JSON) is masked.
fn without_times(text: &str) -> String {
    let seconds = regex::Regex::new(r"[0-9]+\.[0-9]+(e[+-]?[0-9]+)?( s\b)?").unwrap();
    let json_time =
        regex::Regex::new(r#"("[a-z_]*(time|_s|seconds)[a-z_]*": )[0-9.e+-]+"#).unwrap();
    let text = seconds.replace_all(text, "T s");
    json_time.replace_all(&text, "${1}T").into_owned()
}

/// Runs the command line twice, to stdout and with `-o FILE`, and checks
/// that the file holds what stdout held and that the exit status is the same.
#[track_caller]
fn same_as_stdout(args: &[&str], code: i32) {
    let to_stdout = cli::run(args).expect_code(code);
    assert!(!to_stdout.stdout.is_empty(), "{args:?} printed nothing");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.txt");
    let mut with_o: Vec<&str> = args.to_vec();
    let file_arg = file.display().to_string();
    with_o.extend(["-o", &file_arg]);
    let to_file = cli::run(&with_o).expect_code(code);
    assert!(
        to_file.stdout.is_empty(),
        "{args:?} -o still printed: {}",
        to_file.stdout
    );
    let written = std::fs::read_to_string(&file).expect("the -o file is written");
    assert_eq!(
        without_times(&written),
        without_times(&to_stdout.stdout),
        "{args:?}"
    );
}

#[test]
fn the_file_holds_what_stdout_would_have() {
    let net = repo("tests/fixtures/policy_1_4_4_2.onnx");
    let guarding = repo("examples/guarding/guarding.nis");
    let spec = "forall v1, v2: EX^2 (alive, v1) & (alive, v2)";
    same_as_stdout(&["lang", "eval", "1/3 + 0.15"], 0);
    same_as_stdout(&["nn", "info", &net], 0);
    same_as_stdout(
        &["--format", "json", "nn", "eval", &net, "--input", "0.75"],
        0,
    );
    same_as_stdout(&["nn", "bounds", &net, "--box", "[0,1]"], 0);
    same_as_stdout(
        &["nis", "check", &guarding, "--agents", "3", "--spec", spec],
        0,
    );
    same_as_stdout(
        &[
            "--format",
            "json",
            "nis",
            "verify",
            &guarding,
            "--spec",
            "forall v1: AX^1 (alive, v1)",
        ],
        1,
    );
    same_as_stdout(&["nis", "emergence", &guarding, "--spec", spec], 0);
    same_as_stdout(
        &[
            "nis",
            "simulates",
            &guarding,
            "--indexed",
            "2",
            "--depth",
            "2",
        ],
        0,
    );
    same_as_stdout(
        &[
            "timed",
            "check",
            &repo("examples/cav/platoon2.mapt"),
            "--horizon",
            "2p",
        ],
        1, // collision (EF x1 - x2 <= 0) is violated
    );
    same_as_stdout(
        &["robust", "solve", &repo("examples/robust/grid_reach.ma")],
        0,
    );
    same_as_stdout(&["robust", "parity", &repo("examples/robust/game.pg")], 0);
    same_as_stdout(
        &[
            "swarm",
            "check",
            &repo("examples/foraging/foraging_small.swarm"),
            "--faults",
            &repo("examples/foraging/foraging_small.faults"),
            "--prop",
            "Pmax=? [ F<6 \"deposited2\" ]",
            "--agents",
            "2",
        ],
        0,
    );
}

#[test]
fn a_missing_folder_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no_such_folder/out.txt");
    let r = cli::run(&["lang", "eval", "1", "-o", missing.to_str().unwrap()]).expect_code(2);
    assert!(r.stderr.contains("does not exist"), "{}", r.stderr);
    assert!(!missing.exists());
}

#[test]
fn an_export_keeps_its_own_dash_o() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("platoon2.xml");
    let r = cli::run(&[
        "timed",
        "export",
        &repo("examples/cav/platoon2.mapt"),
        "--to",
        "uppaal",
        "-o",
        xml.to_str().unwrap(),
    ])
    .success();
    let written = std::fs::read_to_string(&xml).unwrap();
    assert!(written.starts_with("<?xml"), "{written}");
    assert!(!r.stdout.contains("<?xml"), "the export went to stdout too");
}
