//! Types and the type checker. Checking resolves every name through the
//! engine's [`Scope`] and produces a [`TExpr`], the form both evaluators run.

use super::ast::{BinOp, Expr, ExprKind, UnOp};
use super::diag::{error_at, LangResult};
use super::num::Rat;
use super::source::{Source, Span};
use super::value::Value;

/// The type of an expression. Integers widen to reals where needed; all
/// numbers stay exact rationals until an engine asks for f64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Bool,
    Int,
    Real,
    /// An enumeration, by the engine's index.
    Enum(usize),
}

/// The type of a value (defined here so that `value` needs no types).
impl Value {
    pub fn ty(&self) -> Ty {
        match self {
            Value::Bool(_) => Ty::Bool,
            Value::Num(r) if r.is_integer() => Ty::Int,
            Value::Num(_) => Ty::Real,
            Value::Enum(id, _) => Ty::Enum(*id),
        }
    }
}

impl Ty {
    pub fn is_numeric(self) -> bool {
        matches!(self, Ty::Int | Ty::Real)
    }

    pub fn name(self) -> String {
        match self {
            Ty::Bool => "bool".into(),
            Ty::Int => "int".into(),
            Ty::Real => "real".into(),
            Ty::Enum(i) => format!("enum #{i}"),
        }
    }
}

/// A declared type: the expression type plus the range a variable must stay in.
#[derive(Clone, Debug, PartialEq)]
pub enum DeclType {
    Bool,
    /// `[lo..hi]`, or `int` with no bounds.
    Int {
        lo: Option<Rat>,
        hi: Option<Rat>,
    },
    /// `real`, optionally `real[lo..hi]`.
    Real {
        lo: Option<Rat>,
        hi: Option<Rat>,
    },
    Enum {
        id: usize,
        values: Vec<String>,
    },
}

impl DeclType {
    pub fn ty(&self) -> Ty {
        match self {
            DeclType::Bool => Ty::Bool,
            DeclType::Int { .. } => Ty::Int,
            DeclType::Real { .. } => Ty::Real,
            DeclType::Enum { id, .. } => Ty::Enum(*id),
        }
    }

    pub fn bounds(&self) -> (Option<&Rat>, Option<&Rat>) {
        match self {
            DeclType::Int { lo, hi } | DeclType::Real { lo, hi } => (lo.as_ref(), hi.as_ref()),
            _ => (None, None),
        }
    }

    /// Whether a value belongs to the type, range included.
    pub fn contains(&self, v: &Value) -> bool {
        match (self, v) {
            (DeclType::Bool, Value::Bool(_)) => true,
            (DeclType::Int { lo, hi }, Value::Num(x)) => {
                x.is_integer()
                    && lo.as_ref().is_none_or(|l| x >= l)
                    && hi.as_ref().is_none_or(|h| x <= h)
            }
            (DeclType::Real { lo, hi }, Value::Num(x)) => {
                lo.as_ref().is_none_or(|l| x >= l) && hi.as_ref().is_none_or(|h| x <= h)
            }
            (DeclType::Enum { id, values }, Value::Enum(e, i)) => e == id && *i < values.len(),
            _ => false,
        }
    }

    /// How the type reads in messages: `[0..4]`, `real[0..1]`, `bool`.
    pub fn describe(&self) -> String {
        let show = |b: &Option<Rat>| b.as_ref().map_or("".to_string(), super::num::display);
        match self {
            DeclType::Bool => "bool".into(),
            DeclType::Int { lo: None, hi: None } => "int".into(),
            DeclType::Int { lo, hi } => format!("[{}..{}]", show(lo), show(hi)),
            DeclType::Real { lo: None, hi: None } => "real".into(),
            DeclType::Real { lo, hi } => format!("real[{}..{}]", show(lo), show(hi)),
            DeclType::Enum { values, .. } => format!("{{{}}}", values.join(", ")),
        }
    }
}

/// What a name means to an engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Symbol {
    /// A state variable, read from slot `slot` of the evaluation environment.
    Var { slot: usize, ty: Ty },
    /// A constant, folded into the expression.
    Const(Value),
}

/// An engine function call after checking: the engine's id for it and its result type.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtCall {
    pub id: usize,
    pub ty: Ty,
}

/// Name resolution, supplied by each engine.
pub trait Scope {
    fn lookup(&self, name: &str) -> Option<Symbol>;

