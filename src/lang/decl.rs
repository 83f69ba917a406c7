//! Declarations every engine shares: constants (`const N = 4;`), types
//! (`bool`, `[0..N]`, `real[0..1]`, `{a, b}`) and enumerations.

use super::ast::Expr;
use super::diag::{error_at, LangResult};
use super::eval::eval;
use super::lexer::Tok;
use super::parser::Parser;
use super::source::{Source, Span};
use super::types::{check, DeclType, Scope, Symbol, Ty};
use super::value::Value;
use std::collections::HashMap;

/// Evaluates a closed expression (constants only) exactly.
pub fn eval_const(source: &Source, expr: &Expr, scope: &dyn Scope) -> LangResult<Value> {
    let t = check(source, expr, scope)?;
    if let Some(slot) = first_var(&t) {
        let _ = slot;
        return Err(error_at(
            source,
            expr.span,
            "expected a constant expression (no variables)",
        ));
    }
    let empty: Vec<Value> = Vec::new();
    eval(&t, &empty).map_err(|e| error_at(source, e.span, e.message))
}

fn first_var(t: &super::types::TExpr) -> Option<usize> {
    use super::types::TKind::*;
    match &t.kind {
        Var(s) => Some(*s),
        Const(_) => None,
        Unary(_, a) => first_var(a),
        Binary(_, a, b) => first_var(a).or_else(|| first_var(b)),
        If(c, a, b) => first_var(c)
            .or_else(|| first_var(a))
            .or_else(|| first_var(b)),
        Builtin(_, args) | Ext(_, args) => args.iter().find_map(first_var),
    }
}

/// The constants of a model, in declaration order, with command-line overrides.
#[derive(Clone, Debug, Default)]
pub struct Constants {
    order: Vec<String>,
    values: HashMap<String, Value>,
    overrides: HashMap<String, Value>,
}

impl Constants {
    /// Values given on the command line (`--set pf=0.1`) win over the file.
    pub fn with_overrides(overrides: HashMap<String, Value>) -> Self {
        Constants {
            overrides,
            ..Default::default()
        }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// Names and values in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.order.iter().map(|n| (n.as_str(), &self.values[n]))
    }

    /// Defines a constant directly (engines with their own syntax use this).
    pub fn define(
        &mut self,
        source: &Source,
        name: &str,
        span: Span,
        value: Value,
    ) -> LangResult<()> {
        if self.values.contains_key(name) {
            return Err(error_at(
                source,
                span,
                format!("constant `{name}` is declared twice"),
            ));
        }
        let value = self.overrides.get(name).cloned().unwrap_or(value);
        self.order.push(name.to_string());
        self.values.insert(name.to_string(), value);
        Ok(())
    }

    /// Defines a constant of a narrower scope (a named agent's own
    /// parameter): no command-line override applies to it.
    pub fn define_local(
        &mut self,
        source: &Source,
        name: &str,
        span: Span,
        value: Value,
    ) -> LangResult<()> {
        let overrides = std::mem::take(&mut self.overrides);
        let r = self.define(source, name, span, value);
        self.overrides = overrides;
        r
    }

