//! Symbolic bounds by back-substitution (DeepPoly / CROWN style): each
//! pre-activation is bounded by linear functions of the input, obtained by
//! substituting the layers below it one by one, each unstable ReLU replaced by
//! its linear relaxation; the linear functions are then maximised and
//! minimised over the box exactly.

use super::bounds::{affine_interval, InputBox, LayerBounds, NetworkBounds, Stability};
use super::{Activation, Network};
use ndarray::{Array1, Array2, Axis, Zip};

/// The linear relaxation of `a = relu(z)` for `z` in `[lo, hi]`:
/// `s_lo z + t_lo <= a <= s_up z + t_up`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Relaxation {
    s_lo: f64,
    t_lo: f64,
    s_up: f64,
    t_up: f64,
}

fn relu_relaxation(lo: f64, hi: f64) -> Relaxation {
    if hi <= 0.0 {
        Relaxation {
            s_lo: 0.0,
            t_lo: 0.0,
            s_up: 0.0,
            t_up: 0.0,
        }
    } else if lo >= 0.0 {
        Relaxation {
            s_lo: 1.0,
            t_lo: 0.0,
            s_up: 1.0,
            t_up: 0.0,
        }
    } else {
        // Upper: the chord from (lo, 0) to (hi, hi). Lower: a = z or a = 0,
        // whichever leaves the smaller area (DeepPoly's choice).
        let s = hi / (hi - lo);
        Relaxation {
            s_lo: if hi >= -lo { 1.0 } else { 0.0 },
            t_lo: 0.0,
            s_up: s,
            t_up: -s * lo,
        }
    }
}

/// Replaces the activation of a layer by its relaxation in the coefficient
/// rows `coef` (rows: bounded quantities, columns: the layer's neurons).
/// `upper` selects which side is being bounded.
fn relax_through(
    coef: &mut Array2<f64>,
    constant: &mut Array1<f64>,
    relax: &[Relaxation],
    upper: bool,
) {
    for (mut row, c) in coef.rows_mut().into_iter().zip(constant.iter_mut()) {
        for (lambda, r) in row.iter_mut().zip(relax) {
            // A positive coefficient takes the same side's relaxation, a negative one the other.
            let (s, t) = if (*lambda >= 0.0) == upper {
                (r.s_up, r.t_up)
            } else {
                (r.s_lo, r.t_lo)
            };
            *c += *lambda * t;
            *lambda *= s;
        }
    }
}

/// Max (`upper`) or min of `coef x + constant` over the box, per row.
fn concretise(
    coef: &Array2<f64>,
    constant: &Array1<f64>,
    input: &InputBox,
    upper: bool,
) -> Array1<f64> {
    let mut out = constant.clone();
    Zip::from(coef.rows()).and(&mut out).for_each(|row, o| {
        for ((lambda, lo), hi) in row.iter().zip(&input.lo).zip(&input.hi) {
            let (a, b) = (lambda * lo, lambda * hi);
            *o += if upper { a.max(b) } else { a.min(b) };
        }
    });
    out
}

/// Bounds of layer `k`'s pre-activations given bounds of the layers below it
/// (`known[j]` for `j < k`, used for the relaxations), intersected with one
/// interval step from layer `k - 1`.
pub fn symbolic_layer(
    net: &Network,
    input: &InputBox,
    known: &[LayerBounds],
    k: usize,
) -> LayerBounds {
    let rows: Vec<usize> = (0..net.layers()[k].outputs()).collect();
    let symbolic = back_substitute(net, input, known, k, &rows);
    if k == 0 {
        return symbolic;
    }
    symbolic.intersect(&interval_step(net, input, known, k))
}

/// One interval step to layer `k` from layer `k - 1`'s bounds (the input
/// box's for `k = 0`).
fn interval_step(net: &Network, input: &InputBox, known: &[LayerBounds], k: usize) -> LayerBounds {
    let layers = net.layers();
    let previous = match k {
        0 => LayerBounds {
            lo: Array1::from(input.lo.clone()),
            hi: Array1::from(input.hi.clone()),
        },
        _ => known[k - 1].activated(layers[k - 1].activation),
    };
    affine_interval(&layers[k].weights, &layers[k].bias, &previous)
}

