//! ARCH-COMP's VCAS benchmark (examples/vcas/arch_comp.nis, issue 32) on a
//! few fast cells, through the CLI. The verdicts are those of the
//! independent simulation of tests/peers/test_vcas_arch.py (every pilot
//! choice from a grid of 17 initial altitudes, networks in numpy): with the
//! central pilot, h falls to |h| <= 100 after 2 and 3 rounds from -25.5 ft/s
//! and after 2, 3 and 4 rounds from -28.5 ft/s, and never from -19.5 or
//! -22.5. Here, by hand: each counterexample step takes the central
//! acceleration of its advisory, and the four climbrates are decided one by
//! one (the list is halved twice, then each member's bounds decide).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

const G: f64 = 32.2;
const ADVISORIES: [&str; 9] = [
    "COC", "DNC", "DND", "DES1500", "CL1500", "SDES1500", "SCL1500", "SDES2500", "SCL2500",
];

/// arch_comp.nis with the networks' paths absolute, the climbrate `v0`
/// (`None`: the benchmark's list of four), written into `dir`.
fn model(dir: &Path, v0: Option<f64>) -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join("examples/vcas/arch_comp.nis")).unwrap();
    let nets = format!("\"{}/", repo.join("networks").display());
    let list = "in {-19.5, -22.5, -25.5, -28.5}";
    assert!(text.contains(list));
    let init = v0.map_or(list.to_string(), |v| format!("= {v}"));
    let text = text
        .replace("\"../../networks/", &nets)
        .replace(list, &init);
    let path = dir.join("arch.nis");
    std::fs::write(&path, text).unwrap();
    path
}

fn check(model: &Path, k: usize) -> Value {
    check_args(model, k, &[])
}

/// [`check`] with the verb's options `extra`.
fn check_args(model: &Path, k: usize, extra: &[&str]) -> Value {
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

/// ARCH-COMP's central acceleration under `adv` after `prev` at climbrate
/// `v` (ft/s; compliance in ft/min).
fn central(adv: usize, prev: usize, v: f64) -> f64 {
    let fpm = 60.0 * v;
    let complies = match adv {
        1 => fpm <= 0.0,
        2 => fpm >= 0.0,
        3 | 5 => fpm <= -1500.0,
        4 | 6 => fpm >= 1500.0,
        7 => fpm <= -2500.0,
        8 => fpm >= 2500.0,
        _ => false,
    };
    if adv == prev && complies {
        return 0.0;
    }
    [0.0, -7.0, 7.0, -7.0, 7.0, -8.0, 8.0, -8.0, 8.0][adv] * G / 24.0
}

fn f(x: &Value) -> f64 {
    x.as_f64().unwrap()
}

#[test]
fn the_central_pilots_collisions_replay_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    for (v0, ks) in [(-25.5, &[2, 3][..]), (-28.5, &[2, 3, 4][..])] {
        let path = model(dir.path(), Some(v0));
        for &k in ks {
            let r = check(&path, k);
            assert_eq!(r["verdict"], "violated", "v0 = {v0}, k = {k}: {r}");
            let branches = r["witness"]["branches"].as_array().unwrap();
            assert_eq!(branches.len(), 1, "one run: the pilot has no choice");
            let steps = branches[0].as_array().unwrap();
            assert_eq!(steps.len(), k + 1);
            let first = &steps[0]["env"];
            assert!((-133.0..=-129.0).contains(&f(&first["h"])));
            assert_eq!((f(&first["v"]), f(&first["tau"])), (v0, 25.0));
            let mut prev = 0;
            for w in steps.windows(2) {
                let (a, b) = (&w[0]["env"], &w[1]["env"]);
                let percept = w[0]["agents"][0]["percept"].as_str().unwrap();
                let adv = ADVISORIES.iter().position(|&p| p == percept).unwrap();
                let (h, v) = (f(&a["h"]), f(&a["v"]));
                let acc = central(adv, prev, v);
                assert!(
                    (f(&b["v"]) - (v + acc)).abs() < 1e-9,
                    "{percept} at v = {v}"
                );
                assert!((f(&b["h"]) - (h - v - acc / 2.0)).abs() < 1e-9);
                prev = adv;
            }
            assert!(f(&steps[k]["env"]["h"]).abs() <= 100.0);
        }
    }
}

