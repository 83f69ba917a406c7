//! The states of a run of the unrolling in words, read off a solution: the
//! run to an update that leaves its declared range ([`super::ranges::Breach`]).

use super::expr::Val;
use super::state::{which, State};
use crate::lang::DeclType;
use crate::milp::Solution;
use crate::nis::front::model::{Model, VarDecl};

/// A state of M(n) (or of M_ab(m)'s indexed agents and environment) under a
/// solution: the environment's, the named agents' and the indexed agents'
/// variables.
pub fn describe_state(model: &Model, s: &State, sol: &Solution) -> String {
    let mut parts = vec![format!(
        "environment {}",
        vars(&model.env.vars, &s.env, sol)
    )];
    for (a, local) in model.named.iter().zip(&s.named) {
        parts.push(format!(
            "{} {}",
            a.name,
            vars(&a.template.vars, &local.private, sol)
        ));
    }
    for (i, local) in s.agents.iter().enumerate() {
        let t = &model.template;
        let percept = t.percepts.get(which(sol, &local.percept));
        let percept = percept.map_or("?", String::as_str);
        let private = vars(&t.vars, &local.private, sol);
        parts.push(format!("agent {} {private} {percept}", i + 1));
    }
    parts.join(", ")
}

fn vars(decls: &[VarDecl], values: &[Val], sol: &Solution) -> String {
    let shown: Vec<String> = decls
        .iter()
        .zip(values)
        .map(|(d, v)| format!("{}={}", d.name, value(&d.ty, v, sol)))
        .collect();
    if shown.is_empty() {
        "-".into()
    } else {
        shown.join(" ")
    }
}

fn value(ty: &DeclType, v: &Val, sol: &Solution) -> String {
    match (ty, v) {
        (_, Val::Bool(b)) => (sol.eval(b) > 0.5).to_string(),
        (DeclType::Enum { values, .. }, Val::Enum(bits)) => values[which(sol, bits)].clone(),
        (_, Val::Num(x)) => {
            let x = sol.eval(x);
            // Integral values print as integers (HiGHS returns 3.0000000001).
            if (x - x.round()).abs() < 1e-6 {
                format!("{}", x.round())
            } else {
                format!("{x}")
            }
        }
        (_, Val::Enum(bits)) => which(sol, bits).to_string(),
    }
}
