//! `nn verify` on input boxes near the f64 limit (issue 33, item 10):
//! a box of +-1e308 panicked in random sampling (range overflow) and one of
//! +-5e307 failed an assertion on a falsified point whose output had
//! overflowed. Both are refused with exit 2 and a reason; a box the
//! network's values fit in is still decided.

#[path = "support/cli.rs"]
mod cli;

fn property(half_width: &str) -> String {
    format!(
        "(declare-const X_0 Real)
(declare-const Y_0 Real)
(declare-const Y_1 Real)
(assert (>= X_0 -{half_width}))
(assert (<= X_0 {half_width}))
(assert (>= Y_1 (+ Y_0 0.5)))
"
    )
}

fn verify(half_width: &str) -> cli::Run {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.vnnlib");
    std::fs::write(&path, property(half_width)).unwrap();
    cli::run(&[
        "nn",
        "verify",
        &cli::repo("tests/fixtures/policy_1_4_4_2.onnx"),
        path.to_str().unwrap(),
    ])
}

#[test]
fn boxes_whose_values_overflow_are_refused_not_panicking() {
    let r = verify("1e308").expect_code(2);
    assert!(r.stderr.contains("overflows f64"), "{}", r.stderr);
    let r = verify("5e307").expect_code(2);
    assert!(r.stderr.contains("overflow f64"), "{}", r.stderr);
}

#[test]
fn a_wide_box_the_network_fits_in_is_decided() {
    let r = verify("1e6");
    assert!(matches!(r.code, 0 | 1), "{}{}", r.stdout, r.stderr);
}
