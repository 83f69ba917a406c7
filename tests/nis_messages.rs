//! What `mavis nis` tells its users (issue 13, section 4): claims that say
//! what was decided, refused option combinations, warnings, both deciders'
//! times, the networks in the report, marked witnesses, located errors.

#[path = "support/cli.rs"]
mod cli;
use cli::{json, run};
use serde_json::Value;
use sha2::{Digest, Sha256};

const GUARDING: &str = "examples/guarding/guarding.nis";
const EX3: &str = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)";

#[test]
fn a_failed_simulation_says_that_it_does_not_simulate() {
    // The least simulating n, found by the search: M(3) is below it.
    let least = run(&[
        "nis",
        "simulates",
        GUARDING,
        "--indexed",
        "2",
        "--depth",
        "3",
    ]);
    assert_eq!(least.code, 0, "{}", least.stderr);
    let n: usize = least
        .stdout
        .strip_prefix("n = ")
        .and_then(|t| t.split(':').next())
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}", least.stdout));
    assert!(n > 3, "{}", least.stdout);
    let r = run(&[
        "nis",
        "simulates",
        GUARDING,
        "--indexed",
        "2",
        "--depth",
        "3",
        "--agents",
        "3",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().next().unwrap(),
        "VIOLATED: M(3) does not 3-simulate M_ab(2)"
    );
    let agents = n.to_string();
    let r = run(&[
        "nis",
        "simulates",
        GUARDING,
        "--indexed",
        "2",
        "--depth",
        "3",
        "--agents",
        &agents,
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout.lines().next().unwrap(),
        format!("HOLDS: M({n}) 3-simulates M_ab(2)")
    );
}

#[test]
fn agents_with_abstract_is_refused() {
    let r = run(&[
        "nis",
        "check",
        GUARDING,
        "--abstract",
        "--agents",
        "3",
        "--spec",
        EX3,
    ]);
    assert_eq!(r.code, 2);
    // clap names the two in the order they were given.
    assert!(
        r.stderr
            .contains("the argument '--abstract' cannot be used with '--agents <N>'"),
        "{}",
        r.stderr
    );
    let r = run(&[
        "nis",
        "table",
        GUARDING,
        "--abstract",
        "--agents",
        "3",
        "--k",
        "1",
        "--spec",
        "forall v1: EX^{k} (alive, v1)",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // The table's default --agents does not conflict.
    let r = run(&[
        "nis",
        "table",
        GUARDING,
        "--abstract",
        "--k",
        "1",
        "--spec",
        "forall v1: EX^{k} (alive, v1)",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_table_spec_without_k_is_warned_about() {
    let args = [
        "nis", "table", GUARDING, "--k", "1..2", "--agents", "2", "--spec",
    ];
    let r = run(&[&args[..], &["forall v1: EX^1 (alive, v1)"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("has no `{k}`"), "{}", r.stderr);
    let r = run(&[&args[..], &["forall v1: EX^{k} (alive, v1)"]].concat());
    assert!(!r.stderr.contains("has no `{k}`"), "{}", r.stderr);
}

#[test]
fn both_engines_report_both_times() {
    let (alone, explicit_code) = json(&["nis", "check", GUARDING, "--agents", "3", "--spec", EX3]);
    assert_eq!(alone["results"]["engine"], "explicit");
    let (v, code) = json(&[
        "nis", "check", GUARDING, "--agents", "3", "--spec", EX3, "--engine", "both",
    ]);
    assert_eq!(code, explicit_code);
    assert_eq!(v["results"]["engine"], "explicit+milp");
    let s = &v["stats"];
    let explicit = s["explicit.time_s"].as_f64().unwrap();
    let milp = s["milp.time_s"].as_f64().unwrap();
    let total = s["time_s"].as_f64().unwrap();
    assert!((total - (explicit + milp)).abs() < 1e-9, "{s}");
    assert!(milp > 0.0 && explicit >= 0.0);
    let r = run(&[
        "nis", "check", GUARDING, "--agents", "3", "--spec", EX3, "--engine", "both",
    ]);
    assert!(
        r.stdout.contains("explicit.time_s: ") && r.stdout.contains("milp.time_s: "),
        "{}",
        r.stdout
    );
}

#[test]
fn the_report_names_every_network_by_path_and_sha256() {
    let (v, _) = json(&["nis", "check", GUARDING, "--agents", "2", "--spec", EX3]);
    let nets = v["model"]["networks"].as_array().unwrap();
    assert_eq!(nets.len(), 1);
    assert_eq!(nets[0]["name"], "policy");
    let bytes = std::fs::read("networks/guarding.onnx").unwrap();
    let hex: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(nets[0]["sha256"], hex.as_str());
    assert!(nets[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("networks/guarding.onnx"));
    // A model without a network has none, and the key is absent.
    let (v, _) = json(&[
        "swarm",
        "check",
        "examples/foraging/foraging_small.swarm",
        "--agents",
        "1",
        "--prop",
        "Pmax=? [ F<2 true ]",
    ]);
    assert!(v["model"].get("networks").is_none(), "{}", v["model"]);
}

#[test]
fn cap_below_the_simulating_n_still_finds_a_failing_system() {
    // M(2) fails the existential sentence (checked on its own here) ...
    let base = run(&["nis", "check", GUARDING, "--agents", "2", "--spec", EX3]);
    assert_eq!(base.code, 1, "{}", base.stdout);
    // ... so "for every n" is refuted even when no M(n <= 3) simulates M_ab(2).
    let (v, code) = json(&["nis", "verify", GUARDING, "--spec", EX3, "--cap", "3"]);
    assert_eq!(code, 1, "{}", v["results"]);
    assert_eq!(v["verdict"], "violated");
    assert_eq!(v["results"]["holds_for_all_n"], false);
    assert_eq!(v["results"]["min_simulating_n"], Value::Null);
    // The threshold stays undetermined: emergence cannot answer.
    let (e, code) = json(&["nis", "emergence", GUARDING, "--spec", EX3, "--cap", "3"]);
    assert_eq!(code, 3, "{}", e["results"]);
    assert_eq!(e["verdict"], "unknown");
}

#[test]
fn the_abstractions_witness_of_a_violated_existential_is_marked() {
    let (v, code) = json(&["nis", "verify", GUARDING, "--spec", EX3, "--cap", "3"]);
    assert_eq!(code, 1);
    assert_eq!(v["results"]["witness_system"], "M_ab(2)");
    assert_eq!(v["results"]["witness_kind"], "witness");
    assert_eq!(v["results"]["witness_shows_verdict"], false);
    let r = run(&["nis", "verify", GUARDING, "--spec", EX3, "--cap", "3"]);
    assert!(
        r.stdout.contains(
            "M_ab(2) (witness of phi[2]; it shows that M_ab(2) satisfies phi[2], not the verdict):"
        ),
        "{}",
        r.stdout
    );
    // A holding verdict's witness shows the verdict.
    let (v, code) = json(&[
        "nis",
        "verify",
        GUARDING,
        "--spec",
        "forall v1: EX^1 (alive, v1)",
    ]);
    assert_eq!(code, 0, "{}", v["results"]);
    if v["results"].get("witness_system").is_some() {
        assert_eq!(v["results"]["witness_shows_verdict"], true);
    }
}

#[test]
fn a_network_given_on_the_command_line_is_blamed_there() {
    let r = run(&[
        "nis",
        "check",
        GUARDING,
        "--agents",
        "2",
        "--spec",
        EX3,
        "--network",
        "policy=no/such/file.onnx",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("<command line>:1:18"), "{}", r.stderr);
    assert!(r.stderr.contains("no/such/file.onnx"), "{}", r.stderr);
    // Not the model's `net` line, which names another file.
    assert!(!r.stderr.contains("guarding.nis:"), "{}", r.stderr);
}

#[test]
fn the_milp_range_error_is_located_like_the_explicit_one() {
    let text = "agent a {\n  var x : [0..1] = 0;\n  percept : {p} = p;\n  actions : {inc};\n  observe = p;\n  protocol { p -> {inc}; }\n  update { inc -> x := x + 1; }\n}\nenvironment { var e : bool = false; }\nlabel q = x >= 1;\n";
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("climb.nis");
    std::fs::write(&model, text).unwrap();
    let at = text.find("x + 1").unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').unwrap();
    assert_eq!((line, col), (7, 24));
    let spec = "forall v1: EX ((q, v1) | EX (q, v1))";
    for engine in ["explicit", "milp"] {
        let (v, code) = json(&[
            "nis",
            "check",
            model.to_str().unwrap(),
            "--agents",
            "1",
            "--spec",
            spec,
            "--engine",
            engine,
        ]);
        assert_eq!(code, 2, "{engine}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("climb.nis:{line}:{col}: ")),
            "{engine}: {message}"
        );
        assert!(
            message.contains("leaves the declared range [0..1] of `x`"),
            "{engine}: {message}"
        );
    }
}

#[test]
fn verbose_verify_prints_each_check() {
    let r = run(&["-v", "nis", "verify", GUARDING, "--spec", EX3, "--cap", "3"]);
    assert!(
        r.stderr.contains("nis verify: checking M_ab(2)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("nis verify: checking M(2)"),
        "{}",
        r.stderr
    );
    let q = run(&["-q", "nis", "verify", GUARDING, "--spec", EX3, "--cap", "3"]);
    assert_eq!(q.stderr, "");
    assert_eq!(q.stdout.lines().count(), 1, "{}", q.stdout);
}

#[test]
fn an_undeclared_network_name_is_refused_before_any_network_is_read() {
    // The model's own network file does not exist, and neither does the
    // given one: the refusal of the name comes first, so neither is opened.
    let text = std::fs::read_to_string(GUARDING)
        .unwrap()
        .replace("guarding.onnx", "no-such-network.onnx");
    assert!(
        text.contains("no-such-network.onnx"),
        "the example names its network file"
    );
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("guarding.nis");
    std::fs::write(&model, text).unwrap();
    let r = run(&[
        "nis",
        "check",
        model.to_str().unwrap(),
        "--agents",
        "2",
        "--spec",
        EX3,
        "--network",
        "polcy=also/missing.onnx",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // Located on the command line at the name: `--network ` is 10 characters.
    assert!(r.stderr.contains("<command line>:1:11"), "{}", r.stderr);
    // (The diagnostic may wrap its line: the pieces are checked apart.)
    assert!(
        r.stderr.contains("the model declares no network `polcy`"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("`policy`)"), "{}", r.stderr);
    assert!(!r.stderr.contains("cannot load"), "{}", r.stderr);
    assert!(!r.stderr.contains("no-such-network"), "{}", r.stderr);
}
