//! ReLU splitting: a part may fix the phase of some ReLUs (active: the
//! pre-activation is `>= 0`; inactive: `<= 0`). Its bounds are the box's,
//! each fixed neuron's pre-activation bounds clamped to its phase before
//! the layers above are bounded, so the neuron's relaxation is exact (the
//! bounds hold for every input of the box where the phases hold; the two
//! children of a branch together cover the parent). The MILP then needs no
//! binary for a fixed neuron.

use crate::milp::tolerance;
use crate::nn::{symbolic_bounds, symbolic_bounds_within, symbolic_layer};
use crate::nn::{InputBox, Network, NetworkBounds, Stability};

/// One fixed ReLU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phase {
    pub layer: usize,
    pub neuron: usize,
    pub active: bool,
}

/// Symbolic bounds of `net` over `region` with `phases` fixed, never looser
/// than `parent`'s (bounds of a part containing this one); `None` when the
/// phases leave no input (a fixed neuron's bounds exclude its phase, beyond
/// rounding).
pub fn bounds(
    net: &Network,
    region: &InputBox,
    parent: Option<&NetworkBounds>,
    phases: &[Phase],
) -> Option<NetworkBounds> {
    if phases.is_empty() {
        return Some(match parent {
            Some(p) => symbolic_bounds_within(net, region, p),
            None => symbolic_bounds(net, region),
        });
    }
    let mut pre = Vec::with_capacity(net.layers().len());
    for k in 0..net.layers().len() {
        let mut b = symbolic_layer(net, region, &pre, k);
        if let Some(p) = parent {
            b = b.intersect(&p.pre[k]);
        }
        for ph in phases.iter().filter(|ph| ph.layer == k) {
            let (lo, hi) = (&mut b.lo[ph.neuron], &mut b.hi[ph.neuron]);
            if ph.active {
                if *hi < -tolerance::scaled(tolerance::BOUND_PADDING, *hi) {
                    return None;
                }
                *lo = lo.max(0.0);
                *hi = hi.max(0.0);
            } else {
                if *lo > tolerance::scaled(tolerance::BOUND_PADDING, *lo) {
                    return None;
                }
                *hi = hi.min(0.0);
                *lo = lo.min(0.0);
            }
        }
        pre.push(b);
    }
    Some(NetworkBounds::new(net, region.clone(), pre))
}

/// The unstable ReLU to branch on: in the earliest layer that has one (its
/// phase shapes every layer above), the one whose relaxation is loosest
/// (the triangle's height `-lo hi / (hi - lo)`).
pub fn pick_neuron(b: &NetworkBounds) -> Option<(usize, usize)> {
    let k = (0..b.pre.len()).find(|&k| b.unstable_in(k) > 0)?;
    let layer = &b.pre[k];
    (0..layer.len())
        .filter(|&j| b.stability(k, j) == Stability::Unstable)
        .map(|j| (j, -layer.lo[j] * layer.hi[j] / (layer.hi[j] - layer.lo[j])))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(j, _)| (k, j))
}
