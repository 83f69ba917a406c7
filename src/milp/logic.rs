//! Piecewise-linear and logical builders. HiGHS has no indicator
//! constraints, so every case split is a big-M whose M is computed from the
//! finite bounds of the expressions involved, never guessed; where a bound is
//! infinite the builder refuses with an error naming the variable.

use super::expr::{LinExpr, Var};
use super::model::{MilpError, Model, Sense};

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
    /// `b = 1 implies c`: for `c: e <= r` adds `e - r <= M (1 - b)` with `M`
    /// the upper bound of `e - r` (nothing when `M <= 0`: always true); `>=`
    /// symmetrically; `=` as both. `b` must be binary.
    pub fn implies(&mut self, name: &str, b: Var, c: &Linear) -> Result<(), MilpError> {
        let diff = c.lhs.clone() - c.rhs.clone();
        let purpose = format!("the implication '{name}'");
        if matches!(c.sense, Sense::Le | Sense::Eq) {
            let m = self.finite_upper(&diff, &purpose)?;
            if m > 0.0 {
                self.le(
                    &format!("{name}.le"),
                    diff.clone() + LinExpr::from(b) * m,
                    m,
                )?;
            }
        }
        if matches!(c.sense, Sense::Ge | Sense::Eq) {
            let m = -self.finite_lower(&diff, &purpose)?;
            if m > 0.0 {
                self.ge(&format!("{name}.ge"), diff - LinExpr::from(b) * m, -m)?;
            }
        }
        Ok(())
    }

    /// `b = 1 implies` every constraint of `cs`.
    pub fn implies_all(&mut self, name: &str, b: Var, cs: &[Linear]) -> Result<(), MilpError> {
        for (i, c) in cs.iter().enumerate() {
            self.implies(&format!("{name}.{i}"), b, c)?;
        }
        Ok(())
    }

    /// A binary equal to the OR of binaries (0 for none).
    pub fn or(&mut self, name: &str, items: &[Var]) -> Result<Var, MilpError> {
        let y = self.binary(name);
        for (i, &b) in items.iter().enumerate() {
            self.ge(&format!("{name}.ge{i}"), y, b)?;
        }
        self.le(
            &format!("{name}.le"),
            y,
            LinExpr::sum(items.iter().copied()),
        )?;
        Ok(y)
    }

    /// A binary equal to the AND of binaries (1 for none).
    pub fn and(&mut self, name: &str, items: &[Var]) -> Result<Var, MilpError> {
        let y = self.binary(name);
        for (i, &b) in items.iter().enumerate() {
            self.le(&format!("{name}.le{i}"), y, b)?;
        }
        let k = items.len() as f64;
        self.ge(
            &format!("{name}.ge"),
            y,
            LinExpr::sum(items.iter().copied()) - (k - 1.0),
        )?;
        Ok(y)
    }

    /// `1 - b`, the negation of a binary, as an expression.
    pub fn not(&self, b: Var) -> LinExpr {
        LinExpr::constant(1.0) - b
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
            self.implies_all(&format!("{name}.case{i}"), d, g)?;
            choice.push(d);
        }
        self.ge(
            &format!("{name}.some"),
            LinExpr::sum(choice.iter().copied()),
            1.0,
        )?;
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
        let y = self.continuous(name, ylo, yhi)?;
        let yy = if is_max {
            LinExpr::from(y)
        } else {
            -LinExpr::from(y)
        };
        let candidates: Vec<usize> = (0..items.len()).filter(|&i| bounds[i].1 >= floor).collect();
        for (i, e) in items.iter().enumerate() {
            self.ge(&format!("{name}.ge{i}"), yy.clone(), e.clone())?;
        }
        if candidates.len() == 1 {
            let i = candidates[0];
            self.le(&format!("{name}.is{i}"), yy, items[i].clone())?;
            return Ok(y);
        }
        // One binary per candidate, or a single one for two candidates (d, 1 - d).
        let choice: Vec<LinExpr> = if candidates.len() == 2 {
            let d = self.binary(&format!("{name}.d"));
            vec![LinExpr::from(d), self.not(d)]
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
                )?;
            } else {
                self.le(&format!("{name}.le{i}"), yy.clone() - items[i].clone(), 0.0)?;
            }
        }
        if candidates.len() != 2 {
            self.eq(&format!("{name}.one"), LinExpr::sum(choice), 1.0)?;
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

    /// Argmax with ties allowed: binaries `c_i` (sum 1); `c_i = 1` implies
    /// `e_i >= e_j` for every `j`. Every maximal item can be chosen, no other.
    pub fn argmax(&mut self, name: &str, items: &[LinExpr]) -> Result<Vec<Var>, MilpError> {
        self.arg_extremum(name, items, true)
    }

    /// Argmin with ties allowed, symmetric to [`Model::argmax`].
    pub fn argmin(&mut self, name: &str, items: &[LinExpr]) -> Result<Vec<Var>, MilpError> {
        self.arg_extremum(name, items, false)
    }

    fn arg_extremum(
        &mut self,
        name: &str,
        items: &[LinExpr],
        is_max: bool,
    ) -> Result<Vec<Var>, MilpError> {
        let mut choice = Vec::with_capacity(items.len());
        for (i, ei) in items.iter().enumerate() {
            let c = self.binary(&format!("{name}.c{i}"));
            for (j, ej) in items.iter().enumerate() {
                if i != j {
                    let cond = if is_max {
                        Linear::ge(ei.clone(), ej.clone())
                    } else {
                        Linear::le(ei.clone(), ej.clone())
                    };
                    self.implies(&format!("{name}.c{i}.vs{j}"), c, &cond)?;
                }
            }
            choice.push(c);
        }
        self.eq(
            &format!("{name}.one"),
            LinExpr::sum(choice.iter().copied()),
            1.0,
        )?;
        Ok(choice)
    }
}
