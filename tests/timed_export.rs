//! The structure of exported Uppaal and TChecker models.

use mavis::timed::{export, load_str};
use std::collections::HashMap;

const MODEL: &str = "var x: real = 1/4;\nvar b: bool = false;\n\
agent a period 10 clock 2 {\n  p -> q in [1, 4] when x < 3 do x := x + 1/2, b := true;\n  q -> r in [4, 9];\n}\n\
agent c period 6 {\n  s -> t in [0, 6] do x := x * 2;\n}\n";

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn uppaal_export_has_one_template_per_agent_and_the_reset_edges() {
    let m = load_str("m.mapt", MODEL, HashMap::new()).unwrap();
    let out = export::export(&m, export::Target::Uppaal).unwrap();
    let t = &out.text;
    assert_eq!(out.scale.to_string(), "4");
    assert!(t.starts_with("<?xml") && t.trim_end().ends_with("</nta>"));
    assert_eq!(count(t, "<template>"), 2);
    // 3 + 2 localities, plus the committed start of `a` (initial clock 2).
    assert_eq!(count(t, "<location "), 6);
    assert_eq!(count(t, "<committed/>"), 1);
    // 3 transitions, 2 resets, 1 initial clock assignment.
    assert_eq!(count(t, "<transition>"), 6);
    assert!(t.contains("c == 10") && t.contains("c == 6"));
    assert!(t.contains("c &lt;= 4") && t.contains("c &lt;= 9") && t.contains("c &lt;= 10"));
    // x = 1/4 scaled by 4 is 1; + 1/2 is + 2; the guard x < 3 is x < 12; x * 2 stays an integer product.
    assert!(t.contains("int[-1000000000,1000000000] x = 1;"));
    assert!(t.contains("c &gt;= 1 &amp;&amp; c &lt;= 4 &amp;&amp; (x &lt; 12)"));
    assert!(t.contains("tmp_x = (x + 2), tmp_b = true, x = tmp_x, b = tmp_b"));
    assert!(t.contains("<system>system P_a, P_c;</system>"));
    assert!(
        !out.warnings.is_empty(),
        "the product is rescaled by a truncating division"
    );
}

#[test]
fn tchecker_export_declares_processes_clocks_and_edges() {
    let m = load_str(
        "m.mapt",
        "var x: int = 0;\nagent a period 5 { p -> q in [1, 2] do x := x + 1; }\n",
        HashMap::new(),
    )
    .unwrap();
    let out = export::export(&m, export::Target::Tchecker).unwrap();
    let lines: Vec<&str> = out.text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines[0], "system:mapt");
    assert!(lines.contains(&"process:a"));
    assert!(lines.contains(&"clock:1:c_a"));
    assert!(lines.contains(&"location:a:p{initial: : invariant: c_a<=2}"));
    assert!(lines.contains(&"location:a:q{invariant: c_a<=5}"));
    assert!(lines.contains(&"edge:a:p:q:tau{provided: c_a>=1 && c_a<=2 : do: x = (x + 1)}"));
    assert!(lines.contains(&"edge:a:q:p:tau{provided: c_a==5 : do: c_a=0}"));
}

/// `max`/`min` become one guarded edge per case: `v := max(v - 1, 0)` is
/// `v - 1 > 0 -> v = v - 1` and `!(v - 1 > 0) -> v = 0` (the two cases
/// cover every value of v and give max's value in each).
#[test]
fn tchecker_export_splits_max_and_min_into_guarded_edges() {
    let m = load_str(
        "m.mapt",
        "var v: int = 2;\nagent a period 5 { p -> q in [1, 2] do v := max(v - 1, 0); }\n\
         agent b period 5 { p -> q in [0, 5] when min(v, 3) >= 1 do v := min(v + 1, 4); }\n",
        HashMap::new(),
    )
    .unwrap();
    let out = export::export(&m, export::Target::Tchecker).unwrap();
    let edges: Vec<&str> = out
        .text
        .lines()
        .filter(|l| l.starts_with("edge:"))
        .collect();
    assert!(edges.contains(
        &"edge:a:p:q:tau{provided: c_a>=1 && c_a<=2 && ((v - 1) > 0) : do: v = (v - 1)}"
    ));
    assert!(
        edges.contains(&"edge:a:p:q:tau{provided: c_a>=1 && c_a<=2 && !((v - 1) > 0) : do: v = 0}")
    );
    // Guard and update each have a conditional: 2 x 2 edges for `b`, plus 2 resets.
    let b_edges: Vec<&&str> = edges
        .iter()
        .filter(|e| e.starts_with("edge:b:p:q"))
        .collect();
    assert_eq!(b_edges.len(), 4, "{b_edges:?}");
    assert!(b_edges.contains(
        &&"edge:b:p:q:tau{provided: c_b>=0 && c_b<=5 && (v >= 1) && (v < 3) && ((v + 1) < 4) : do: v = (v + 1)}"
    ));
    assert_eq!(edges.len(), 2 + 4 + 2);
}

/// examples/cav/README.md lists `timed export --to tchecker` for the platoons.
#[test]
fn every_cav_example_exports_to_tchecker() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/cav");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "mapt") {
            let text = std::fs::read_to_string(&path).unwrap();
            let m = load_str(path.to_str().unwrap(), &text, HashMap::new()).unwrap();
            let out = export::export(&m, export::Target::Tchecker)
                .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            assert!(!out.text.contains('?'), "{}", path.display());
            n += 1;
        }
    }
    assert_eq!(n, 10);
}
