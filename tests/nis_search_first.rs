//! Search first on finite M(n) (issue 32): the MILP decider of a finite
//! model walks the f64 simulation for a witness of the existential goal
//! (or a counterexample of a universal sentence) before any MILP, replays
//! what it finds through the exact semantics, and solves the MILP only when
//! the walk finds nothing (`--falsify-samples 0`: the MILP alone).
//!
//! The planted model: every agent climbs x by one when all agents `go`
//! (no agent performed `stay`), anything else resets x to 0, so x = 3
//! after three rounds on exactly one path (everybody goes every round).

#[path = "support/cli.rs"]
mod cli;

use cli::json;
use serde_json::Value;

const PLANTED: &str = r#"
agent a {
  var x : [0..3] = 0;
  percept : {p} = p;
  actions : {go, stay};
  observe = p;
  protocol { p -> {go, stay}; }
  update { go & !performed(stay) -> x := min(x + 1, 3); go -> x := 0; stay -> x := 0; }
}
label top = x = 3;
"#;

fn planted() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("planted.nis");
    std::fs::write(&path, PLANTED).unwrap();
    let p = path.to_str().unwrap().to_string();
    (dir, p)
}

fn stat(v: &Value, key: &str) -> u64 {
    v["stats"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("no {key} in {}", v["stats"]))
}

/// `mavis nis check` by MILP on M(n): the report and the exit status.
fn check(model: &str, n: usize, spec: &str, extra: &[&str]) -> (Value, i32) {
    let n = n.to_string();
    let args = [
        &[
            "nis", "check", model, "--agents", &n, "--spec", spec, "--engine", "milp",
        ],
        extra,
    ]
    .concat();
    json(&args)
}

/// The actions of every round of the shown trace's first branch (each
/// step lists the actions taken from it; the last step, none), after
/// checking that every agent is at the top (x = 3) at its end.
fn actions_of(v: &Value) -> Vec<Vec<String>> {
    let text = v["witness"].to_string();
    let steps = v["witness"]["branches"][0]
        .as_array()
        .unwrap_or_else(|| panic!("no branch in {text}"));
    let (last, rounds) = steps.split_last().unwrap_or_else(|| panic!("{text}"));
    for a in last["agents"]
        .as_array()
        .unwrap_or_else(|| panic!("{text}"))
    {
        assert_eq!(a["private"]["x"], 3, "{text}");
    }
    rounds
        .iter()
        .map(|s| {
            let agents = s["agents"].as_array().unwrap_or_else(|| panic!("{text}"));
            agents
                .iter()
                .map(|a| {
                    a["action"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{text}"))
                        .to_string()
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_search_finds_a_planted_witness_without_a_milp() {
    let (_dir, model) = planted();
    // n = 3: 8 joint moves, every one followed; n = 5, 6: 32 and 64 joint
    // moves, 16 of them sampled per state (seed 0).
    for n in [3, 5, 6] {
        let (v, code) = check(&model, n, "forall v1: EX^3 (top, v1)", &[]);
        assert_eq!(code, 0, "M({n}): {v}");
        assert_eq!(stat(&v, "milps"), 0, "M({n}): {}", v["stats"]);
        assert_eq!(stat(&v, "falsify_traces"), 1, "M({n})");
        assert_eq!(stat(&v, "falsify_unreplayed"), 0, "M({n})");
        // The only witness: every agent goes in each of the three rounds.
        let acts = actions_of(&v);
        assert_eq!(acts.len(), 3, "M({n}): {}", v["witness"]);
        for round in &acts {
            assert_eq!(round.len(), n, "M({n}): {}", v["witness"]);
            assert!(round.iter().all(|a| a == "go"), "M({n}): {round:?}");
        }
        // The MILP alone gives the same verdict.
        let (w, code) = check(
            &model,
            n,
            "forall v1: EX^3 (top, v1)",
            &["--falsify-samples", "0"],
        );
        assert_eq!(code, 0, "M({n}) by the MILP alone: {w}");
        assert!(stat(&w, "milps") >= 1);
        assert!(
            w["stats"].get("falsify_samples").is_none(),
            "{}",
            w["stats"]
        );
    }
}

#[test]
fn the_search_finds_a_planted_counterexample_of_a_universal_sentence() {
    let (_dir, model) = planted();
    for n in [2, 4] {
        let (v, code) = check(&model, n, "forall v1: AX^3 !(top, v1)", &[]);
        assert_eq!(code, 1, "M({n}): {v}");
        assert_eq!(stat(&v, "milps"), 0, "M({n}): {}", v["stats"]);
        assert_eq!(stat(&v, "falsify_traces"), 1);
        let acts = actions_of(&v);
        assert_eq!(acts.len(), 3);
        assert!(acts.iter().flatten().all(|a| a == "go"), "{acts:?}");
    }
}

#[test]
fn without_a_witness_the_milp_decides() {
    let (_dir, model) = planted();
    // x = 3 needs three rounds: after two nobody is at the top, so no walk
    // finds a witness and the MILP proves it infeasible.
    let (v, code) = check(&model, 3, "forall v1: EX^2 (top, v1)", &[]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(stat(&v, "falsify_traces"), 0);
    assert!(stat(&v, "falsify_samples") >= 1);
    assert!(stat(&v, "milps") >= 1);
    // Every run keeps x <= 2 for two rounds: the universal sentence holds.
    let (v, code) = check(&model, 3, "forall v1: AX^2 !(top, v1)", &[]);
    assert_eq!(code, 0, "{v}");
    assert!(stat(&v, "milps") >= 1);
}

/// The guarding game's Table 1 (bundled network): every cell by MILP
/// (search first) equals the explicit decider's, which is the paper's
/// pattern on this network: M(2) satisfies EX^k only for k <= 2, M(n),
/// n >= 3, for every k <= 6. The four violated cells are decided by MILP.
#[test]
fn the_guarding_table_by_milp_equals_the_explicit_decider() {
    let model = cli::repo("examples/guarding/guarding.nis");
    let spec = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)";
    let grid = |engine: &str| {
        let (v, code) = json(&["nis", "table", &model, "--spec", spec, "--engine", engine]);
        assert_eq!(code, 0, "{engine}: {v}");
        let cells = v["results"]["cells"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .clone();
        cells
    };
    let (milp, explicit) = (grid("milp"), grid("explicit"));
    assert_eq!(milp.len(), 30);
    assert_eq!(explicit.len(), 30);
    for (a, b) in milp.iter().zip(&explicit) {
        assert_eq!((&a["agents"], &a["k"]), (&b["agents"], &b["k"]));
        let (n, k) = (a["agents"].as_u64().unwrap(), a["k"].as_u64().unwrap());
        let holds = n >= 3 || k <= 2;
        assert_eq!(a["holds"], Value::from(holds), "milp n={n} k={k}: {a}");
        assert_eq!(b["holds"], Value::from(holds), "explicit n={n} k={k}: {b}");
        let milps = a["stats"]["milps"]
            .as_u64()
            .unwrap_or_else(|| panic!("{a}"));
        if holds {
            assert_eq!(a["stats"]["falsify_traces"], 1, "n={n} k={k}: {a}");
        } else {
            assert!(milps >= 1, "n={n} k={k}: {a}");
        }
    }
}
