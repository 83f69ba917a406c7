//! Nothing can crash, hang or exhaust the machine (issue 13, section 3):
//! long flat expression chains are accepted, absurd sizes and malformed
//! options are refused with exit 2 and a message naming the limit, and no
//! input panics. Every case here crashed (SIGABRT, exit 101), ran out of
//! memory or was silently accepted before its fix.

#[path = "support/cli.rs"]
mod cli;
use cli::{mavis, root};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn guarding() -> String {
    root()
        .join("examples/guarding/guarding.nis")
        .display()
        .to_string()
}

/// `1 op 1 op ... op 1` with `n` operands.
fn chain(op: &str, n: usize) -> String {
    vec!["1"; n].join(op)
}

/// The guarding model with its first constant replaced, and the network
/// path made absolute so the copy loads from anywhere.
fn guarding_with(dir: &Path, mh: &str) -> PathBuf {
    let text = std::fs::read_to_string(guarding()).unwrap();
    let net = root().join("networks/").display().to_string();
    let text = text
        .replacen("const Mh = 4;", &format!("const Mh = {mh};"), 1)
        .replace("\"../../networks/", &format!("\"{net}"));
    assert!(text.contains(mh));
    let path = dir.join("g.nis");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn flat_chains_evaluate_without_overflowing_the_stack() {
    // 5,500 operands aborted with a stack overflow; 60,000 fit one argument.
    for n in [5_500, 60_000] {
        mavis()
            .args(["lang", "eval", &chain("+", n)])
            .assert()
            .success()
            .stdout(format!("{n}\n"));
        // 1 - 1 - ... - 1 = 1 - (n - 1).
        mavis()
            .args(["lang", "eval", &chain("-", n)])
            .assert()
            .success()
            .stdout(format!("{}\n", 2 - n as i64));
    }
    // Mixed signs: +1 and -2 alternating after a leading 0; the value by hand.
    let terms: Vec<String> = (0..30_000)
        .map(|i| if i % 2 == 0 { "+1" } else { "-2" }.to_string())
        .collect();
    let expected: i64 = (0..30_000).map(|i| if i % 2 == 0 { 1 } else { -2 }).sum();
    mavis()
        .args(["lang", "eval", &format!("0{}", terms.concat())])
        .assert()
        .success()
        .stdout(format!("{expected}\n"));
    // 2 / 2 / ... / 2 (50 operands) = 2^-48, and 3 * 2 / 2 * 2 / 2 ... = 3.
    let halves = vec!["2"; 50].join(" / ");
    mavis()
        .args(["lang", "eval", &halves])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("1/281474976710656 "));
    let mixed = format!("3{}", " * 2 / 2".repeat(5_000));
    mavis()
        .args(["lang", "eval", &mixed])
        .assert()
        .success()
        .stdout("3\n");
    // A division by zero anywhere in a long chain is still one.
    let zero = format!("1{} / 0{}", " / 1".repeat(20), " * 2".repeat(20));
    mavis()
        .args(["lang", "eval", &zero])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("zero"));
    mavis()
        .args(["lang", "eval", &vec!["true"; 15_000].join(" & ")])
        .assert()
        .success()
        .stdout("true\n");
    // --set values are expressions too.
    mavis()
        .args(["lang", "eval", "N - 1", "--set"])
        .arg(format!("N={}", chain("+", 50_000)))
        .assert()
        .success()
        .stdout("49999\n");
}

#[test]
fn deep_nesting_is_refused_with_a_location() {
    // Each parenthesis level holds a chain of 8: the tree gets 7 levels deeper
    // per parenthesis, past the documented 1,000.
    let text = format!("{}1{}", "(".repeat(150), "+1+1+1+1+1+1+1)".repeat(150));
    mavis()
        .args(["lang", "eval", &text])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<expression>:1:1"))
        .stderr(predicate::str::contains("the limit is 1000"));
}

