//! Gradients of a ReLU network at a point: the network is linear around a
//! point (away from the kinks), with the product of the weights masked by
//! the active ReLUs as its Jacobian. They guide input splitting (which
//! input moves the open atoms most) and the falsification's descent.

use crate::nn::{Activation, InputBox, Network};
use ndarray::{Array1, Array2};

/// The 0/1 masks of the ReLUs active at `x` (1 for identity layers).
fn masks(net: &Network, x: &[f64]) -> Vec<Array1<f64>> {
    let mut a = Array1::from(x.to_vec());
    let mut masks = Vec::with_capacity(net.layers().len());
    for l in net.layers() {
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
    masks
}

/// `g` (rows: output combinations) pulled back to the inputs through the
/// layers linearised by `masks`.
fn pull_back(net: &Network, masks: &[Array1<f64>], mut g: Array2<f64>) -> Array2<f64> {
    for (l, mask) in net.layers().iter().zip(masks).rev() {
        g = (&g * mask).dot(&l.weights);
    }
    g
}

/// `sum_r |d out_r / d x_i|` at the box's centre, for the outputs `rows`.
pub fn gradient_mass(net: &Network, b: &InputBox, rows: &[usize]) -> Vec<f64> {
    let centre: Vec<f64> =
        b.lo.iter()
            .zip(&b.hi)
            .map(|(&l, &h)| crate::search::split::midpoint(l, h))
            .collect();
    let outs = net.output_size();
    let g = Array2::from_shape_fn(
        (rows.len(), outs),
        |(k, j)| if rows[k] == j { 1.0 } else { 0.0 },
    );
    let g = pull_back(net, &masks(net, &centre), g);
    g.map(|v| v.abs()).sum_axis(ndarray::Axis(0)).to_vec()
}

/// The gradient of `c . net(x)` at `x`.
pub fn output_gradient(net: &Network, x: &[f64], c: &[f64]) -> Vec<f64> {
    let g = Array2::from_shape_vec((1, c.len()), c.to_vec()).expect("one row");
    pull_back(net, &masks(net, x), g).row(0).to_vec()
}
