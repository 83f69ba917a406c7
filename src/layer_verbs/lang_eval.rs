//! `mavis lang eval`: a closed expression of the model language, evaluated
//! exactly.
//!
//! JSON `results`: `value` (the exact value as text) and, for a number,
//! `decimal` (its f64 value).

use crate::lang::{self, num, Constants, Source, Span, Value};
use crate::report::{Report, RunError};

/// Evaluates `expr` with the constants `set` (given on the command line) and
/// reports the exact value, and its decimal when it is a fraction.
pub fn eval(expr: &str, set: Vec<(String, Value)>) -> Result<Report, RunError> {
    let source = Source::new("<expression>", expr);
    let mut consts = Constants::default();
    for (name, value) in set {
        consts.define(&source, &name, Span::default(), value)?;
    }
    let value = lang::eval_expression(&source, &consts)?;
    Ok(report_value(&value))
}

fn report_value(value: &Value) -> Report {
    let mut r = Report::new("lang", "eval");
    let mut results = serde_json::Map::new();
    results.insert("value".into(), value.to_string().into());
    if let Value::Num(x) = value {
        results.insert("decimal".into(), num::to_f64(x).into());
        if x.is_integer() {
            r.line(value.to_string());
        } else {
            r.line(format!("{value} ({})", num::to_f64(x)));
        }
    } else {
        r.line(value.to_string());
    }
    r.results = serde_json::Value::Object(results);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::exit;

    #[test]
    fn a_fraction_is_reported_exactly_with_its_decimal() {
        // 1/3 + 3/20 = 20/60 + 9/60 = 29/60.
        let r = eval("1/3 + 0.15", Vec::new()).unwrap();
        assert_eq!(r.results["value"], "29/60");
        assert_eq!(r.results["decimal"], 29.0 / 60.0);
        assert_eq!(r.text.trim_end(), format!("29/60 ({})", 29.0 / 60.0));
    }

    #[test]
    fn constants_from_the_command_line_are_used() {
        // clamp(3 - 2*N, 0, 4) with N = 1 is clamp(1, 0, 4) = 1.
        let n = Value::Num(num::rat(1, 1));
        let r = eval("clamp(3 - 2*N, 0, 4)", vec![("N".into(), n)]).unwrap();
        assert_eq!(r.results["value"], "1");
        assert_eq!(r.text.trim_end(), "1");
    }

    #[test]
    fn a_type_error_is_bad_input_located_in_the_expression() {
        let err = eval("1 + true", Vec::new()).unwrap_err();
        assert_eq!(err.exit_code(), exit::BAD_INPUT);
        let RunError::Input(report) = err else {
            panic!("expected an input error")
        };
        assert!(
            report.to_string().starts_with("<expression>:1:5:"),
            "{report}"
        );
    }
}
