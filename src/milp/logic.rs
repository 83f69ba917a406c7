//! Piecewise-linear and logical builders over 0/1 and linear expressions.
//! HiGHS has no indicator constraints, so every case split is a big-M whose
//! M is computed from the finite bounds of the expressions involved, never
//! guessed; where a bound is infinite the builder refuses with an error
//! naming the variable. Constant operands are folded: a builder adds no
//! variable when its value is already known.

use super::expr::{LinExpr, Var};
use super::model::{MilpError, Model, Sense, VarKind};

/// Gap used for strict comparisons of expressions that cannot be scaled to
/// integers (real-valued quantities); integral expressions never need it.
const REAL_GAP: f64 = super::tolerance::STRICT_GAP;

/// The constant value of an expression without variables.
pub fn constant(e: &LinExpr) -> Option<f64> {
    e.is_constant().then(|| e.constant_part())
}

/// `1 - b`, the negation of a 0/1 expression.
pub fn not(b: impl Into<LinExpr>) -> LinExpr {
    LinExpr::constant(1.0) - b.into()
}
/// A linear constraint `lhs sense rhs` as a value, for [`Model::implies`] and
/// [`Model::disjunction`].
#[derive(Clone, Debug, PartialEq)]
pub struct Linear {
    pub lhs: LinExpr,
    pub sense: Sense,
    pub rhs: LinExpr,
}

impl Linear {
    pub fn new(lhs: impl Into<LinExpr>, sense: Sense, rhs: impl Into<LinExpr>) -> Self {
        Linear {
            lhs: lhs.into(),
            sense,
            rhs: rhs.into(),
        }
    }
    pub fn le(lhs: impl Into<LinExpr>, rhs: impl Into<LinExpr>) -> Self {
        Linear::new(lhs, Sense::Le, rhs)
    }
    pub fn ge(lhs: impl Into<LinExpr>, rhs: impl Into<LinExpr>) -> Self {
        Linear::new(lhs, Sense::Ge, rhs)
    }
    pub fn eq(lhs: impl Into<LinExpr>, rhs: impl Into<LinExpr>) -> Self {
        Linear::new(lhs, Sense::Eq, rhs)
    }
}

impl Model {
    /// The smallest D <= 1000 making every coefficient and the constant of
    /// `D * e` an integer, when every variable of `e` is integral: then
    /// `e > 0` is `D e >= 1`, exactly.
    fn integral_scale(&self, e: &LinExpr) -> Option<f64> {
        let terms = e.merged_terms();
        if terms
            .iter()
            .any(|(v, _)| self.kind(*v) == VarKind::Continuous)
        {
            return None;
        }
        let is_int = |x: f64| {
            (x - x.round()).abs()
                < super::tolerance::scaled(super::tolerance::INTEGRAL_COEFFICIENT, x)
        };
        (1..=1000)
            .map(f64::from)
            .find(|d| is_int(e.constant_part() * d) && terms.iter().all(|(_, c)| is_int(c * d)))
    }

    /// `cond = 1 implies c` for a 0/1 expression `cond`: for `c: e <= r` adds
    /// `e - r <= M (1 - cond)` with `M` the upper bound of `e - r` (nothing
    /// when `M <= 0`: always true); `>=` symmetrically; `=` as both. A
    /// constant `cond` adds `c` itself or nothing.
    pub fn implies(&mut self, name: &str, cond: &LinExpr, c: &Linear) -> Result<(), MilpError> {
        match constant(cond) {
            Some(x) if x < 0.5 => return Ok(()),
            Some(_) => {
                self.constrain(name, c.lhs.clone(), c.sense, c.rhs.clone());
                return Ok(());
            }
            None => {}
        }
        let diff = c.lhs.clone() - c.rhs.clone();
        let purpose = format!("the implication '{name}'");
        if matches!(c.sense, Sense::Le | Sense::Eq) {
            let m = self.finite_upper(&diff, &purpose)?;
            if m > 0.0 {
                self.le(name, diff.clone() + cond.clone() * m, m);
            }
        }
        if matches!(c.sense, Sense::Ge | Sense::Eq) {
            let m = -self.finite_lower(&diff, &purpose)?;
            if m > 0.0 {
                self.ge(name, diff - cond.clone() * m, -m);
            }
        }
        Ok(())
    }

