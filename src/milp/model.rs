//! The model: named, bounded variables and linear constraints, kept in our
//! own form (so it can be written as an LP file, re-solved with another
//! objective and inspected) and handed to HiGHS through good_lp by
//! [`Model::solve`](super::Model::solve).

use super::expr::{LinExpr, Var};
use std::fmt;

/// What values a variable takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Continuous,
    Integer,
    Binary,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VarInfo {
    pub name: String,
    pub lo: f64,
    pub hi: f64,
    pub kind: VarKind,
}

/// `lhs (<=|>=|=) rhs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    Le,
    Ge,
    Eq,
}

impl fmt::Display for Sense {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Sense::Le => "<=",
            Sense::Ge => ">=",
            Sense::Eq => "=",
        })
    }
}

/// A constraint `terms sense rhs` (the expression's constant moved to the right).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    pub name: String,
    pub terms: Vec<(Var, f64)>,
    pub sense: Sense,
    pub rhs: f64,
}

/// Why a model could not be built or solved.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MilpError {
    /// A big-M or a bound was needed but a variable has no finite bound on that side.
    #[error(
        "variable '{var}' has no finite {side} bound, but {purpose} needs one (give it bounds)"
    )]
    Unbounded {
        var: String,
        side: &'static str,
        purpose: String,
    },
    /// Bounds are finite but a coefficient times a bound (or their sum) is not.
    #[error(
        "{purpose} needs a finite bound, but the term of variable '{var}' (coefficient {coefficient:e}, bound {bound:e}) overflows it (scale the model down)"
    )]
    Overflow {
        var: String,
        coefficient: f64,
        bound: f64,
        purpose: String,
    },
    /// A variable was declared with NaN or an empty range.
    #[error("variable '{var}': bounds [{lo}, {hi}] are not a range")]
    BadBounds { var: String, lo: f64, hi: f64 },
    /// A coefficient or constant is NaN or infinite.
    #[error("constraint '{row}' has a NaN or infinite coefficient")]
    NotFinite { row: String },
    /// A coefficient at or beyond [`LARGE_COEFFICIENT`], which HiGHS refuses
    /// (it fails "while building model"), or a right-hand side at or beyond
    /// [`HIGHS_INFINITY`], which HiGHS would read as no bound at all. The
    /// model's numbers are what is too large, so this is the input's to fix.
    #[error(
        "constraint '{row}' has the {what} {value:e} (of {var}); the MILP solver accepts magnitudes below {limit:e} (scale the model down)"
    )]
    TooLarge {
        row: String,
        var: String,
        what: &'static str,
        value: f64,
        limit: f64,
    },
    /// Sizes of a network copy and its inputs differ.
    #[error("network '{name}' takes {expected} inputs but {found} were given")]
    InputSize {
        name: String,
        expected: usize,
        found: usize,
    },
    /// A solution did not satisfy the semantics it was meant to (a bug, exit 3).
    #[error("solution does not replay: {0}")]
    Replay(String),
    /// HiGHS failed in a way that is not a status (e.g. while building the model).
    #[error("HiGHS: {0}")]
    Solver(String),
}

/// HiGHS's `large_matrix_value`: it refuses a model with a matrix entry of
/// this magnitude or more, so [`Model::constrain`] records such a row as
/// [`MilpError::TooLarge`] and the model is never handed to HiGHS.
pub const LARGE_COEFFICIENT: f64 = 1e15;

/// HiGHS's `infinite_bound`: a row bound of this magnitude or more is read
/// as infinite, which would silently drop the row.
pub const HIGHS_INFINITY: f64 = 1e20;

/// Sizes of a model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ModelStats {
    pub variables: usize,
    pub binaries: usize,
    pub integers: usize,
    pub constraints: usize,
}

/// A mixed-integer linear model under construction. Variables carry names
/// (for errors and LP files) and bounds (for every big-M the builders derive).
///
/// Building cannot fail (as in good_lp): a variable without a range or a row
/// with a NaN or infinite coefficient is recorded, and the first such error
/// is what [`Model::validate`] and [`Model::solve`] return.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub(crate) vars: Vec<VarInfo>,
    pub(crate) rows: Vec<Row>,
    /// The first building error, reported at solve time.
    invalid: Option<MilpError>,
}

impl Model {
    pub fn new() -> Self {
        Model::default()
    }

