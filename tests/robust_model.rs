//! The metric automaton formats (.ma and JSON), validation with located errors,
//! no panics on any input, and the `mavis robust` command line.

#[path = "support/cli.rs"]
mod cli;
use cli::{json, run};
use mavis::lang::{Constants, Source};
use mavis::robust::{load_source, read::json};
use proptest::prelude::*;

const BASE: &str = r#"
metric table;
inputs a;
disturbances x;
state p; state q; state r;
distance p q = 1;
distance q r = 1;
distance p r = 2;
init p;
trans p a -> q | x -> r;
trans q a -> r;
reach r;
"#;

fn load(text: &str) -> Result<(mavis::robust::front::Automaton, Vec<String>), String> {
    load_source(&Source::new("m.ma", text), &mut Constants::default()).map_err(|e| match e {
        mavis::report::RunError::Input(r) => r.to_string(),
        mavis::report::RunError::Internal(s)
        | mavis::report::RunError::TimedOut(s)
        | mavis::report::RunError::Undetermined(s) => s,
        mavis::report::RunError::Limit(s) => s,
    })
}

fn error_of(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn base_model_is_valid_with_computed_gamma() {
    let (a, warnings) = load(BASE).unwrap();
    assert!(warnings.is_empty());
    // gamma(q) = d(q, r) = 1, the least bound for delta(p, a, x) = r.
    assert_eq!(a.gamma, vec![0.0, 1.0, 0.0]);
    assert_eq!(a.len(), 3);
}

#[test]
fn triangle_violation_names_the_triple() {
    let e = error_of(&BASE.replace("distance p r = 2;", "distance p r = 3;"));
    assert!(e.contains("triangle inequality fails for (p, q, r)"), "{e}");
    assert!(e.contains("m.ma:"), "{e}");
}

#[test]
fn symmetry_and_identity_violations() {
    let e = error_of(&BASE.replace(
        "distance p r = 2;",
        "distance p r = 2;\ndistance r p = 1.5;",
    ));
    assert!(
        e.contains("symmetry fails: d(r, p) = 1.5 but d(p, r) = 2"),
        "{e}"
    );
    let e = error_of(&BASE.replace("distance p q = 1;", "distance p q = 0;"));
    assert!(e.contains("identity of indiscernibles"), "{e}");
    let e = error_of("metric euclidean; inputs a; state p at (0,0); state q at (0,0); init p; trans p a -> q; reach q;");
    assert!(e.contains("`p` and `q` have the same coordinates"), "{e}");
}

#[test]
fn declared_gamma_violation_names_the_transition() {
    let e = error_of(&BASE.replace("state q;", "state q gamma 0.5;"));
    assert!(
        e.contains(
            "delta(p, a, x) = r is at distance 1 from the nominal successor q, but gamma(q) = 0.5"
        ),
        "{e}"
    );
    assert!(e.contains("m.ma:10:"), "located at the transition: {e}");
}

#[test]
fn unknown_names_and_unreachable_warning() {
    assert!(
        error_of(&BASE.replace("trans q a -> r;", "trans q a -> s;")).contains("unknown state `s`")
    );
    assert!(
        error_of(&BASE.replace("trans q a -> r;", "trans q b -> r;")).contains("unknown input `b`")
    );
    assert!(error_of(&BASE.replace("| x -> r", "| y -> r")).contains("unknown disturbance `y`"));
    let (_, w) = load(&BASE.replace("trans p a -> q | x -> r;", "trans p a -> r;")).unwrap();
    assert_eq!(
        w,
        vec!["1 state(s) not reachable from the initial state: q".to_string()]
    );
}

#[test]
fn json_round_trip() {
    for text in [
        BASE.to_string(),
        std::fs::read_to_string("examples/robust/grid_reach.ma").unwrap(),
    ] {
        let (a, _) = load(&text).unwrap();
        let j = serde_json::to_string(&json::write(&a)).unwrap();
        let (b, _) = load_source(
            &Source::new("m.json", j.as_str()),
            &mut Constants::default(),
        )
        .unwrap();
        assert_eq!(a.states, b.states);
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.gamma, b.gamma);
        assert_eq!(a.objective, b.objective);
        for p in 0..a.len() {
            for q in 0..a.len() {
                assert_eq!(a.dist(p, q), b.dist(p, q));
            }
        }
    }
    let e = load_source(
        &Source::new("m.json", r#"{"metric": "table", "states": []}"#),
        &mut Constants::default(),
    )
    .unwrap_err();
    assert!(format!("{e:?}").contains("missing field"), "{e:?}");
}

fn mutate(text: &str, cuts: &[(usize, usize, String)]) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for (at, len, ins) in cuts {
        let at = at % (s.len() + 1);
        let end = (at + len).min(s.len());
        s.splice(at..end, ins.chars());
    }
    s.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn parser_never_panics_on_random_text(text in "[a-z0-9 ;,(){}|>=.\\-\n]{0,200}") {
        let _ = load(&text);
        let _ = mavis::robust::read::pgsolver::read_game(&Source::new("g.pg", text.as_str()));
    }

    #[test]
    fn parser_never_panics_on_mutated_models(cuts in proptest::collection::vec((0usize..400, 0usize..6, "[a-z0-9;|>(), -]{0,4}"), 1..4)) {
        let text = mutate(BASE, &cuts);
        let _ = load(&text);
        let game = mutate("parity 2;\n0 0 0 1,2 \"a\";\n1 3 1 1;\n2 4 1 2;\n", &cuts);
        let _ = mavis::robust::read::pgsolver::read_game(&Source::new("g.pg", game.as_str()));
    }
}