    /// `cond = 1 implies` every constraint of `cs`.
    pub fn implies_all(
        &mut self,
        name: &str,
        cond: &LinExpr,
        cs: &[Linear],
    ) -> Result<(), MilpError> {
        for (i, c) in cs.iter().enumerate() {
            self.implies(&format!("{name}.{i}"), cond, c)?;
        }
        Ok(())
    }

    /// The exact conjunction of 0/1 expressions (1 for none): a constant
    /// when some item is 0 or all are constant, the item itself when one is
    /// left, else a binary `y <= x_i`, `y >= sum x_i - (k - 1)`.
    pub fn and(&mut self, name: &str, items: Vec<LinExpr>) -> LinExpr {
        let mut rest = Vec::new();
        for e in items {
            match constant(&e) {
                Some(c) if c < 0.5 => return LinExpr::constant(0.0),
                Some(_) => {}
                None => rest.push(e),
            }
        }
        match rest.len() {
            0 => LinExpr::constant(1.0),
            1 => rest.pop().unwrap_or_default(),
            k => {
                let y = self.binary(name);
                for e in &rest {
                    self.le(name, y, e.clone());
                }
                self.ge(name, y, LinExpr::sum(rest) - (k as f64 - 1.0));
                y.into()
            }
        }
    }

    /// The exact disjunction of 0/1 expressions (0 for none), as `not(and(not ..))`.
    pub fn or(&mut self, name: &str, items: Vec<LinExpr>) -> LinExpr {
        let negated = items.into_iter().map(not).collect();
        not(self.and(name, negated))
    }

    /// The 0/1 expression of `d <= 0`, exact in both directions: integral
    /// expressions are scaled so that `d > 0` is `d >= 1`; real-valued ones
    /// use a gap of 1e-6 for the strict side.
    pub fn is_nonpositive(&mut self, name: &str, d: LinExpr) -> Result<LinExpr, MilpError> {
        let (d, gap) = match self.integral_scale(&d) {
            Some(s) => (d * s, 1.0),
            None => (d, REAL_GAP),
        };
        let (lo, hi) = self.finite_bounds(&d, "a comparison")?;
        if hi <= 0.0 {
            return Ok(LinExpr::constant(1.0));
        }
        if lo > 0.0 {
            return Ok(LinExpr::constant(0.0));
        }
        let b = self.binary(name);
        // b = 1: d <= 0, i.e. d + hi b <= hi.
        self.le(name, d.clone() + LinExpr::from(b) * hi, hi);
        // b = 0: d >= gap, i.e. d + (gap - lo) b >= gap.
        self.ge(name, d + LinExpr::from(b) * (gap - lo), gap);
        Ok(b.into())
    }

    /// `c ? a : b` for numbers, `c` a 0/1 expression.
    pub fn select(
        &mut self,
        name: &str,
        c: &LinExpr,
        a: LinExpr,
        b: LinExpr,
    ) -> Result<LinExpr, MilpError> {
        match constant(c) {
            Some(x) if x > 0.5 => return Ok(a),
            Some(_) => return Ok(b),
            None => {}
        }
        if a == b {
            return Ok(a);
        }
        let (la, ua) = self.finite_bounds(&a, "if")?;
        let (lb, ub) = self.finite_bounds(&b, "if")?;
        let y: LinExpr = self.continuous(name, la.min(lb), ua.max(ub)).into();
        self.implies(name, c, &Linear::eq(y.clone(), a))?;
        self.implies(name, &not(c.clone()), &Linear::eq(y.clone(), b))?;
        Ok(y)
    }

