//! The binary form of metric automata (`mavis robust convert`, `.mab`):
//! text -> binary -> solve gives the reports of text -> solve, corrupt and
//! truncated files are errors at a byte offset (exit 2), never a panic, and
//! `gen_grid.py --binary` writes what `convert` writes.

#[path = "support/cli.rs"]
mod cli;
use cli::run;
use mavis::lang::{Constants, Source};
use mavis::report::RunError;
use mavis::robust::{export::binary, load_source, read::binary as binary_read};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

/// A random dense `.ma` model: states on distinct integer points, some
/// transitions with disturbed successors, any of the four objectives, and
/// sometimes a declared (large enough) gamma.
fn random_model(seed: u64) -> String {
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let n = r.gen_range(1..12);
    let metric = ["euclidean", "manhattan", "max"][r.gen_range(0..3)];
    let mut t =
        format!("automaton m{seed};\nmetric {metric};\ninputs a, b, c;\ndisturbances x, y;\n");
    let gamma = r.gen_bool(0.3);
    for q in 0..n {
        t += &format!("state s{q} at ({q}, {})", r.gen_range(-3..4));
        if gamma {
            t += " gamma 100";
        }
        t += &format!(" priority {};\n", r.gen_range(0..4));
    }
    t += &format!("init s{};\n", r.gen_range(0..n));
    // Transitions state by state, or in reverse (the build lays the
    // disturbed pairs out again in state order).
    let mut lines = Vec::new();
    for q in 0..n {
        let inputs: Vec<&str> = ["a", "b", "c"]
            .into_iter()
            .filter(|_| r.gen_bool(0.6))
            .collect();
        for a in inputs {
            let mut line = format!("trans s{q} {a} -> s{}", r.gen_range(0..n));
            let ds: Vec<&str> = ["x", "y"].into_iter().filter(|_| r.gen_bool(0.4)).collect();
            for (k, d) in ds.iter().enumerate() {
                line += &format!(
                    "{} {d} -> s{}",
                    if k == 0 { " |" } else { "," },
                    r.gen_range(0..n)
                );
            }
            lines.push(line + ";\n");
        }
    }
    if r.gen_bool(0.5) {
        lines.reverse();
    }
    t += &lines.concat();
    let set = |r: &mut rand::rngs::StdRng| {
        let v: Vec<String> = (0..r.gen_range(1..4))
            .map(|_| format!("s{}", r.gen_range(0..n)))
            .collect();
        v.join(", ")
    };
    t += &match r.gen_range(0..4) {
        0 => format!("reach {};\n", set(&mut r)),
        1 => format!("buchi {};\n", set(&mut r)),
        2 => format!("gen-buchi {{{}}}, {{{}}};\n", set(&mut r), set(&mut r)),
        _ => "parity;\n".to_string(),
    };
    t
}

fn message(e: RunError) -> String {
    match e {
        RunError::Input(r) => r.to_string(),
        other => panic!("not an input error: {other:?}"),
    }
}

/// The report of `mavis robust solve` without what names the file (path,
/// sha256) or measures the run (timings).
fn solve_json(path: &std::path::Path) -> serde_json::Value {
    let out = run(&[
        "robust",
        "solve",
        &path.display().to_string(),
        "--format",
        "json",
    ]);
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    let mut v = out.json();
    v["model"] = serde_json::Value::Null;
    let stats = v["stats"].as_object_mut().expect("stats");
    stats.retain(|k, _| !k.ends_with("_s"));
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]
    /// Read back, the binary form is the automaton the text gives (every
    /// field, gamma included), with the same warnings.
    #[test]
    fn binary_reads_back_the_text_automaton(seed in any::<u64>()) {
        let text = random_model(seed);
        let (a, warnings) = load_source(&Source::new("m.ma", text.clone()), &mut Constants::default()).expect("valid");
        let bytes = binary::write(&a).expect("coordinates");
        let (b, again) = binary_read::read("m.mab", &bytes).expect("reads back");
        prop_assert_eq!(format!("{a:?}"), format!("{b:?}"), "{}", text);
        prop_assert_eq!(warnings, again);
        prop_assert_eq!(binary::write(&b).expect("coordinates"), bytes);
    }

    /// Any byte changed, or the file cut anywhere: an error at a byte offset
    /// or a model (never a panic); a cut file is always an error.
    #[test]
    fn corrupt_binaries_are_errors_not_panics(seed in 0u64..1000, flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4), cut in any::<usize>()) {
        let (a, _) = load_source(&Source::new("m.ma", random_model(seed)), &mut Constants::default()).expect("valid");
        let bytes = binary::write(&a).expect("coordinates");
        let mut bad = bytes.clone();
        for (at, value) in flips {
            let at = at % bad.len();
            bad[at] = value;
        }
        if let Err(e) = binary_read::read("m.mab", &bad) {
            let msg = message(e);
            prop_assert!(msg.starts_with("m.mab: byte "), "{}", msg);
        }
        let cut = cut % bytes.len();
        let msg = message(binary_read::read("m.mab", &bytes[..cut]).expect_err("a cut file"));
        prop_assert!(msg.starts_with("m.mab: byte "), "{}", msg);
    }
}

