//! A number the MILP decider cannot hold in f64 (`const Gr = 1e400;`) is an
//! input error located in the model text, naming the constant (issue 33,
//! item 14); main blamed a MILP variable (`'s1.a1.h' (coefficient 1e0, bound
//! 0e0)`) with no location.

#[path = "support/cli.rs"]
mod cli;

#[test]
fn a_constant_beyond_f64_is_located_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(cli::root().join("examples/guarding/guarding.nis")).unwrap();
    assert!(text.contains("const Gr = -2;"));
    let text = text
        .replace("const Gr = -2;", "const Gr = 1e400;")
        .replace("../../networks/", &format!("{}/", cli::repo("networks")));
    let file = dir.path().join("guarding_huge.nis");
    std::fs::write(&file, &text).unwrap();
    // The use of Gr in the update `guard -> h := clamp(h + Gr, 0, Mh);`.
    let line = text.lines().position(|l| l.contains("h + Gr")).unwrap() + 1;
    let column = text.lines().nth(line - 1).unwrap().find("Gr,").unwrap() + 1;
    let r = cli::run(&[
        "nis",
        "check",
        file.to_str().unwrap(),
        "--spec",
        "forall v: EX^1 (alive, v)",
        "--agents",
        "2",
        "--engine",
        "milp",
    ])
    .expect_code(2);
    let at = format!(":{line}:{column}:");
    assert!(r.stderr.contains(&at), "not at {at}: {}", r.stderr);
    assert!(r.stderr.contains("the constant `Gr`"), "{}", r.stderr);
    assert!(r.stderr.contains("f64"), "{}", r.stderr);
    assert!(!r.stderr.contains("coefficient"), "{}", r.stderr);
}