    /// max (or min) of items as an expression, dropping the items whose
    /// bounds say they are never the extremum: no variable when one is left.
    pub fn extremum_of(
        &mut self,
        name: &str,
        items: Vec<LinExpr>,
        is_max: bool,
    ) -> Result<LinExpr, MilpError> {
        let signed: Vec<LinExpr> = items
            .into_iter()
            .map(|e| if is_max { e } else { -e })
            .collect();
        let bounds: Vec<(f64, f64)> = signed
            .iter()
            .map(|e| self.finite_bounds(e, "max/min"))
            .collect::<Result<_, _>>()?;
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
            self.max_of(name, &keep)?.into()
        };
        Ok(if is_max { out } else { -out })
    }

    /// At least one of the groups of constraints holds: one binary per group
    /// (returned, in order), their sum >= 1, each implying its group.
    pub fn disjunction(
        &mut self,
        name: &str,
        groups: &[Vec<Linear>],
    ) -> Result<Vec<Var>, MilpError> {
        let mut choice = Vec::with_capacity(groups.len());
        for (i, g) in groups.iter().enumerate() {
            let d = self.binary(&format!("{name}.d{i}"));
            self.implies_all(&format!("{name}.case{i}"), &d.into(), g)?;
            choice.push(d);
        }
        self.ge(
            &format!("{name}.some"),
            LinExpr::sum(choice.iter().copied()),
            1.0,
        );
        Ok(choice)
    }

    /// `y = max(items)`: `y >= e_i`, and `y <= e_i + (U - L_i)(1 - d_i)` for a
    /// choice `d` (sum 1) among the items that can be maximal, with `U` the
    /// largest upper bound and `L_i` item i's lower bound.
    pub fn max_of(&mut self, name: &str, items: &[LinExpr]) -> Result<Var, MilpError> {
        self.extremum(name, items, true)
    }

    /// `y = min(items)`, symmetric to [`Model::max_of`].
    pub fn min_of(&mut self, name: &str, items: &[LinExpr]) -> Result<Var, MilpError> {
        self.extremum(name, items, false)
    }

    fn extremum(&mut self, name: &str, items: &[LinExpr], is_max: bool) -> Result<Var, MilpError> {
        assert!(!items.is_empty(), "max/min of nothing");
        let purpose = format!("'{name}' ({})", if is_max { "max" } else { "min" });
        // Work on maxima: min(e) = -max(-e).
        let items: Vec<LinExpr> = items
            .iter()
            .map(|e| if is_max { e.clone() } else { -e.clone() })
            .collect();
        let bounds: Vec<(f64, f64)> = items
            .iter()
            .map(|e| self.finite_bounds(e, &purpose))
            .collect::<Result<_, _>>()?;
        let top = bounds.iter().map(|b| b.1).fold(f64::NEG_INFINITY, f64::max);
        let floor = bounds.iter().map(|b| b.0).fold(f64::NEG_INFINITY, f64::max);
        let (ylo, yhi) = if is_max { (floor, top) } else { (-top, -floor) };
        let y = self.continuous(name, ylo, yhi);
        let yy = if is_max {
            LinExpr::from(y)
        } else {
            -LinExpr::from(y)
        };
        let candidates: Vec<usize> = (0..items.len()).filter(|&i| bounds[i].1 >= floor).collect();
        for (i, e) in items.iter().enumerate() {
            self.ge(&format!("{name}.ge{i}"), yy.clone(), e.clone());
        }
        if candidates.len() == 1 {
            let i = candidates[0];
            self.le(&format!("{name}.is{i}"), yy, items[i].clone());
            return Ok(y);
        }
        // One binary per candidate, or a single one for two candidates (d, 1 - d).
        let choice: Vec<LinExpr> = if candidates.len() == 2 {
            let d = self.binary(&format!("{name}.d"));
            vec![LinExpr::from(d), not(d)]
        } else {
            candidates
                .iter()
                .map(|i| LinExpr::from(self.binary(&format!("{name}.d{i}"))))
                .collect()
        };
        for (&i, d) in candidates.iter().zip(&choice) {
            // When i is not chosen, y equals another item: y - e_i <= max_{j != i} U_j - L_i.
            let others = candidates
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| bounds[j].1)
                .fold(f64::NEG_INFINITY, f64::max);
            let m = others - bounds[i].0;
            if m > 0.0 {
                self.le(
                    &format!("{name}.le{i}"),
                    yy.clone() - items[i].clone() + d.clone() * m,
                    m,
                );
            } else {
                self.le(&format!("{name}.le{i}"), yy.clone() - items[i].clone(), 0.0);
            }
        }
        if candidates.len() != 2 {
            self.eq(&format!("{name}.one"), LinExpr::sum(choice), 1.0);
        }
        Ok(y)
    }

    /// `y = min(max(e, lo), hi)`.
    pub fn clamp(&mut self, name: &str, e: &LinExpr, lo: f64, hi: f64) -> Result<Var, MilpError> {
        let below = self.max_of(
            &format!("{name}.atleast"),
            &[e.clone(), LinExpr::constant(lo)],
        )?;
        self.min_of(name, &[LinExpr::from(below), LinExpr::constant(hi)])
    }

    /// `y = max(e, 0)` with one binary only when `e`'s bounds cross 0.
    pub fn relu(&mut self, name: &str, e: &LinExpr) -> Result<Var, MilpError> {
        self.max_of(name, &[e.clone(), LinExpr::constant(0.0)])
    }

    /// Argmax with ties allowed: 0/1 expressions `c_i` (sum 1); `c_i = 1`
    /// implies `e_i >= e_j` for every `j`. Every maximal item can be chosen,
    /// no other. An item whose upper bound is below another's lower bound is
    /// never maximal: its `c_i` is the constant 0, and when one item is left
    /// the choice is constant (no binary at all).
    pub fn argmax(&mut self, name: &str, items: &[LinExpr]) -> Result<Vec<LinExpr>, MilpError> {
        self.arg_extremum(name, items, true, 0.0)
    }

    /// Argmax whose chosen item exceeds every other by at least `margin`
    /// (no ties, nor near-ties: a point within `margin` of a tie has no choice).
    pub fn argmax_strict(
        &mut self,
        name: &str,
        items: &[LinExpr],
        margin: f64,
    ) -> Result<Vec<LinExpr>, MilpError> {
        self.arg_extremum(name, items, true, margin)
    }

    /// Argmin with ties allowed, symmetric to [`Model::argmax`].
    pub fn argmin(&mut self, name: &str, items: &[LinExpr]) -> Result<Vec<LinExpr>, MilpError> {
        self.arg_extremum(name, items, false, 0.0)
    }

    fn arg_extremum(
        &mut self,
        name: &str,
        items: &[LinExpr],
        is_max: bool,
        margin: f64,
    ) -> Result<Vec<LinExpr>, MilpError> {
        // Work on maxima: argmin(e) = argmax(-e).
        let items: Vec<LinExpr> = items
            .iter()
            .map(|e| if is_max { e.clone() } else { -e.clone() })
            .collect();
        let bounds: Vec<(f64, f64)> = items.iter().map(|e| self.bounds(e)).collect();
        let floor = bounds.iter().map(|b| b.0).fold(f64::NEG_INFINITY, f64::max);
        let live: Vec<usize> = (0..items.len()).filter(|&i| bounds[i].1 >= floor).collect();
        let mut choice = vec![LinExpr::constant(0.0); items.len()];
        if let [only] = live[..] {
            choice[only] = LinExpr::constant(1.0);
            return Ok(choice);
        }
        for &i in &live {
            let c = self.binary(&format!("{name}.c{i}"));
            for &j in &live {
                if i != j {
                    let above = items[j].clone() + margin;
                    let cond = Linear::ge(items[i].clone(), above);
                    self.implies(&format!("{name}.c{i}.vs{j}"), &c.into(), &cond)?;
                }
            }
            choice[i] = c.into();
        }
        self.eq(&format!("{name}.one"), LinExpr::sum(choice.clone()), 1.0);
        Ok(choice)
    }
}
