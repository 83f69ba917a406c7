//! Variables and affine expressions of a [`super::Model`].

use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// A variable of one [`super::Model`] (an index into it; meaningless in another model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub(crate) usize);

impl Var {
    /// The position of the variable in its model (creation order).
    pub fn index(self) -> usize {
        self.0
    }
}

/// An affine expression `sum c_i x_i + constant`. Build it with `+`, `-`,
/// `* f64` from [`Var`]s, numbers and other expressions:
///
/// ```
/// use mavis::milp::{LinExpr, Model};
/// let mut m = Model::new();
/// let x = m.continuous("x", 0.0, 1.0);
/// let y = m.continuous("y", -1.0, 1.0);
/// let e = LinExpr::from(x) * 2.0 - y + 0.5;
/// assert_eq!(m.bounds(&e), (-0.5, 3.5));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinExpr {
    pub(crate) terms: Vec<(Var, f64)>,
    pub(crate) constant: f64,
}

impl LinExpr {
    pub fn constant(value: f64) -> Self {
        LinExpr {
            terms: Vec::new(),
            constant: value,
        }
    }

    pub fn term(var: Var, coef: f64) -> Self {
        LinExpr {
            terms: vec![(var, coef)],
            constant: 0.0,
        }
    }

    /// `sum coefs[i] * vars[i]`, skipping zero coefficients.
    pub fn weighted(terms: impl IntoIterator<Item = (Var, f64)>) -> Self {
        LinExpr {
            terms: terms.into_iter().filter(|t| t.1 != 0.0).collect(),
            constant: 0.0,
        }
    }

    /// The sum of some expressions.
    pub fn sum<E: Into<LinExpr>>(items: impl IntoIterator<Item = E>) -> Self {
        items
            .into_iter()
            .fold(LinExpr::default(), |acc, e| acc + e.into())
    }

    pub fn constant_part(&self) -> f64 {
        self.constant
    }

    /// Terms with repeated variables merged and zero coefficients dropped, in variable order.
    pub fn merged_terms(&self) -> Vec<(Var, f64)> {
        let mut t = self.terms.clone();
        t.sort_by_key(|(v, _)| *v);
        let mut out: Vec<(Var, f64)> = Vec::with_capacity(t.len());
        for (v, c) in t {
            match out.last_mut() {
                Some((last, acc)) if *last == v => *acc += c,
                _ => out.push((v, c)),
            }
        }
        out.retain(|(_, c)| *c != 0.0);
        out
    }

    /// Whether the constant and every coefficient are finite.
    pub fn is_finite(&self) -> bool {
        self.constant.is_finite() && self.terms.iter().all(|(_, c)| c.is_finite())
    }

    /// Whether the expression has no variable (after merging).
    pub fn is_constant(&self) -> bool {
        self.merged_terms().is_empty()
    }

    /// The value under an assignment of the variables.
    pub fn value(&self, values: impl Fn(Var) -> f64) -> f64 {
        self.terms.iter().map(|&(v, c)| c * values(v)).sum::<f64>() + self.constant
    }

    /// Adds `coef * var`.
    pub fn add_term(&mut self, var: Var, coef: f64) {
        if coef != 0.0 {
            self.terms.push((var, coef));
        }
    }
}

impl From<Var> for LinExpr {
    fn from(v: Var) -> Self {
        LinExpr::term(v, 1.0)
    }
}

impl From<f64> for LinExpr {
    fn from(c: f64) -> Self {
        LinExpr::constant(c)
    }
}

impl From<&LinExpr> for LinExpr {
    fn from(e: &LinExpr) -> Self {
        e.clone()
    }
}

impl<E: Into<LinExpr>> Add<E> for LinExpr {
    type Output = LinExpr;
    fn add(mut self, rhs: E) -> LinExpr {
        self += rhs;
        self
    }
}

impl<E: Into<LinExpr>> AddAssign<E> for LinExpr {
    fn add_assign(&mut self, rhs: E) {
        let rhs = rhs.into();
        self.terms.extend(rhs.terms);
        self.constant += rhs.constant;
    }
}

impl<E: Into<LinExpr>> Sub<E> for LinExpr {
    type Output = LinExpr;
    fn sub(self, rhs: E) -> LinExpr {
        self + (-rhs.into())
    }
}

impl Neg for LinExpr {
    type Output = LinExpr;
    fn neg(self) -> LinExpr {
        self * -1.0
    }
}

impl Mul<f64> for LinExpr {
    type Output = LinExpr;
    fn mul(mut self, k: f64) -> LinExpr {
        for t in &mut self.terms {
            t.1 *= k;
        }
        self.constant *= k;
        self
    }
}

impl<E: Into<LinExpr>> Add<E> for Var {
    type Output = LinExpr;
    fn add(self, rhs: E) -> LinExpr {
        LinExpr::from(self) + rhs
    }
}

impl<E: Into<LinExpr>> Sub<E> for Var {
    type Output = LinExpr;
    fn sub(self, rhs: E) -> LinExpr {
        LinExpr::from(self) - rhs
    }
}

impl Mul<f64> for Var {
    type Output = LinExpr;
    fn mul(self, k: f64) -> LinExpr {
        LinExpr::term(self, k)
    }
}

impl Neg for Var {
    type Output = LinExpr;
    fn neg(self) -> LinExpr {
        LinExpr::term(self, -1.0)
    }
}

/// `W_j . current + b_j` of neuron `j` of `layer`.
pub(super) fn pre_activation(layer: &crate::nn::Layer, j: usize, current: &[LinExpr]) -> LinExpr {
    let mut z = LinExpr::constant(layer.bias[j]);
    for (i, a) in current.iter().enumerate() {
        let w = layer.weights[[j, i]];
        if w != 0.0 {
            z += a.clone() * w;
        }
    }
    z
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_terms() {
        let (x, y) = (Var(0), Var(1));
        let e = x * 2.0 + y - x * 2.0 + 3.0 + LinExpr::from(y) * 0.5;
        assert_eq!(e.merged_terms(), vec![(y, 1.5)]);
        assert_eq!(e.constant_part(), 3.0);
        assert_eq!(e.value(|v| if v == x { 10.0 } else { 2.0 }), 6.0);
        assert!((LinExpr::from(x) - x).is_constant());
    }
}
