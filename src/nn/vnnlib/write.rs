//! Writing a [`Property`] as VNN-LIB text that [`super::parse`] reads back
//! to the same property (numbers in Rust's shortest round-trip form).

use super::property::{Atom, Property};
use std::fmt::Write;

fn number(v: f64) -> String {
    // `{:?}` is the shortest text that parses back to the same f64.
    format!("{v:?}")
}

fn atom_text(a: &Atom) -> String {
    let mut terms: Vec<String> = Vec::new();
    let vars = a
        .inputs
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("X_{i}"), *c))
        .chain(
            a.outputs
                .iter()
                .enumerate()
                .map(|(j, c)| (format!("Y_{j}"), *c)),
        );
    for (name, c) in vars {
        if c == 1.0 {
            terms.push(name);
        } else if c != 0.0 {
            terms.push(format!("(* {} {name})", number(c)));
        }
    }
    let lhs = match terms.len() {
        0 => "0.0".to_string(),
        1 => terms.remove(0),
        _ => format!("(+ {})", terms.join(" ")),
    };
    format!("(<= {lhs} {})", number(a.rhs))
}

/// The property as VNN-LIB: declarations, then one assertion, a disjunction
/// over the cases of (box and disjunction of output conjunctions).
pub fn to_vnnlib(p: &Property) -> String {
    let mut out = String::new();
    for i in 0..p.inputs {
        let _ = writeln!(out, "(declare-const X_{i} Real)");
    }
    for j in 0..p.outputs {
        let _ = writeln!(out, "(declare-const Y_{j} Real)");
    }
    let mut cases = Vec::new();
    for c in &p.cases {
        let mut parts: Vec<String> = Vec::new();
        for i in 0..p.inputs {
            parts.push(format!("(>= X_{i} {})", number(c.input.lo[i])));
            parts.push(format!("(<= X_{i} {})", number(c.input.hi[i])));
        }
        let disjuncts: Vec<String> = c
            .disjuncts
            .iter()
            .map(|d| {
                format!(
                    "(and {})",
                    d.iter().map(atom_text).collect::<Vec<_>>().join(" ")
                )
            })
            .collect();
        parts.push(format!("(or {})", disjuncts.join("\n    ")));
        cases.push(format!("(and {})", parts.join(" ")));
    }
    // An empty disjunction: nothing is unsafe.
    let _ = writeln!(out, "(assert (or\n  {}))", cases.join("\n  "));
    out
}
