//! Bounds of every neuron over an input box: the types, the box syntax and
//! interval arithmetic. Symbolic propagation is in `symbolic.rs`; LP
//! tightening (it needs a solver) in `milp::tighten`.

use super::{Activation, Network};
use ndarray::Array1;

/// A box of inputs: `lo[i] <= x[i] <= hi[i]`, all finite.
#[derive(Clone, Debug, PartialEq)]
pub struct InputBox {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

impl InputBox {
    /// A box from its corners; refuses NaN, infinite or empty ranges.
    pub fn new(lo: Vec<f64>, hi: Vec<f64>) -> Result<Self, String> {
        if lo.len() != hi.len() {
            return Err(format!("{} lower but {} upper bounds", lo.len(), hi.len()));
        }
        for (i, (l, h)) in lo.iter().zip(&hi).enumerate() {
            if !(l.is_finite() && h.is_finite()) {
                return Err(format!("input {i}: the range [{l}, {h}] is not finite"));
            }
            if l > h {
                return Err(format!("input {i}: the range [{l}, {h}] is empty"));
            }
        }
        Ok(InputBox { lo, hi })
    }

    pub fn len(&self) -> usize {
        self.lo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// Parses `[0,1]` (every input in [0, 1] when `inputs` > 1) or one interval
    /// per input: `[0,1]x[-1,1]`, `[0,1],[-1,1]` or `[0,1] [-1,1]`.
    pub fn parse(text: &str, inputs: usize) -> Result<Self, String> {
        let mut ranges = Vec::new();
        let mut rest = text.trim();
        while !rest.is_empty() {
            let open = rest
                .strip_prefix('[')
                .ok_or_else(|| format!("expected `[` in box `{text}`"))?;
            let close = open
                .find(']')
                .ok_or_else(|| format!("missing `]` in box `{text}`"))?;
            let inner = &open[..close];
            let (l, h) = inner.split_once(',').ok_or_else(|| {
                format!("expected `[low,high]` in box `{text}`, found `[{inner}]`")
            })?;
            let num = |s: &str| {
                s.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("`{}` is not a number in box `{text}`", s.trim()))
            };
            ranges.push((num(l)?, num(h)?));
            rest = open[close + 1..].trim_start();
            rest = rest
                .strip_prefix(['x', 'X', ',', '*'])
                .unwrap_or(rest)
                .trim_start();
        }
        if ranges.is_empty() {
            return Err("the box is empty; write e.g. `[0,1]`".into());
        }
        if ranges.len() == 1 && inputs > 1 {
            ranges = vec![ranges[0]; inputs];
        }
        if ranges.len() != inputs {
            return Err(format!(
                "the box has {} intervals but the network has {inputs} inputs",
                ranges.len()
            ));
        }
        InputBox::new(
            ranges.iter().map(|r| r.0).collect(),
            ranges.iter().map(|r| r.1).collect(),
        )
    }

    /// `[0, 1] x [-1, 1]`
    pub fn to_text(&self) -> String {
        self.lo
            .iter()
            .zip(&self.hi)
            .map(|(l, h)| format!("[{l}, {h}]"))
            .collect::<Vec<_>>()
            .join(" x ")
    }
}

/// How a neuron behaves over the box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stability {
    /// ReLU with pre-activation >= 0: the neuron is linear.
    Active,
    /// ReLU with pre-activation <= 0: the neuron is 0.
    Inactive,
    /// ReLU whose pre-activation range crosses 0: needs a binary in a MILP.
    Unstable,
    /// A neuron of an identity layer.
    Linear,
}

impl Stability {
    /// How a neuron with activation `activation` and pre-activation in
    /// `[lo, hi]` behaves.
    pub fn of(activation: Activation, lo: f64, hi: f64) -> Stability {
        match activation {
            Activation::Identity => Stability::Linear,
            Activation::Relu if lo >= 0.0 => Stability::Active,
            Activation::Relu if hi <= 0.0 => Stability::Inactive,
            Activation::Relu => Stability::Unstable,
        }
    }
}

/// Lower and upper bounds of each neuron of one layer.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerBounds {
    pub lo: Array1<f64>,
    pub hi: Array1<f64>,
}

impl LayerBounds {
    pub fn len(&self) -> usize {
        self.lo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// The tighter of the two on each side.
    pub fn intersect(&self, other: &LayerBounds) -> LayerBounds {
        LayerBounds {
            lo: self
                .lo
                .iter()
                .zip(&other.lo)
                .map(|(a, b)| a.max(*b))
                .collect(),
            hi: self
                .hi
                .iter()
                .zip(&other.hi)
                .map(|(a, b)| a.min(*b))
                .collect(),
        }
    }

    /// Bounds after the activation.
    pub fn activated(&self, activation: Activation) -> LayerBounds {
        match activation {
            Activation::Identity => self.clone(),
            Activation::Relu => LayerBounds {
                lo: self.lo.mapv(|v| v.max(0.0)),
                hi: self.hi.mapv(|v| v.max(0.0)),
            },
        }
    }
}

/// Pre-activation bounds of every neuron of a network over an input box.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkBounds {
    pub input: InputBox,
    /// `pre[k]`: bounds of `W_k a_{k-1} + b_k` for layer `k`.
    pub pre: Vec<LayerBounds>,
    activations: Vec<Activation>,
}

