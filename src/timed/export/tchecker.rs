//! The TChecker printer.

use super::expr::{assignments, init_text, Cases, Printer, INT_RANGE};
use crate::report::RunError;

/// One TChecker edge of `t` in the case chosen by `p.cases`.
fn tchecker_edge(
    p: &mut Printer,
    a: &crate::timed::front::model::Agent,
    t: &crate::timed::front::model::Transition,
) -> Result<String, RunError> {
    let pn = &a.name;
    let mut guard = format!("c_{pn}>={} && c_{pn}<={}", t.lower, t.upper);
    if let Some(g) = &t.guard {
        guard.push_str(&format!(" && {}", p.boolean(g)?));
    }
    let assign = assignments(p, t)?;
    for c in &p
        .cases
        .as_ref()
        .expect("an edge is printed with cases")
        .conditions
    {
        guard.push_str(&format!(" && {c}"));
    }
    let does = if assign.is_empty() {
        String::new()
    } else {
        format!(" : do: {}", assign.join("; "))
    };
    Ok(format!(
        "edge:{pn}:{}:{}:tau{{provided: {guard}{does}}}\n",
        a.localities[t.from], a.localities[t.to]
    ))
}

pub(super) fn tchecker(p: &mut Printer) -> Result<String, RunError> {
    let m = p.model;
    let mut out = format!(
        "# exported by mavis; numbers of V scaled by {}\nsystem:mapt\nevent:tau\n",
        p.scale
    );
    for v in &m.vars {
        let init = init_text(p, &v.init);
        let range = if v.ty == crate::lang::Ty::Bool {
            "0:1".to_string()
        } else {
            INT_RANGE.replace(',', ":")
        };
        out.push_str(&format!(
            "int:1:{range}:{init}:{}\nint:1:{range}:0:tmp_{}\n",
            v.name, v.name
        ));
    }
    for a in &m.agents {
        let pn = &a.name;
        out.push_str(&format!("\nprocess:{pn}\nclock:1:c_{pn}\n"));
        for (l, lname) in a.localities.iter().enumerate() {
            let initial = if l == a.initial && a.init_clock == 0 {
                "initial: : "
            } else {
                ""
            };
            out.push_str(&format!(
                "location:{pn}:{lname}{{{initial}invariant: c_{pn}<={}}}\n",
                a.deadline[l]
            ));
        }
        if a.init_clock > 0 {
            out.push_str(&format!("location:{pn}:start{{initial: : committed:}}\n"));
            out.push_str(&format!(
                "edge:{pn}:start:{}:tau{{do: c_{pn}={}}}\n",
                a.localities[a.initial], a.init_clock
            ));
        }
        for t in &a.transitions {
            // One edge per case of the conditionals in the guard and updates.
            let mut decisions = Some(Vec::new());
            while let Some(d) = decisions {
                p.cases = Some(Cases {
                    decisions: d,
                    ..Cases::default()
                });
                let edge = tchecker_edge(p, a, t);
                let cases = p.cases.take().expect("set above");
                out.push_str(&edge?);
                decisions = Cases::next(cases.decisions);
            }
        }
        out.push_str(&format!(
            "edge:{pn}:{}:{}:tau{{provided: c_{pn}=={} : do: c_{pn}=0}}\n",
            a.localities[a.final_loc], a.localities[a.initial], a.period
        ));
    }
    Ok(out)
}