#[test]
fn chains_in_every_model_format() {
    let dir = tempfile::tempdir().unwrap();
    let c = chain("+", 100_000);
    // A .nis constant.
    let nis = guarding_with(dir.path(), &format!("4 + 0*({c})"));
    mavis()
        .args(["nis", "check"])
        .arg(&nis)
        .args(["--agents", "2", "--spec", "forall v1: EX (alive, v1)"])
        .assert()
        .success();
    // A swarm guard.
    let swarm =
        std::fs::read_to_string(root().join("examples/foraging/foraging_small.swarm")).unwrap();
    let guard = "[search]  state=1 & t=0 ->";
    assert!(swarm.contains(guard));
    let swarm = swarm.replacen(guard, &format!("[search]  state=1 & t=0 & 0*({c})=0 ->"), 1);
    std::fs::write(dir.path().join("f.swarm"), swarm).unwrap();
    let value = |args: &[&str], file: &Path| -> String {
        let run = cli::run_command(
            mavis()
                .args(["--format", "json", "swarm", "check"])
                .arg(file)
                .arg("--faults")
                .arg(root().join("examples/foraging/foraging_small.faults"))
                .args(args),
        );
        run.success().json()["results"].to_string()
    };
    let prop = ["--prop", "Pmax=? [ F<13 \"deposited2\" ]", "--agents", "2"];
    assert_eq!(
        value(&prop, &dir.path().join("f.swarm")),
        value(
            &prop,
            &root().join("examples/foraging/foraging_small.swarm")
        )
    );
    // A .ma constant.
    let ma = format!(
        "automaton tiny;\nconst L = 0*({c}) + 2;\nmetric manhattan;\ninputs go;\n\
         state a at (0, 0);\nstate b at (L, 0);\ninit a;\ntrans a go -> b;\ntrans b go -> b;\nreach b;\n"
    );
    std::fs::write(dir.path().join("c.ma"), ma).unwrap();
    mavis()
        .args(["robust", "solve"])
        .arg(dir.path().join("c.ma"))
        .assert()
        .success()
        .stdout(predicate::str::contains("sigma = 0"));
    // A timed query.
    mavis()
        .args(["timed", "check"])
        .arg(root().join("examples/cav/platoon2.mapt"))
        .arg("--query")
        .arg(format!("EF x2 - x1 < 1 + 0*({})", chain("+", 50_000)))
        .assert()
        .code(predicate::in_iter([0, 1]));
}

#[test]
fn nis_sizes_beyond_the_limits_are_refused() {
    let g = guarding();
    let spec = "forall v1: EX (alive, v1)";
    // The JSON error message is not wrapped to the terminal's width.
    let refused = |args: &[&str], needle: &str| {
        mavis()
            .args(["--format", "json"])
            .args(args)
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .stdout(predicate::str::contains(needle));
    };
    // Grew to 2.6 GB.
    refused(
        &[
            "nis",
            "check",
            &g,
            "--agents",
            "18446744073709551615",
            "--spec",
            spec,
        ],
        "the limit of 1000000",
    );
    // Ran on for minutes, gigabytes deep.
    refused(
        &["nis", "check", &g, "--agents", "1000000", "--spec", spec],
        "the limit is 100000",
    );
    // EX^10000 by MILP grew past 1.5 GB.
    refused(
        &[
            "nis",
            "check",
            &g,
            "--agents",
            "2",
            "--engine",
            "milp",
            "--spec",
            "forall v1: EX^10000 (alive, v1)",
        ],
        "(20000 agent-steps); the limit is 2000",
    );
    // Stack overflow.
    refused(
        &[
            "nis",
            "simulates",
            &g,
            "--indexed",
            "1",
            "--depth",
            "100000",
            "--agents",
            "2",
        ],
        "the limit is 10000",
    );
    // Panicked allocating 2^64 indexed agents.
    refused(
        &[
            "nis",
            "simulates",
            &g,
            "--indexed",
            "18446744073709551615",
            "--depth",
            "2",
        ],
        "--indexed 18446744073709551615 is beyond the limit",
    );
    // Accepted, answering an empty grid.
    refused(
        &[
            "nis",
            "table",
            &g,
            "--agents",
            "0",
            "--k",
            "1",
            "--spec",
            "forall v1: EX^{k} (alive, v1)",
        ],
        "at least 1 agent",
    );
    // Ran past its time-out inside one expansion: a state of M_ab(199)
    // has 2^199 joint moves, enumerated before any deadline check. The
    // choosers counted are the environment and the 199 indexed agents (the
    // zero-one agent's moves are taken by outcome, not enumerated).
    let many: Vec<String> = (1..200).map(|i| format!("v{i}")).collect();
    let wide = format!("forall {}: AX^3 (alive, v1)", many.join(", "));
    refused(
        &["nis", "verify", &g, "--spec", &wide],
        "more than 16777216 joint choices (200 choosers)",
    );
    refused(
        &["nis", "check", &g, "--agents", "199", "--spec", &wide],
        "more than 16777216 joint choices (200 choosers)",
    );
    // Still answered: the limits are far from ordinary sizes.
    mavis()
        .args([
            "nis",
            "simulates",
            &g,
            "--indexed",
            "1",
            "--depth",
            "10000",
            "--agents",
            "2",
        ])
        .assert()
        .code(1);
}

