//! The UPPAAL printer (XML).

use super::expr::{assignments, init_text, Printer, INT_RANGE};
use crate::report::RunError;

pub(super) fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The UPPAAL XML: the global declaration of V, one template per agent and
/// the system line naming them.
pub(super) fn uppaal(p: &mut Printer) -> Result<String, RunError> {
    let m = p.model;
    let decl = uppaal_declaration(p);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE nta PUBLIC '-//Uppaal Team//DTD Flat System 1.1//EN' 'http://www.it.uu.se/research/group/darts/uppaal/flat-1_2.dtd'>\n<nta>\n");
    out.push_str(&format!("  <declaration>{}</declaration>\n", xml(&decl)));
    let mut names = Vec::new();
    for a in &m.agents {
        names.push(format!("P_{}", a.name));
        out.push_str(&uppaal_template(p, a)?);
    }
    out.push_str(&format!(
        "  <system>system {};</system>\n",
        names.join(", ")
    ));
    out.push_str(&super::uppaal_queries::queries(p)?);
    out.push_str("</nta>\n");
    Ok(out)
}

/// The variables of V with their initial values, each with the temporary
/// that simultaneous assignments go through (see `assignments`).
fn uppaal_declaration(p: &Printer) -> String {
    let mut decl = format!("// exported by mavis; numbers of V scaled by {}\n", p.scale);
    for v in &p.model.vars {
        let init = init_text(p, &v.init);
        if v.ty == crate::lang::Ty::Bool {
            decl.push_str(&format!(
                "bool {} = {init};\nbool tmp_{};\n",
                v.name, v.name
            ));
        } else {
            decl.push_str(&format!(
                "int[{INT_RANGE}] {} = {init};\nint[{INT_RANGE}] tmp_{};\n",
                v.name, v.name
            ));
        }
    }
    decl
}

/// The template of one agent: its clock, one location per locality, a
/// committed start location when the clock does not start at 0, and the
/// edges of its transitions and of its reset.
fn uppaal_template(
    p: &mut Printer,
    a: &crate::timed::front::model::Agent,
) -> Result<String, RunError> {
    let mut out = format!(
        "  <template>\n    <name>P_{}</name>\n    <declaration>clock c;</declaration>\n",
        a.name
    );
    for (l, lname) in a.localities.iter().enumerate() {
        out.push_str(&format!(
            "    <location id=\"{}_{l}\">\n      <name>{lname}</name>\n      <label kind=\"invariant\">{}</label>\n    </location>\n",
            a.name,
            xml(&format!("c <= {}", a.deadline[l]))
        ));
    }
    let start = if a.init_clock > 0 {
        out.push_str(&format!("    <location id=\"{}_start\">\n      <name>start</name>\n      <committed/>\n    </location>\n", a.name));
        format!("{}_start", a.name)
    } else {
        format!("{}_{}", a.name, a.initial)
    };
    out.push_str(&format!("    <init ref=\"{start}\"/>\n"));
    if a.init_clock > 0 {
        out.push_str(&uppaal_edge(
            start.clone(),
            format!("{}_{}", a.name, a.initial),
            String::new(),
            format!("c = {}", a.init_clock),
        ));
    }
    for t in &a.transitions {
        let mut guard = format!("c >= {} && c <= {}", t.lower, t.upper);
        if let Some(g) = &t.guard {
            guard.push_str(&format!(" && {}", p.boolean(g)?));
        }
        let assign = assignments(p, t)?.join(", ");
        out.push_str(&uppaal_edge(
            format!("{}_{}", a.name, t.from),
            format!("{}_{}", a.name, t.to),
            guard,
            assign,
        ));
    }
    out.push_str(&uppaal_edge(
        format!("{}_{}", a.name, a.final_loc),
        format!("{}_{}", a.name, a.initial),
        format!("c == {}", a.period),
        "c = 0".into(),
    ));
    out.push_str("  </template>\n");
    Ok(out)
}

/// One UPPAAL transition; an empty guard or assignment is left out.
fn uppaal_edge(src: String, dst: String, guard: String, assign: String) -> String {
    let mut e =
        format!("    <transition>\n      <source ref=\"{src}\"/>\n      <target ref=\"{dst}\"/>\n");
    if !guard.is_empty() {
        e.push_str(&format!(
            "      <label kind=\"guard\">{}</label>\n",
            xml(&guard)
        ));
    }
    if !assign.is_empty() {
        e.push_str(&format!(
            "      <label kind=\"assignment\">{}</label>\n",
            xml(&assign)
        ));
    }
    e.push_str("    </transition>\n");
    e
}
