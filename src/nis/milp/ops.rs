//! Operations on MILP expressions the encoder builds from: exact 0/1
//! conjunction and disjunction, `d <= 0` as an exact indicator (integral
//! expressions are scaled so that strict comparisons are exact), `if` on
//! numbers, max/min with bound-dominated items dropped, implications with M
//! from finite bounds (HiGHS has no indicator constraints).

use super::Enc;
use crate::milp::{LinExpr, Sense, VarKind};
use crate::report::RunError;

/// Gap used for strict comparisons of expressions that cannot be scaled to
/// integers (real-valued quantities); finite models never need it.
const REAL_GAP: f64 = crate::milp::tolerance::STRICT_GAP;

/// The constant value of an expression without variables.
pub fn constant(e: &LinExpr) -> Option<f64> {
    e.is_constant().then(|| e.constant_part())
}

/// The smallest D <= 1000 making every coefficient and the constant of
/// `D * e` an integer, when every variable of `e` is integral: then `e > 0`
/// is `D e >= 1`, exactly.
fn integral_scale(enc: &Enc, e: &LinExpr) -> Option<f64> {
    let terms = e.merged_terms();
    if terms
        .iter()
        .any(|(v, _)| enc.milp.kind(*v) == VarKind::Continuous)
    {
        return None;
    }
    let is_int = |x: f64| {
        (x - x.round()).abs()
            < crate::milp::tolerance::scaled(crate::milp::tolerance::INTEGRAL_COEFFICIENT, x)
    };
    (1..=1000)
        .map(f64::from)
        .find(|d| is_int(e.constant_part() * d) && terms.iter().all(|(_, c)| is_int(c * d)))
}