/// text -> convert -> solve reports what text -> solve reports, through the
/// command line (JSON, without file names, hashes and timings).
#[test]
fn convert_then_solve_reports_as_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let converted = |ma: &std::path::Path, mab: &std::path::Path, what: &str| {
        let (ma_text, mab_text) = (ma.display().to_string(), mab.display().to_string());
        run(&["robust", "convert", &ma_text, "-o", &mab_text]).success();
        assert_eq!(solve_json(ma), solve_json(mab), "{what}");
    };
    for seed in 0..25 {
        let ma = dir.path().join(format!("m{seed}.ma"));
        std::fs::write(&ma, random_model(seed)).unwrap();
        converted(
            &ma,
            &dir.path().join(format!("m{seed}.mab")),
            &format!("seed {seed}"),
        );
    }
    for example in ["grid_reach", "grid_patrol", "icy_ramp"] {
        let ma = cli::root().join(format!("examples/robust/{example}.ma"));
        converted(&ma, &dir.path().join(format!("{example}.mab")), example);
    }
}

/// A corrupt or foreign file on the command line is exit 2 with the byte
/// offset; a model with a distance table has no binary form (exit 2).
#[test]
fn command_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let ma = cli::repo("examples/robust/grid_reach.ma");
    let mab = dir.path().join("g.mab");
    let mab_s = mab.display().to_string();
    run(&["robust", "convert", &ma, "-o", &mab_s]).success();
    let mut bytes = std::fs::read(&mab).unwrap();
    bytes[8] = 9; // the version
    std::fs::write(&mab, &bytes).unwrap();
    let out = run(&["robust", "solve", &mab_s]).expect_code(2);
    assert!(
        out.stderr.contains("byte 8: binary model version 9"),
        "{}",
        out.stderr
    );
    bytes[8] = 1;
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&mab, &bytes).unwrap();
    let out = run(&["robust", "solve", &mab_s]).expect_code(2);
    assert!(out.stderr.contains("truncated?"), "{}", out.stderr);
    let table = dir.path().join("t.ma");
    std::fs::write(&table, "metric table;\ninputs a;\nstate p; state q;\ndistance p q = 1;\ninit p;\ntrans p a -> q;\nreach q;\n").unwrap();
    let out = run(&[
        "robust",
        "convert",
        &table.display().to_string(),
        "-o",
        &mab_s,
    ])
    .expect_code(2);
    assert!(
        out.stderr.contains("not a distance table"),
        "{}",
        out.stderr
    );
}

/// Two states with one name, or at one point: the build's errors, at the
/// byte where the second one is.
#[test]
fn repeated_names_and_points_are_found() {
    let text = "metric manhattan;\ninputs a;\nstate p at (0, 0); state q at (1, 0); state r at (2, 0);\ninit p;\ntrans p a -> q;\nreach r;\n";
    let (a, _) = load_source(&Source::new("m.ma", text), &mut Constants::default()).unwrap();
    let bytes = binary::write(&a).unwrap();
    let find = |b: &[u8], what: &[u8]| b.windows(what.len()).position(|w| w == what).unwrap();
    let mut named = bytes.clone();
    let r_at = find(&named, b"pqr") + 2;
    named[r_at] = b'q';
    let msg = message(binary_read::read("m.mab", &named).unwrap_err());
    assert_eq!(
        msg,
        format!("m.mab: byte {r_at}: state `q` is declared twice")
    );
    let mut placed = bytes.clone();
    // The third point's x (2.0) becomes 1.0: r is where q is.
    let two = find(&placed, &2.0f64.to_le_bytes());
    placed[two..two + 8].copy_from_slice(&1.0f64.to_le_bytes());
    let msg = message(binary_read::read("m.mab", &placed).unwrap_err());
    assert!(
        msg.contains(&format!(
            "byte {two}: identity of indiscernibles fails: states `q` and `r`"
        )),
        "{msg}"
    );
}

