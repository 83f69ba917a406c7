//! The documented limits are the ones the code enforces (issue 33, item
//! 15: ATL's step bound, 0..64, was stated nowhere a user reads).

#[path = "support/cli.rs"]
mod cli;

use mavis::nis::front::strategic::MAX_STRATEGIC_STEPS;

#[test]
fn the_strategic_step_bound_is_documented_and_enforced() {
    let docs = std::fs::read_to_string(cli::root().join("docs/nis.md")).unwrap();
    let stated = format!("The number of rounds k is 0..{MAX_STRATEGIC_STEPS}");
    let flat = docs.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&stated),
        "docs/nis.md does not say `{stated}`"
    );
    // The README's Limits, where the issue looked for it.
    let readme = std::fs::read_to_string(cli::root().join("README.md")).unwrap();
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let stated = format!("a strategic sentence's k in 0..{MAX_STRATEGIC_STEPS}");
    assert!(flat.contains(&stated), "README.md does not say `{stated}`");
    let model = cli::repo("examples/vcas/two_agent.nis");
    let at = |k: u32| format!("<<ownship>> X^{k} safe");
    // The bound itself is taken; one more is refused where it is written.
    let r = cli::run(&["nis", "check", &model, "--spec", &at(0)]);
    assert!(matches!(r.code, 0 | 1), "{}", r.stderr);
    let r = cli::run(&[
        "nis",
        "check",
        &model,
        "--spec",
        &at(MAX_STRATEGIC_STEPS + 1),
    ])
    .expect_code(2);
    assert!(r.stderr.contains("<spec>:1:15:"), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("(0..{MAX_STRATEGIC_STEPS})")),
        "{}",
        r.stderr
    );
}
