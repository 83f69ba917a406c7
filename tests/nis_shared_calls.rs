//! A network called twice with the same inputs in one agent and step is
//! encoded once: the guarding game with its observation split into two
//! `argmax` leaves on the same call (`h = 1` and the rest) has the copies of
//! the original model, and the same verdicts, checked by both deciders.

#[path = "support/cli.rs"]
mod cli;
use cli::{repo, run};

/// `nis check --engine both` (explicit and MILP must agree) as JSON.
fn check(model: &str, spec: &str) -> serde_json::Value {
    run(&[
        "--format",
        "json",
        "nis",
        "check",
        model,
        "--agents",
        "3",
        "--spec",
        spec,
        "--engine",
        "both", // The MILP itself, not the witness search that answers first.
        "--falsify-samples",
        "0",
    ])
    .json()
}

#[test]
fn identical_network_calls_share_one_copy() {
    let original = std::fs::read_to_string(repo("examples/guarding/guarding.nis")).unwrap();
    let split = original.replace(
        "observe = if h = 0 then expired else argmax(policy(h / Mh), rest_only, volunteer);",
        "observe = if h = 0 then expired\n            else if h = 1 then argmax(policy(h / Mh), rest_only, volunteer)\n            else argmax(policy(h / Mh), rest_only, volunteer);",
    );
    assert_ne!(split, original, "the observation was rewritten");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guarding.nis");
    std::fs::write(&path, split.replace("../../networks/", &repo("networks/"))).unwrap();
    for spec in [
        "forall v1, v2: EX^3 (alive, v1) & (alive, v2)",
        "forall v1: AX^3 (alive, v1)",
    ] {
        let a = check(&repo("examples/guarding/guarding.nis"), spec);
        let b = check(&path.display().to_string(), spec);
        assert_eq!(a["verdict"], b["verdict"], "{spec}");
        assert_eq!(
            a["stats"]["milp.network_copies"], b["stats"]["milp.network_copies"],
            "{spec}: {}",
            b["stats"]
        );
        assert!(b["stats"]["milp.network_copies"].as_u64().unwrap() > 0);
    }
}
