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

/// A property as a JANI property: its value at the initial states (the
/// optimum over them for a query, every one for a bound), named `p1`, `p2`,
/// ..., with the user's text as its comment.
pub(super) fn query(q: &super::Query, number: usize) -> Json {
    use crate::swarm::front::props::{Cmp, Opt};
    let word = match (q.reward.is_some(), q.opt) {
        (false, Opt::Max) => "Pmax",
        (false, Opt::Min) => "Pmin",
        (true, Opt::Max) => "Emax",
        (true, Opt::Min) => "Emin",
    };
    let mut value = json!({"op": word});
    match &q.reward {
        Some(r) => reward_path(&mut value, r, &q.path),
        None => value["exp"] = path(&q.path),
    }
    let (fun, values) = match &q.bound {
        None => (if q.opt == Opt::Max { "max" } else { "min" }, value),
        Some((cmp, b)) => {
            let sym = match cmp {
                Cmp::Le => "≤",
                Cmp::Lt => "<",
                Cmp::Ge => "≥",
                Cmp::Gt => ">",
            };
            ("∀", binary(sym, value, exact_number(b)))
        }
    };
    json!({"name": format!("p{number}"), "comment": q.text,
           "expression": {"op": "filter", "fun": fun, "values": values,
                          "states": {"op": "initial"}}})
}

/// The path formula of a `P` property.
fn path(p: &super::QueryPath) -> Json {
    use super::QueryPath;
    let bounded = |mut j: Json, steps: &Option<usize>| {
        if let Some(k) = steps {
            j["step-bounds"] = json!({"upper": k});
        }
        j
    };
    match p {
        QueryPath::Until { phi, psi, steps } => {
            let left = phi.as_ref().map_or(json!(true), expr);
            bounded(json!({"op": "U", "left": left, "right": expr(psi)}), steps)
        }
        QueryPath::Globally { phi, steps } => bounded(json!({"op": "G", "exp": expr(phi)}), steps),
        // JANI's core has no next: `X phi` is `true U[1,1] phi`.
        QueryPath::Next { phi } => json!({"op": "U", "left": true, "right": expr(phi),
                                          "step-bounds": {"lower": 1, "upper": 1}}),
        // An `R` path under `P` is refused by the parser.
        QueryPath::Cumulative { .. } | QueryPath::Instant { .. } => json!(true),
    }
}

/// The expected reward `r` of an `R` property: at a target (`reach`), over
/// the first k steps (accumulated up to the instant k) or at step k. PRISM
/// adds a state's reward and its action's on each step; in JANI a state
/// reward (a location's transient value) is earned on leaving the state
/// (`exit`) and an action reward with the step (`steps`), so both are
/// accumulated (Storm reads `steps` alone as the action rewards only).
fn reward_path(value: &mut Json, r: &str, p: &super::QueryPath) {
    use super::QueryPath;
    value["exp"] = json!(r);
    match p {
        QueryPath::Until { psi, .. } => {
            value["accumulate"] = json!(["steps", "exit"]);
            value["reach"] = expr(psi);
        }
        QueryPath::Cumulative { steps } => {
            value["accumulate"] = json!(["steps", "exit"]);
            value["step-instant"] = json!(steps);
        }
        QueryPath::Instant { steps } => {
            value["accumulate"] = json!([]);
            value["step-instant"] = json!(steps);
        }
        QueryPath::Globally { .. } | QueryPath::Next { .. } => {}
    }
}