/// A declared gamma that a disturbed move exceeds: the binary reader reports
/// the build's error (one check, one message), at the gamma field.
#[test]
fn declared_gamma_violation_reads_as_the_text_reports_it() {
    let text = |g: &str| {
        format!("metric manhattan;\ninputs a;\ndisturbances x;\nstate p at (0, 0); state q at (1, 0) gamma {g}; state r at (2, 0);\ninit p;\ntrans p a -> q | x -> r;\nreach r;\n")
    };
    let load = |t: &str| load_source(&Source::new("m.ma", t), &mut Constants::default());
    let want = "declared gamma violated: delta(p, a, x) = r is at distance 1 from the nominal successor q, but gamma(q) = 0.5";
    let from_text = message(load(&text("0.5")).unwrap_err());
    assert!(from_text.ends_with(want), "{from_text}");
    // gamma 7 is valid; the binary form with 0.5 in its place is not.
    let (mut a, _) = load(&text("7")).unwrap();
    a.gamma[1] = 0.5;
    let bytes = binary::write(&a).unwrap();
    let msg = message(binary_read::read("m.mab", &bytes).unwrap_err());
    assert!(msg.starts_with("m.mab: byte "), "{msg}");
    assert!(msg.ends_with(want), "{msg}");
}

/// `gen_grid.py --binary` writes the bytes `convert` writes from its text.
#[test]
fn gen_grid_binary_is_what_convert_writes() {
    let dir = tempfile::tempdir().unwrap();
    let script = cli::repo("examples/robust/gen_grid.py");
    let status = std::process::Command::new("python3")
        .args([
            &script,
            "--width",
            "9",
            "--height",
            "4",
            "--binary",
            "--out-dir",
        ])
        .arg(dir.path())
        .status()
        .expect("python3 runs");
    assert!(status.success());
    for model in ["grid_reach", "grid_patrol"] {
        let text = std::fs::read_to_string(dir.path().join(format!("{model}.ma"))).unwrap();
        let (a, _) = load_source(&Source::new("g.ma", text), &mut Constants::default()).unwrap();
        let written = std::fs::read(dir.path().join(format!("{model}.mab"))).unwrap();
        assert_eq!(written, binary::write(&a).unwrap(), "{model}");
    }
}

/// An input given twice for one state, or a disturbance twice in one move:
/// errors at the byte of the second one (the same input in another state's
/// row and the same disturbance in another move are fine).
#[test]
fn repeated_inputs_and_disturbances_are_found() {
    let text = "metric manhattan;\ninputs a, b;\ndisturbances d, e;\n\
                state p at (0, 0); state q at (1, 0); state r at (2, 0);\ninit p;\n\
                trans p a -> q | d -> r, e -> q;\ntrans p b -> r | d -> q;\ntrans q a -> q;\nreach r;\n";
    let (a, _) = load_source(&Source::new("m.ma", text), &mut Constants::default()).unwrap();
    let bytes = binary::write(&a).unwrap();
    binary_read::read("m.mab", &bytes).expect("the model as written is valid");
    // From the end: the objective (a byte, a count, one state), 3 disturbed
    // pairs of 8 bytes, 3 moves of 12 bytes (p's a and b, then q's a).
    let pairs_at = bytes.len() - 9 - 3 * 8;
    let moves_at = pairs_at - 3 * 12;
    let mut twice = bytes.clone();
    twice[moves_at + 12..moves_at + 16].copy_from_slice(&0u32.to_le_bytes());
    assert_eq!(
        message(binary_read::read("m.mab", &twice).unwrap_err()),
        format!(
            "m.mab: byte {}: input 0 is out of range or given twice for the state",
            moves_at + 12
        )
    );
    let mut twice = bytes.clone();
    twice[pairs_at + 8..pairs_at + 12].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(
        message(binary_read::read("m.mab", &twice).unwrap_err()),
        format!(
            "m.mab: byte {}: disturbance 1 is out of range (1..3) or given twice in the move",
            pairs_at + 8
        )
    );
}