/// Linear bounds of some neurons in terms of the inputs:
/// `low x + low_c <= z <= up x + up_c` on the box they were made for.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearBounds {
    pub low: Array2<f64>,
    pub low_c: Array1<f64>,
    pub up: Array2<f64>,
    pub up_c: Array1<f64>,
}

/// The linear bounds of the neurons `rows` of layer `k` (in that order),
/// each unstable ReLU below replaced by its relaxation from `known[j]`.
fn back_substitute_linear(
    net: &Network,
    known: &[LayerBounds],
    k: usize,
    rows: &[usize],
) -> LinearBounds {
    let layers = net.layers();
    let layer = &layers[k];
    let weights = layer.weights.select(Axis(0), rows);
    let bias = layer.bias.select(Axis(0), rows);
    let (mut up, mut cu) = (weights.clone(), bias.clone());
    let (mut low, mut cl) = (weights, bias);
    for j in (0..k).rev() {
        let below = &layers[j];
        if below.activation == Activation::Relu {
            let relax: Vec<Relaxation> = known[j]
                .lo
                .iter()
                .zip(&known[j].hi)
                .map(|(&l, &h)| relu_relaxation(l, h))
                .collect();
            relax_through(&mut up, &mut cu, &relax, true);
            relax_through(&mut low, &mut cl, &relax, false);
        }
        cu += &up.dot(&below.bias);
        cl += &low.dot(&below.bias);
        up = up.dot(&below.weights);
        low = low.dot(&below.weights);
    }
    LinearBounds {
        low,
        low_c: cl,
        up,
        up_c: cu,
    }
}

/// Back-substituted bounds of the neurons `rows` of layer `k` (in that order).
fn back_substitute(
    net: &Network,
    input: &InputBox,
    known: &[LayerBounds],
    k: usize,
    rows: &[usize],
) -> LayerBounds {
    let l = back_substitute_linear(net, known, k, rows);
    LayerBounds {
        lo: concretise(&l.low, &l.low_c, input, false),
        hi: concretise(&l.up, &l.up_c, input, true),
    }
}

/// The linear bounds of the outputs `rows` in terms of the inputs, with the
/// relaxations of `bounds` (their coefficients say how much each input's
/// width costs the bounds: the split heuristics' bound sensitivity).
pub fn output_linear_bounds(net: &Network, bounds: &NetworkBounds, rows: &[usize]) -> LinearBounds {
    back_substitute_linear(net, &bounds.pre, net.layers().len() - 1, rows)
}

/// Symbolic bounds of every layer. Never looser than [`super::interval_bounds`].
pub fn symbolic_bounds(net: &Network, input: &InputBox) -> NetworkBounds {
    assert_eq!(input.len(), net.input_size(), "box size");
    let mut pre: Vec<LayerBounds> = Vec::with_capacity(net.layers().len());
    for k in 0..net.layers().len() {
        let b = symbolic_layer(net, input, &pre, k);
        pre.push(b);
    }
    NetworkBounds::new(net, input.clone(), pre)
}

