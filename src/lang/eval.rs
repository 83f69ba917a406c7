//! The two evaluators over the same checked tree: exact (rationals) and fast (f64).
//! Engines choose: explicit search and validation are exact, inner loops may be f64.

use super::ast::{BinOp, UnOp};
use super::num::Rat;
use super::source::Span;
use super::types::{Builtin, TExpr, TKind, Ty};
use super::value::Value;
use num_traits::{Signed, Zero};

/// A run-time failure of exact evaluation (division by zero and the like).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    pub message: String,
    pub span: Span,
}

/// Where the exact evaluator reads variables and engine functions.
pub trait Env {
    fn var(&self, slot: usize) -> Value;
    fn ext(&self, id: usize, _args: &[Value]) -> Result<Value, String> {
        Err(format!("engine function #{id} is not available here"))
    }
}

impl Env for [Value] {
    fn var(&self, slot: usize) -> Value {
        self[slot].clone()
    }
}

impl Env for Vec<Value> {
    fn var(&self, slot: usize) -> Value {
        self[slot].clone()
    }
}

/// Where the f64 evaluator reads variables and engine functions.
pub trait EnvF64 {
    fn var(&self, slot: usize) -> f64;
    fn ext(&self, _id: usize, _args: &[f64]) -> f64 {
        f64::NAN
    }
    /// Like [`EnvF64::ext`] with the arguments' checked types, for engine
    /// functions whose meaning depends on them (the NIS `performed(a)` takes
    /// agent and environment actions, both numbered from 0 in f64).
    fn ext_typed(&self, id: usize, args: &[f64], _types: &[Ty]) -> f64 {
        self.ext(id, args)
    }
}

impl EnvF64 for [f64] {
    fn var(&self, slot: usize) -> f64 {
        self[slot]
    }
}

fn fail(e: &TExpr, message: impl Into<String>) -> EvalError {
    EvalError {
        message: message.into(),
        span: e.span,
    }
}

fn num(e: &TExpr, v: Value) -> Result<Rat, EvalError> {
    match v {
        Value::Num(r) => Ok(r),
        other => Err(fail(e, format!("expected a number, found {other}"))),
    }
}

fn boolean(e: &TExpr, v: Value) -> Result<bool, EvalError> {
    match v {
        Value::Bool(b) => Ok(b),
        other => Err(fail(e, format!("expected a bool, found {other}"))),
    }
}

/// Exact evaluation.
pub fn eval(e: &TExpr, env: &(impl Env + ?Sized)) -> Result<Value, EvalError> {
    Ok(match &e.kind {
        TKind::Const(v) => v.clone(),
        TKind::Var(slot) => env.var(*slot),
        TKind::Unary(UnOp::Neg, a) => Value::Num(-num(a, eval(a, env)?)?),
        TKind::Unary(UnOp::Not, a) => Value::Bool(!boolean(a, eval(a, env)?)?),
        TKind::Binary(op, a, b) => binary(*op, a, b, env)?,
        TKind::If(c, a, b) => {
            if boolean(c, eval(c, env)?)? {
                eval(a, env)?
            } else {
                eval(b, env)?
            }
        }
        TKind::Builtin(b, args) => {
            let vals = args
                .iter()
                .map(|a| num(a, eval(a, env)?))
                .collect::<Result<Vec<_>, _>>()?;
            Value::Num(builtin(e, *b, vals)?)
        }
        TKind::Ext(id, args) => {
            let vals = args
                .iter()
                .map(|a| eval(a, env))
                .collect::<Result<Vec<_>, _>>()?;
            env.ext(*id, &vals).map_err(|m| fail(e, m))?
        }
    })
}