    /// Overrides that name no declared constant: a likely typo on the command line.
    pub fn unused_overrides(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .overrides
            .keys()
            .filter(|k| !self.values.contains_key(*k))
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// Parses the rest of `const [int|double|real|rational|bool] NAME [= EXPR];`
    /// (the `const` keyword already consumed).
    pub fn parse_decl(&mut self, p: &mut Parser) -> LangResult<()> {
        let declared = match p.peek_text() {
            "int" => Some(Ty::Int),
            "double" | "real" | "rational" => Some(Ty::Real),
            "bool" => Some(Ty::Bool),
            _ => None,
        };
        if declared.is_some() && p.peek2() == Tok::Ident {
            p.bump();
        }
        let (name, span) = p.ident()?;
        let value = if p.eat(Tok::Eq) {
            let e = p.expr()?;
            let v = eval_const(p.source(), &e, self)?;
            Some((v, e.span))
        } else {
            None
        };
        p.expect(Tok::Semi)?;
        let value = match (self.overrides.get(&name), value) {
            (Some(v), _) => v.clone(),
            (None, Some((v, vspan))) => {
                if let Some(want) = declared {
                    let ok = match want {
                        Ty::Int => matches!(&v, Value::Num(r) if r.is_integer()),
                        Ty::Real => matches!(v, Value::Num(_)),
                        Ty::Bool => matches!(v, Value::Bool(_)),
                        Ty::Enum(_) => true,
                    };
                    if !ok {
                        return Err(error_at(
                            p.source(),
                            vspan,
                            format!(
                                "constant `{name}` is declared {} but its value is {v}",
                                want.name()
                            ),
                        ));
                    }
                }
                v
            }
            (None, None) => {
                return Err(
                    error_at(p.source(), span, format!("constant `{name}` has no value"))
                        .into_help_text(format!(
                            "give it one in the file or on the command line: --set {name}=VALUE"
                        )),
                )
            }
        };
        self.define(p.source(), &name, span, value)
    }
}

trait HelpText {
    fn into_help_text(self, help: String) -> Self;
}

impl HelpText for Box<super::diag::SourceError> {
    fn into_help_text(self, help: String) -> Self {
        Box::new((*self).with_help(help))
    }
}

impl Scope for Constants {
    fn lookup(&self, name: &str) -> Option<Symbol> {
        self.values.get(name).cloned().map(Symbol::Const)
    }
}

/// A type as written, before its bounds are evaluated.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeSyntax {
    Bool,
    Int(Option<(Expr, Expr)>),
    Real(Option<(Expr, Expr)>),
    /// `{a, b, c}`
    Enum(Vec<(String, Span)>),
    /// A named enumeration declared elsewhere.
    Named(String, Span),
}

/// Parses `bool | int | [lo..hi] | int[lo..hi] | real | real[lo..hi] | {a, b} | Name`.
pub fn parse_type(p: &mut Parser) -> LangResult<(TypeSyntax, Span)> {
    let start = p.peek_span();
    let range = |p: &mut Parser| -> LangResult<(Expr, Expr)> {
        p.expect(Tok::LBracket)?;
        let lo = p.expr()?;
        p.expect(Tok::DotDot)?;
        let hi = p.expr()?;
        p.expect(Tok::RBracket)?;
        Ok((lo, hi))
    };
    let ty = match p.peek() {
        Tok::LBracket => TypeSyntax::Int(Some(range(p)?)),
        Tok::LBrace => {
            p.bump();
            let mut values = vec![p.ident()?];
            while p.eat(Tok::Comma) {
                values.push(p.ident()?);
            }
            p.expect(Tok::RBrace)?;
            TypeSyntax::Enum(values)
        }
        Tok::Ident => {
            let (word, span) = p.ident()?;
            match word.as_str() {
                "bool" => TypeSyntax::Bool,
                "int" => TypeSyntax::Int(if p.peek() == Tok::LBracket {
                    Some(range(p)?)
                } else {
                    None
                }),
                "real" | "rational" | "double" => TypeSyntax::Real(if p.peek() == Tok::LBracket {
                    Some(range(p)?)
                } else {
                    None
                }),
                _ => TypeSyntax::Named(word, span),
            }
        }
        _ => {
            return Err(
                p.unexpected("a type (`bool`, `[lo..hi]`, `real`, `real[lo..hi]`, `{a, b}`)")
            )
        }
    };
    Ok((ty, start.to(p.prev_span())))
}

