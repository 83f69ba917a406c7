//! HiGHS's work (`milp_nodes`, `milp_lp_iterations`) in the stats of `nis
//! check`, `nis verify` and `nis emergence`, JSON and text, on the guarding
//! example.

use assert_cmd::Command;
use serde_json::Value;

const MODEL: &str = "examples/guarding/guarding.nis";
const EX3: &str = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)";

fn run(args: &[&str], json: bool) -> (Option<i32>, String) {
    let mut cmd = Command::cargo_bin("mavis").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).args(args);
    if json {
        cmd.args(["--format", "json"]);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The JSON report and the text one of the same run, with its exit code.
fn both_forms(args: &[&str], code: i32) -> (Value, String) {
    let (c, json) = run(args, true);
    assert_eq!(c, Some(code), "{json}");
    let (c, text) = run(args, false);
    assert_eq!(c, Some(code), "{text}");
    (serde_json::from_str(&json).unwrap(), text)
}

fn count(stats: &Value, key: &str) -> u64 {
    stats[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {stats}"))
}

/// The text report's `key: value` line.
fn text_count(text: &str, key: &str) -> u64 {
    let head = format!("{key}: ");
    text.lines()
        .find_map(|l| l.strip_prefix(&head))
        .unwrap_or_else(|| panic!("no {key} line in\n{text}"))
        .parse()
        .unwrap()
}

#[test]
fn check_reports_the_nodes_and_lp_iterations_of_its_milps() {
    // EX^3 fails on M(2): HiGHS proves the witness MILP infeasible, then
    // confirms it without presolve, where the root LP must be solved.
    let args = [
        "nis", "check", MODEL, "--agents", "2", "--spec", EX3, "--engine", "milp",
    ];
    let (v, text) = both_forms(&args, 1);
    let s = &v["stats"];
    assert_eq!(count(s, "infeasibility_confirmations"), 1);
    assert!(count(s, "milp_nodes") >= 1, "{s}");
    assert!(count(s, "milp_lp_iterations") >= 1, "{s}");
    for key in ["milp_nodes", "milp_lp_iterations"] {
        assert_eq!(text_count(&text, key), count(s, key), "{key}");
    }
    // A tautology's dual is infeasible by HiGHS's bound propagation alone,
    // with and without presolve: MILPs solved, no node, no LP iteration.
    let taut = "forall v: AX^2 (alive, v) | (dead, v)";
    let args = [
        "nis", "check", MODEL, "--agents", "3", "--spec", taut, "--engine", "milp",
    ];
    let (v, text) = both_forms(&args, 0);
    let s = &v["stats"];
    assert_eq!(count(s, "infeasibility_confirmations"), 1);
    assert_eq!(count(s, "milp_nodes"), 0);
    assert_eq!(count(s, "milp_lp_iterations"), 0);
    assert_eq!(text_count(&text, "milp_nodes"), 0);
    // The explicit engine solves no MILP and reports none of it.
    let args = [
        "nis", "check", MODEL, "--agents", "2", "--spec", EX3, "--engine", "explicit",
    ];
    let (v, text) = both_forms(&args, 1);
    assert!(v["stats"].get("milp_nodes").is_none());
    assert!(!text.contains("milp_nodes"));
}

/// The sum of `key` over the sub-checks of a verify report (`milp.key`
/// under `--engine both`).
fn sum_over_checks(v: &Value, key: &str) -> u64 {
    let both = format!("milp.{key}");
    v["results"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = &c["stats"];
            s[key].as_u64().or_else(|| s[&both].as_u64()).unwrap()
        })
        .sum()
}

#[test]
fn verify_and_emergence_sum_them_over_their_checks() {
    // Emergence exits 0: it finds the threshold (3).
    for (verb, engine, code) in [("verify", "milp", 1), ("emergence", "both", 0)] {
        let args = ["nis", verb, MODEL, "--spec", EX3, "--engine", engine];
        let (v, text) = both_forms(&args, code);
        let s = &v["stats"];
        for key in ["milp_nodes", "milp_lp_iterations"] {
            assert_eq!(count(s, key), sum_over_checks(&v, key), "{verb} {key}");
            assert_eq!(text_count(&text, key), count(s, key), "{verb} {key}");
        }
        // M(2) fails (an infeasibility proof), M(3) holds (a witness found):
        // every sub-check solved at least one MILP.
        assert!(count(s, "milp_nodes") >= 1, "{verb}: {s}");
        assert!(count(s, "milp_lp_iterations") >= 1, "{verb}: {s}");
    }
    let args = [
        "nis", "verify", MODEL, "--spec", EX3, "--engine", "explicit",
    ];
    let (v, text) = both_forms(&args, 1);
    assert!(v["stats"].get("milp_nodes").is_none());
    assert!(!text.contains("milp_nodes"));
}

const VCAS: &str = "examples/vcas/single_agent.nis";
const VCAS_TWO: &str = "examples/vcas/two_agent.nis";

/// `nis check` of `spec` on `model` with `--obbt-budget budget` (and `extra`).
fn obbt_run(model: &str, extra: &[&str], spec: &str, budget: &str, code: i32) -> (Value, String) {
    let mut args = vec![
        "nis",
        "check",
        model,
        "--spec",
        spec,
        "--obbt-budget",
        budget,
    ];
    args.extend_from_slice(extra);
    both_forms(&args, code)
}

/// OBBT on the single-agent VerticalCAS model at k = 8 (from k = 7 the
/// propagated bounds do not pin every advisory, docs/nis.md; since the
/// observation after the last round is not encoded, OBBT removes no neuron
/// binary at k = 7): the same verdict, fewer binaries, the stats in JSON
/// and text. The budget is never exhausted here, so the counts do not
/// depend on timing.
#[test]
fn obbt_removes_binaries_on_vertical_cas_and_keeps_the_verdict() {
    // Without the proof by boxes, which proves AX^8 before any MILP.
    let one = ["--agents", "1", "--box-states", "0"];
    let (off, _) = obbt_run(VCAS, &one, "AX^8 safe", "0", 0);
    let (on, text) = obbt_run(VCAS, &one, "AX^8 safe", "600", 0);
    let (off, on) = (&off["stats"], &on["stats"]);
    // Without OBBT (or when it solved no LP) its keys are not reported.
    assert!(
        off.get("obbt_lps").is_none() && off.get("obbt_s").is_none(),
        "{off}"
    );
    assert_eq!(count(off, "milp_binaries"), 366);
    // The counts measured on 2026-12-07, the same in every run (HiGHS is
    // deterministic here and the budget is never reached).
    let keys = [
        "obbt_lps",
        "obbt_binaries_removed",
        "milp_binaries",
        "network_binaries",
    ];
    let counts: Vec<u64> = keys.iter().map(|k| count(on, k)).collect();
    assert_eq!(counts, [156, 7, 315, 74], "{on}");
    assert!(
        count(on, "milp_binaries") < count(off, "milp_binaries"),
        "{on}"
    );
    assert!(count(on, "network_binaries") < count(off, "network_binaries"));
    for key in ["obbt_lps", "obbt_binaries_removed", "obbt_lp_iterations"] {
        assert_eq!(text_count(&text, key), count(on, key), "{key}");
    }
    assert!(on["obbt_s"].as_f64().unwrap() > 0.0);
}

/// A refutation found with OBBT is still replayed (a witness that did not
/// replay would be exit 3): two aircraft, `<<ownship>> X^3 safe`.
#[test]
fn obbt_counterexamples_are_replayed() {
    let spec = "<<ownship>> X^3 safe";
    let (off, _) = obbt_run(VCAS_TWO, &[], spec, "0", 1);
    let (on, text) = obbt_run(VCAS_TWO, &[], spec, "600", 1);
    assert!(on["witness"].is_object() && off["witness"].is_object());
    assert!(
        count(&on["stats"], "obbt_binaries_removed") > 0,
        "{}",
        on["stats"]
    );
    assert!(count(&on["stats"], "milp_binaries") < count(&off["stats"], "milp_binaries"));
    assert!(text.contains("VIOLATED"), "{text}");
}

#[test]
fn a_negative_obbt_budget_is_refused() {
    let args = [
        "nis",
        "check",
        VCAS,
        "--spec",
        "AX^1 safe",
        "--obbt-budget",
        "-1",
    ];
    let (code, _) = run(&args, false);
    assert_eq!(code, Some(2));
}
