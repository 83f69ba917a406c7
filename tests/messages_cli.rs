//! What users read: exports that their consumers parse, negative numbers as
//! option values, `-q`/`-v`, and error messages that point at the user's own
//! text (issue 13, section 4). The nis messages are in `nis_messages.rs`.

#[path = "support/cli.rs"]
mod cli;
use cli::{run, Run};
use std::path::Path;

/// Uppaal's files start with a DOCTYPE; roxmltree refuses DTDs unless asked.
fn xml(text: &str) -> Result<roxmltree::Document<'_>, roxmltree::Error> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, opts)
}

const PLATOON2: &str = "examples/cav/platoon2.mapt";

/// Line and column (1-based) of the first `needle` in `text`, counted by hand.
fn line_col(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).expect("needle in text");
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap().chars().count() + 1;
    (line, col)
}

#[test]
fn uppaal_export_on_stdout_is_one_xml_document_and_the_scale_is_a_note() {
    let r = run(&["timed", "export", PLATOON2, "--to", "uppaal"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Uppaal reads the file with an XML parser; so does this test.
    let doc = xml(&r.stdout).unwrap_or_else(|e| panic!("not XML: {e}\n{}", r.stdout));
    let nta = doc.root_element();
    assert_eq!(nta.tag_name().name(), "nta");
    let templates: Vec<_> = nta
        .children()
        .filter(|n| n.has_tag_name("template"))
        .collect();
    // platoon2: road, car1, car2.
    assert_eq!(templates.len(), 3);
    let system = nta
        .children()
        .find(|n| n.has_tag_name("system"))
        .and_then(|n| n.text())
        .unwrap();
    assert_eq!(system.trim(), "system P_road, P_car1, P_car2;");
    assert!(
        r.stderr
            .contains("note: V scaled to integers by the factor 2"),
        "{}",
        r.stderr
    );
    // The factor is also in the file, as a comment of the declarations.
    assert!(r.stdout.contains("numbers of V scaled by 2"));
}

#[test]
fn quiet_never_cuts_an_export_but_drops_its_notes() {
    let full = run(&["timed", "export", PLATOON2, "--to", "uppaal"]);
    let quiet = run(&["-q", "timed", "export", PLATOON2, "--to", "uppaal"]);
    assert_eq!(quiet.code, 0);
    assert_eq!(quiet.stdout, full.stdout);
    assert!(xml(&quiet.stdout).is_ok());
    assert_eq!(quiet.stderr, "");
    // A conversion to stdout is the whole file too, and reads back.
    let v = run(&["-q", "timed", "convert", PLATOON2]).success().json();
    assert_eq!(v["agents"].as_array().unwrap().len(), 3);
    let prism = run(&[
        "-q",
        "swarm",
        "export",
        "examples/foraging/foraging_small.swarm",
        "--faults",
        "examples/foraging/foraging_small.faults",
        "--agents",
        "1",
    ]);
    assert_eq!(prism.code, 0, "{}", prism.stderr);
    assert!(prism.stdout.lines().count() > 10, "{}", prism.stdout);
    assert!(
        prism
            .stdout
            .trim_end()
            .ends_with("label \"deposited1\" = (foodDeposited_E > (0));"),
        "{}",
        prism.stdout
    );
}

#[test]
fn an_export_to_a_file_is_xml_and_json_mode_carries_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.xml");
    let r = run(&[
        "timed",
        "export",
        PLATOON2,
        "--to",
        "uppaal",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with("wrote "), "{}", r.stdout);
    let text = std::fs::read_to_string(&out).unwrap();
    xml(&text).unwrap();
    let (v, _) = cli::json(&["timed", "export", PLATOON2, "--to", "uppaal"]);
    assert_eq!(v["results"]["scale"], "2");
    assert_eq!(v["output"].as_str().unwrap(), text);
}

/// TChecker's own syntax check, where `tck-syntax` is installed (README,
/// timed export: how to build it); skipped, and saying so, elsewhere.
#[test]
fn tchecker_accepts_the_tchecker_export() {
    let Ok(found) = std::process::Command::new("tck-syntax").arg("-h").output() else {
        eprintln!("SKIPPED: tck-syntax is not on PATH");
        return;
    };
    assert!(found.status.success() || !found.stdout.is_empty());
    let dir = tempfile::tempdir().unwrap();
    // The CAV examples use conditional expressions, which TChecker lacks (the
    // export refuses them); these use every construct the export writes:
    // real and Boolean components, scaled fractions, a product, an initial
    // clock, simultaneous updates, a negated guard.
    let models = [
        "var x: real = 1/4;\nvar b: bool = false;\nagent a period 10 clock 2 {\n  p -> q in [1, 4] when x < 3 do x := x + 1/2, b := true;\n  q -> r in [4, 9];\n}\nagent c period 6 {\n  s -> t in [0, 6] do x := x * 2;\n}\n",
        "var x: int = 0;\nagent a period 5 { p -> q in [1, 2] when !(x >= 3) do x := x + 1; }\n",
    ];
    for (i, text) in models.iter().enumerate() {
        let path = dir.path().join(format!("m{i}.mapt"));
        std::fs::write(&path, text).unwrap();
        let model = path.to_str().unwrap();
        let file = dir.path().join("m.tck");
        let r = run(&[
            "timed",
            "export",
            model,
            "--to",
            "tchecker",
            "-o",
            file.to_str().unwrap(),
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let check = std::process::Command::new("tck-syntax")
            .arg("-c")
            .arg(&file)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
        assert!(check.status.success(), "{model}: {said}");
        assert!(!said.to_lowercase().contains("error"), "{model}: {said}");
    }
}

#[test]
fn negative_numbers_are_values() {
    // The example of `nn eval --help` (a second input `-1,1`) runs.
    let r = run(&[
        "nn",
        "eval",
        "tests/fixtures/mlp_2_16_16_3.onnx",
        "--input",
        "0.1,0.2",
        "--input",
        "-1,1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("2 inputs evaluated"), "{}", r.stdout);
    // A negative input of the fixture, against onnxruntime's outputs.
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/mlp_2_16_16_3.json").unwrap(),
    )
    .unwrap();
    let x: Vec<f64> = serde_json::from_value(fixture["inputs"][1].clone()).unwrap();
    let y: Vec<f64> = serde_json::from_value(fixture["outputs"][1].clone()).unwrap();
    assert!(x[0] < 0.0, "the case must start with a minus sign");
    let arg = format!("{},{}", x[0], x[1]);
    let r = run(&[
        "--format",
        "json",
        "nn",
        "eval",
        "tests/fixtures/mlp_2_16_16_3.onnx",
        "--input",
        &arg,
    ]);
    let v = r.success().json();
    let got: Vec<f64> = serde_json::from_value(v["results"]["outputs"][0].clone()).unwrap();
    for (g, w) in got.iter().zip(&y) {
        assert!((g - w).abs() < 1e-9, "{got:?} against {y:?}");
    }
    let r = run(&["lang", "eval", "-1 + 3"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "2\n"), "{}", r.stderr);
    let r = run(&["lang", "eval", "-x", "--set", "x=-5"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "5\n"), "{}", r.stderr);
    // A negative number where a natural one is expected: the parser's own
    // message, not "unexpected argument".
    let r = run(&[
        "timed",
        "check",
        PLATOON2,
        "--seed",
        "-1",
        "--query",
        "EF time > 1",
        "--horizon",
        "2",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("invalid value '-1'"), "{}", r.stderr);
}

#[test]
fn verbose_prints_a_line_per_stage_and_quiet_nothing() {
    let args = [
        "nn",
        "bounds",
        "tests/fixtures/policy_1_4_4_2.onnx",
        "--box",
        "[0,1]",
    ];
    let v = run(&[&["-v"], &args[..]].concat());
    assert_eq!(v.code, 0, "{}", v.stderr);
    for stage in [
        "interval propagation",
        "symbolic propagation",
        "exact ranges, 4 MILPs",
    ] {
        assert!(v.stderr.contains(stage), "{stage}: {}", v.stderr);
    }
    let normal = run(&args);
    // Same report (timings aside): compare the verdict lines.
    assert_eq!(
        v.stdout.lines().next(),
        normal.stdout.lines().next(),
        "-v changes stderr only"
    );
    assert!(!normal.stderr.contains("propagation"), "{}", normal.stderr);
    let q = run(&[&["-q"], &args[..]].concat());
    assert_eq!(q.stderr, "");
    let swarm = run(&[
        "-v",
        "swarm",
        "check",
        "examples/foraging/foraging_small.swarm",
        "--faults",
        "examples/foraging/foraging_small.faults",
        "--agents",
        "1",
        "--prop",
        "Pmax=? [ F<5 \"deposited1\" ]",
    ]);
    assert!(
        swarm.stderr.contains("swarm: exploring"),
        "{}",
        swarm.stderr
    );
    assert!(swarm.stderr.contains("states explored"), "{}", swarm.stderr);
}

/// The verbs that printed nothing under `-v` (timed check, the robust
/// verbs) and `nn bounds`' MILPs one by one: a line per stage or step under
/// `-v`, nothing under `-q` or off a terminal without `-v`.
#[test]
fn timed_robust_and_each_milp_report_progress_under_verbose() {
    let cases: [(&[&str], &[&str]); 5] = [
        (
            &[
                "timed",
                "check",
                PLATOON2,
                "--query",
                "EF time > 1",
                "--horizon",
                "2",
            ],
            &[
                "timed check: query `query` (1 of 1)",
                "timed check: `query` answered in",
            ],
        ),
        (
            &["robust", "solve", "examples/robust/grid_reach.ma"],
            &["robust solve: ", "states, reach objective"],
        ),
        (
            &[
                "robust",
                "parity",
                "examples/robust/game.pg",
                "--solver",
                "spm",
            ],
            &["robust parity: solving a game of", "(progress measures)"],
        ),
        (
            &[
                "robust",
                "faults",
                "examples/robust/icy_ramp.ma",
                "--period",
                "1..3",
            ],
            &["robust faults: periods: 3/3 done in"],
        ),
        (
            &[
                "nn",
                "bounds",
                "tests/fixtures/policy_1_4_4_2.onnx",
                "--box",
                "[0,1]",
            ],
            &["nn bounds: MILPs: 4/4 done in"],
        ),
    ];
    for (args, lines) in cases {
        let v = run(&[&["-v"], args].concat());
        assert_eq!(v.code, 0, "{args:?}: {}", v.stderr);
        for line in lines {
            assert!(v.stderr.contains(line), "{args:?}: {line}: {}", v.stderr);
        }
        // Off a terminal and without -v: no progress at all; -q: nothing.
        assert_eq!(run(args).stderr, "", "{args:?}");
        assert_eq!(run(&[&["-q"], args].concat()).stderr, "", "{args:?}");
    }
    // -vv: a line per MILP as it is solved.
    let vv = run(&[
        "-vv",
        "nn",
        "bounds",
        "tests/fixtures/policy_1_4_4_2.onnx",
        "--box",
        "[0,1]",
    ]);
    for step in 1..=4 {
        let line = format!("nn bounds: MILPs: {step}/4");
        assert!(vv.stderr.contains(&line), "{line}: {}", vv.stderr);
    }
}

fn swarm_check(props: &[&str]) -> Run {
    let mut args = vec![
        "swarm",
        "check",
        "examples/foraging/foraging_small.swarm",
        "--faults",
        "examples/foraging/foraging_small.faults",
        "--agents",
        "1",
    ];
    args.extend_from_slice(props);
    run(&args)
}

#[test]
fn swarm_property_errors_show_the_users_text_at_its_line() {
    let r = swarm_check(&["--prop", "Pmax=? [ F<13 \"nolabel\" ]"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("<--prop>:1:15"), "{}", r.stderr);
    assert!(r.stderr.contains("\"nolabel\""), "{}", r.stderr);
    assert!(!r.stderr.contains("_nolabel_"), "{}", r.stderr);
    // After a properties file of three lines, a bad --prop is in --prop, line 1.
    let r = swarm_check(&[
        "--props",
        "examples/foraging/foraging.props",
        "--prop",
        "Pmax=? [ F<13 \"deposited1\" ]",
        "--prop",
        "Pmin=? [ F<13 \"gone\" ]",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("<--prop>:1:15"), "{}", r.stderr);
    assert!(!r.stderr.contains("foraging.props:"), "{}", r.stderr);
    // An error in the file itself keeps the file's line.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.props");
    let text = "Pmax=? [ F<13 \"deposited1\" ]\n\nPmax=? [ F<13 \"nowhere\" ]\n";
    std::fs::write(&file, text).unwrap();
    let r = swarm_check(&["--props", file.to_str().unwrap()]);
    let (line, col) = line_col(text, "\"nowhere\"");
    assert_eq!((line, col), (3, 15));
    assert!(
        r.stderr.contains(&format!("bad.props:{line}:{col}")),
        "{}",
        r.stderr
    );
    // Both properties of the command line are checked when they are fine.
    let r = swarm_check(&[
        "--prop",
        "Pmax=? [ F<3 \"deposited1\" ]",
        "--prop",
        "Pmin=? [ F<3 \"deposited1\" ]",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn an_empty_mapt_is_reported_in_its_own_file() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.mapt");
    std::fs::write(&empty, "").unwrap();
    let r = run(&["timed", "validate", empty.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(!r.stderr.contains("<model>"), "{}", r.stderr);
    assert!(r.stderr.contains("empty.mapt:1:1"), "{}", r.stderr);
    assert!(r.stderr.contains("declares no agent"), "{}", r.stderr);
    let comment = dir.path().join("comment.mapt");
    std::fs::write(&comment, "// only a comment\nvar x: int = 0;\n").unwrap();
    let r = run(&["timed", "validate", comment.to_str().unwrap()]);
    assert!(r.stderr.contains("comment.mapt:3:1"), "{}", r.stderr);
    let json = dir.path().join("m.json");
    std::fs::write(&json, "{\n  \"agents\": []\n}\n").unwrap();
    let r = run(&["timed", "validate", json.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("m.json:2:3"), "{}", r.stderr);
}

/// Every reader of text files names the file, line and column of the first
/// byte that is not UTF-8 (the error used to carry no position).
#[test]
fn non_utf8_files_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str| -> String {
        let p = dir.path().join(name);
        // Line 2, column 3: the byte 0xff after "ab".
        std::fs::write(&p, b"// first line\nab\xffc\n").unwrap();
        p.to_str().unwrap().to_string()
    };
    let nis = write("m.nis");
    let swarm = write("m.swarm");
    let props = write("m.props");
    let mapt = write("m.mapt");
    let ma = write("m.ma");
    let pg = write("m.pg");
    let strat = write("m.strat");
    let csv = write("in.csv");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "nis",
                "check",
                &nis,
                "--agents",
                "2",
                "--spec",
                "forall v1: EX (p, v1)",
            ],
            &nis,
        ),
        (
            vec![
                "swarm",
                "check",
                &swarm,
                "--agents",
                "1",
                "--prop",
                "Pmax=? [ F<2 true ]",
            ],
            &swarm,
        ),
        (
            vec![
                "swarm",
                "check",
                "examples/foraging/foraging_small.swarm",
                "--agents",
                "1",
                "--props",
                &props,
            ],
            &props,
        ),
        (vec!["timed", "validate", &mapt], &mapt),
        (vec!["robust", "solve", &ma], &ma),
        (vec!["robust", "parity", &pg], &pg),
        (
            vec![
                "robust",
                "check",
                "examples/robust/grid_reach.ma",
                "--strategy",
                &strat,
            ],
            &strat,
        ),
        (
            vec![
                "nn",
                "eval",
                "tests/fixtures/mlp_2_16_16_3.onnx",
                "--csv",
                &csv,
            ],
            &csv,
        ),
    ];
    for (args, file) in cases {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("{file}:2:3")) && r.stderr.contains("not UTF-8"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn the_help_examples_of_robust_faults_name_a_file_that_exists() {
    let r = run(&["robust", "faults", "--help"]);
    let example = r
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("mavis robust faults"))
        .unwrap();
    let file = example.split_whitespace().nth(3).unwrap();
    assert!(Path::new(file).exists(), "{example}");
}

/// `--set` values are evaluated on the verb's thread (under the deadline),
/// no longer by clap while the command line is read; a bad value is still
/// exit 2, now located in the option as written, in every engine.
#[test]
fn a_bad_set_value_is_located_in_the_option() {
    let r = run(&["lang", "eval", "N", "--set", "N=1 +"]).expect_code(2);
    assert!(r.stderr.contains("<command line>:1:12"), "{}", r.stderr);
    assert!(r.stderr.contains("--set N=1 +"), "{}", r.stderr);
    let (v, code) = cli::json(&["timed", "validate", PLATOON2, "--set", "TU=1/0"]);
    assert_eq!(code, 2, "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("<command line>:1:"), "{message}");
    assert!(message.contains("zero"), "{message}");
    // The name is still checked by clap, before anything runs.
    let r = run(&["lang", "eval", "1", "--set", "=3"]).expect_code(2);
    assert!(r.stderr.contains("is not a constant name"), "{}", r.stderr);
    // The other expression options of swarm are evaluated late too.
    let swarm = [
        "swarm",
        "check",
        "examples/foraging/foraging.swarm",
        "--faults",
        "examples/foraging/foraging.faults",
        "--agents",
        "2",
        "--prop",
        "Pmax=? [ F<3 \"deposited2\" ]",
    ];
    let r = run(&[&swarm[..], &["--faulty-fraction", "3/2"]].concat()).expect_code(2);
    assert!(
        r.stderr.contains("not a probability in [0, 1]"),
        "{}",
        r.stderr
    );
    let r =
        run(&[&swarm[..], &["--faulty-fraction", "1/2", "--set", "pf=1/"]].concat()).expect_code(2);
    assert!(r.stderr.contains("<command line>:1:"), "{}", r.stderr);
}
