//! LP tightening: the bounds of each unstable neuron are replaced by the
//! maximum and minimum of its pre-activation over the LP relaxation of the
//! layers below it (with their big-M encodings, whose relaxation is the ReLU
//! triangle). Layer by layer, so each layer's relaxation uses the tightened
//! bounds of the layers before it; 2 LPs per unstable neuron.

use super::expr::{pre_activation, LinExpr};
use super::model::{MilpError, Model};
use super::solve::{Objective, SolveOptions, Status};
use super::tolerance::scaled;
use crate::nn::{symbolic_layer, Network, NetworkBounds, Stability};
use crate::report::meter::Meter;

/// LP optima carry solver tolerances; this relative widening keeps them sound.
const LP_PAD: f64 = super::tolerance::LP_PADDING;

/// Tightens `start` (bounds of `net` over `start.input`, e.g. symbolic ones).
/// Never loosens a bound: every new bound is intersected with the old one.
pub fn lp_tighten(
    net: &Network,
    start: &NetworkBounds,
    opts: &SolveOptions,
) -> Result<NetworkBounds, MilpError> {
    lp_tighten_metered(net, start, opts, &Meter::none())
}

/// The LPs [`lp_tighten_metered`] solves at most: two per neuron that is
/// unstable under `start` past the first layer (the first layer's bounds
/// over a box are exact already; a neuron the tightening of a lower layer
/// makes stable needs none).
pub fn lp_tighten_budget(net: &Network, start: &NetworkBounds) -> u64 {
    (1..net.layers().len())
        .map(|k| {
            (0..net.layers()[k].outputs())
                .filter(|&j| start.stability(k, j) == Stability::Unstable)
                .count() as u64
        })
        .sum::<u64>()
        * 2
}

/// [`lp_tighten`], counting each LP solved on `meter`.
pub fn lp_tighten_metered(
    net: &Network,
    start: &NetworkBounds,
    opts: &SolveOptions,
    meter: &Meter,
) -> Result<NetworkBounds, MilpError> {
    // Without presolve: a wrong LP optimum would make every big-M built on
    // these bounds unsound, and HiGHS's presolve has erred on such models
    // (docs/nn.md).
    let opts = &SolveOptions {
        presolve: false,
        ..opts.clone()
    };
    let input = &start.input;
    let mut pre = vec![start.pre[0].clone()];
    for k in 1..net.layers().len() {
        let mut layer_bounds = symbolic_layer(net, input, &pre, k).intersect(&start.pre[k]);
        let layer = &net.layers()[k];
        let unstable: Vec<usize> = (0..layer.outputs())
            .filter(|&j| {
                Stability::of(layer.activation, layer_bounds.lo[j], layer_bounds.hi[j])
                    == Stability::Unstable
            })
            .collect();
        if !unstable.is_empty() {
            let below = Network::from_layers(net.layers()[..k].to_vec())
                .expect("a prefix of a network is a network");
            let partial = NetworkBounds::new(&below, input.clone(), pre.clone());
            let mut model = Model::new();
            let xs: Vec<LinExpr> = (0..input.len())
                .map(|i| {
                    LinExpr::from(model.continuous(&format!("x{i}"), input.lo[i], input.hi[i]))
                })
                .collect();
            model.validate()?;
            let copy = model.add_network_with_bounds("lp", &below, &xs, partial)?;
            let model = model.relaxed();
            let a = &copy.neurons[k - 1];
            for &j in &unstable {
                let z = pre_activation(layer, j, a);
                let hi = model.solve(&Objective::Maximise(z.clone()), opts)?;
                meter.add(1);
                if let (Status::Optimal, Some(v)) = (hi.status, hi.objective) {
                    layer_bounds.hi[j] = layer_bounds.hi[j].min(v + scaled(LP_PAD, v));
                }
                let lo = model.solve(&Objective::Minimise(z), opts)?;
                meter.add(1);
                if let (Status::Optimal, Some(v)) = (lo.status, lo.objective) {
                    layer_bounds.lo[j] = layer_bounds.lo[j].max(v - scaled(LP_PAD, v));
                }
                if layer_bounds.lo[j] > layer_bounds.hi[j] {
                    // Only rounding can do this; keep the old, wider bounds.
                    layer_bounds.lo[j] = start.pre[k].lo[j];
                    layer_bounds.hi[j] = start.pre[k].hi[j];
                }
            }
        }
        pre.push(layer_bounds);
    }
    let out = NetworkBounds::new(net, input.clone(), pre);
    debug_assert!(
        (0..net.layers().len()).all(|k| (0..net.layers()[k].outputs())
            .all(|j| out.stability(k, j) != Stability::Unstable
                || start.stability(k, j) == Stability::Unstable))
    );
    Ok(out)
}