    fn record(&mut self, error: MilpError) {
        self.invalid.get_or_insert(error);
    }

    /// The first error met while building (a variable's bounds are not a
    /// range, a coefficient is not finite), if any.
    pub fn validate(&self) -> Result<(), MilpError> {
        match &self.invalid {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn add_var(&mut self, name: &str, lo: f64, hi: f64, kind: VarKind) -> Var {
        if lo.is_nan() || hi.is_nan() || lo > hi || lo == f64::INFINITY || hi == f64::NEG_INFINITY {
            self.record(MilpError::BadBounds {
                var: name.to_string(),
                lo,
                hi,
            });
        }
        self.vars.push(VarInfo {
            name: name.to_string(),
            lo,
            hi,
            kind,
        });
        Var(self.vars.len() - 1)
    }

    /// A continuous variable in `[lo, hi]`; either side may be infinite.
    pub fn continuous(&mut self, name: &str, lo: f64, hi: f64) -> Var {
        self.add_var(name, lo, hi, VarKind::Continuous)
    }

    /// An integer variable in `[lo, hi]` (bounds rounded inwards).
    pub fn integer(&mut self, name: &str, lo: f64, hi: f64) -> Var {
        self.add_var(name, lo.ceil(), hi.floor(), VarKind::Integer)
    }

    /// A 0/1 variable.
    pub fn binary(&mut self, name: &str) -> Var {
        self.add_var(name, 0.0, 1.0, VarKind::Binary)
    }

    /// Adds `lhs sense rhs`; `name` labels the row in LP files.
    pub fn constrain(
        &mut self,
        name: &str,
        lhs: impl Into<LinExpr>,
        sense: Sense,
        rhs: impl Into<LinExpr>,
    ) {
        let e = lhs.into() - rhs.into();
        let terms = e.merged_terms();
        if !e.constant.is_finite() || terms.iter().any(|(_, c)| !c.is_finite()) {
            self.record(MilpError::NotFinite {
                row: name.to_string(),
            });
            return;
        }
        if let Some(error) = self.too_large(name, &terms, e.constant) {
            self.record(error);
            return;
        }
        self.rows.push(Row {
            name: name.to_string(),
            terms,
            sense,
            rhs: -e.constant,
        });
    }

    /// The first coefficient of a row that HiGHS would refuse, or a
    /// right-hand side it would read as infinite.
    fn too_large(&self, row: &str, terms: &[(Var, f64)], constant: f64) -> Option<MilpError> {
        let error = |var: String, what, value, limit| MilpError::TooLarge {
            row: row.to_string(),
            var,
            what,
            value,
            limit,
        };
        if let Some((v, c)) = terms.iter().find(|(_, c)| c.abs() >= LARGE_COEFFICIENT) {
            let var = format!("variable '{}'", self.vars[v.0].name);
            return Some(error(var, "coefficient", *c, LARGE_COEFFICIENT));
        }
        (constant.abs() >= HIGHS_INFINITY).then(|| {
            error(
                "its constant term".into(),
                "right-hand side",
                -constant,
                HIGHS_INFINITY,
            )
        })
    }

    /// `lhs <= rhs`.
    pub fn le(&mut self, name: &str, lhs: impl Into<LinExpr>, rhs: impl Into<LinExpr>) {
        self.constrain(name, lhs, Sense::Le, rhs)
    }

    /// `lhs >= rhs`.
    pub fn ge(&mut self, name: &str, lhs: impl Into<LinExpr>, rhs: impl Into<LinExpr>) {
        self.constrain(name, lhs, Sense::Ge, rhs)
    }

    /// `lhs = rhs`.
    pub fn eq(&mut self, name: &str, lhs: impl Into<LinExpr>, rhs: impl Into<LinExpr>) {
        self.constrain(name, lhs, Sense::Eq, rhs)
    }

    /// The variable's name as given.
    pub fn name(&self, v: Var) -> &str {
        &self.vars[v.0].name
    }

    /// The variable's declared bounds.
    pub fn var_bounds(&self, v: Var) -> (f64, f64) {
        (self.vars[v.0].lo, self.vars[v.0].hi)
    }

    pub fn kind(&self, v: Var) -> VarKind {
        self.vars[v.0].kind
    }

    /// Narrows a variable's bounds (intersection with the current ones).
    pub fn narrow(&mut self, v: Var, lo: f64, hi: f64) -> Result<(), MilpError> {
        let info = &mut self.vars[v.0];
        let (l, h) = (info.lo.max(lo), info.hi.min(hi));
        if l.is_nan() || h.is_nan() || l > h {
            return Err(MilpError::BadBounds {
                var: info.name.clone(),
                lo: l,
                hi: h,
            });
        }
        info.lo = l;
        info.hi = h;
        Ok(())
    }

    /// Bounds of an expression from the variables' bounds (interval arithmetic;
    /// sides may be infinite).
    pub fn bounds(&self, e: &LinExpr) -> (f64, f64) {
        let mut lo = e.constant;
        let mut hi = e.constant;
        for (v, c) in e.merged_terms() {
            let (l, h) = self.var_bounds(v);
            if c > 0.0 {
                lo += c * l;
                hi += c * h;
            } else {
                lo += c * h;
                hi += c * l;
            }
        }
        (lo, hi)
    }

    /// Like [`Model::bounds`] but both sides must be finite: the error names
    /// the first variable that makes a side infinite and says what needed it.
    pub fn finite_bounds(&self, e: &LinExpr, purpose: &str) -> Result<(f64, f64), MilpError> {
        Ok((
            self.finite_lower(e, purpose)?,
            self.finite_upper(e, purpose)?,
        ))
    }

    /// The finite upper bound of an expression, or an error naming the variable.
    pub fn finite_upper(&self, e: &LinExpr, purpose: &str) -> Result<f64, MilpError> {
        let (_, hi) = self.bounds(e);
        if hi.is_finite() {
            return Ok(hi);
        }
        Err(self.unbounded_culprit(e, true, purpose))
    }

    /// The finite lower bound of an expression, or an error naming the variable.
    pub fn finite_lower(&self, e: &LinExpr, purpose: &str) -> Result<f64, MilpError> {
        let (lo, _) = self.bounds(e);
        if lo.is_finite() {
            return Ok(lo);
        }
        Err(self.unbounded_culprit(e, false, purpose))
    }

    fn unbounded_culprit(&self, e: &LinExpr, upper: bool, purpose: &str) -> MilpError {
        for (v, c) in e.merged_terms() {
            let (l, h) = self.var_bounds(v);
            // The side of v that feeds the requested side of e.
            let needs_hi = (c > 0.0) == upper;
            let side_value = if needs_hi { h } else { l };
            if !side_value.is_finite() {
                return MilpError::Unbounded {
                    var: self.name(v).to_string(),
                    side: if needs_hi { "upper" } else { "lower" },
                    purpose: purpose.to_string(),
                };
            }
        }
        // Every bound is finite, so a product or the sum overflowed f64: name
        // the term with the largest magnitude, the one to scale down.
        let largest = e
            .merged_terms()
            .into_iter()
            .map(|(v, c)| {
                let (l, h) = self.var_bounds(v);
                let bound = if (c > 0.0) == upper { h } else { l };
                (v, c, bound, (c * bound).abs())
            })
            .max_by(|a, b| a.3.total_cmp(&b.3));
        match largest {
            Some((v, c, bound, _)) => MilpError::Overflow {
                var: self.name(v).to_string(),
                coefficient: c,
                bound,
                purpose: purpose.to_string(),
            },
            None => MilpError::Overflow {
                var: "(the constant)".into(),
                coefficient: 1.0,
                bound: e.constant_part(),
                purpose: purpose.to_string(),
            },
        }
    }

    pub fn stats(&self) -> ModelStats {
        ModelStats {
            variables: self.vars.len(),
            binaries: self
                .vars
                .iter()
                .filter(|v| v.kind == VarKind::Binary)
                .count(),
            integers: self
                .vars
                .iter()
                .filter(|v| v.kind == VarKind::Integer)
                .count(),
            constraints: self.rows.len(),
        }
    }

    /// All variables, in creation order.
    pub fn variables(&self) -> impl Iterator<Item = Var> {
        (0..self.vars.len()).map(Var)
    }

    /// A copy in which every binary and integer variable is continuous (the LP relaxation).
    pub fn relaxed(&self) -> Model {
        let mut m = self.clone();
        for v in &mut m.vars {
            v.kind = VarKind::Continuous;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_refusals() {
        let mut m = Model::new();
        let x = m.continuous("x", 0.0, 2.0);
        let y = m.continuous("speed", 1.0, f64::INFINITY);
        assert_eq!(m.bounds(&(x * -1.0 + 1.0)), (-1.0, 1.0));
        assert_eq!(m.bounds(&(x + y)), (1.0, f64::INFINITY));
        assert_eq!(m.finite_lower(&(x + y), "a test").unwrap(), 1.0);
        let e = m
            .finite_upper(&(x + y), "the big-M of 'guard'")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "variable 'speed' has no finite upper bound, but the big-M of 'guard' needs one (give it bounds)"
        );
        let e = m.finite_lower(&(x - y), "max").unwrap_err();
        assert!(
            e.to_string().contains("'speed' has no finite upper bound"),
            "{e}"
        );
        let k = m.integer("k", 0.5, 3.7);
        assert_eq!(m.var_bounds(k), (1.0, 3.0));
        m.le("c", x + y, 3.0);
        assert_eq!(
            m.stats(),
            ModelStats {
                variables: 3,
                binaries: 0,
                integers: 1,
                constraints: 1
            }
        );
        assert!(m.validate().is_ok());
        // Building never fails; the first bad item is the model's error.
        let mut bad = m.clone();
        bad.le("inf", x * f64::INFINITY, 1.0);
        assert_eq!(
            bad.validate(),
            Err(MilpError::NotFinite { row: "inf".into() })
        );
        assert_eq!(bad.stats().constraints, 1, "the bad row is not added");
        let mut empty = m.clone();
        empty.continuous("bad", 1.0, 0.0);
        empty.continuous("nan", f64::NAN, 0.0);
        assert!(matches!(
            empty.validate(),
            Err(MilpError::BadBounds { var, .. }) if var == "bad"
        ));
        let out = empty.solve(&crate::milp::Objective::Feasibility, &Default::default());
        assert!(matches!(out, Err(MilpError::BadBounds { .. })));
    }

    /// A coefficient HiGHS would refuse is the model's error, naming the row
    /// and the variable, before anything reaches HiGHS (it used to be
    /// "HiGHS error while building model", exit 3).
    #[test]
    fn a_coefficient_highs_refuses_is_named() {
        let mut m = Model::new();
        let h = m.continuous("h", 0.0, 1.0);
        let g = m.continuous("g", 0.0, 1.0);
        m.le("fine", g * 9.9e14, 1.0);
        assert!(m.validate().is_ok());
        m.eq("step1.a1.h", g - h * 1e15, 0.0);
        let err = m.validate().unwrap_err();
        assert_eq!(
            err,
            MilpError::TooLarge {
                row: "step1.a1.h".into(),
                var: "variable 'h'".into(),
                what: "coefficient",
                value: -1e15,
                limit: LARGE_COEFFICIENT,
            }
        );
        let text = err.to_string();
        assert!(
            text.contains("'step1.a1.h'") && text.contains("'h'"),
            "{text}"
        );
        let out = m.solve(&crate::milp::Objective::Feasibility, &Default::default());
        assert_eq!(out.unwrap_err(), err);
        // A right-hand side HiGHS would read as "no bound".
        let mut rhs = Model::new();
        let x = rhs.continuous("x", 0.0, 1.0);
        rhs.le("huge", x, 1e20);
        assert!(matches!(
            rhs.validate(),
            Err(MilpError::TooLarge {
                what: "right-hand side",
                ..
            })
        ));
    }

    /// Finite bounds whose product with a coefficient overflows f64: the
    /// error names the term to scale (it used to name no variable).
    #[test]
    fn an_overflowing_bound_names_the_variable() {
        let mut m = Model::new();
        let wide = m.continuous("wide", 0.0, 1e300);
        let small = m.continuous("small", -1.0, 1.0);
        let e = wide * 1e300 + small;
        let err = m.finite_upper(&e, "the big-M of 'g'").unwrap_err();
        assert_eq!(
            err,
            MilpError::Overflow {
                var: "wide".into(),
                coefficient: 1e300,
                bound: 1e300,
                purpose: "the big-M of 'g'".into(),
            }
        );
        assert!(err.to_string().contains("variable 'wide'"), "{err}");
        // The lower side: -1e300 * 1e300 as well, with the same culprit.
        let low = m
            .finite_lower(&(wide * -1e300 + small), "a test")
            .unwrap_err();
        assert!(low.to_string().contains("variable 'wide'"), "{low}");
    }
}