#[test]
fn the_four_climbrates_are_decided_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = model(dir.path(), None);
    for k in [5, 10] {
        // The proof by boxes takes each climbrate as its own root (4 boxes).
        let r = check(&path, k);
        assert_eq!(r["verdict"], "holds", "k = {k}: {r}");
        let s = &r["stats"];
        assert_eq!(
            (&s["box_proved"], &s["box_boxes"]),
            (&true.into(), &4.into()),
            "{s}"
        );
        // Without it: four members halved into two runs of two, each into
        // two single members (3 splits, 7 boxes), whose bounds decide: no
        // MILP solved.
        let r = check_args(&path, k, &["--box-states", "0"]);
        assert_eq!(r["verdict"], "holds", "k = {k}: {r}");
        let s = &r["stats"];
        assert_eq!(
            (&s["splits"], &s["split_boxes"]),
            (&3.into(), &7.into()),
            "{s}"
        );
        assert_eq!(s["milp_binaries"], 0, "{s}");
    }
    // From -28.5 ft/s the central pilot collides after 4 rounds.
    assert_eq!(check(&path, 4)["verdict"], "violated");
}

// VENMAS's pilot over the four climbrates at once: after 5 rounds only
// -28.5 ft/s collides (the peer simulation), the last of the list. The
// falsifier tries every climbrate's centre and corners before searching
// one climbrate long, so it finds the run, no MILP.
#[test]
fn the_falsifier_reaches_the_last_climbrate_of_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join("examples/vcas/single_agent.nis")).unwrap();
    let nets = format!("\"{}/", repo.join("networks").display());
    let text = text.replace("\"../../networks/", &nets).replace(
        "var v : real[-2500..2500] = V0;",
        "var v : real[-2500..2500] in {-19.5, -22.5, -25.5, -28.5};",
    );
    assert!(text.contains("in {-19.5"));
    let path = dir.path().join("venmas_all.nis");
    std::fs::write(&path, text).unwrap();
    let r = check(&path, 5);
    assert_eq!(r["verdict"], "violated", "{r}");
    assert_eq!(r["stats"]["falsify_traces"], 1, "{}", r["stats"]);
    assert_eq!(r["witness"]["branches"][0][0]["env"]["v"], -28.5);
}

fn check_with(model: &Path, k: usize, extra: &[&str]) -> Value {
    let out = Command::cargo_bin("mavis")
        .unwrap()
        .args(["--format", "json"])
        .args(extra)
        .args(["nis", "check"])
        .arg(model)
        .args(["--agents", "1", "--spec", &format!("AX^{k} safe")])
        .args(["--falsify-samples", "0", "--split-budget", "0"])
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

// VENMAS's pilot over the four climbrates: the list's parts are decided in
// waves, on 1 or 2 threads, with the same verdicts (the peer simulation's:
// violated after 4 rounds from -28.5 ft/s, safe after 6). Without the
// falsifier the counterexample comes from a part's MILP and is replayed;
// with a zero budget every stalled part is cut (over the pilot's choices
// where halving h does not help).
#[test]
fn one_and_two_threads_give_the_same_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(repo.join("examples/vcas/single_agent.nis")).unwrap();
    let nets = format!("\"{}/", repo.join("networks").display());
    let text = text.replace("\"../../networks/", &nets).replace(
        "var v : real[-2500..2500] = V0;",
        "var v : real[-2500..2500] in {-19.5, -22.5, -25.5, -28.5};",
    );
    let path = dir.path().join("venmas_all.nis");
    std::fs::write(&path, text).unwrap();
    for (k, verdict) in [(4, "violated"), (6, "holds")] {
        for threads in ["1", "2"] {
            let r = check_with(&path, k, &["--threads", threads, "--timeout", "300"]);
            assert_eq!(r["verdict"], verdict, "k = {k}, {threads} threads: {r}");
            let s = &r["stats"];
            assert!(s.get("falsify_traces").is_none(), "{s}");
            assert!(s["split_boxes"].as_u64().unwrap() >= 7, "{s}");
            if verdict == "violated" {
                let steps = r["witness"]["branches"][0].as_array().unwrap();
                assert!(f(&steps[k]["env"]["h"]).abs() <= 100.0, "{r}");
            }
        }
    }
}
