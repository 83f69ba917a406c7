//! Exact output ranges of a network over a box: for every output, one MILP
//! maximising it and one minimising it. Each side is reported as a sound
//! pair: the value [`Network::eval`] gives at the optimum's input (inner:
//! the network attains it) and HiGHS's proven bound widened by
//! [`tolerance::OUTER_WIDENING`] (outer: nothing in the box goes beyond it).
//! HiGHS answers within its tolerances, so the two differ by rounding; the
//! side is exact when they agree within [`tolerance::EXACT_AGREEMENT`]. A
//! solution that is not the network at its input, layer by layer, is an
//! internal error ([`MilpError::Replay`]).

use super::expr::LinExpr;
use super::model::{MilpError, Model, ModelStats};
use super::network::{EncodeOptions, NetworkCopy};
use super::solve::{Objective, Outcome, Solution, SolveOptions, Status};
use super::tolerance;
use crate::nn::{Activation, InputBox, LayerBounds, Network, NetworkBounds};
use std::time::{Duration, Instant};

/// One side (max or min) of one output, as a sound pair: the true extremum
/// lies between the inner bound (a value the network attains) and the
/// outer bound (no input of the box goes beyond it).
#[derive(Clone, Debug, PartialEq)]
pub struct Extremum {
    /// No output value over the box is beyond this (above it for a maximum,
    /// below for a minimum): HiGHS's proven bound widened by
    /// [`tolerance::OUTER_WIDENING`], or, when HiGHS proved none that is
    /// consistent with the attained value, the bound the encoding started
    /// from (interval or symbolic propagation, padded by [`tolerance::BOUND_PADDING`]).
    pub outer: f64,
    pub status: Status,
    /// The input at which the MILP found its optimum, and the output there
    /// as [`Network::eval`] computes it: the inner bound (present when a
    /// solution was found).
    pub witness: Option<(Vec<f64>, f64)>,
    /// Inner and outer agree within [`tolerance::EXACT_AGREEMENT`] (and the
    /// MILP was solved to optimality): the extremum is known.
    pub exact: bool,
}

impl Extremum {
    /// The inner bound: the value the network attains at the witness.
    pub fn inner(&self) -> Option<f64> {
        self.witness.as_ref().map(|w| w.1)
    }

    /// The reported value: the attained one when exact, else the outer bound.
    pub fn value(&self) -> f64 {
        match self.inner() {
            Some(v) if self.exact => v,
            _ => self.outer,
        }
    }
}

/// The range of one output over the box.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputRange {
    pub min: Extremum,
    pub max: Extremum,
}

impl OutputRange {
    /// Both sides are exact.
    pub fn is_exact(&self) -> bool {
        self.min.exact && self.max.exact
    }
}

/// Result of [`exact_output_bounds`].
#[derive(Clone, Debug)]
pub struct ExactBounds {
    pub outputs: Vec<OutputRange>,
    /// Size of the MILP (one model, re-solved per objective).
    pub stats: ModelStats,
    /// The neuron bounds that fixed the binaries and the M values.
    pub bounds: NetworkBounds,
    /// Time to compute those bounds (including LP tightening).
    pub bounds_time: Duration,
    /// Time of all the MILP solves.
    pub solve_time: Duration,
    /// The model (for `--dump-lp`).
    pub model: Model,
}

