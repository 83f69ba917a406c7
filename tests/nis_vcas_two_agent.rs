//! The two-agent VerticalCAS example (examples/vcas/two_agent.nis): named
//! agents with their own constants, the networks of VENMAS, and VENMAS's
//! four strategic properties at k = 1, decided by the MILP decider with
//! every tree replayed in f64.
//!
//! Hand computation for k = 1: from h in [-52, -48] with climbrates -5 and
//! +5 ft/s, one second moves h by -v_own - acc_own / 2 + v_int + acc_int / 2,
//! at most 5 + 11.7 / 2 + 5 + 11.7 / 2 = 21.7 ft, so |h| <= 73.7 < 100:
//! `safe` holds nowhere after one round. Hence `[[ownship, intruder]] X
//! safe`, `<<ownship>> X safe` and `[[intruder]] X safe` are violated and
//! `<<ownship, intruder>> X !safe` holds, whatever the networks advise.
//! The language parts are checked too: a named agent's parameters, and
//! their errors.

#[path = "support/cli.rs"]
mod cli;

use cli::run;

const MODEL: &str = "examples/vcas/two_agent.nis";

#[test]
fn venmas_properties_at_one_round_are_the_hand_computed_ones() {
    let cases = [
        ("[[ownship, intruder]] X safe", 1),
        ("<<ownship>> X safe", 1),
        ("[[intruder]] X safe", 1),
        ("<<ownship, intruder>> X !safe", 0),
    ];
    for (spec, code) in cases {
        let r = run(&["nis", "check", MODEL, "--spec", spec]).expect_code(code);
        assert!(r.stdout.contains("engine milp"), "{spec}: {}", r.stdout);
    }
    // <<ownship>> over the initial interval is refuted, and the refutation
    // branches over the ownship's moves (lo, hi; keep is not enabled under
    // COC), each answered by the intruder.
    let r = run(&["nis", "check", MODEL, "--spec", "<<ownship>> X safe"]).expect_code(1);
    assert!(r.stdout.contains("a refutation"), "{}", r.stdout);
    assert!(r.stdout.contains("branch 2 of 2"), "{}", r.stdout);
    assert!(r.stdout.contains("ownship.lo") && r.stdout.contains("ownship.hi"));
}

/// From h in [-97, -93] the intruder climbing (`hi` twice) keeps |h| <= 100
/// for two rounds whatever the ownship does: a strategy of four branches
/// (the ownship's lo/hi in each round). Its last round ends on a near-tie
/// of the ownship's advisory, which the goal (over h alone) does not read;
/// this was once rejected as undetermined (exit 3). The verdict is
/// confirmed by an independent game solver over onnxruntime in
/// tests/peers/test_vcas_two_agent.py.
#[test]
fn a_near_tie_after_the_last_round_does_not_block_a_strategy() {
    let r = run(&[
        "nis",
        "check",
        MODEL,
        "--spec",
        "[[intruder]] X^2 safe",
        "--set",
        "H0=-95",
    ])
    .expect_code(1);
    assert!(r.stdout.contains("branch 4 of 4"), "{}", r.stdout);
    assert!(r.stdout.contains("intruder.hi") && !r.stdout.contains("intruder.lo"));
}

#[test]
fn named_agent_parameters_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let body = "{
  percept : {lo, hi} = lo;
  actions : {stay, push};
  observe = if x >= lim then hi else lo;
  protocol { lo -> {stay, push}; hi -> {stay}; }
}
environment {
  var x : [0..4] = 0;
  actions : {tick};
  update { tick -> x := min(x + (if a.action = push then 1 else 0) + (if b.action = push then 1 else 0), 4); }
}
label far = x >= 2;
label split = a.percept = hi & b.percept = lo;
";
    // a sees hi from x >= 1, b from x >= 2: one push by each gives x = 2,
    // a hi and b hi; a alone pushing gives x = 1, a hi and b lo.
    let ok = write(
        "ok.nis",
        &format!("named agent a(lim = 1), b(lim = 2) {body}"),
    );
    run(&["nis", "check", &ok, "--spec", "<<a>> X split"]).expect_code(1);
    run(&["nis", "check", &ok, "--spec", "<<a, b>> X split"]).expect_code(0);
    run(&["nis", "check", &ok, "--spec", "[[b]] X split"]).expect_code(0);
    let missing = write("missing.nis", &format!("named agent a(lim = 1), b {body}"));
    let r = run(&["nis", "check", &missing, "--spec", "<<a>> X far"]).expect_code(2);
    assert!(r.stderr.contains("same parameters"), "{}", r.stderr);
    assert!(r.stderr.contains("missing.nis:1:"), "{}", r.stderr);
    // The same enumeration list twice is one type; a different list reusing
    // a name is still an error.
    let clash = body.replace("actions : {stay, push};", "actions : {lo, hi};");
    let clash = write(
        "clash.nis",
        &format!("named agent a(lim = 1), b(lim = 2) {clash}"),
    );
    let r = run(&["nis", "check", &clash, "--spec", "<<a>> X far"]).expect_code(2);
    assert!(r.stderr.contains("names of their own"), "{}", r.stderr);
}