/// Evaluates the bounds of a numeric or Boolean type. Enumerations are
/// resolved by the engine through an [`EnumTable`].
pub fn resolve_type(
    source: &Source,
    ty: &TypeSyntax,
    span: Span,
    scope: &dyn Scope,
    enums: &mut EnumTable,
) -> LangResult<DeclType> {
    let bound = |e: &Expr, want_int: bool| -> LangResult<super::num::Rat> {
        match eval_const(source, e, scope)? {
            Value::Num(r) if !want_int || r.is_integer() => Ok(r),
            other => Err(error_at(
                source,
                e.span,
                format!(
                    "a bound must be {}, found {other}",
                    if want_int { "an integer" } else { "a number" }
                ),
            )),
        }
    };
    let bounds = |r: &Option<(Expr, Expr)>, want_int| -> LangResult<(Option<_>, Option<_>)> {
        match r {
            None => Ok((None, None)),
            Some((lo, hi)) => {
                let (l, h) = (bound(lo, want_int)?, bound(hi, want_int)?);
                if l > h {
                    return Err(error_at(
                        source,
                        span,
                        format!(
                            "empty range: {} > {}",
                            super::num::display(&l),
                            super::num::display(&h)
                        ),
                    ));
                }
                Ok((Some(l), Some(h)))
            }
        }
    };
    Ok(match ty {
        TypeSyntax::Bool => DeclType::Bool,
        TypeSyntax::Int(r) => {
            let (lo, hi) = bounds(r, true)?;
            DeclType::Int { lo, hi }
        }
        TypeSyntax::Real(r) => {
            let (lo, hi) = bounds(r, false)?;
            DeclType::Real { lo, hi }
        }
        TypeSyntax::Enum(values) => {
            let names: Vec<String> = values.iter().map(|(n, _)| n.clone()).collect();
            let id = enums.add(source, None, values)?;
            DeclType::Enum { id, values: names }
        }
        TypeSyntax::Named(name, nspan) => match enums.by_name(name) {
            Some(id) => DeclType::Enum {
                id,
                values: enums.values(id).to_vec(),
            },
            None => return Err(error_at(source, *nspan, format!("unknown type `{name}`"))),
        },
    })
}

/// Enumerations of a model; member names are global, so `volunteer` means one thing.
#[derive(Clone, Debug, Default)]
pub struct EnumTable {
    names: Vec<Option<String>>,
    values: Vec<Vec<String>>,
    members: HashMap<String, (usize, usize)>,
}

impl EnumTable {
    pub fn add(
        &mut self,
        source: &Source,
        name: Option<&str>,
        values: &[(String, Span)],
    ) -> LangResult<usize> {
        if let Some(id) = self.same_list(name, values) {
            return Ok(id);
        }
        let id = self.values.len();
        for (i, (v, span)) in values.iter().enumerate() {
            if self.members.insert(v.clone(), (id, i)).is_some() {
                return Err(error_at(
                    source,
                    *span,
                    format!("enumeration value `{v}` is declared twice (a list declared again must repeat the first list exactly, which makes it the same type)"),
                ));
            }
        }
        self.names.push(name.map(str::to_string));
        self.values
            .push(values.iter().map(|(v, _)| v.clone()).collect());
        Ok(id)
    }

    /// An anonymous enumeration with exactly these members in this order:
    /// declaring the same list again (two agents with the same percepts)
    /// names the same type.
    fn same_list(&self, name: Option<&str>, values: &[(String, Span)]) -> Option<usize> {
        let (first, _) = values.first()?;
        let &(id, 0) = self.members.get(first)? else {
            return None;
        };
        let same = name.is_none()
            && self.names[id].is_none()
            && self.values[id].len() == values.len()
            && self.values[id].iter().zip(values).all(|(a, (b, _))| a == b);
        same.then_some(id)
    }

    pub fn by_name(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.as_deref() == Some(name))
    }

    pub fn values(&self, id: usize) -> &[String] {
        &self.values[id]
    }

    /// `Some(Value::Enum(..))` if `name` is a member of some enumeration.
    pub fn member(&self, name: &str) -> Option<Value> {
        self.members.get(name).map(|&(id, i)| Value::Enum(id, i))
    }

    pub fn member_name(&self, id: usize, index: usize) -> &str {
        &self.values[id][index]
    }

    /// How enumeration `id` reads in messages.
    pub fn describe(&self, id: usize) -> String {
        match &self.names[id] {
            Some(n) => n.clone(),
            None => format!("{{{}}}", self.values[id].join(", ")),
        }
    }
}