/// Checks that the solution is the network evaluated at its own input, layer
/// by layer: each neuron the MILP holds must equal the layer applied to the
/// MILP's previous layer (ReLU or identity), up to
/// [`tolerance::NEURON_RESIDUAL`] scaled by the neuron's magnitude. Such a
/// solution differs from [`Network::eval`] only by solver rounding carried
/// through the layers; any larger residual means the MILP is not this
/// network at this input (a wrong encoding or a wrongly decoded input).
fn replay_layers(
    net: &Network,
    copy: &NetworkCopy,
    sol: &Solution,
    x: &[f64],
) -> Result<(), String> {
    let mut prev: Vec<f64> = x.to_vec();
    for (k, layer) in net.layers().iter().enumerate() {
        let here: Vec<f64> = copy.neurons[k].iter().map(|e| sol.eval(e)).collect();
        for (j, &held) in here.iter().enumerate() {
            let mut z = layer.bias[j];
            let mut magnitude = layer.bias[j].abs();
            for (i, &a) in prev.iter().enumerate() {
                z += layer.weights[[j, i]] * a;
                magnitude += (layer.weights[[j, i]] * a).abs();
            }
            let want = match layer.activation {
                Activation::Relu => z.max(0.0),
                Activation::Identity => z,
            };
            let (l, u) = (copy.bounds.pre[k].lo[j], copy.bounds.pre[k].hi[j]);
            magnitude += l.abs().max(u.abs()) + held.abs();
            if (held - want).abs() > tolerance::scaled(tolerance::NEURON_RESIDUAL, magnitude) {
                return Err(format!(
                    "neuron {j} of layer {k} is {held} in the MILP solution, but the layer gives {want} from the solution's previous layer"
                ));
            }
        }
        prev = here;
    }
    Ok(())
}

/// Builds the MILP of `net` over `input` and solves max and min of every output.
pub fn exact_output_bounds(
    net: &Network,
    input: &InputBox,
    encode: &EncodeOptions,
    solve: &SolveOptions,
) -> Result<ExactBounds, MilpError> {
    exact_output_bounds_reporting(net, input, encode, solve, &mut || {})
}

/// [`exact_output_bounds`], calling `solved` after each of its
/// `2 * outputs` MILPs (maximum, then minimum, of each output), e.g. to
/// advance a progress bar.
pub fn exact_output_bounds_reporting(
    net: &Network,
    input: &InputBox,
    encode: &EncodeOptions,
    solve: &SolveOptions,
    solved: &mut dyn FnMut(),
) -> Result<ExactBounds, MilpError> {
    let start = Instant::now();
    let mut model = Model::new();
    let xs: Vec<LinExpr> = (0..input.len())
        .map(|i| LinExpr::from(model.continuous(&format!("x{i}"), input.lo[i], input.hi[i])))
        .collect();
    model.validate()?;
    let copy = model.add_network("net", net, &xs, None, encode)?;
    let bounds_time = start.elapsed();
    let solve = SolveOptions {
        mip_gap: Some(solve.mip_gap.unwrap_or(tolerance::EXACT_REL_GAP)),
        mip_abs_gap: Some(solve.mip_abs_gap.unwrap_or(tolerance::EXACT_ABS_GAP)),
        feasibility_tolerance: Some(
            solve
                .feasibility_tolerance
                .unwrap_or(tolerance::FEASIBILITY),
        ),
        ..solve.clone()
    };
    let sides = Sides {
        model: &model,
        net,
        copy: &copy,
        out_bounds: copy.bounds.output(),
        input,
        xs: &xs,
        solve: &solve,
    };
    let solve_start = Instant::now();
    let mut outputs = Vec::with_capacity(net.output_size());
    for j in 0..copy.outputs.len() {
        let max = sides.side(j, true)?;
        solved();
        let min = sides.side(j, false)?;
        solved();
        outputs.push(OutputRange { min, max });
    }
    Ok(ExactBounds {
        outputs,
        stats: model.stats(),
        bounds: copy.bounds,
        bounds_time,
        solve_time: solve_start.elapsed(),
        model,
    })
}

/// What the MILPs of [`exact_output_bounds_reporting`] share: the model
/// with the network's copy over the box's variables `xs`.
struct Sides<'a> {
    model: &'a Model,
    net: &'a Network,
    copy: &'a NetworkCopy,
    /// The propagated bounds of the outputs.
    out_bounds: LayerBounds,
    input: &'a InputBox,
    xs: &'a [LinExpr],
    solve: &'a SolveOptions,
}