/// Symbolic bounds over `input`, a sub-box of `parent.input`, never looser
/// than `parent`'s. Over a sub-box the parent's bounds still hold, and a
/// ReLU stable over the parent stays stable, with the same (exact)
/// relaxation whatever its bounds: so only the ReLUs unstable over the
/// parent, and the last layer, are back-substituted again (deep in a branch
/// and bound, few), the others keep the parent's bounds, tightened by one
/// interval step.
pub fn symbolic_bounds_within(
    net: &Network,
    input: &InputBox,
    parent: &NetworkBounds,
) -> NetworkBounds {
    assert_eq!(input.len(), net.input_size(), "box size");
    let layers = net.layers();
    let mut pre: Vec<LayerBounds> = Vec::with_capacity(layers.len());
    for (k, layer) in layers.iter().enumerate() {
        let mut b = parent.pre[k].intersect(&interval_step(net, input, &pre, k));
        let rows: Vec<usize> = (0..layer.outputs())
            .filter(|&j| k + 1 == layers.len() || parent.stability(k, j) == Stability::Unstable)
            .collect();
        let s = back_substitute(net, input, &pre, k, &rows);
        for (r, &j) in rows.iter().enumerate() {
            b.lo[j] = b.lo[j].max(s.lo[r]);
            b.hi[j] = b.hi[j].min(s.hi[r]);
        }
        pre.push(b);
    }
    NetworkBounds::new(net, input.clone(), pre)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{interval_bounds, Layer};
    use ndarray::array;

    #[test]
    fn cancels_what_intervals_cannot() {
        // a = relu(x), b = relu(x) on x in [0, 1] (both stable active); y = a - b = 0.
        // Intervals give [-1, 1]; back-substitution gives exactly 0.
        let net = Network::from_layers(vec![
            Layer {
                weights: array![[1.0], [1.0]],
                bias: array![0.0, 0.0],
                activation: Activation::Relu,
            },
            Layer {
                weights: array![[1.0, -1.0]],
                bias: array![0.0],
                activation: Activation::Identity,
            },
        ])
        .unwrap();
        let bx = InputBox::parse("[0,1]", 1).unwrap();
        let i = interval_bounds(&net, &bx);
        assert_eq!((i.output().lo[0], i.output().hi[0]), (-1.0, 1.0));
        let s = symbolic_bounds(&net, &bx);
        assert_eq!((s.output().lo[0], s.output().hi[0]), (0.0, 0.0));
    }

    #[test]
    fn relaxes_an_unstable_neuron_by_hand() {
        // z = x on [-1, 3]: chord upper a <= 3/4 (z + 1); lower a >= z (hi >= -lo).
        // y = a - x/2 (the identity layer reads x through a second, active path
        // z2 = x + 1 >= 0, a2 = z2): y = a - (a2 - 1)/2.
        // Upper: max of 3/4 x + 3/4 - x/2 = x/4 + 3/4 over [-1, 3] = 1.5 (true max 1.5 at x = 3).
        // Lower: min of x - x/2 = x/2 over [-1, 3] = -0.5 (the true min is 0 at x = 0:
        // sound, not exact). Intervals: [0 - 2 + 0.5, 3 - 0 + 0.5] = [-1.5, 3.5].
        let net = Network::from_layers(vec![
            Layer {
                weights: array![[1.0], [1.0]],
                bias: array![0.0, 1.0],
                activation: Activation::Relu,
            },
            Layer {
                weights: array![[1.0, -0.5]],
                bias: array![0.5],
                activation: Activation::Identity,
            },
        ])
        .unwrap();
        let bx = InputBox::parse("[-1,3]", 1).unwrap();
        let s = symbolic_bounds(&net, &bx);
        assert_eq!((s.output().lo[0], s.output().hi[0]), (-0.5, 1.5));
        let i = interval_bounds(&net, &bx);
        assert_eq!((i.output().lo[0], i.output().hi[0]), (-1.5, 3.5));
        let r = relu_relaxation(-1.0, 3.0);
        assert_eq!(
            r,
            Relaxation {
                s_lo: 1.0,
                t_lo: 0.0,
                s_up: 0.75,
                t_up: 0.75
            }
        );
        let mut coef = array![[1.0], [-0.5]];
        let mut c = array![0.0, 0.0];
        relax_through(&mut coef, &mut c, &[r], true);
        // Row 0 (positive): 0.75 z + 0.75; row 1 (negative): takes the lower side, -0.5 z.
        assert_eq!(coef, array![[0.75], [-0.5]]);
        assert_eq!(c, array![0.75, 0.0]);
    }
}
