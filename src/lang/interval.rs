//! The third evaluator over the checked tree: intervals. Every value is a
//! closed interval that contains the value of every point of the variables'
//! intervals (outward rounding by one ulp per operation), so a condition
//! whose interval is {1} holds at every point and one whose interval is
//! {0} at none. Booleans are 0/1, enums their index, as in [`super::eval_f64`].
//!
//! Comparisons of real numbers are decided only beyond a margin
//! ([`EnvIv::margin`], relative above magnitude 1): an engine whose other
//! deciders accept a run within a tolerance of a border asks the same of a
//! proof, so a border case stays undecided here.

use super::ast::{BinOp, UnOp};
use super::types::{Builtin, TExpr, TKind, Ty};

/// A closed interval [lo, hi]; the whole line when nothing is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iv {
    pub lo: f64,
    pub hi: f64,
}

impl Iv {
    pub const ANY: Iv = Iv {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };
    pub const FALSE: Iv = Iv { lo: 0.0, hi: 0.0 };
    pub const TRUE: Iv = Iv { lo: 1.0, hi: 1.0 };
    pub const EITHER: Iv = Iv { lo: 0.0, hi: 1.0 };

    pub fn point(x: f64) -> Iv {
        Iv { lo: x, hi: x }
    }

    /// [lo, hi], or the whole line when either end is NaN.
    pub fn new(lo: f64, hi: f64) -> Iv {
        if lo.is_nan() || hi.is_nan() {
            return Iv::ANY;
        }
        Iv { lo, hi }
    }

    /// Rounded outward by one ulp on each side (a result of f64 arithmetic).
    fn outward(lo: f64, hi: f64) -> Iv {
        Iv::new(-next_up(-lo), next_up(hi))
    }

    pub fn is_point(self) -> bool {
        self.lo == self.hi
    }

    pub fn width(self) -> f64 {
        self.hi - self.lo
    }

    pub fn mid(self) -> f64 {
        0.5 * (self.lo + self.hi)
    }

    /// The smallest interval containing both.
    pub fn hull(self, o: Iv) -> Iv {
        Iv::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }

    pub fn contains(self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    fn truth(b: Option<bool>) -> Iv {
        match b {
            Some(true) => Iv::TRUE,
            Some(false) => Iv::FALSE,
            None => Iv::EITHER,
        }
    }

    /// As a condition: `Some(b)` when decided.
    pub fn decided(self) -> Option<bool> {
        if self.lo > 0.0 || self.hi < 0.0 {
            Some(true)
        } else if self.lo == 0.0 && self.hi == 0.0 {
            Some(false)
        } else {
            None
        }
    }

    fn add(self, o: Iv) -> Iv {
        Iv::outward(self.lo + o.lo, self.hi + o.hi)
    }

    fn neg(self) -> Iv {
        Iv::new(-self.hi, -self.lo)
    }

    fn mul(self, o: Iv) -> Iv {
        let p = [
            self.lo * o.lo,
            self.lo * o.hi,
            self.hi * o.lo,
            self.hi * o.hi,
        ];
        if p.iter().any(|x| x.is_nan()) {
            return Iv::ANY; // 0 * inf
        }
        let lo = p.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Iv::outward(lo, hi)
    }

    fn div(self, o: Iv) -> Iv {
        if o.lo <= 0.0 && o.hi >= 0.0 {
            return Iv::ANY;
        }
        let inv = Iv::outward(1.0 / o.hi, 1.0 / o.lo);
        self.mul(inv)
    }

    fn monotone(self, f: impl Fn(f64) -> f64) -> Iv {
        Iv::new(f(self.lo), f(self.hi))
    }
}

/// The least f64 above `x` (`f64::next_up`, stable only after the crate's MSRV).
fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// Where the interval evaluator reads variables and engine functions.
pub trait EnvIv {
    fn var(&self, slot: usize) -> Iv;
    /// An engine function over interval arguments (their checked types).
    fn ext(&self, _id: usize, _args: &[Iv], _types: &[Ty]) -> Iv {
        Iv::ANY
    }
    /// Real comparisons closer than this (relative above magnitude 1) to
    /// their border stay undecided.
    fn margin(&self) -> f64 {
        0.0
    }
}

/// Interval evaluation: an interval containing the expression's value at
/// every point of the variables' intervals.
pub fn eval_iv(e: &TExpr, env: &(impl EnvIv + ?Sized)) -> Iv {
    match &e.kind {
        TKind::Const(v) => Iv::point(v.to_f64()),
        TKind::Var(slot) => env.var(*slot),
        TKind::Unary(UnOp::Neg, a) => eval_iv(a, env).neg(),
        TKind::Unary(UnOp::Not, a) => Iv::truth(eval_iv(a, env).decided().map(|b| !b)),
        TKind::Binary(op, a, b) => binary(*op, a, b, env),
        TKind::If(c, a, b) => match eval_iv(c, env).decided() {
            Some(true) => eval_iv(a, env),
            Some(false) => eval_iv(b, env),
            None => eval_iv(a, env).hull(eval_iv(b, env)),
        },
        TKind::Builtin(b, args) => {
            let v: Vec<Iv> = args.iter().map(|a| eval_iv(a, env)).collect();
            builtin(*b, &v)
        }
        TKind::Ext(id, args) => {
            let v: Vec<Iv> = args.iter().map(|a| eval_iv(a, env)).collect();
            let types: Vec<Ty> = args.iter().map(|a| a.ty).collect();
            env.ext(*id, &v, &types)
        }
    }
}

fn binary(op: BinOp, a: &TExpr, b: &TExpr, env: &(impl EnvIv + ?Sized)) -> Iv {
    use BinOp::*;
    let x = eval_iv(a, env);
    let cond = |i: Iv| i.decided();
    match op {
        And | Or | Implies => {
            let l = cond(x);
            let short = match op {
                And => l == Some(false),
                Or => l == Some(true),
                _ => l == Some(false),
            };
            if short {
                return Iv::truth(Some(op != And));
            }
            let r = cond(eval_iv(b, env));
            let l = if op == Implies { l.map(|v| !v) } else { l };
            return Iv::truth(match op {
                And => kleene_and(l, r),
                _ => kleene_and(l.map(|v| !v), r.map(|v| !v)).map(|v| !v),
            });
        }
        _ => {}
    }
    let y = eval_iv(b, env);
    let real = a.ty == Ty::Real || b.ty == Ty::Real;
    let m = if real { env.margin() } else { 0.0 };
    match op {
        Add => x.add(y),
        Sub => x.add(y.neg()),
        Mul => x.mul(y),
        Div => x.div(y),
        Eq => Iv::truth(equal(x, y, m)),
        Ne => Iv::truth(equal(x, y, m).map(|v| !v)),
        Lt => Iv::truth(less(x, y, m, false)),
        Le => Iv::truth(less(x, y, m, true)),
        Gt => Iv::truth(less(y, x, m, false)),
        Ge => Iv::truth(less(y, x, m, true)),
        Iff => Iv::truth(match (cond(x), cond(y)) {
            (Some(p), Some(q)) => Some(p == q),
            _ => None,
        }),
        And | Or | Implies => unreachable!("handled above"),
    }
}

fn kleene_and(l: Option<bool>, r: Option<bool>) -> Option<bool> {
    match (l, r) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// The margin of a comparison near `x` (relative above magnitude 1).
fn gap(m: f64, x: f64) -> f64 {
    m * x.abs().max(1.0)
}

/// x < y (x <= y with `or_equal`) at every point, at none, or undecided.
fn less(x: Iv, y: Iv, m: f64, or_equal: bool) -> Option<bool> {
    let sure = if m == 0.0 && !or_equal {
        x.hi < y.lo
    } else {
        x.hi <= y.lo - gap(m, y.lo) && (or_equal || x.hi < y.lo)
    };
    let never = if m == 0.0 && or_equal {
        x.lo > y.hi
    } else {
        x.lo >= y.hi + gap(m, y.hi) && (!or_equal || x.lo > y.hi)
    };
    match (sure, never) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

fn equal(x: Iv, y: Iv, m: f64) -> Option<bool> {
    if m == 0.0 && x.is_point() && y.is_point() {
        return Some(x.lo == y.lo);
    }
    let apart = x.hi < y.lo - gap(m, y.lo) || y.hi < x.lo - gap(m, x.lo);
    apart.then_some(false)
}

fn builtin(b: Builtin, v: &[Iv]) -> Iv {
    match b {
        Builtin::Min => fold(v, f64::min),
        Builtin::Max => fold(v, f64::max),
        Builtin::Clamp => {
            let lower = fold(&v[..2], f64::max);
            fold(&[lower, v[2]], f64::min)
        }
        Builtin::Abs => {
            let x = v[0];
            if x.lo >= 0.0 {
                x
            } else if x.hi <= 0.0 {
                x.neg()
            } else {
                Iv::new(0.0, (-x.lo).max(x.hi))
            }
        }
        Builtin::Floor => v[0].monotone(f64::floor),
        Builtin::Ceil => v[0].monotone(f64::ceil),
        Builtin::Mod => modulus(v[0], v[1]),
    }
}

/// Pointwise `f` of the intervals (min and max are monotone in each argument).
fn fold(v: &[Iv], f: fn(f64, f64) -> f64) -> Iv {
    let lo = v.iter().map(|x| x.lo).reduce(f).unwrap_or(f64::NAN);
    let hi = v.iter().map(|x| x.hi).reduce(f).unwrap_or(f64::NAN);
    Iv::new(lo, hi)
}

/// x mod d (the divisor's sign, as [`super::eval_f64`]): exact when d is a
/// positive point and x stays in one period, else [0, d].
fn modulus(x: Iv, d: Iv) -> Iv {
    if !(d.is_point() && d.lo > 0.0) {
        return Iv::ANY;
    }
    let (p, q) = ((x.lo / d.lo).floor(), (x.hi / d.lo).floor());
    if p == q && p.is_finite() {
        return Iv::outward(x.lo - p * d.lo, x.hi - p * d.lo);
    }
    Iv::new(0.0, d.lo)
}