#[test]
fn cli_solve_and_check_grid() {
    let text = run(&["robust", "solve", "examples/robust/grid_reach.ma"])
        .success()
        .stdout;
    assert!(
        text.starts_with("holds: sigma = 2 (opt*(q0) = 2, gamma-bar = 1)"),
        "{text}"
    );
    let check = [
        "robust",
        "check",
        "examples/robust/grid_reach.ma",
        "--strategy",
        "examples/robust/naive.strat",
    ];
    let text = run(&check).stdout;
    assert!(text.contains("the strategy's sigma = 6"), "{text}");
    run(&[&check[..], &["--max-sigma", "3"]].concat()).expect_code(1);
}

#[test]
fn cli_json_and_bad_input() {
    let (v, _) = json(&["robust", "solve", "examples/robust/grid_patrol.ma"]);
    assert_eq!(v["results"]["objective"], "gen-buchi");
    assert!(v["results"]["radius"].is_number());
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ma");
    std::fs::write(&bad, BASE.replace("distance p r = 2;", "distance p r = 3;")).unwrap();
    let r = run(&["robust", "solve", bad.to_str().unwrap()]).expect_code(2);
    assert!(r.stderr.contains("triangle inequality"), "{}", r.stderr);
}

#[test]
fn cli_parity_writes_a_checkable_solution() {
    let dir = tempfile::tempdir().unwrap();
    let sol = dir.path().join("game.sol");
    for solver in ["zielonka", "spm"] {
        run(&[
            "robust",
            "parity",
            "examples/robust/game.pg",
            "--solver",
            solver,
            "--solution",
            sol.to_str().unwrap(),
        ])
        .success();
        let g = mavis::robust::read::pgsolver::read_game(
            &Source::read(std::path::Path::new("examples/robust/game.pg")).unwrap(),
        )
        .unwrap();
        let s = mavis::robust::read::pgsolver::read_solution(&Source::read(&sol).unwrap(), g.len())
            .unwrap();
        mavis::robust::parity::game::verify(&g, &s).unwrap();
    }
}