    /// An engine function such as `performed(guard)`; `None` if unknown.
    /// Arguments are given already checked.
    fn call(&self, _name: &str, _args: &[TExpr]) -> Option<Result<ExtCall, String>> {
        None
    }

    /// The name of enumeration `id`'s value `index`, for messages.
    fn enum_name(&self, _id: usize) -> String {
        "enumeration".to_string()
    }
}

/// A checked expression: names resolved to slots or constants.
#[derive(Clone, Debug, PartialEq)]
pub struct TExpr {
    pub kind: TKind,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TKind {
    Const(Value),
    Var(usize),
    Unary(UnOp, Box<TExpr>),
    Binary(BinOp, Box<TExpr>, Box<TExpr>),
    If(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    Builtin(Builtin, Vec<TExpr>),
    /// An engine function, evaluated by the environment.
    Ext(usize, Vec<TExpr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Min,
    Max,
    Clamp,
    Abs,
    Floor,
    Ceil,
    Mod,
}

impl Builtin {
    fn from_name(name: &str) -> Option<Builtin> {
        Some(match name {
            "min" => Builtin::Min,
            "max" => Builtin::Max,
            "clamp" => Builtin::Clamp,
            "abs" => Builtin::Abs,
            "floor" => Builtin::Floor,
            "ceil" => Builtin::Ceil,
            "mod" => Builtin::Mod,
            _ => return None,
        })
    }
}

/// Type-checks an expression against a scope.
pub fn check(source: &Source, expr: &Expr, scope: &dyn Scope) -> LangResult<TExpr> {
    Checker { source, scope }.check(expr)
}

/// Checks and requires a given type (`Int` is accepted where `Real` is wanted).
pub fn check_as(source: &Source, expr: &Expr, scope: &dyn Scope, want: Ty) -> LangResult<TExpr> {
    let t = check(source, expr, scope)?;
    if t.ty == want || (want == Ty::Real && t.ty == Ty::Int) {
        Ok(t)
    } else {
        Err(error_at(
            source,
            expr.span,
            format!(
                "expected a {} expression, found {}",
                ty_name(scope, want),
                ty_name(scope, t.ty)
            ),
        ))
    }
}

fn ty_name(scope: &dyn Scope, ty: Ty) -> String {
    match ty {
        Ty::Enum(id) => scope.enum_name(id),
        other => other.name(),
    }
}

struct Checker<'a> {
    source: &'a Source,
    scope: &'a dyn Scope,
}

impl Checker<'_> {
    fn err(&self, span: Span, msg: String) -> Box<super::diag::SourceError> {
        error_at(self.source, span, msg)
    }

    fn name(&self, ty: Ty) -> String {
        ty_name(self.scope, ty)
    }

    fn numeric(&self, e: &TExpr, what: &str) -> LangResult<()> {
        if e.ty.is_numeric() {
            Ok(())
        } else {
            Err(self.err(
                e.span,
                format!("{what} needs a number, found {}", self.name(e.ty)),
            ))
        }
    }

    fn boolean(&self, e: &TExpr, what: &str) -> LangResult<()> {
        if e.ty == Ty::Bool {
            Ok(())
        } else {
            Err(self.err(
                e.span,
                format!("{what} needs a bool, found {}", self.name(e.ty)),
            ))
        }
    }

    fn check(&self, expr: &Expr) -> LangResult<TExpr> {
        let span = expr.span;
        let mk = |kind, ty| TExpr { kind, ty, span };
        Ok(match &expr.kind {
            ExprKind::Num(r) => {
                let ty = if r.is_integer() { Ty::Int } else { Ty::Real };
                mk(TKind::Const(Value::Num(r.clone())), ty)
            }
            ExprKind::Bool(b) => mk(TKind::Const(Value::Bool(*b)), Ty::Bool),
            ExprKind::Ident(name) => match self.scope.lookup(name) {
                Some(Symbol::Var { slot, ty }) => mk(TKind::Var(slot), ty),
                Some(Symbol::Const(v)) => {
                    let ty = v.ty();
                    mk(TKind::Const(v), ty)
                }
                None => return Err(self.err(span, format!("unknown name `{name}`"))),
            },
            ExprKind::Unary(op, inner) => {
                let e = self.check(inner)?;
                let ty = match op {
                    UnOp::Neg => {
                        self.numeric(&e, "`-`")?;
                        e.ty
                    }
                    UnOp::Not => {
                        self.boolean(&e, "`!`")?;
                        Ty::Bool
                    }
                };
                mk(TKind::Unary(*op, Box::new(e)), ty)
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.check(a)?;
                let b = self.check(b)?;
                let ty = self.binary_type(*op, &a, &b, span)?;
                mk(TKind::Binary(*op, Box::new(a), Box::new(b)), ty)
            }
            ExprKind::If(c, a, b) => {
                let c = self.check(c)?;
                self.boolean(&c, "the condition of `if`")?;
                let a = self.check(a)?;
                let b = self.check(b)?;
                let ty = join(a.ty, b.ty).ok_or_else(|| {
                    self.err(
                        span,
                        format!(
                            "the branches of `if` have different types: {} and {}",
                            self.name(a.ty),
                            self.name(b.ty)
                        ),
                    )
                })?;
                mk(TKind::If(Box::new(c), Box::new(a), Box::new(b)), ty)
            }
            ExprKind::Call(name, name_span, args) => {
                let args = args
                    .iter()
                    .map(|a| self.check(a))
                    .collect::<LangResult<Vec<_>>>()?;
                if let Some(b) = Builtin::from_name(name) {
                    let ty = self.builtin_type(b, name, &args, span)?;
                    mk(TKind::Builtin(b, args), ty)
                } else {
                    match self.scope.call(name, &args) {
                        Some(Ok(ext)) => mk(TKind::Ext(ext.id, args), ext.ty),
                        Some(Err(msg)) => return Err(self.err(span, msg)),
                        None => {
                            return Err(self.err(*name_span, format!("unknown function `{name}`")))
                        }
                    }
                }
            }
        })
    }

    fn binary_type(&self, op: BinOp, a: &TExpr, b: &TExpr, span: Span) -> LangResult<Ty> {
        use BinOp::*;
        Ok(match op {
            Add | Sub | Mul => {
                self.numeric(a, &format!("`{}`", op.symbol()))?;
                self.numeric(b, &format!("`{}`", op.symbol()))?;
                join(a.ty, b.ty).unwrap_or(Ty::Real)
            }
            Div => {
                self.numeric(a, "`/`")?;
                self.numeric(b, "`/`")?;
                Ty::Real
            }
            Lt | Le | Gt | Ge => {
                self.numeric(a, &format!("`{}`", op.symbol()))?;
                self.numeric(b, &format!("`{}`", op.symbol()))?;
                Ty::Bool
            }
            Eq | Ne => {
                if join(a.ty, b.ty).is_none() {
                    return Err(self.err(
                        span,
                        format!(
                            "cannot compare {} with {}",
                            self.name(a.ty),
                            self.name(b.ty)
                        ),
                    ));
                }
                Ty::Bool
            }
            And | Or | Implies | Iff => {
                self.boolean(a, &format!("`{}`", op.symbol()))?;
                self.boolean(b, &format!("`{}`", op.symbol()))?;
                Ty::Bool
            }
        })
    }

    fn builtin_type(&self, b: Builtin, name: &str, args: &[TExpr], span: Span) -> LangResult<Ty> {
        let arity_ok = match b {
            Builtin::Min | Builtin::Max => !args.is_empty(),
            Builtin::Clamp => args.len() == 3,
            Builtin::Abs | Builtin::Floor | Builtin::Ceil => args.len() == 1,
            Builtin::Mod => args.len() == 2,
        };
        if !arity_ok {
            let want = match b {
                Builtin::Min | Builtin::Max => "one or more arguments",
                Builtin::Clamp => "3 arguments (x, lo, hi)",
                Builtin::Mod => "2 arguments",
                _ => "1 argument",
            };
            return Err(self.err(span, format!("`{name}` takes {want}, found {}", args.len())));
        }
        for a in args {
            self.numeric(a, &format!("`{name}`"))?;
        }
        Ok(match b {
            Builtin::Floor | Builtin::Ceil => Ty::Int,
            Builtin::Mod => {
                if args.iter().any(|a| a.ty != Ty::Int) {
                    return Err(self.err(span, "`mod` needs integers".to_string()));
                }
                Ty::Int
            }
            _ => args
                .iter()
                .map(|a| a.ty)
                .fold(Ty::Int, |x, y| join(x, y).unwrap_or(Ty::Real)),
        })
    }
}

/// The common type of two, if any (`int` and `real` meet at `real`).
pub fn join(a: Ty, b: Ty) -> Option<Ty> {
    match (a, b) {
        _ if a == b => Some(a),
        (Ty::Int, Ty::Real) | (Ty::Real, Ty::Int) => Some(Ty::Real),
        _ => None,
    }
}