impl Sides<'_> {
    /// The maximum (or minimum) of output `j` as a sound pair. HiGHS has
    /// proved maxima short of the network's value at a box corner on tiny
    /// networks, with its presolve on one (regression
    /// `a_presolved_maximum_short_of_a_corner_is_not_trusted`) and without
    /// it on another: each side is solved both ways, and the looser proven
    /// bound kept with the better attained value. The second solve is a
    /// [`SolveOptions::second_opinion`]: no presolve at all and HiGHS's LP
    /// tolerance, which together removed every wrong answer of the sweep
    /// in docs/nn.md.
    fn side(&self, j: usize, maximise: bool) -> Result<Extremum, MilpError> {
        let a = self.side_with(j, maximise, true)?;
        let b = self.side_with(j, maximise, false)?;
        let sign = if maximise { 1.0 } else { -1.0 };
        let outer = sign * (sign * a.outer).max(sign * b.outer);
        let better = |x: &Extremum| x.inner().map_or(f64::NEG_INFINITY, |v| sign * v);
        let witness = if better(&b) > better(&a) {
            b.witness.clone()
        } else {
            a.witness.clone()
        };
        let status = if a.status != Status::Optimal {
            a.status
        } else {
            b.status
        };
        let exact = a.exact
            && b.exact
            && witness.as_ref().is_some_and(|(_, v)| {
                (outer - v).abs() <= tolerance::scaled(tolerance::EXACT_AGREEMENT, *v)
            });
        Ok(Extremum {
            outer,
            status,
            witness,
            exact,
        })
    }

    /// One side by one MILP, with or without HiGHS's presolve.
    fn side_with(&self, j: usize, maximise: bool, presolve: bool) -> Result<Extremum, MilpError> {
        let outcome = self.solve_side(j, maximise, presolve)?;
        // `sign` turns a minimum into a maximum, so one rule serves both sides.
        let sign = if maximise { 1.0 } else { -1.0 };
        // The propagated bound, padded as the encoding pads it (rounding).
        let propagated = sign
            * if maximise {
                self.out_bounds.hi[j]
            } else {
                self.out_bounds.lo[j]
            };
        let propagated = propagated + tolerance::scaled(tolerance::BOUND_PADDING, propagated);
        let witness = match &outcome.solution {
            Some(s) => Some(self.replayed(s, j, maximise)?),
            None => None,
        };
        let inner = witness.as_ref().map(|w| sign * w.1);
        // HiGHS's bound, widened; unusable when the network attains more.
        let proven = outcome
            .bound
            .map(|b| sign * b)
            .map(|b| b + tolerance::scaled(tolerance::OUTER_WIDENING, b))
            .filter(|b| inner.is_none_or(|v| *b >= v));
        let outer = proven.map_or(propagated, |b| b.min(propagated));
        let exact = outcome.status == Status::Optimal
            && proven.is_some()
            && inner.is_some_and(|v| {
                (outer - v).abs() <= tolerance::scaled(tolerance::EXACT_AGREEMENT, v)
            });
        // The network attains `inner`, so no outer bound lies below it.
        let outer = inner.map_or(outer, |v| outer.max(v));
        Ok(Extremum {
            outer: sign * outer,
            status: outcome.status,
            witness,
            exact,
        })
    }

    /// The MILP of one side solved.
    fn solve_side(&self, j: usize, maximise: bool, presolve: bool) -> Result<Outcome, MilpError> {
        let y = self.copy.outputs[j];
        let objective = if maximise {
            Objective::Maximise(y.into())
        } else {
            Objective::Minimise(y.into())
        };
        let opts = if presolve {
            self.solve.clone()
        } else {
            self.solve.second_opinion()
        };
        let outcome = self.model.solve(&objective, &opts)?;
        if outcome.status != Status::Infeasible || !presolve {
            return Ok(outcome);
        }
        // The network is total and the box is not empty, so the model
        // is feasible: "infeasible" is HiGHS's presolve misjudging a
        // degenerate LP (seen on a 2-2-2 network whose neurons are all
        // stable), and the solve is repeated without it.
        self.model.solve(&objective, &self.solve.second_opinion())
    }

    /// The solution's input (clamped to the box) and the network's output
    /// `j` there, once the solution replays layer by layer.
    fn replayed(
        &self,
        s: &Solution,
        j: usize,
        maximise: bool,
    ) -> Result<(Vec<f64>, f64), MilpError> {
        let input = self.input;
        let x: Vec<f64> = (0..input.len())
            .map(|i| s.eval(&self.xs[i]).clamp(input.lo[i], input.hi[i]))
            .collect();
        replay_layers(self.net, self.copy, s, &x).map_err(|why| {
            MilpError::Replay(format!(
                "the MILP {} of output {j} does not replay at input {x:?}: {why}",
                if maximise { "maximum" } else { "minimum" }
            ))
        })?;
        let value = self.net.eval(&x)[j];
        Ok((x, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::Layer;
    use ndarray::array;

    /// y = relu(x - 0.5) + relu(0.2 - x) on [0, 1]: both ReLUs unstable.
    fn net(w: f64) -> Network {
        Network::from_layers(vec![
            Layer {
                weights: array![[w], [-1.0]],
                bias: array![-0.5, 0.2],
                activation: Activation::Relu,
            },
            Layer {
                weights: array![[1.0, 1.0]],
                bias: array![0.0],
                activation: Activation::Identity,
            },
        ])
        .unwrap()
    }

    /// A solution of the MILP of `net(1.0)` maximising y, with its input.
    fn solved() -> (NetworkCopy, Solution, Vec<f64>) {
        let mut m = Model::new();
        let x = m.continuous("x", 0.0, 1.0);
        let copy = m
            .add_network(
                "n",
                &net(1.0),
                &[LinExpr::from(x)],
                None,
                &EncodeOptions::default(),
            )
            .unwrap();
        let y = copy.outputs[0];
        let out = m
            .solve(&Objective::Maximise(y.into()), &SolveOptions::default())
            .unwrap();
        let sol = out.solution.unwrap();
        let input = vec![sol.value(x)];
        (copy, sol, input)
    }

    #[test]
    fn a_solution_replays_on_its_own_network() {
        let (copy, sol, x) = solved();
        assert_eq!(replay_layers(&net(1.0), &copy, &sol, &x), Ok(()));
        // The maximum 0.5 is at x = 1 (0.5 + 0) rather than x = 0 (0 + 0.2).
        assert!((x[0] - 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_wrong_network_or_input_is_a_genuine_mismatch() {
        let (copy, sol, x) = solved();
        let wrong_net = replay_layers(&net(1.1), &copy, &sol, &x).unwrap_err();
        assert!(wrong_net.contains("neuron 0 of layer 0"), "{wrong_net}");
        let wrong_input = replay_layers(&net(1.0), &copy, &sol, &[0.7]).unwrap_err();
        assert!(wrong_input.contains("layer 0"), "{wrong_input}");
    }

    #[test]
    fn exact_pairs_bracket_the_true_extrema() {
        let input = InputBox::new(vec![0.0], vec![1.0]).unwrap();
        let ex = exact_output_bounds(
            &net(1.0),
            &input,
            &EncodeOptions::default(),
            &SolveOptions::default(),
        )
        .unwrap();
        let o = &ex.outputs[0];
        // By hand: max 0.5 at x = 1; min 0 on [0.2, 0.5].
        assert!(o.is_exact());
        assert!(o.max.inner().unwrap() <= 0.5 + 1e-12 && o.max.outer >= 0.5);
        assert!(o.min.inner().unwrap() >= -1e-12 && o.min.outer <= 0.0);
        assert!(o.max.outer - 0.5 < 1e-5 && o.min.outer > -1e-5);
    }
}