#[test]
fn nis_ranges_and_bounds_beyond_the_encodings_are_input_errors() {
    let dir = tempfile::tempdir().unwrap();
    // A full-i64 range: a remainder by zero (exit 101).
    let text = std::fs::read_to_string(guarding()).unwrap();
    let text = text
        .replacen(
            "var h : [0..Mh] = 3;",
            "var h : [-9223372036854775808..9223372036854775807] = 3;",
            1,
        )
        .replace(
            "\"../../networks/",
            &format!("\"{}/networks/", root().display()),
        );
    assert!(text.contains("9223372036854775807"));
    std::fs::write(dir.path().join("wide.nis"), text).unwrap();
    mavis()
        .args(["nis", "check"])
        .arg(dir.path().join("wide.nis"))
        .args([
            "--agents",
            "2",
            "--spec",
            "forall v1: EX (alive, v1)",
            "--engine",
            "explicit",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "has the bound -9223372036854775808",
        ));
    // Real bounds of 1e15: "internal error ... HiGHS error while building model".
    mavis()
        .args(["--format", "json", "nis", "check"])
        .arg(root().join("examples/guarding_real/guarding_real.nis"))
        .args([
            "--set",
            "Mh=1e15",
            "--agents",
            "2",
            "--spec",
            "forall v1: EX (alive, v1)",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "guarding_real.nis:16:7: `h` has the bound 1000000000000000, beyond the 10^9",
        ));
}

#[test]
fn a_full_stderr_keeps_the_exit_status() {
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("mavis"))
        .args(["lang", "eval", "1 + true"])
        .stderr(full)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}

#[test]
fn absurd_options_are_refused() {
    mavis()
        .args(["--threads", "1024", "lang", "eval", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("1..=64"));
    mavis()
        .args(["robust", "solve"])
        .arg(root().join("examples/robust/grid_reach.ma"))
        .args(["--max-sigma", "NaN"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a bound on sigma"));
    let sweep = |range: &str| {
        let mut cmd = mavis();
        cmd.args(["swarm", "sweep"])
            .arg(root().join("examples/foraging/foraging_small.swarm"))
            .arg("--faults")
            .arg(root().join("examples/foraging/foraging_small.faults"))
            .args(["--prop", "Pmax=? [ F<k \"deposited2\" ]", "--k", "8..9"])
            .args(["--agents", "2", "--sweep", range]);
        cmd
    };
    // Silently cut to its first 10,000 values.
    sweep("pf=0:1/20000:1")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the range has 20001 values; the limit is 10000",
        ));
}

#[test]
fn gen_buchi_without_sets_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"name": "t", "metric": "manhattan",
        "states": [{"name": "a", "at": [0]}, {"name": "b", "at": [1]}],
        "init": "a", "inputs": ["go"], "disturbances": [],
        "transitions": [{"from": "a", "input": "go", "to": "b"}, {"from": "b", "input": "go", "to": "b"}],
        "objective": {"gen-buchi": []}}"#;
    std::fs::write(dir.path().join("t.json"), json).unwrap();
    mavis()
        .args(["robust", "solve"])
        .arg(dir.path().join("t.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("accepting set"));
    // The same automaton with one set is solved.
    let one = json.replace(r#""gen-buchi": []"#, r#""gen-buchi": [["b"]]"#);
    std::fs::write(dir.path().join("one.json"), one).unwrap();
    mavis()
        .args(["robust", "solve"])
        .arg(dir.path().join("one.json"))
        .assert()
        .success();
}

#[test]
fn special_files_are_read_up_to_the_input_limit() {
    // /dev/zero was read until the memory ran out.
    mavis().args(["lang", "eval", "1"]).assert().success();
    for verb in [
        &["robust", "solve"][..],
        &["nis", "check"],
        &["timed", "validate"],
        // These two read their file without the cap until this session.
        &["batch"],
        &["merge"],
    ] {
        let mut cmd = mavis();
        cmd.args(verb).arg("/dev/zero");
        if verb[0] == "nis" {
            cmd.args(["--agents", "2", "--spec", "forall v1: EX (alive, v1)"]);
        }
        cmd.timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("/dev/zero"))
            .stderr(predicate::str::contains("input limit"))
            .stderr(predicate::str::contains("256"));
    }
}

/// A byte-order mark, written by some editors, was an "unexpected
/// character" at 1:1; it is not part of the text.
#[test]
fn a_leading_byte_order_mark_is_not_part_of_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.nis");
    let text = std::fs::read_to_string(guarding_with(dir.path(), "4")).unwrap();
    std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
    let spec = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)";
    for (agents, code) in [("2", 1), ("3", 0)] {
        mavis()
            .args(["nis", "check"])
            .arg(&path)
            .args(["--agents", agents, "--spec", spec])
            .assert()
            .code(code);
    }
    // A mark inside the text stays an error, located where an editor shows it.
    let inner = dir.path().join("inner.nis");
    std::fs::write(&inner, format!("{}\n\u{feff}", text.trim_end())).unwrap();
    let last_line = text.trim_end().lines().count() + 1;
    mavis()
        .args(["nis", "check"])
        .arg(&inner)
        .args(["--agents", "2", "--spec", spec])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("inner.nis:{last_line}:1")));
}