#[test]
fn cli_faults_tradeoff_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("t.svg");
    let (v, code) = json(&[
        "robust",
        "faults",
        "examples/robust/icy_ramp.ma",
        "--period",
        "1..8",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{v}");
    let bounds: Vec<f64> = v["results"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bound"].as_f64().unwrap())
        .collect();
    // Hand computation: a slip strikes at r1 at once (bound 5); after a slip the robot climbs
    // from r0 for T - 1 safe steps to r(T-1), where the next slip may strike:
    // bound min(5, max(0, 7 - T)), and T >= 7 reaches the dock r6.
    assert_eq!(bounds, vec![5.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0, 0.0]);
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
}

/// A dense `.ma` text as generators write it, with the variations the fast
/// reader must read like the general parser: decimals, negative numbers, gamma,
/// priorities, comments, `gen-buchi`, irregular white space.
fn dense_text(seed: u64) -> String {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let n = r.gen_range(1..8);
    let ws = |r: &mut rand::rngs::StdRng| [" ", "  ", "\n", "\t", " // c\n"][r.gen_range(0..5)];
    let num = |r: &mut rand::rngs::StdRng| match r.gen_range(0..4) {
        0 => format!("{}", r.gen_range(-20..20)),
        1 => format!("{:.3}", r.gen_range(-50.0..50.0)),
        2 => format!("-{}", r.gen_range(0..3)),
        _ => format!("{}.{}", r.gen_range(0..100), r.gen_range(0..100)),
    };
    let mut t = format!(
        "// generated\nautomaton g{seed};{}metric {};\n",
        ws(&mut r),
        ["euclidean", "manhattan", "max"][r.gen_range(0..3)]
    );
    t += "inputs a, b;\ndisturbances x,y;\n";
    for i in 0..n {
        t += &format!(
            "state{}q{i} at ({},{}{})",
            ws(&mut r),
            num(&mut r),
            ws(&mut r),
            num(&mut r)
        );
        if r.gen_bool(0.3) {
            t += &format!(" gamma {}", r.gen_range(0..9));
        }
        if r.gen_bool(0.5) {
            t += &format!(" priority {}", r.gen_range(0..5));
        }
        t += ";\n";
    }
    t += "init q0;\n";
    for i in 0..n {
        for a in ["a", "b"] {
            if r.gen_bool(0.7) {
                t += &format!("trans q{i} {a}{}->q{}", ws(&mut r), r.gen_range(0..n));
                if r.gen_bool(0.5) {
                    t += &format!(" | x -> q{}", r.gen_range(0..n));
                    if r.gen_bool(0.5) {
                        t += &format!(", y ->{}q{}", ws(&mut r), r.gen_range(0..n));
                    }
                }
                t += ";\n";
            }
        }
    }
    t += match r.gen_range(0..4) {
        0 => "reach q0;\n",
        1 => "buchi q0, q1;\n",
        2 => "gen-buchi {q0}, { q1 , q0 };\n",
        _ => "parity;\n",
    };
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]
    /// The fast reader of the dense form reads generated models, and wherever it
    /// reads a (possibly mutated) text it gives the general parser's model; where
    /// it declines, the general parser reads the text (and gives the message).
    #[test]
    fn dense_reader_equals_the_general_parser(seed in any::<u64>(), cuts in proptest::collection::vec((0usize..600, 0usize..4, "[a-z0-9;|>(){}, .-]{0,3}"), 0..3)) {
        let clean = dense_text(seed);
        let fast = mavis::robust::read::dense::parse(&clean);
        prop_assert!(fast.is_some(), "the fast reader declined:\n{}", clean);
        let text = mutate(&clean, &cuts);
        if let Some(fast) = mavis::robust::read::dense::parse(&text) {
            let slow = mavis::robust::read::text::parse(&Source::new("m.ma", text.as_str()), &mut Constants::default());
            let slow = slow.map_err(|e| e.message.clone());
            prop_assert!(slow.is_ok(), "general parser refuses what the fast one read:\n{}\n{:?}", text, slow);
            prop_assert_eq!(format!("{:?}", fast), format!("{:?}", slow.unwrap()), "{}", text);
        }
    }
}

/// `gen_grid.py` takes the grid's size: its defaults rewrite the bundled
/// examples byte for byte, a 9 x 4 grid has 9 * 4 - 2 states (two walls) with
/// the dock at the east end of row 1, a grid narrower than 3 is refused, and
/// so is a size other than the bundled one without `--out-dir`.
#[test]
fn gen_grid_takes_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/robust/gen_grid.py");
    let run = |args: &[&str], out: &std::path::Path| {
        let status = std::process::Command::new("python3")
            .arg(script)
            .args(args)
            .arg("--out-dir")
            .arg(out)
            .status()
            .expect("python3 runs");
        assert!(status.success());
    };
    run(&[], dir.path());
    for f in ["grid_reach.ma", "grid_patrol.ma", "naive.strat"] {
        let bundled = std::fs::read_to_string(
            concat!(env!("CARGO_MANIFEST_DIR"), "/examples/robust/").to_string() + f,
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(f)).unwrap(),
            bundled,
            "{f}"
        );
    }
    let big = dir.path().join("big");
    run(&["--width", "9", "--height", "4"], &big);
    let text = std::fs::read_to_string(big.join("grid_reach.ma")).unwrap();
    let (a, _) = load(&text).unwrap();
    assert_eq!(a.len(), 34);
    match &a.objective {
        mavis::robust::front::Objective::Reach(f) => assert_eq!(&a.states[f[0] as usize], "c8_1"),
        o => panic!("{o:?}"),
    }
    let status = std::process::Command::new("python3")
        .arg(script)
        .args(["--width", "2"])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "a 2-wide grid is refused");
    // Another size without --out-dir is refused and writes nothing here.
    let here = dir.path().join("here");
    std::fs::create_dir(&here).unwrap();
    let status = std::process::Command::new("python3")
        .arg(script)
        .args(["--width", "9", "--height", "4"])
        .current_dir(&here)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "a 9 x 4 grid needs --out-dir");
    assert_eq!(std::fs::read_dir(&here).unwrap().count(), 0);
}

/// The report's sha256 is the file's, byte-order mark included (the model
/// is read once and hashed from its text while it is parsed).
#[test]
fn the_reported_sha256_is_the_files_even_with_a_byte_order_mark() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    for (name, mark) in [("plain.ma", &b""[..]), ("marked.ma", &b"\xEF\xBB\xBF"[..])] {
        let bytes = [mark, BASE.as_bytes()].concat();
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let (v, code) = json(&["robust", "solve", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{v}");
        let expected: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(v["model"]["sha256"], expected.as_str(), "{name}");
    }
}
