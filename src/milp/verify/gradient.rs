//! Input splitting: which input of a box to halve.

use super::spec::Spec;
use crate::nn::{Activation, InputBox};
use ndarray::{Array1, Array2};

/// Boxes narrower than this on every input are not split (the MILP on
/// them decides or the run stays undecided).
const MIN_WIDTH: f64 = 1e-9;

/// Which input to halve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SplitRule {
    /// The input with the largest width times |gradient| of the open atoms'
    /// left-hand sides at the box's centre (summed over the atoms); the
    /// widest when every gradient is 0.
    #[default]
    Influence,
    /// The widest input.
    Widest,
}

pub fn can_split(b: &InputBox) -> bool {
    b.lo.iter().zip(&b.hi).any(|(l, h)| h - l > MIN_WIDTH)
}

/// The two halves of `b` along the input `rule` picks (their union is `b`).
pub fn halves(spec: &Spec, b: &InputBox, open: &[usize], rule: SplitRule) -> (InputBox, InputBox) {
    let width: Vec<f64> = b.lo.iter().zip(&b.hi).map(|(l, h)| h - l).collect();
    let widest = argmax(&width);
    let i = match rule {
        SplitRule::Widest => widest,
        SplitRule::Influence => {
            let rows: Vec<usize> = open
                .iter()
                .flat_map(|&d| spec.rows[d].iter().copied())
                .collect();
            let g = gradient_mass(spec, b, &rows);
            let score: Vec<f64> = g.iter().zip(&width).map(|(g, w)| g * w).collect();
            let best = argmax(&score);
            if score[best] > 0.0 && width[best] > MIN_WIDTH {
                best
            } else {
                widest
            }
        }
    };
    let mid = b.lo[i] + width[i] / 2.0;
    let (mut lo_half, mut hi_half) = (b.clone(), b.clone());
    lo_half.hi[i] = mid;
    hi_half.lo[i] = mid;
    (lo_half, hi_half)
}

fn argmax(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, i| if v[i] > v[best] { i } else { best })
}

/// `sum_r |d out_r / d x_i|` at the box's centre, for the spec network's
/// rows `rows` (the network is linear around a point: the gradient is the
/// product of the weights masked by the active ReLUs).
fn gradient_mass(spec: &Spec, b: &InputBox, rows: &[usize]) -> Vec<f64> {
    let layers = spec.net.layers();
    let mut a = Array1::from_iter(b.lo.iter().zip(&b.hi).map(|(l, h)| (l + h) / 2.0));
    let mut masks = Vec::with_capacity(layers.len());
    for l in layers {
        let z = l.weights.dot(&a) + &l.bias;
        let mask = z.mapv(|v| {
            if l.activation == Activation::Relu && v <= 0.0 {
                0.0
            } else {
                1.0
            }
        });
        a = &z * &mask;
        masks.push(mask);
    }
    let outs = layers.last().expect("a layer").outputs();
    let mut g = Array2::from_shape_fn(
        (rows.len(), outs),
        |(k, j)| if rows[k] == j { 1.0 } else { 0.0 },
    );
    for (l, mask) in layers.iter().zip(&masks).rev() {
        g = (&g * mask).dot(&l.weights);
    }
    g.map(|v| v.abs()).sum_axis(ndarray::Axis(0)).to_vec()
}
