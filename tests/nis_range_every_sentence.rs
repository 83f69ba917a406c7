//! An update that leaves its variable's declared range is an error of the
//! model (docs/nis.md), whatever the sentence asks and whichever decider
//! answers (issue 33, item 1): a universal sentence must not hold over a
//! system whose out-of-range runs were silently cut. Every refusal is exit 2,
//! located at the update, with the run that gets there.

#[path = "support/cli.rs"]
mod cli;

use cli::run;

/// `x` starts at `x0`, is declared `{ty}[0..10]` and grows by `d` each round;
/// one agent with nothing to choose.
fn model(ty: &str, x0: i32, d: i32) -> String {
    format!(
        "agent t {{
  percept : {{p}} = p;
  actions : {{go}};
  observe = p;
  protocol {{ p -> {{go}}; }}
}}
environment {{
  var x : {ty}[0..10] = {x0};
  actions : {{tick}};
  update {{ tick -> x := x + {d}; }}
}}
label big = x > 12;
label small = x < 8;
"
    )
}

/// The line and column of `x := x + d` in [`model`]'s text: the value
/// `x + d` (line 10, column 25).
const UPDATE_AT: &str = ":10:25:";

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs `nis check` and asserts the refusal: exit 2, located at the update,
/// naming the variable's range and the value, with a run from the initial
/// state (`x` = `x0` at step 0).
#[track_caller]
fn assert_refused(file: &str, spec: &str, target: &[&str], engine: &str, x0: i32, value: i32) {
    let mut args = vec!["nis", "check", file, "--spec", spec, "--engine", engine];
    args.extend_from_slice(target);
    let r = run(&args);
    let what = format!("{spec} {target:?} --engine {engine}");
    assert_eq!(
        r.code, 2,
        "{what}\nstdout: {}\nstderr: {}",
        r.stdout, r.stderr
    );
    let err = &r.stderr;
    assert!(
        err.contains(UPDATE_AT),
        "{what}: not located at the update: {err}"
    );
    assert!(err.contains("declared range"), "{what}: {err}");
    assert!(
        err.contains(&format!("{value}")),
        "{what}: the value {value}: {err}"
    );
    assert!(
        err.contains(&format!("step 0: environment x={x0}")),
        "{what}: no run from the initial state: {err}"
    );
}

/// The model: x = 5 in [0..10], x := x + 10. Every sentence of
/// temporal depth >= 1 is refused, by both deciders of M(n) and of M_ab(m);
/// on main `AX^1 big` and `AX^2 big` held and `EX^1 !big` was violated.
#[test]
fn every_sentence_and_decider_refuses_a_run_leaving_its_range() {
    let dir = tempfile::tempdir().unwrap();
    let real = write(&dir, "real.nis", &model("real", 5, 10));
    let int = write(&dir, "int.nis", &model("", 5, 10));
    let specs = ["AX^1 big", "AX^2 big", "EX^1 big", "EX^1 !big", "AX^1 !big"];
    for spec in specs {
        assert_refused(&real, spec, &["--agents", "2"], "milp", 5, 15);
        assert_refused(&real, spec, &["--abstract"], "milp", 5, 15);
        for engine in ["milp", "explicit"] {
            assert_refused(&int, spec, &["--agents", "2"], engine, 5, 15);
            assert_refused(&int, spec, &["--abstract"], engine, 5, 15);
        }
    }
}

/// x = 0, x := x + 6: the range is left only at step 2, which the formula
/// `AX^1 (small | AX^1 small)` need not visit (small holds at step 1, x = 6):
/// the search must still refuse it, since the model is ill-defined within
/// the sentence's depth. A depth-1 sentence stays answered (x = 6 is in range).
#[test]
fn a_range_left_where_the_formula_need_not_look_is_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    let real = write(&dir, "real.nis", &model("real", 0, 6));
    let int = write(&dir, "int.nis", &model("", 0, 6));
    let deep = "AX^1 (small | AX^1 small)";
    assert_refused(&real, deep, &["--agents", "1"], "milp", 0, 12);
    assert_refused(&real, deep, &["--abstract"], "milp", 0, 12);
    for engine in ["milp", "explicit"] {
        assert_refused(&int, deep, &["--agents", "1"], engine, 0, 12);
        assert_refused(&int, deep, &["--abstract"], engine, 0, 12);
        let r = run(&[
            "nis",
            "check",
            &int,
            "--spec",
            "AX^1 small",
            "--engine",
            engine,
            "--agents",
            "1",
        ]);
        assert_eq!(r.code, 0, "{engine}: {}{}", r.stdout, r.stderr);
    }
}

/// The VerticalCAS case: tau is declared real[0..40] and decreases
/// every second; from tau = 2 it reaches -1 at the third update, which both
/// `AX^4 safe` and `AX^4 !safe` must refuse (main answered HOLDS to the first).
#[test]
fn vcas_with_tau_two_is_refused_for_both_polarities() {
    let dir = tempfile::tempdir().unwrap();
    let example = cli::root().join("examples/vcas/single_agent.nis");
    let text = std::fs::read_to_string(&example).unwrap();
    let from = "var tau : real[0..40] = 25;";
    assert!(text.contains(from));
    let text = text.replace(from, "var tau : real[0..40] = 2;").replace(
        "../../networks/",
        &format!("{}/", cli::root().join("networks").display()),
    );
    let file = write(&dir, "vcas.nis", &text);
    for spec in ["AX^4 safe", "AX^4 !safe"] {
        let r = run(&["nis", "check", &file, "--spec", spec, "--agents", "1"]);
        assert_eq!(r.code, 2, "{spec}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains("`tau`"), "{spec}: {}", r.stderr);
        assert!(r.stderr.contains("value -1"), "{spec}: {}", r.stderr);
        assert!(
            r.stderr.contains("step 0: environment"),
            "{spec}: {}",
            r.stderr
        );
    }
}
