//! JANI expressions of the intermediate form: exact numbers, atoms, label
//! expressions and built-ins, shared by the model printer ([`super::jani`])
//! and its reward structures ([`super::jani_rewards`]).

use super::{Atom, CmpOp, Expr};
use crate::lang::types::Builtin;
use crate::lang::{num, BinOp, Rat, UnOp, Value};
use serde_json::{json, Value as Json};

/// An exact number as a JANI number or quotient (a decimal when the
/// fraction does not fit 64-bit integers).
pub fn exact_number(p: &Rat) -> Json {
    use num_traits::ToPrimitive;
    match (p.numer().to_i64(), p.denom().to_i64()) {
        (Some(n), Some(1)) => json!(n),
        (Some(n), Some(d)) => json!({"op": "/", "left": n, "right": d}),
        _ => json!(num::to_f64(p)),
    }
}

pub(super) fn binary(op: &str, a: Json, b: Json) -> Json {
    json!({"op": op, "left": a, "right": b})
}

pub(super) fn atom(a: &Atom) -> Json {
    match a {
        Atom::Bool(v, true) => json!(v),
        Atom::Bool(v, false) => json!({"op": "¬", "exp": v}),
        Atom::Cmp(v, op, x) => {
            let sym = match op {
                CmpOp::Eq => "=",
                CmpOp::Ge => "≥",
                CmpOp::Le => "≤",
            };
            binary(sym, json!(v), json!(x))
        }
    }
}

/// A label's expression (labels it reads are inlined).
pub(super) fn expr(e: &Expr) -> Json {
    match e {
        Expr::Lit(Value::Num(r)) => exact_number(r),
        Expr::Lit(Value::Bool(b)) => json!(b),
        Expr::Lit(Value::Enum(_, i)) => json!(i),
        Expr::Var(v) => json!(v),
        Expr::Atom(a) => atom(a),
        Expr::Label(_, e) => expr(e),
        Expr::Unary(UnOp::Neg, a) => binary("-", json!(0), expr(a)),
        Expr::Unary(UnOp::Not, a) => json!({"op": "¬", "exp": expr(a)}),
        Expr::Binary(op, a, b) => binary(binary_symbol(*op), expr(a), expr(b)),
        Expr::If(c, a, b) => json!({"op": "ite", "if": expr(c), "then": expr(a), "else": expr(b)}),
        Expr::Builtin(b, args) => builtin(*b, args.iter().map(expr).collect()),
    }
}

fn binary_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Eq | BinOp::Iff => "=",
        BinOp::Ne => "≠",
        BinOp::Lt => "<",
        BinOp::Le => "≤",
        BinOp::Gt => ">",
        BinOp::Ge => "≥",
        BinOp::And => "∧",
        BinOp::Or => "∨",
        BinOp::Implies => "⇒",
    }
}

fn builtin(b: Builtin, a: Vec<Json>) -> Json {
    let fold = |op: &str| {
        a.iter()
            .cloned()
            .reduce(|x, y| binary(op, x, y))
            .unwrap_or(json!(0))
    };
    match b {
        Builtin::Min => fold("min"),
        Builtin::Max => fold("max"),
        Builtin::Clamp => binary(
            "min",
            binary("max", a[0].clone(), a[1].clone()),
            a[2].clone(),
        ),
        Builtin::Abs => json!({"op": "abs", "exp": a[0]}),
        Builtin::Floor => json!({"op": "floor", "exp": a[0]}),
        Builtin::Ceil => json!({"op": "ceil", "exp": a[0]}),
        Builtin::Mod => binary("%", a[0].clone(), a[1].clone()),
    }
}