impl Enc<'_> {
    /// `cond = 1 implies lhs sense rhs`, with M from finite bounds; `cond` is 0/1.
    pub fn implies(
        &mut self,
        name: &str,
        cond: &LinExpr,
        lhs: LinExpr,
        sense: Sense,
        rhs: LinExpr,
    ) -> Result<(), RunError> {
        match constant(cond) {
            Some(c) if c < 0.5 => return Ok(()),
            Some(_) => {
                return self
                    .milp
                    .constrain(name, lhs, sense, rhs)
                    .map_err(milp_error)
            }
            None => {}
        }
        let diff = lhs - rhs;
        let purpose = format!("the case split '{name}'");
        if matches!(sense, Sense::Le | Sense::Eq) {
            let m = self
                .milp
                .finite_upper(&diff, &purpose)
                .map_err(milp_error)?;
            if m > 0.0 {
                // diff <= M (1 - cond)
                self.milp
                    .le(name, diff.clone() + cond.clone() * m, m)
                    .map_err(milp_error)?;
            }
        }
        if matches!(sense, Sense::Ge | Sense::Eq) {
            let m = -self
                .milp
                .finite_lower(&diff, &purpose)
                .map_err(milp_error)?;
            if m > 0.0 {
                // diff >= -M (1 - cond)
                self.milp
                    .ge(name, diff - cond.clone() * m, -m)
                    .map_err(milp_error)?;
            }
        }
        Ok(())
    }

    /// Exact conjunction of 0/1 expressions.
    pub fn and(&mut self, items: Vec<LinExpr>) -> Result<LinExpr, RunError> {
        let mut rest = Vec::new();
        for e in items {
            match constant(&e) {
                Some(c) if c < 0.5 => return Ok(LinExpr::constant(0.0)),
                Some(_) => {}
                None => rest.push(e),
            }
        }
        match rest.len() {
            0 => Ok(LinExpr::constant(1.0)),
            1 => Ok(rest.pop().unwrap_or_default()),
            k => {
                let name = self.aux("and");
                let y = self.milp.binary(&name);
                for e in &rest {
                    self.milp.le(&name, y, e.clone()).map_err(milp_error)?;
                }
                self.milp
                    .ge(&name, y, LinExpr::sum(rest) - (k as f64 - 1.0))
                    .map_err(milp_error)?;
                Ok(y.into())
            }
        }
    }

    /// Exact disjunction of 0/1 expressions.
    pub fn or(&mut self, items: Vec<LinExpr>) -> Result<LinExpr, RunError> {
        let negated = items.into_iter().map(not).collect();
        Ok(not(self.and(negated)?))
    }

    /// The 0/1 expression of `d <= 0`, exact in both directions.
    pub fn le_zero(&mut self, d: LinExpr) -> Result<LinExpr, RunError> {
        let (d, gap) = match integral_scale(self, &d) {
            Some(s) => (d * s, 1.0),
            None => (d, REAL_GAP),
        };
        let (lo, hi) = self
            .milp
            .finite_bounds(&d, "a comparison")
            .map_err(milp_error)?;
        if hi <= 0.0 {
            return Ok(LinExpr::constant(1.0));
        }
        if lo > 0.0 {
            return Ok(LinExpr::constant(0.0));
        }
        let name = self.aux("cmp");
        let b = self.milp.binary(&name);
        // b = 1: d <= 0, i.e. d + hi b <= hi.
        self.milp
            .le(&name, d.clone() + LinExpr::from(b) * hi, hi)
            .map_err(milp_error)?;
        // b = 0: d >= gap, i.e. d + (gap - lo) b >= gap.
        self.milp
            .ge(&name, d + LinExpr::from(b) * (gap - lo), gap)
            .map_err(milp_error)?;
        Ok(b.into())
    }

    /// `c ? a : b` for numbers.
    pub fn select(&mut self, c: &LinExpr, a: LinExpr, b: LinExpr) -> Result<LinExpr, RunError> {
        match constant(c) {
            Some(x) if x > 0.5 => return Ok(a),
            Some(_) => return Ok(b),
            None => {}
        }
        if a == b {
            return Ok(a);
        }
        let (la, ua) = self.milp.finite_bounds(&a, "if").map_err(milp_error)?;
        let (lb, ub) = self.milp.finite_bounds(&b, "if").map_err(milp_error)?;
        let name = self.aux("if");
        let y: LinExpr = self
            .milp
            .continuous(&name, la.min(lb), ua.max(ub))
            .map_err(milp_error)?
            .into();
        self.implies(&name, c, y.clone(), Sense::Eq, a)?;
        self.implies(&name, &not(c.clone()), y.clone(), Sense::Eq, b)?;
        Ok(y)
    }

    /// max (or min) of items, dropping items the bounds already dominate.
    pub fn extremum(&mut self, items: Vec<LinExpr>, is_max: bool) -> Result<LinExpr, RunError> {
        let signed: Vec<LinExpr> = items
            .into_iter()
            .map(|e| if is_max { e } else { -e })
            .collect();
        let bounds: Vec<(f64, f64)> = signed
            .iter()
            .map(|e| self.milp.finite_bounds(e, "max/min"))
            .collect::<Result<_, _>>()
            .map_err(milp_error)?;
        let floor = bounds.iter().map(|b| b.0).fold(f64::NEG_INFINITY, f64::max);
        // Keep the items that can exceed the best lower bound, and the first reaching it.
        let first_floor = bounds.iter().position(|b| b.0 == floor).unwrap_or(0);
        let keep: Vec<LinExpr> = signed
            .iter()
            .enumerate()
            .filter(|(i, _)| *i == first_floor || bounds[*i].1 > floor)
            .map(|(_, e)| e.clone())
            .collect();
        let out = if keep.len() == 1 {
            keep[0].clone()
        } else {
            let name = self.aux("max");
            self.milp.max_of(&name, &keep).map_err(milp_error)?.into()
        };
        Ok(if is_max { out } else { -out })
    }
}

/// `1 - b`.
pub fn not(b: LinExpr) -> LinExpr {
    LinExpr::constant(1.0) - b
}

/// A MILP-layer error as a run error: missing bounds are the user's to fix
/// (exit 2), solver failures are ours (exit 3).
pub fn milp_error(e: crate::milp::MilpError) -> RunError {
    match e {
        crate::milp::MilpError::Solver(_) | crate::milp::MilpError::Replay(_) => {
            RunError::Internal(format!("MILP decider: {e}"))
        }
        other => RunError::input(format!("MILP decider: {other}")),
    }
}
