//! Writing a [`Model`] in the CPLEX LP file format, for inspection
//! (`--dump-lp`) and for feeding to other solvers.

use super::model::{Model, Sense, VarKind};
use super::solve::Objective;
use std::fmt::Write as _;

/// LP names: `x<index>_<name>` for variables, `c<index>_<name>` for rows,
/// with characters LP files do not allow replaced by `_` (the index keeps
/// them unique).
fn lp_name(index: usize, name: &str) -> String {
    format!("x{index}_{}", clean(name))
}

fn clean(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.!\"#$%&()/,;?@'{}|~".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    clean
}

fn number(v: f64) -> String {
    if v == f64::INFINITY {
        "+inf".into()
    } else if v == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        format!("{v:?}")
    }
}

fn terms(out: &mut String, model: &Model, terms: &[(super::Var, f64)]) {
    if terms.is_empty() {
        // LP rows need a variable; a zero coefficient on the first one is the empty sum.
        if let Some(v) = model.vars.first() {
            let _ = write!(out, " 0 {}", lp_name(0, &v.name));
        }
        return;
    }
    for &(v, c) in terms {
        let sign = if c < 0.0 { '-' } else { '+' };
        let _ = write!(
            out,
            " {sign} {} {}",
            number(c.abs()),
            lp_name(v.0, model.name(v))
        );
    }
}

impl Model {
    /// The model and an objective as an LP file.
    pub fn to_lp(&self, objective: &Objective) -> String {
        let mut out = String::from("\\ written by mavis\n");
        let (sense, expr) = match objective {
            Objective::Feasibility => ("Minimize", None),
            Objective::Maximise(e) => ("Maximize", Some(e)),
            Objective::Minimise(e) => ("Minimize", Some(e)),
        };
        let _ = write!(out, "{sense}\n obj:");
        let obj_terms = expr.map(|e| e.merged_terms()).unwrap_or_default();
        terms(&mut out, self, &obj_terms);
        if let Some(e) = expr {
            if e.constant_part() != 0.0 {
                let _ = write!(
                    out,
                    "\n\\ objective constant: {}",
                    number(e.constant_part())
                );
            }
        }
        out.push_str("\nSubject To\n");
        for (i, row) in self.rows.iter().enumerate() {
            let _ = write!(out, " c{i}_{}:", clean(&row.name));
            terms(&mut out, self, &row.terms);
            let op = match row.sense {
                Sense::Le => "<=",
                Sense::Ge => ">=",
                Sense::Eq => "=",
            };
            let _ = writeln!(out, " {op} {}", number(row.rhs));
        }
        out.push_str("Bounds\n");
        for (i, v) in self.vars.iter().enumerate() {
            if v.kind == VarKind::Binary {
                continue;
            }
            let _ = writeln!(
                out,
                " {} <= {} <= {}",
                number(v.lo),
                lp_name(i, &v.name),
                number(v.hi)
            );
        }
        let section = |kind: VarKind| -> Vec<String> {
            self.vars
                .iter()
                .enumerate()
                .filter(|(_, v)| v.kind == kind)
                .map(|(i, v)| lp_name(i, &v.name))
                .collect()
        };
        for (title, kind) in [("General", VarKind::Integer), ("Binary", VarKind::Binary)] {
            let names = section(kind);
            if !names.is_empty() {
                let _ = writeln!(out, "{title}\n {}", names.join(" "));
            }
        }
        out.push_str("End\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::milp::LinExpr;

    #[test]
    fn writes_every_section() {
        let mut m = Model::new();
        let x = m.continuous("x[0]", -1.0, 2.5);
        let b = m.binary("on");
        let k = m.integer("k", 0.0, 3.0);
        m.le("cap", LinExpr::from(x) * 2.0 - b, 1.0);
        m.eq("link", k, x + 1.0);
        let lp = m.to_lp(&Objective::Maximise(LinExpr::from(x) + k));
        let expected =
            "\\ written by mavis\nMaximize\n obj: + 1.0 x0_x_0_ + 1.0 x2_k\nSubject To\n \
c0_cap: + 2.0 x0_x_0_ - 1.0 x1_on <= 1.0\n c1_link: - 1.0 x0_x_0_ + 1.0 x2_k = 1.0\nBounds\n \
-1.0 <= x0_x_0_ <= 2.5\n 0.0 <= x2_k <= 3.0\nGeneral\n x2_k\nBinary\n x1_on\nEnd\n";
        assert_eq!(lp, expected);
    }
}
