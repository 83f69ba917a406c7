//! The untyped syntax tree of expressions, as written.

use super::num::Rat;
use super::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Implies,
    Iff,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Eq => "=",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Implies => "=>",
            BinOp::Iff => "<=>",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Num(Rat),
    Bool(bool),
    /// A name; qualified names `a.b` and `a@b` arrive here whole and are
    /// resolved by the engine's scope.
    Ident(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `if c then a else b`, or PRISM's `c ? a : b`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call: a builtin (`min`, `max`, `clamp`, `abs`, `floor`, `ceil`, `mod`)
    /// or an engine function (`performed(guard)`, a network).
    Call(String, Span, Vec<Expr>),
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span }
    }

    /// The direct subexpressions, in written order.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Num(_) | ExprKind::Bool(_) | ExprKind::Ident(_) => Vec::new(),
            ExprKind::Unary(_, e) => vec![e],
            ExprKind::Binary(_, a, b) => vec![a, b],
            ExprKind::If(c, a, b) => vec![c, a, b],
            ExprKind::Call(_, _, args) => args.iter().collect(),
        }
    }

    /// The number of nodes on the longest path from the root to a leaf,
    /// computed with an explicit stack (the tree may be too deep to recurse).
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 1)];
        while let Some((e, d)) = stack.pop() {
            deepest = deepest.max(d);
            stack.extend(e.children().into_iter().map(|c| (c, d + 1)));
        }
        deepest
    }
}

impl std::fmt::Display for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ExprKind::Num(r) => write!(f, "{}", super::num::display(r)),
            ExprKind::Bool(b) => write!(f, "{b}"),
            ExprKind::Ident(n) => write!(f, "{n}"),
            ExprKind::Unary(UnOp::Neg, e) => write!(f, "-({e})"),
            ExprKind::Unary(UnOp::Not, e) => write!(f, "!({e})"),
            ExprKind::Binary(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
            ExprKind::If(c, a, b) => write!(f, "(if {c} then {a} else {b})"),
            ExprKind::Call(name, _, args) => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
        }
    }
}
