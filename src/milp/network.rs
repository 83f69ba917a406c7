//! A copy of a ReLU network inside a model, on given input expressions.
//!
//! Each ReLU neuron is encoded from its pre-activation bounds `[l, u]`:
//! inactive (`u <= 0`) as the constant 0, active (`l >= 0`) as a variable
//! equal to its pre-activation, unstable (`l < 0 < u`) by the big-M encoding
//! with one binary `d`: `a >= z`, `a >= 0`, `a <= z - l (1 - d)`, `a <= u d`.
//! The M values are the bounds themselves, so they are as small as the
//! bounds are tight; symbolic bounds (and optional LP tightening) cut both
//! the binaries and the M values.

use super::expr::{pre_activation, LinExpr, Var};
use super::model::{MilpError, Model};
use super::solve::SolveOptions;
use super::tolerance;
use crate::nn::{
    interval_bounds, symbolic_bounds, InputBox, LayerBounds, Network, NetworkBounds, Stability,
};

/// Which bounds a network copy's M values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BoundsMethod {
    /// Interval arithmetic.
    Interval,
    /// Back-substitution ([`crate::nn::symbolic_bounds`]); the default.
    #[default]
    Symbolic,
    /// Symbolic, then LP tightening of the unstable neurons ([`super::lp_tighten`]).
    SymbolicLp,
}

/// How to encode a network copy.
#[derive(Clone, Debug, Default)]
pub struct EncodeOptions {
    pub bounds: BoundsMethod,
    /// Solver options for LP tightening (with [`BoundsMethod::SymbolicLp`]
    /// and OBBT).
    pub lp: SolveOptions,
    /// Time budget of OBBT in the model's context, per model
    /// ([`super::Obbt`], [`Model::add_network_obbt`]); zero: none.
    pub obbt_budget: std::time::Duration,
    /// Counts OBBT's LPs, and as its level the network copies it tightened.
    pub obbt_meter: crate::report::meter::Meter,
}

/// Bounds are widened by [`tolerance::BOUND_PADDING`] before they become
/// variable bounds and M values, so that rounding in their computation
/// cannot cut off a feasible point.
fn pad(lo: f64, hi: f64) -> (f64, f64) {
    use tolerance::{scaled, BOUND_PADDING};
    (
        lo - scaled(BOUND_PADDING, lo),
        hi + scaled(BOUND_PADDING, hi),
    )
}

/// The bounds `opts` asks for of `net` over `input_box`.
pub(super) fn copy_bounds(
    net: &Network,
    input_box: &InputBox,
    opts: &EncodeOptions,
) -> Result<NetworkBounds, MilpError> {
    Ok(match opts.bounds {
        BoundsMethod::Interval => interval_bounds(net, input_box),
        BoundsMethod::Symbolic => symbolic_bounds(net, input_box),
        BoundsMethod::SymbolicLp => {
            super::tighten::lp_tighten(net, &symbolic_bounds(net, input_box), &opts.lp)?
        }
    })
}

/// One input expression per network input, or the error naming the copy.
pub(super) fn check_input_size(
    prefix: &str,
    net: &Network,
    inputs: &[LinExpr],
) -> Result<(), MilpError> {
    if inputs.len() != net.input_size() {
        return Err(MilpError::InputSize {
            name: prefix.into(),
            expected: net.input_size(),
            found: inputs.len(),
        });
    }
    Ok(())
}

/// What [`Model::add_network`] created.
#[derive(Clone, Debug)]
pub struct NetworkCopy {
    /// The input expressions the copy reads.
    pub inputs: Vec<LinExpr>,
    /// One variable per network output.
    pub outputs: Vec<Var>,
    /// Post-activation value of every neuron, per layer (variables, or the
    /// constant 0 for inactive ReLUs). The last entry is the outputs.
    pub neurons: Vec<Vec<LinExpr>>,
    /// The binaries of the unstable neurons, `(layer, neuron, binary)`.
    pub binaries: Vec<(usize, usize, Var)>,
    /// The bounds the encoding used.
    pub bounds: NetworkBounds,
}

impl NetworkCopy {
    /// A copy on `inputs` with no layer encoded yet.
    pub(super) fn empty(inputs: &[LinExpr], bounds: NetworkBounds) -> Self {
        NetworkCopy {
            inputs: inputs.to_vec(),
            outputs: Vec::new(),
            neurons: Vec::new(),
            binaries: Vec::new(),
            bounds,
        }
    }
}

