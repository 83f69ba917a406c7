//! The model's declared queries (`query NAME: ...;`) in UPPAAL's query
//! language, as the `<queries>` of the XML: `EF phi` is `E<> phi`, `AG phi`
//! is `A[] phi` (and their negations the dual), `max e` / `min e [subject
//! to phi]` are `sup{phi}: e` / `inf{phi}: e`. UPPAAL has no nesting of
//! path quantifiers and no Boolean combination of them: such a query is
//! left out with a note (the model itself is whole), as is one over the
//! global time `time` (the export has no global clock). Numbers of V are
//! scaled as in the model.

use super::expr::Printer;
use super::uppaal::xml;
use crate::report::RunError;
use crate::timed::front::query::{parse_query, Formula, Query};

/// The `<queries>` element (empty when no query can be written).
pub(super) fn queries(p: &mut Printer) -> Result<String, RunError> {
    let model = p.model;
    let mut out = String::new();
    for q in &model.queries {
        let text = q.formula.text().trim().to_string();
        let parsed = parse_query(model, &q.formula)?;
        match formula(p, &parsed) {
            Ok(f) => out.push_str(&format!(
                "    <query>\n      <formula>{}</formula>\n      <comment>{}: {}</comment>\n    </query>\n",
                xml(&f),
                xml(&q.name),
                xml(&text)
            )),
            Err(why) => p.notes.push(format!(
                "query `{}` is not in the UPPAAL export: {why}",
                q.name
            )),
        }
    }
    if out.is_empty() {
        return Ok(out);
    }
    Ok(format!("  <queries>\n{out}  </queries>\n"))
}

/// One query in UPPAAL's syntax, or why it has none.
fn formula(p: &mut Printer, q: &Query) -> Result<String, String> {
    let state = |p: &mut Printer, f: &Formula| -> Result<String, String> {
        state_formula(p, f).map_err(why)
    };
    match q {
        Query::Check(Formula::EF(f)) => Ok(format!("E<> {}", state(p, f)?)),
        Query::Check(Formula::AG(f)) => Ok(format!("A[] {}", state(p, f)?)),
        Query::Check(Formula::Not(inner)) => match &**inner {
            Formula::EF(f) => Ok(format!("A[] !({})", state(p, f)?)),
            Formula::AG(f) => Ok(format!("E<> !({})", state(p, f)?)),
            _ => Err(COMBINATION.into()),
        },
        Query::Check(f) if f.is_state() => Err(
            "a state formula without EF or AG is a question about the initial state only".into(),
        ),
        Query::Check(_) => Err(COMBINATION.into()),
        Query::Extremum {
            maximize,
            expr,
            subject,
        } => {
            let e = p.number(expr).map_err(why)?;
            let word = if *maximize { "sup" } else { "inf" };
            match subject {
                None => Ok(format!("{word}: {e}")),
                Some(f) => Ok(format!("{word}{{{}}}: {e}", state(p, f)?)),
            }
        }
    }
}

/// What a refused expression lacks, for the warning.
fn why(e: RunError) -> String {
    match e {
        RunError::Input(r) => r.to_string(),
        RunError::Internal(s)
        | RunError::TimedOut(s)
        | RunError::Undetermined(s)
        | RunError::Limit(s) => s,
    }
}

const COMBINATION: &str = "UPPAAL's queries have one path quantifier, not nested or combined ones";

/// A formula without temporal operators as a UPPAAL condition.
fn state_formula(p: &mut Printer, f: &Formula) -> Result<String, RunError> {
    Ok(match f {
        Formula::Atom(e) => p.boolean(e)?,
        Formula::Not(a) => format!("!({})", state_formula(p, a)?),
        Formula::And(a, b) => format!("({} && {})", state_formula(p, a)?, state_formula(p, b)?),
        Formula::Or(a, b) => format!("({} || {})", state_formula(p, a)?, state_formula(p, b)?),
        Formula::Implies(a, b) => {
            format!("(!({}) || {})", state_formula(p, a)?, state_formula(p, b)?)
        }
        Formula::EF(_) | Formula::AG(_) => {
            return Err(RunError::input(COMBINATION));
        }
    })
}
