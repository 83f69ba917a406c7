//! The normalised form of a VNN-LIB property and its check at a point.

use crate::nn::InputBox;

/// `inputs . x + outputs . y <= rhs`, dense over the declared variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    pub inputs: Vec<f64>,
    pub outputs: Vec<f64>,
    pub rhs: f64,
}

impl Atom {
    /// `lhs - rhs` at `(x, y)`: the atom holds there when it is `<= 0`.
    pub fn excess(&self, x: &[f64], y: &[f64]) -> f64 {
        let lhs: f64 = self.inputs.iter().zip(x).map(|(a, v)| a * v).sum::<f64>()
            + self.outputs.iter().zip(y).map(|(b, v)| b * v).sum::<f64>();
        lhs - self.rhs
    }

    /// True when the atom reads no input.
    pub fn outputs_only(&self) -> bool {
        self.inputs.iter().all(|&a| a == 0.0)
    }
}

/// One input box and the output conditions that are unsafe inside it: a
/// disjunction of conjunctions of atoms.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub input: InputBox,
    pub disjuncts: Vec<Vec<Atom>>,
}

impl Case {
    /// How far `(x, y)` is from the unsafe set of this case's output DNF:
    /// the smallest, over the disjuncts, of the largest excess of their
    /// atoms. The point is unsafe exactly when this is `<= 0`.
    pub fn excess(&self, x: &[f64], y: &[f64]) -> f64 {
        self.disjuncts
            .iter()
            .map(|d| {
                d.iter()
                    .map(|a| a.excess(x, y))
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// The first disjunct whose atoms all hold at `(x, y)` within `tol`
    /// (scaled as `tol * (1 + |rhs|)`), if `x` is in the box.
    pub fn satisfied_disjunct(&self, x: &[f64], y: &[f64], tol: f64) -> Option<usize> {
        let in_box = x
            .iter()
            .zip(self.input.lo.iter().zip(&self.input.hi))
            .all(|(v, (l, h))| l <= v && v <= h);
        if !in_box {
            return None;
        }
        self.disjuncts.iter().position(|d| {
            d.iter()
                .all(|a| a.excess(x, y) <= tol * (1.0 + a.rhs.abs()))
        })
    }
}

/// A normalised VNN-LIB property: `X_0..X_{inputs-1}`, `Y_0..Y_{outputs-1}`,
/// and the unsafe set as a disjunction of cases. No case means nothing is
/// unsafe (every term of the file's DNF had an empty input box).
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    pub inputs: usize,
    pub outputs: usize,
    pub cases: Vec<Case>,
}

impl Property {
    /// The number of output conjunctions over all cases.
    pub fn disjunct_count(&self) -> usize {
        self.cases.iter().map(|c| c.disjuncts.len()).sum()
    }
}
