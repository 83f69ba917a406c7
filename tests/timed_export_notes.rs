//! `timed export` says that V was scaled only when it was (issue 33, item
//! 13): "V scaled to integers by the factor 1" was printed when nothing was
//! scaled.

#[path = "support/cli.rs"]
mod cli;

/// A model whose numbers are integers (factor 1) and one with a quarter
/// (factor 4).
const INTEGRAL: &str =
    "var x: int = 1;\nagent a period 10 {\n  p -> q in [1, 4] do x := x + 2;\n}\n";
const QUARTER: &str =
    "var x: real = 1/4;\nagent a period 10 {\n  p -> q in [1, 4] do x := x + 1/2;\n}\n";

#[test]
fn the_scale_note_appears_only_for_a_factor_other_than_one() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, factor) in [
        ("integral.mapt", INTEGRAL, "1"),
        ("quarter.mapt", QUARTER, "4"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        let json = cli::run(&[
            "--format", "json", "timed", "export", path, "--to", "tchecker",
        ])
        .success()
        .json();
        assert_eq!(json["results"]["scale"], factor, "{name}");
        let r = cli::run(&["timed", "export", path, "--to", "tchecker"]).success();
        let noted = r.stderr.contains("scaled to integers");
        assert_eq!(noted, factor != "1", "{name}: stderr: {}", r.stderr);
        if noted {
            assert!(
                r.stderr.contains(&format!("by the factor {factor}")),
                "{}",
                r.stderr
            );
        }
    }
}
