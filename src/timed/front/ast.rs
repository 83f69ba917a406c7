//! The `.mapt` model as written, before checking: every name and expression
//! keeps its source and span so that validation errors can name file, line
//! and column. Both the text form and the JSON form produce this tree.

use crate::lang::{Expr, Source, Span};

/// A place in a model text (or in a synthetic source for a JSON field).
#[derive(Clone, Debug)]
pub struct Loc {
    pub source: Source,
    pub span: Span,
}

impl Loc {
    pub fn new(source: &Source, span: Span) -> Self {
        Loc {
            source: source.clone(),
            span,
        }
    }

    /// The text under the span, as the user wrote it.
    pub fn text(&self) -> &str {
        self.source.slice(self.span)
    }
}

/// An expression together with the source its spans point into.
#[derive(Clone, Debug)]
pub struct LExpr {
    pub source: Source,
    pub expr: Expr,
}

impl LExpr {
    pub fn text(&self) -> &str {
        self.source.slice(self.expr.span)
    }

    pub fn loc(&self) -> Loc {
        Loc::new(&self.source, self.expr.span)
    }
}

/// A name with its place.
#[derive(Clone, Debug)]
pub struct Name {
    pub text: String,
    pub loc: Loc,
}

/// The declared kind of a component of the shared variable V.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Bool,
    Int,
    Real,
}

impl VarKind {
    pub fn keyword(self) -> &'static str {
        match self {
            VarKind::Bool => "bool",
            VarKind::Int => "int",
            VarKind::Real => "real",
        }
    }
}

#[derive(Clone, Debug)]
pub struct VarAst {
    pub name: Name,
    pub kind: VarKind,
    pub init: LExpr,
}

/// `from -> to in [a, b] when guard do x := e, y := f;`
#[derive(Clone, Debug)]
pub struct TransitionAst {
    pub from: Name,
    pub to: Name,
    pub lower: LExpr,
    pub upper: LExpr,
    pub guard: Option<LExpr>,
    pub updates: Vec<(Name, LExpr)>,
    /// The whole transition, for messages about it.
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct AgentAst {
    pub name: Name,
    pub period: LExpr,
    pub clock: Option<LExpr>,
    /// Localities declared with `locality a, b;` (those used by transitions need not be).
    pub localities: Vec<Name>,
    pub transitions: Vec<TransitionAst>,
}

/// `query NAME: formula;` — the formula is kept as text and parsed by [`super::query`].
#[derive(Clone, Debug)]
pub struct QueryAst {
    pub name: Name,
    pub formula: Loc,
}

#[derive(Clone, Debug, Default)]
pub struct ModelAst {
    pub consts: Vec<(Name, LExpr)>,
    pub vars: Vec<VarAst>,
    pub agents: Vec<AgentAst>,
    pub queries: Vec<QueryAst>,
}
