//! The JSON form of a `.mapt` model (`.mapt.json`), for programs that
//! generate models. Schema (every expression is a string in the shared
//! expression language; timing constants are numbers or constant expressions):
//!
//! ```json
//! { "constants": [ {"name": "GAP", "value": "5"} ],
//!   "variables": [ {"name": "x1", "type": "real", "init": "0"} ],
//!   "agents": [ {"name": "car1", "period": 10, "clock": 0, "localities": ["idle"],
//!                "transitions": [ {"from": "sense", "to": "decide", "lower": 1, "upper": 2,
//!                                  "guard": "d < GAP", "updates": {"v1": "v1 - 1/2"}} ]} ],
//!   "queries": [ {"name": "collision", "formula": "EF x2 - x1 <= 0"} ] }
//! ```
//!
//! `clock`, `localities`, `guard`, `updates`, `constants`, `queries` may be
//! omitted. Errors inside a field name the field's JSON path as the file and
//! the column inside the string.

use super::ast::{AgentAst, LExpr, Loc, ModelAst, Name, QueryAst, TransitionAst, VarAst, VarKind};
use crate::lang::{error_at, parse_expr, LangResult, Source, Span};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JsonModel {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constants: Vec<JsonConst>,
    #[serde(default)]
    pub variables: Vec<JsonVar>,
    pub agents: Vec<JsonAgent>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<JsonQuery>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JsonConst {
    pub name: String,
    pub value: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JsonVar {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub init: String,
}

/// A timing constant: a number, or a constant expression as a string.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum Timing {
    Number(u64),
    Expr(String),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JsonAgent {
    pub name: String,
    pub period: Timing,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Timing>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub localities: Vec<String>,
    #[serde(default)]
    pub transitions: Vec<JsonTransition>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JsonTransition {
    pub from: String,
    pub to: String,
    pub lower: Timing,
    pub upper: Timing,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
    /// Simultaneous updates, in order: variable name to expression.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "ordered_map")]
    pub updates: Vec<(String, String)>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JsonQuery {
    pub name: String,
    pub formula: String,
}

/// Updates as a JSON object whose key order is kept.
mod ordered_map {
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(v.len()))?;
        for (k, e) in v {
            m.serialize_entry(k, e)?;
        }
        m.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<(String, String)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "an object from variable names to expressions")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, String>()? {
                    out.push((k, v));
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

/// Reads the JSON form; syntax errors carry the JSON line and column.
pub fn parse_json(source: &Source) -> LangResult<ModelAst> {
    let jm: JsonModel = serde_json::from_str(source.text()).map_err(|e| {
        let offset = offset_of(source.text(), e.line(), e.column());
        error_at(
            source,
            Span::new(offset, offset + 1),
            format!("invalid model JSON: {e}"),
        )
    })?;
    from_json(source.name(), &jm)
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (off + column.saturating_sub(1)).min(text.len());
        }
        off += l.len();
    }
    text.len()
}

/// A field's text as its own source, named `file#/json/path`.
fn field(file: &str, path: &str, text: &str) -> Source {
    Source::new(format!("{file}#{path}"), text.to_string())
}

fn name(file: &str, path: &str, text: &str) -> Name {
    let src = field(file, path, text);
    Name {
        text: text.to_string(),
        loc: Loc::new(&src, Span::new(0, text.len())),
    }
}

fn expr(file: &str, path: &str, text: &str) -> LangResult<LExpr> {
    let src = field(file, path, text);
    Ok(LExpr {
        expr: parse_expr(&src)?,
        source: src,
    })
}

fn timing(file: &str, path: &str, t: &Timing) -> LangResult<LExpr> {
    match t {
        Timing::Number(n) => expr(file, path, &n.to_string()),
        Timing::Expr(s) => expr(file, path, s),
    }
}

/// Converts the JSON form into the written model tree.
pub fn from_json(file: &str, jm: &JsonModel) -> LangResult<ModelAst> {
    let mut m = ModelAst::default();
    for (i, c) in jm.constants.iter().enumerate() {
        let p = format!("/constants/{i}");
        m.consts.push((
            name(file, &format!("{p}/name"), &c.name),
            expr(file, &format!("{p}/value"), &c.value)?,
        ));
    }
    for (i, v) in jm.variables.iter().enumerate() {
        let p = format!("/variables/{i}");
        let kind = match v.kind.as_str() {
            "real" | "rational" => VarKind::Real,
            "int" => VarKind::Int,
            "bool" => VarKind::Bool,
            other => {
                let src = field(file, &format!("{p}/type"), other);
                return Err(error_at(
                    &src,
                    Span::new(0, other.len()),
                    "a variable type is `real`, `int` or `bool`",
                ));
            }
        };
        m.vars.push(VarAst {
            name: name(file, &format!("{p}/name"), &v.name),
            kind,
            init: expr(file, &format!("{p}/init"), &v.init)?,
        });
    }
    for (i, a) in jm.agents.iter().enumerate() {
        m.agents
            .push(agent_from_json(file, &format!("/agents/{i}"), a)?);
    }
    for (i, q) in jm.queries.iter().enumerate() {
        let p = format!("/queries/{i}");
        let src = field(file, &format!("{p}/formula"), &q.formula);
        m.queries.push(QueryAst {
            name: name(file, &format!("{p}/name"), &q.name),
            formula: Loc::new(&src, Span::new(0, q.formula.len())),
        });
    }
    Ok(m)
}

/// One agent; `p` is its JSON path, which locates errors in its fields.
fn agent_from_json(file: &str, p: &str, a: &JsonAgent) -> LangResult<AgentAst> {
    Ok(AgentAst {
        name: name(file, &format!("{p}/name"), &a.name),
        period: timing(file, &format!("{p}/period"), &a.period)?,
        clock: match &a.clock {
            Some(c) => Some(timing(file, &format!("{p}/clock"), c)?),
            None => None,
        },
        localities: a
            .localities
            .iter()
            .enumerate()
            .map(|(k, l)| name(file, &format!("{p}/localities/{k}"), l))
            .collect(),
        transitions: a
            .transitions
            .iter()
            .enumerate()
            .map(|(k, t)| transition_from_json(file, &format!("{p}/transitions/{k}"), t))
            .collect::<LangResult<_>>()?,
    })
}

/// One transition at JSON path `tp`; the transition as a whole is located
/// by its summary `from -> to`.
fn transition_from_json(file: &str, tp: &str, t: &JsonTransition) -> LangResult<TransitionAst> {
    let summary = format!("{} -> {}", t.from, t.to);
    let src = field(file, tp, &summary);
    let mut updates = Vec::new();
    for (var, e) in &t.updates {
        let up = format!("{tp}/updates/{var}");
        updates.push((name(file, &up, var), expr(file, &up, e)?));
    }
    Ok(TransitionAst {
        from: name(file, &format!("{tp}/from"), &t.from),
        to: name(file, &format!("{tp}/to"), &t.to),
        lower: timing(file, &format!("{tp}/lower"), &t.lower)?,
        upper: timing(file, &format!("{tp}/upper"), &t.upper)?,
        guard: match &t.guard {
            Some(g) => Some(expr(file, &format!("{tp}/guard"), g)?),
            None => None,
        },
        updates,
        loc: Loc::new(&src, Span::new(0, summary.len())),
    })
}

fn timing_of(e: &LExpr) -> Timing {
    let t = e.text().trim();
    match t.parse::<u64>() {
        Ok(n) => Timing::Number(n),
        Err(_) => Timing::Expr(t.to_string()),
    }
}

/// The JSON form of a written model (expressions keep the user's text).
pub fn to_json(m: &ModelAst) -> JsonModel {
    JsonModel {
        constants: m
            .consts
            .iter()
            .map(|(n, e)| JsonConst {
                name: n.text.clone(),
                value: e.text().to_string(),
            })
            .collect(),
        variables: m
            .vars
            .iter()
            .map(|v| JsonVar {
                name: v.name.text.clone(),
                kind: v.kind.keyword().to_string(),
                init: v.init.text().to_string(),
            })
            .collect(),
        agents: m
            .agents
            .iter()
            .map(|a| JsonAgent {
                name: a.name.text.clone(),
                period: timing_of(&a.period),
                clock: a.clock.as_ref().map(timing_of),
                localities: a.localities.iter().map(|l| l.text.clone()).collect(),
                transitions: a
                    .transitions
                    .iter()
                    .map(|t| JsonTransition {
                        from: t.from.text.clone(),
                        to: t.to.text.clone(),
                        lower: timing_of(&t.lower),
                        upper: timing_of(&t.upper),
                        guard: t.guard.as_ref().map(|g| g.text().to_string()),
                        updates: t
                            .updates
                            .iter()
                            .map(|(n, e)| (n.text.clone(), e.text().to_string()))
                            .collect(),
                    })
                    .collect(),
            })
            .collect(),
        queries: m
            .queries
            .iter()
            .map(|q| JsonQuery {
                name: q.name.text.clone(),
                formula: q.formula.text().trim().to_string(),
            })
            .collect(),
    }
}

/// The `.mapt` text of a written model.
pub fn to_text(m: &ModelAst) -> String {
    let mut out = String::new();
    for (n, e) in &m.consts {
        out.push_str(&format!("const {} = {};\n", n.text, e.text()));
    }
    for v in &m.vars {
        out.push_str(&format!(
            "var {}: {} = {};\n",
            v.name.text,
            v.kind.keyword(),
            v.init.text()
        ));
    }
    for a in &m.agents {
        out.push_str(&format!(
            "\nagent {} period {}",
            a.name.text,
            a.period.text()
        ));
        if let Some(c) = &a.clock {
            out.push_str(&format!(" clock {}", c.text()));
        }
        out.push_str(" {\n");
        if !a.localities.is_empty() {
            let ls: Vec<&str> = a.localities.iter().map(|l| l.text.as_str()).collect();
            out.push_str(&format!("  locality {};\n", ls.join(", ")));
        }
        for t in &a.transitions {
            out.push_str(&format!(
                "  {} -> {} in [{}, {}]",
                t.from.text,
                t.to.text,
                t.lower.text(),
                t.upper.text()
            ));
            if let Some(g) = &t.guard {
                out.push_str(&format!(" when {}", g.text()));
            }
            if !t.updates.is_empty() {
                let ups: Vec<String> = t
                    .updates
                    .iter()
                    .map(|(n, e)| format!("{} := {}", n.text, e.text()))
                    .collect();
                out.push_str(&format!(" do {}", ups.join(", ")));
            }
            out.push_str(";\n");
        }
        out.push_str("}\n");
    }
    if !m.queries.is_empty() {
        out.push('\n');
    }
    for q in &m.queries {
        out.push_str(&format!(
            "query {}: {};\n",
            q.name.text,
            q.formula.text().trim()
        ));
    }
    out
}