impl Model {
    /// Adds a copy of `net` reading `inputs` (one expression per network input).
    ///
    /// The input box is `input_box` if given, otherwise the bounds of the input
    /// expressions (an input expression without finite bounds is refused,
    /// naming its variable). When a box is given the inputs are constrained to
    /// it, so the M values stay valid. Bounds come from `opts.bounds`; names of
    /// the new variables start with `prefix`.
    ///
    /// To unroll k steps for n agents, call this once per agent and step with
    /// that step's input expressions and a distinct prefix such as `"s2.a3.obs"`.
    pub fn add_network(
        &mut self,
        prefix: &str,
        net: &Network,
        inputs: &[LinExpr],
        input_box: Option<&InputBox>,
        opts: &EncodeOptions,
    ) -> Result<NetworkCopy, MilpError> {
        check_input_size(prefix, net, inputs)?;
        let input_box = match input_box {
            Some(b) => {
                if b.len() != inputs.len() {
                    return Err(MilpError::InputSize {
                        name: prefix.into(),
                        expected: inputs.len(),
                        found: b.len(),
                    });
                }
                for (i, e) in inputs.iter().enumerate() {
                    let (lo, hi) = self.bounds(e);
                    if lo < b.lo[i] {
                        self.ge(&format!("{prefix}.in{i}.lo"), e.clone(), b.lo[i]);
                    }
                    if hi > b.hi[i] {
                        self.le(&format!("{prefix}.in{i}.hi"), e.clone(), b.hi[i]);
                    }
                }
                b.clone()
            }
            None => self.input_box(prefix, inputs)?,
        };
        let bounds = copy_bounds(net, &input_box, opts)?;
        self.add_network_with_bounds(prefix, net, inputs, bounds)
    }

    /// The box of the input expressions' bounds; an input without finite
    /// bounds is refused, naming its variable.
    pub(super) fn input_box(
        &self,
        prefix: &str,
        inputs: &[LinExpr],
    ) -> Result<InputBox, MilpError> {
        let mut lo = Vec::new();
        let mut hi = Vec::new();
        for (i, e) in inputs.iter().enumerate() {
            let (l, h) = self.finite_bounds(e, &format!("input {i} of network copy '{prefix}'"))?;
            lo.push(l);
            hi.push(h);
        }
        InputBox::new(lo, hi)
            .map_err(|e| MilpError::Solver(format!("input box of '{prefix}': {e}")))
    }

    /// Adds a copy of `net` using precomputed `bounds`. The caller guarantees
    /// that the inputs stay inside `bounds.input` (as [`Model::add_network`] does).
    pub fn add_network_with_bounds(
        &mut self,
        prefix: &str,
        net: &Network,
        inputs: &[LinExpr],
        bounds: NetworkBounds,
    ) -> Result<NetworkCopy, MilpError> {
        check_input_size(prefix, net, inputs)?;
        let mut copy = NetworkCopy::empty(inputs, bounds);
        let mut current: Vec<LinExpr> = inputs.to_vec();
        for k in 0..net.layers().len() {
            let layer_bounds = copy.bounds.pre[k].clone();
            current = self.add_layer(prefix, net, k, &current, &layer_bounds, &mut copy);
        }
        Ok(copy)
    }

    /// Encodes layer `k` of `net` on the previous layer's values `current`
    /// with pre-activation bounds `bounds`, recording its neurons, binaries
    /// and (for the last layer) outputs in `copy`; returns the layer's values.
    pub(super) fn add_layer(
        &mut self,
        prefix: &str,
        net: &Network,
        k: usize,
        current: &[LinExpr],
        bounds: &LayerBounds,
        copy: &mut NetworkCopy,
    ) -> Vec<LinExpr> {
        let layer = &net.layers()[k];
        let last = k + 1 == net.layers().len();
        let mut next = Vec::with_capacity(layer.outputs());
        for j in 0..layer.outputs() {
            let z = pre_activation(layer, j, current);
            let (l, u) = pad(bounds.lo[j], bounds.hi[j]);
            let name = format!("{prefix}.l{k}n{j}");
            let var = match Stability::of(layer.activation, bounds.lo[j], bounds.hi[j]) {
                Stability::Inactive if !last => None,
                Stability::Linear | Stability::Active => {
                    let v = self.continuous(&name, l, u);
                    self.eq(&format!("{name}.def"), v, z);
                    Some(v)
                }
                // An output must be a variable: fix it to 0.
                Stability::Inactive => Some(self.continuous(&name, 0.0, 0.0)),
                Stability::Unstable => {
                    let (a, d) = self.big_m_relu(&name, z, l, u);
                    copy.binaries.push((k, j, d));
                    Some(a)
                }
            };
            if last {
                copy.outputs.extend(var);
            }
            next.push(var.map_or(LinExpr::constant(0.0), LinExpr::from));
        }
        copy.neurons.push(next.clone());
        next
    }

    /// `a = relu(z)` for `z` in `[l, u]`, `l < 0 < u`, by big-M with the
    /// binary `d`; returns `(a, d)`.
    fn big_m_relu(&mut self, name: &str, z: LinExpr, l: f64, u: f64) -> (Var, Var) {
        let a = self.continuous(name, 0.0, u);
        let d = self.binary(&format!("{name}.on"));
        self.ge(&format!("{name}.ge"), a, z.clone());
        // a <= z - l (1 - d)  <=>  a - z - l d <= -l
        self.le(
            &format!("{name}.le"),
            LinExpr::from(a) - z + LinExpr::from(d) * (-l),
            -l,
        );
        self.le(
            &format!("{name}.off"),
            LinExpr::from(a) - LinExpr::from(d) * u,
            0.0,
        );
        (a, d)
    }
}
