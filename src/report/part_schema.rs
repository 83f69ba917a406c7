//! The form of a cell's result in a part of a sharded run, as the verb that
//! wrote it writes it: `mavis merge` checks every cell against its verb's
//! [`Shape`] before drawing anything, so that a part edited by hand (a
//! verdict `"maybe"`, a probability 2.5, a cell without its verdict) is
//! refused with the file and the cell named instead of being counted,
//! plotted or panicking. Engine-neutral: each engine declares its shape.

use serde_json::Value;

/// What a JSON value must be.
#[derive(Debug)]
pub enum Shape {
    /// Any value (what the drawing does not read).
    Any,
    Bool,
    Text,
    /// A non-negative integer.
    Count,
    /// A finite number in `[lo, hi]`.
    Number {
        lo: f64,
        hi: f64,
    },
    /// A string holding a finite number in `[lo, hi]` (how parts keep f64
    /// values exactly).
    NumberText {
        lo: f64,
        hi: f64,
    },
    Null,
    /// One of these strings.
    Words(&'static [&'static str]),
    /// An object with these fields (others allowed); a field whose shape
    /// is [`Shape::Optional`] may be absent.
    Object(&'static [(&'static str, Shape)]),
    /// Absent, or of this shape (an object's field only).
    Optional(&'static Shape),
    /// An array of values of one shape.
    Array(&'static Shape),
    /// An array of exactly these shapes, in order.
    Tuple(&'static [Shape]),
    /// Any one of these shapes.
    OneOf(&'static [Shape]),
}

/// Probabilities.
pub const PROBABILITY: Shape = Shape::NumberText { lo: 0.0, hi: 1.0 };

/// Why `v` is not of shape `s`, with the path to the offending value.
pub fn check(s: &Shape, v: &Value) -> Result<(), String> {
    check_at(s, v, "")
}

fn check_at(s: &Shape, v: &Value, at: &str) -> Result<(), String> {
    let fail = |want: String| {
        let place = if at.is_empty() {
            String::new()
        } else {
            format!("`{at}` ")
        };
        Err(format!("{place}is {}, expected {want}", brief(v)))
    };
    match s {
        Shape::Any => Ok(()),
        Shape::Bool if v.is_boolean() => Ok(()),
        Shape::Text if v.is_string() => Ok(()),
        Shape::Count if v.is_u64() => Ok(()),
        Shape::Null if v.is_null() => Ok(()),
        Shape::Number { lo, hi } => match v.as_f64() {
            Some(x) if *lo <= x && x <= *hi => Ok(()),
            _ => fail(format!("a number in {}", range(*lo, *hi))),
        },
        Shape::NumberText { lo, hi } => match v.as_str().map(str::parse::<f64>) {
            Some(Ok(x)) if *lo <= x && x <= *hi => Ok(()),
            _ => fail(format!("a number (as text) in {}", range(*lo, *hi))),
        },
        Shape::Words(ws) if v.as_str().is_some_and(|w| ws.contains(&w)) => Ok(()),
        Shape::Words(ws) => fail(format!("one of {}", quoted(ws))),
        Shape::Object(fields) => check_object(fields, v, at).or_else(|e| match e {
            None => fail("an object".into()),
            Some(e) => Err(e),
        }),
        Shape::Optional(inner) => check_at(inner, v, at),
        Shape::Array(item) => match v.as_array() {
            Some(items) => items
                .iter()
                .enumerate()
                .try_for_each(|(i, x)| check_at(item, x, &format!("{at}[{i}]"))),
            None => fail("an array".into()),
        },
        Shape::Tuple(items) => match v.as_array() {
            Some(xs) if xs.len() == items.len() => items
                .iter()
                .zip(xs)
                .enumerate()
                .try_for_each(|(i, (s, x))| check_at(s, x, &format!("{at}[{i}]"))),
            _ => fail(format!("an array of {} values", items.len())),
        },
        Shape::OneOf(shapes) => {
            let mut first = None;
            for s in shapes.iter() {
                match check_at(s, v, at) {
                    Ok(()) => return Ok(()),
                    Err(e) => first = first.or(Some(e)),
                }
            }
            // The reason of the alternative of the value's own kind.
            let own = shapes.iter().position(|s| same_kind(s, v));
            match own {
                Some(i) => check_at(&shapes[i], v, at),
                None => Err(first.unwrap_or_else(|| "matches no shape".into())),
            }
        }
        Shape::Bool => fail("true or false".into()),
        Shape::Text => fail("a string".into()),
        Shape::Count => fail("a non-negative integer".into()),
        Shape::Null => fail("null".into()),
    }
}

/// The fields of an object (`Err(None)`: not an object).
fn check_object(fields: &[(&str, Shape)], v: &Value, at: &str) -> Result<(), Option<String>> {
    let map = v.as_object().ok_or(None)?;
    for (name, shape) in fields {
        let path = if at.is_empty() {
            (*name).to_string()
        } else {
            format!("{at}.{name}")
        };
        match (map.get(*name), shape) {
            (None, Shape::Optional(_)) => {}
            (None, _) => return Err(Some(format!("has no `{path}`"))),
            (Some(x), s) => check_at(s, x, &path).map_err(Some)?,
        }
    }
    Ok(())
}

/// Whether `v` is of the JSON kind `s` describes (for the message of a
/// [`Shape::OneOf`]).
fn same_kind(s: &Shape, v: &Value) -> bool {
    match s {
        Shape::Object(_) => v.is_object(),
        Shape::Array(_) | Shape::Tuple(_) => v.is_array(),
        Shape::Bool => v.is_boolean(),
        Shape::Count | Shape::Number { .. } => v.is_number(),
        Shape::Null => v.is_null(),
        Shape::Text | Shape::Words(_) | Shape::NumberText { .. } => v.is_string(),
        Shape::Any | Shape::Optional(_) | Shape::OneOf(_) => false,
    }
}

fn range(lo: f64, hi: f64) -> String {
    match (lo.is_finite(), hi.is_finite()) {
        (true, true) => format!("[{lo}, {hi}]"),
        (true, false) => format!("[{lo}, inf)"),
        (false, true) => format!("(-inf, {hi}]"),
        (false, false) => "(-inf, inf)".into(),
    }
}

fn quoted(words: &[&str]) -> String {
    let q: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    q.join(", ")
}

/// A value in a message: short values whole, long ones by their kind.
fn brief(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 40 {
        text
    } else if v.is_object() {
        "an object".into()
    } else if v.is_array() {
        "an array".into()
    } else {
        format!("{}...", text.chars().take(37).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CELL: Shape = Shape::OneOf(&[
        Shape::Words(&["timeout"]),
        Shape::Object(&[
            ("holds", Shape::Bool),
            ("k", Shape::Count),
            (
                "time_s",
                Shape::Optional(&Shape::Number {
                    lo: 0.0,
                    hi: f64::INFINITY,
                }),
            ),
            (
                "rows",
                Shape::Array(&Shape::Tuple(&[Shape::Count, PROBABILITY])),
            ),
        ]),
    ]);

    #[test]
    fn cells_of_the_verb_pass_and_edited_ones_are_named() {
        let ok = json!({"holds": true, "k": 2, "rows": [[1, "0.5"]]});
        assert_eq!(check(&CELL, &ok), Ok(()));
        assert_eq!(check(&CELL, &json!("timeout")), Ok(()));
        let cases = [
            (
                json!({"holds": "maybe", "k": 2, "rows": []}),
                "`holds` is \"maybe\", expected true or false",
            ),
            (json!({"k": 2, "rows": []}), "has no `holds`"),
            (json!({}), "has no `holds`"),
            (
                json!({"holds": true, "k": 2, "rows": [[1, "2.5"]]}),
                "`rows[0][1]` is \"2.5\", expected a number (as text) in [0, 1]",
            ),
            (
                json!({"holds": true, "k": -1, "rows": []}),
                "`k` is -1, expected a non-negative integer",
            ),
            (
                json!({"holds": true, "k": 1, "time_s": -3, "rows": []}),
                "`time_s` is -3, expected a number in [0, inf)",
            ),
            (json!("maybe"), "is \"maybe\", expected one of \"timeout\""),
            (json!(7), "is 7, expected one of \"timeout\""),
        ];
        for (v, want) in cases {
            assert_eq!(check(&CELL, &v), Err(want.to_string()), "{v}");
        }
    }
}
