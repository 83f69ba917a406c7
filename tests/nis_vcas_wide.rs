//! VerticalCAS over a wide initial altitude box (issue 32), through the CLI:
//! the falsifier answers the violated cells with a replayed counterexample
//! whose initial state is checked by hand, and the MILP alone encodes only
//! the network copies the sentence reads (counted by hand).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// single_agent.nis with h in [lo, hi] and the networks' paths absolute,
/// written into `dir`.
fn wide_model(dir: &Path, lo: i32, hi: i32) -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join("examples/vcas/single_agent.nis")).unwrap();
    let nets = format!("\"{}/", repo.join("networks").display());
    let text = text
        .replace("\"../../networks/", &nets)
        .replace("in [H0 - 2..H0 + 2]", &format!("in [{lo}..{hi}]"));
    assert!(text.contains(&format!("in [{lo}..{hi}]")));
    let path = dir.join("wide.nis");
    std::fs::write(&path, text).unwrap();
    path
}

fn check(model: &Path, k: usize, extra: &[&str]) -> Value {
    let out = Command::cargo_bin("mavis")
        .unwrap()
        .args(["--format", "json", "nis", "check"])
        .arg(model)
        .args(["--agents", "1", "--spec", &format!("AX^{k} safe")])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

const G: f64 = 32.2;

// By hand: from h0 in [-250, 250] with v = -19.5, one second moves h by
// -v - acc/2 with |acc| <= G/3, so |h1 - h0 - 19.5| <= G/6 (5.4 ft); every
// h0 with |h0 + 19.5| < 94 is unsafe after one round whatever the pilot
// does: AX^k safe fails for k = 1, and the counterexample's first state is
// an initial one.
#[test]
fn the_wide_altitude_box_is_falsified_with_a_replayed_run() {
    let dir = tempfile::tempdir().unwrap();
    let model = wide_model(dir.path(), -250, 250);
    for k in 1..=3 {
        let r = check(&model, k, &[]);
        assert_eq!(r["verdict"], "violated", "k = {k}: {r}");
        assert_eq!(r["stats"]["falsify_traces"], 1, "k = {k}");
        let branch = &r["witness"]["branches"][0];
        let steps = branch.as_array().unwrap();
        assert_eq!(steps.len(), k + 1);
        let h0 = steps[0]["env"]["h"].as_f64().unwrap();
        assert!((-250.0..=250.0).contains(&h0), "h0 = {h0}");
        // The last state is unsafe, each step one of the pilot's accelerations.
        let last = steps[k]["env"]["h"].as_f64().unwrap();
        assert!(last.abs() <= 100.0, "h{k} = {last}");
        for w in steps.windows(2) {
            let (a, b) = (&w[0]["env"], &w[1]["env"]);
            let (h, v) = (a["h"].as_f64().unwrap(), a["v"].as_f64().unwrap());
            let acc = b["v"].as_f64().unwrap() - v;
            assert!(acc.abs() <= G / 3.0 + 1e-9, "acceleration {acc}");
            let h1 = b["h"].as_f64().unwrap();
            assert!((h1 - (h - v - acc / 2.0)).abs() < 1e-6);
        }
    }
}

// By hand, the MILP alone at k = 1: the first advisory is observed at the
// initial state with prev = pCOC, so the observation's `if` over prev keeps
// one network (vcas1): one copy. The advisory after the round is read by
// nothing (`safe` reads h only, and no round follows), so it is not
// encoded: before, the observation after the round added a copy per
// advisory the first network can give over the box (7 copies in all).
#[test]
fn only_the_copies_the_sentence_reads_are_encoded() {
    let dir = tempfile::tempdir().unwrap();
    let model = wide_model(dir.path(), -250, 250);
    let r = check(&model, 1, &["--falsify-samples", "0", "--engine", "milp"]);
    assert_eq!(r["verdict"], "violated", "{r}");
    assert_eq!(r["stats"]["network_copies"], 1, "{r}");
    assert!(r["stats"].get("falsify_traces").is_none());
    // The counterexample the MILP found is replayed as well (exit 3 otherwise).
    let steps = r["witness"]["branches"][0].as_array().unwrap().clone();
    assert_eq!(steps.len(), 2);
    assert!(steps[1]["env"]["h"].as_f64().unwrap().abs() <= 100.0);
}

// VENMAS's query (h in [-133, -129]) holds at k = 1..6 by the bounds alone
// (examples/vcas/README.md): the falsifier is not run where the bounds
// decide, so the query costs what it cost before falsification.
#[test]
fn the_falsifier_is_not_run_where_the_bounds_decide() {
    let dir = tempfile::tempdir().unwrap();
    let model = wide_model(dir.path(), -133, -129);
    let r = check(&model, 2, &[]);
    assert_eq!(r["verdict"], "holds", "{r}");
    assert!(r["stats"].get("falsify_samples").is_none(), "{r}");
    assert_eq!(r["stats"]["milp_binaries"], 0);
}

// `EX^k safe` (some pilot keeps the aircraft safe after k seconds, from
// every initial state; issue 32). VENMAS's box: `AX^k safe` holds for
// k = 1..6 (tests/peers/test_vcas.py checks it by simulation) and every
// state has a successor, so `EX^k safe` holds too. From h0 in [-50, -30]
// by hand: after k rounds h = h0 + 19.5 k - sum of (k - j + 1/2) acc_j with
// |acc| <= G/3, so |h1 - h0 - 19.5| <= G/6 and |h2 - h0 - 39| <= 2G/3:
// |h1| <= 36 and |h2| <= 33 whatever the pilot does. Both fail, and the
// initial state reported without a witness lies in the box.
#[test]
fn existential_safety_is_decided_with_a_refutation_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let default = wide_model(dir.path(), -133, -129);
    for k in 1..=6 {
        let r = check_spec(&default, &format!("EX^{k} safe"));
        assert_eq!(r["verdict"], "holds", "k = {k}: {r}");
    }
    let near = wide_model(dir.path(), -50, -30);
    for k in 1..=2 {
        let r = check_spec(&near, &format!("EX^{k} safe"));
        assert_eq!(r["verdict"], "violated", "k = {k}: {r}");
        let h0 = r["stats"]["initial_env_without_witness"]["h"]
            .as_f64()
            .unwrap();
        assert!((-50.0..=-30.0).contains(&h0), "h0 = {h0}");
    }
}

fn check_spec(model: &Path, spec: &str) -> Value {
    let out = Command::cargo_bin("mavis")
        .unwrap()
        .args(["--format", "json", "nis", "check"])
        .arg(model)
        .args(["--agents", "1", "--spec", spec])
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}
