//! The normalised form of a VNN-LIB property and its check at a point.

use crate::nn::bounds::{interval_bounds, InputBox};
use crate::nn::network::Network;

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
                // NaN (an output that overflowed) satisfies no atom; f64::max
                // would drop it and call the disjunct satisfied.
                d.iter()
                    .map(|a| a.excess(x, y))
                    .map(|e| if e.is_nan() { f64::INFINITY } else { e })
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
    /// What the reader left out and why (a disjunct whose input box is
    /// empty), each `file:line:column: ...`.
    pub warnings: Vec<String>,
    /// `file:line:column` of the declarations of `X_0..` and `Y_0..`.
    pub input_decls: Vec<String>,
    pub output_decls: Vec<String>,
}

impl Property {
    /// An error naming the declaration where the property and a network
    /// with `inputs` inputs and `outputs` outputs part ways: the first
    /// declared variable the network does not have, or the last one
    /// declared when the network has more.
    pub fn check_sizes(&self, network: &str, inputs: usize, outputs: usize) -> Result<(), String> {
        let sides = [
            ("X", "inputs", self.inputs, inputs, &self.input_decls),
            ("Y", "outputs", self.outputs, outputs, &self.output_decls),
        ];
        for (var, what, declared, has, decls) in sides {
            if declared == has {
                continue;
            }
            let at = decls.get(has.min(declared.saturating_sub(1)));
            let at = at.map_or(String::new(), |l| format!("{l}: "));
            let range = |n: usize| match n {
                0 => "none".to_string(),
                _ => format!("{var}_0..{var}_{}", n - 1),
            };
            return Err(format!(
                "{at}the property declares {declared} {what} ({}), but {network} has {has} ({})",
                range(declared),
                range(has)
            ));
        }
        Ok(())
    }

    /// Refuses input boxes so wide that f64 cannot hold what the network
    /// computes on them (a box of +-1e308: its width, or a layer's interval
    /// bounds, overflow): sampling, bounds and the MILP would all meet
    /// infinities. `net` has the property's sizes.
    pub fn check_finite(&self, net: &Network) -> Result<(), String> {
        for (ci, case) in self.cases.iter().enumerate() {
            let b = &case.input;
            if let Some(i) = (0..b.len()).find(|&i| !(b.hi[i] - b.lo[i]).is_finite()) {
                return Err(format!(
                    "input box {ci}: the width of X_{i}'s range [{:e}, {:e}] overflows f64; scale the inputs down",
                    b.lo[i], b.hi[i]
                ));
            }
            let bounds = interval_bounds(net, b);
            let wide = bounds
                .pre
                .iter()
                .position(|l| l.lo.iter().chain(l.hi.iter()).any(|x| !x.is_finite()));
            if let Some(k) = wide {
                return Err(format!(
                    "input box {ci}: the network's values on it overflow f64 (layer {}); scale the inputs down",
                    k + 1
                ));
            }
        }
        Ok(())
    }

    /// The number of output conjunctions over all cases.
    pub fn disjunct_count(&self) -> usize {
        self.cases.iter().map(|c| c.disjuncts.len()).sum()
    }
}