impl NetworkBounds {
    /// Wraps per-layer bounds; `pre` must have one entry per layer of `net`.
    pub fn new(net: &Network, input: InputBox, pre: Vec<LayerBounds>) -> Self {
        assert_eq!(pre.len(), net.layers().len(), "one bounds entry per layer");
        NetworkBounds {
            input,
            pre,
            activations: net.layers().iter().map(|l| l.activation).collect(),
        }
    }

    /// Bounds of layer `k`'s outputs (after its activation).
    pub fn post(&self, k: usize) -> LayerBounds {
        self.pre[k].activated(self.activations[k])
    }

    /// Bounds of the network's outputs.
    pub fn output(&self) -> LayerBounds {
        self.post(self.pre.len() - 1)
    }

    pub fn stability(&self, layer: usize, neuron: usize) -> Stability {
        let bounds = &self.pre[layer];
        Stability::of(
            self.activations[layer],
            bounds.lo[neuron],
            bounds.hi[neuron],
        )
    }

    /// Number of unstable ReLU neurons in layer `k`.
    pub fn unstable_in(&self, k: usize) -> usize {
        (0..self.pre[k].len())
            .filter(|&j| self.stability(k, j) == Stability::Unstable)
            .count()
    }

    /// Number of unstable ReLU neurons (the binaries a MILP encoding needs).
    pub fn unstable_count(&self) -> usize {
        (0..self.pre.len()).map(|k| self.unstable_in(k)).sum()
    }

    /// Whether every bound of `self` lies within `other` (up to `tol`).
    pub fn within(&self, other: &NetworkBounds, tol: f64) -> bool {
        self.pre.iter().zip(&other.pre).all(|(a, b)| {
            a.lo.iter().zip(&b.lo).all(|(x, y)| *x >= y - tol)
                && a.hi.iter().zip(&b.hi).all(|(x, y)| *x <= y + tol)
        })
    }
}

/// One interval-arithmetic step: bounds of `W a + b` for `a` in `[lo, hi]`.
pub fn affine_interval(
    w: &ndarray::Array2<f64>,
    b: &Array1<f64>,
    input: &LayerBounds,
) -> LayerBounds {
    let mid = (&input.lo + &input.hi) * 0.5;
    let rad = (&input.hi - &input.lo) * 0.5;
    let centre = w.dot(&mid) + b;
    let spread = w.mapv(f64::abs).dot(&rad);
    LayerBounds {
        lo: &centre - &spread,
        hi: &centre + &spread,
    }
}

/// Interval arithmetic, layer by layer (sound, fast, loose).
pub fn interval_bounds(net: &Network, input: &InputBox) -> NetworkBounds {
    assert_eq!(input.len(), net.input_size(), "box size");
    let mut current = LayerBounds {
        lo: Array1::from(input.lo.clone()),
        hi: Array1::from(input.hi.clone()),
    };
    let mut pre = Vec::with_capacity(net.layers().len());
    for layer in net.layers() {
        let z = affine_interval(&layer.weights, &layer.bias, &current);
        current = z.activated(layer.activation);
        pre.push(z);
    }
    NetworkBounds::new(net, input.clone(), pre)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn parses_boxes() {
        assert_eq!(
            InputBox::parse("[0,1]", 1).unwrap(),
            InputBox {
                lo: vec![0.0],
                hi: vec![1.0]
            }
        );
        assert_eq!(
            InputBox::parse("[0,1]", 2).unwrap(),
            InputBox {
                lo: vec![0.0, 0.0],
                hi: vec![1.0, 1.0]
            }
        );
        let b = InputBox::parse("[0, 1] x [-2.5,3]", 2).unwrap();
        assert_eq!(
            b,
            InputBox {
                lo: vec![0.0, -2.5],
                hi: vec![1.0, 3.0]
            }
        );
        assert_eq!(InputBox::parse("[0,1],[-2.5,3]", 2).unwrap(), b);
        assert!(InputBox::parse("[1,0]", 1).unwrap_err().contains("empty"));
        assert!(InputBox::parse("[0,1]x[0,1]x[0,1]", 2)
            .unwrap_err()
            .contains("3 intervals"));
        assert!(InputBox::parse("0,1", 1).is_err());
        assert!(InputBox::parse("[0,inf]", 1)
            .unwrap_err()
            .contains("not finite"));
        assert!(InputBox::parse("[a,1]", 1).is_err());
    }

    #[test]
    fn interval_by_hand() {
        // z0 = [x, -x + 0.5] on x in [0, 1]: [0,1] and [-0.5, 0.5]; out = 2 a0 + 3 a1 - 1.
        let net = crate::nn::network::tests::net();
        let b = interval_bounds(&net, &InputBox::parse("[0,1]", 1).unwrap());
        assert_eq!(b.pre[0].lo, array![0.0, -0.5]);
        assert_eq!(b.pre[0].hi, array![1.0, 0.5]);
        // post: a0 in [0,1], a1 in [0, 0.5]: out in [-1, 2 + 1.5 - 1].
        assert_eq!(b.output().lo, array![-1.0]);
        assert_eq!(b.output().hi, array![2.5]);
        assert_eq!(b.stability(0, 0), Stability::Active);
        assert_eq!(b.stability(0, 1), Stability::Unstable);
        assert_eq!(b.stability(1, 0), Stability::Linear);
        assert_eq!(b.unstable_count(), 1);
    }
}
