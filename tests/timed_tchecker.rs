//! Side by side with TChecker (built from its public repository, see
//! docs/timed.md), where `tck-reach` is on PATH; skipped with a message
//! otherwise. For small finite models: the discrete states (localities and
//! V, scaled as exported) that TChecker's zone graph reaches equal those of
//! mavis's plain semantics.

use mavis::lang::Value;
use mavis::timed::check::graph::Graph;
use mavis::timed::semantics::{Semantics, SemanticsKind};
use mavis::timed::{export, load_str};
use std::collections::{BTreeSet, HashMap};

const MODELS: &[&str] = &[
    "var v: int = 2;\nagent a period 5 { p -> q in [1, 2] do v := max(v - 1, 0); }\n",
    // Decreasing deadlines: q -> r in [0, 3] ends before p -> q in [2, 5] may arrive.
    "var x: int = 0;\nagent a period 9 {\n  p -> q in [2, 5];\n  q -> r in [0, 3] do x := 1;\n  q -> r in [1, 6];\n}\n\
     agent b period 4 { s -> t in [1, 3] when x = 1 do x := 2; }\n",
    "var x: int = 0;\nvar y: int = 1;\nagent g0 period 4 { l0 -> l1 in [0, 2] do x := mod(x + 1, 3); l1 -> l2 in [1, 4] do y := x; }\n\
     agent g1 period 6 clock 1 { l0 -> l1 in [2, 5] when x = 0 do y := mod(y + 1, 3); }\n",
];

type Discrete = (Vec<String>, Vec<i64>);

fn mavis_discrete(text: &str) -> (BTreeSet<Discrete>, f64) {
    let m = load_str("m.mapt", text, HashMap::new()).unwrap();
    let scale: i64 = export::scale_factor(&m).try_into().unwrap();
    let started = std::time::Instant::now();
    let g = Graph::build(
        &Semantics::new(&m, SemanticsKind::Plain, None),
        1_000_000,
        None,
    )
    .unwrap();
    let secs = started.elapsed().as_secs_f64();
    assert!(g.complete);
    let set = g
        .states
        .iter()
        .map(|s| {
            let locs = (s.locs.iter().enumerate())
                .map(|(i, &l)| m.agents[i].localities[l as usize].clone())
                .collect();
            let vars = (s.vars.iter())
                .map(|v| match v {
                    Value::Bool(b) => i64::from(*b),
                    Value::Num(r) => (r * mavis::lang::num::int(scale))
                        .to_integer()
                        .try_into()
                        .unwrap(),
                    other => panic!("{other:?}"),
                })
                .collect();
            (locs, vars)
        })
        .collect();
    (set, secs)
}

fn tchecker_discrete(tck: &str, dir: &std::path::Path) -> (BTreeSet<Discrete>, String) {
    let file = dir.join("m.tck");
    std::fs::write(&file, tck).unwrap();
    let out = std::process::Command::new("tck-reach")
        .args(["-a", "reach", "-C", "graph"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let time = text
        .lines()
        .find(|l| l.starts_with("RUNNING_TIME_SECONDS"))
        .unwrap_or("")
        .to_string();
    let field = |line: &str, key: &str| -> String {
        let start = line.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
        line[start..].split('"').next().unwrap().to_string()
    };
    let set = (text.lines())
        // The committed `start` location only sets a positive initial clock.
        .filter(|l| l.contains("vloc=") && !field(l, "vloc").contains("start"))
        .map(|l| {
            let locs = field(l, "vloc")
                .trim_matches(['<', '>'])
                .split(',')
                .map(String::from)
                .collect();
            let vars = (field(l, "intval").split(','))
                .filter(|kv| !kv.starts_with("tmp_"))
                .map(|kv| kv.split('=').nth(1).unwrap().parse().unwrap())
                .collect();
            (locs, vars)
        })
        .collect();
    (set, time)
}

#[test]
fn tchecker_reaches_the_same_discrete_states() {
    if std::process::Command::new("tck-reach")
        .arg("-h")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: tck-reach is not on PATH (docs/timed.md says how to build TChecker)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for text in MODELS {
        let m = load_str("m.mapt", text, HashMap::new()).unwrap();
        let tck = export::export(&m, export::Target::Tchecker).unwrap().text;
        let (ours, secs) = mavis_discrete(text);
        let (theirs, their_time) = tchecker_discrete(&tck, dir.path());
        eprintln!(
            "{} discrete states; mavis plain graph {secs:.6} s, TChecker {their_time}",
            ours.len()
        );
        assert_eq!(ours, theirs, "{text}");
    }
}