fn binary(op: BinOp, a: &TExpr, b: &TExpr, env: &(impl Env + ?Sized)) -> Result<Value, EvalError> {
    use BinOp::*;
    // Short-circuit the Boolean connectives: the right side may be undefined.
    match op {
        And => {
            return Ok(Value::Bool(
                boolean(a, eval(a, env)?)? && boolean(b, eval(b, env)?)?,
            ))
        }
        Or => {
            return Ok(Value::Bool(
                boolean(a, eval(a, env)?)? || boolean(b, eval(b, env)?)?,
            ))
        }
        Implies => {
            return Ok(Value::Bool(
                !boolean(a, eval(a, env)?)? || boolean(b, eval(b, env)?)?,
            ))
        }
        _ => {}
    }
    let x = eval(a, env)?;
    let y = eval(b, env)?;
    Ok(match op {
        Eq => Value::Bool(x == y),
        Ne => Value::Bool(x != y),
        Iff => Value::Bool(boolean(a, x)? == boolean(b, y)?),
        _ => {
            let (x, y) = (num(a, x)?, num(b, y)?);
            match op {
                Add => Value::Num(x + y),
                Sub => Value::Num(x - y),
                Mul => Value::Num(x * y),
                Div => {
                    if y.is_zero() {
                        return Err(fail(b, "division by zero"));
                    }
                    Value::Num(x / y)
                }
                Lt => Value::Bool(x < y),
                Le => Value::Bool(x <= y),
                Gt => Value::Bool(x > y),
                Ge => Value::Bool(x >= y),
                And | Or | Implies | Iff | Eq | Ne => unreachable!("handled above"),
            }
        }
    })
}

fn builtin(e: &TExpr, b: Builtin, mut v: Vec<Rat>) -> Result<Rat, EvalError> {
    Ok(match b {
        Builtin::Min => v.into_iter().min().expect("arity checked"),
        Builtin::Max => v.into_iter().max().expect("arity checked"),
        Builtin::Clamp => {
            let hi = v.pop().expect("arity");
            let lo = v.pop().expect("arity");
            let x = v.pop().expect("arity");
            if lo > hi {
                return Err(fail(e, "clamp with lo > hi"));
            }
            x.max(lo).min(hi)
        }
        Builtin::Abs => v[0].abs(),
        Builtin::Floor => v[0].floor(),
        Builtin::Ceil => v[0].ceil(),
        Builtin::Mod => {
            if v[1].is_zero() {
                return Err(fail(e, "mod by zero"));
            }
            // Mathematical modulus: the result has the divisor's sign, as in PRISM.
            &v[0] - (&v[0] / &v[1]).floor() * &v[1]
        }
    })
}

/// Fast evaluation in f64; booleans are 0/1, enums their index.
pub fn eval_f64(e: &TExpr, env: &(impl EnvF64 + ?Sized)) -> f64 {
    let t = |b: bool| f64::from(u8::from(b));
    match &e.kind {
        TKind::Const(v) => v.to_f64(),
        TKind::Var(slot) => env.var(*slot),
        TKind::Unary(UnOp::Neg, a) => -eval_f64(a, env),
        TKind::Unary(UnOp::Not, a) => t(eval_f64(a, env) == 0.0),
        TKind::Binary(op, a, b) => {
            let x = eval_f64(a, env);
            use BinOp::*;
            match op {
                And => return t(x != 0.0 && eval_f64(b, env) != 0.0),
                Or => return t(x != 0.0 || eval_f64(b, env) != 0.0),
                Implies => return t(x == 0.0 || eval_f64(b, env) != 0.0),
                _ => {}
            }
            let y = eval_f64(b, env);
            match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div => x / y,
                Eq => t(x == y),
                Ne => t(x != y),
                Lt => t(x < y),
                Le => t(x <= y),
                Gt => t(x > y),
                Ge => t(x >= y),
                Iff => t((x != 0.0) == (y != 0.0)),
                And | Or | Implies => unreachable!("handled above"),
            }
        }
        TKind::If(c, a, b) => {
            if eval_f64(c, env) != 0.0 {
                eval_f64(a, env)
            } else {
                eval_f64(b, env)
            }
        }
        TKind::Builtin(b, args) => {
            let v: Vec<f64> = args.iter().map(|a| eval_f64(a, env)).collect();
            match b {
                Builtin::Min => v.iter().copied().fold(f64::INFINITY, f64::min),
                Builtin::Max => v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                Builtin::Clamp => v[0].max(v[1]).min(v[2]),
                Builtin::Abs => v[0].abs(),
                Builtin::Floor => v[0].floor(),
                Builtin::Ceil => v[0].ceil(),
                Builtin::Mod => v[0] - (v[0] / v[1]).floor() * v[1],
            }
        }
        TKind::Ext(id, args) => {
            let v: Vec<f64> = args.iter().map(|a| eval_f64(a, env)).collect();
            let types: Vec<Ty> = args.iter().map(|a| a.ty).collect();
            env.ext_typed(*id, &v, &types)
        }
    }
}