/// A FIFO with no writer: `open` waited for one forever, even past
/// `--timeout`, since nothing interrupts a blocked `open`. Now it is
/// refused at once, and a FIFO with a writer is read to its end.
#[cfg(unix)]
#[test]
fn a_fifo_is_read_from_its_writer_and_refused_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("model.mapt");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    mavis()
        .args(["timed", "validate"])
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("model.mapt"))
        .stderr(predicate::str::contains("FIFO"))
        .stderr(predicate::str::contains("nothing was written to it"));
    // (`.timeout` above bounds the run: no clock is read here.)
    // With a writer that is there before mavis starts and writes only then,
    // the file is whole. The order comes from the statements, not from a
    // head start of some sleep: a reader of the test's own (which never
    // reads) lets the writer's open return at once, so the writer is open
    // before mavis is started; the writer is closed only once mavis has
    // read every byte (the FIFO holds none: FIONREAD), which gives it the
    // end of the file.
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let text = std::fs::read(root().join("examples/cav/platoon2.mapt")).unwrap();
    let own_reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let reader = std::process::Command::new(assert_cmd::cargo::cargo_bin("mavis"))
        .args(["timed", "validate"])
        .arg(&fifo)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let unread = || {
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int through the pointer given.
        let r = unsafe { libc::ioctl(own_reader.as_raw_fd(), libc::FIONREAD, &mut n) };
        assert_eq!(r, 0, "FIONREAD");
        n
    };
    for chunk in text.chunks(4096) {
        writer.write_all(chunk).unwrap();
        while unread() > 0 {
            std::thread::yield_now();
        }
    }
    drop(writer);
    let reader = reader.wait_with_output();
    drop(own_reader);
    let direct = cli::run(&[
        "timed",
        "validate",
        &cli::repo("examples/cav/platoon2.mapt"),
    ]);
    let out = reader.unwrap();
    assert_eq!(out.status.code(), Some(direct.code), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), direct.stdout);
}

/// A coefficient that only reaches 10^15 through an update (`h * 1e15`
/// inside a clamp): every declared bound is within 10^9, so the model was
/// accepted, and HiGHS then failed "while building model" (exit 3, an
/// internal error). The MILP layer now refuses the row before solving,
/// naming it and the variable (exit 2).
#[test]
fn a_milp_coefficient_beyond_highs_is_refused_naming_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("examples/guarding_real/guarding_real.nis"))
        .unwrap()
        .replacen(
            "guard                   -> h := clamp(h + Gr, 0, Mh);",
            "guard                   -> h := clamp(h * 1e15, 0, Mh);",
            1,
        )
        .replace(
            "\"../../networks/",
            &format!("\"{}/networks/", root().display()),
        );
    assert!(text.contains("h * 1e15"));
    let model = dir.path().join("steep.nis");
    std::fs::write(&model, text).unwrap();
    let r = cli::run(&[
        "--format",
        "json",
        "nis",
        "check",
        model.to_str().unwrap(),
        "--agents",
        "2",
        "--spec",
        "forall v1: EX^2 (alive, v1)",
        // The MILP's refusal: the proof by boxes, which needs no solver,
        // answers this sentence before any MILP (docs/nis.md).
        "--box-states",
        "0",
    ])
    .expect_code(2);
    let v = r.json();
    assert_eq!(v["error"]["kind"], "input", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("coefficient 1e15"), "{message}");
    assert!(message.contains("of variable '"), "{message}");
    assert!(message.contains("below 1e15"), "{message}");
    assert!(!message.contains("HiGHS error"), "{message}");
}
