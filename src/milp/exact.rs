//! Exact output ranges of a network over a box: for every output, one MILP
//! maximising it and one minimising it; every optimum's input is replayed
//! through [`Network::eval`] before it is reported.

use super::expr::LinExpr;
use super::model::{MilpError, Model, ModelStats};
use super::network::EncodeOptions;
use super::solve::{Objective, SolveOptions, Status};
use crate::nn::{InputBox, Network, NetworkBounds};
use std::time::{Duration, Instant};

/// One side (max or min) of one output.
#[derive(Clone, Debug, PartialEq)]
pub struct Extremum {
    /// The MILP optimum when `status` is `Optimal`; otherwise the (sound)
    /// bound the encoding started from.
    pub value: f64,
    pub status: Status,
    /// The input at which the optimum is attained, and the output there as
    /// [`Network::eval`] computes it (present when a solution was found).
    pub witness: Option<(Vec<f64>, f64)>,
}

/// The range of one output over the box.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputRange {
    pub min: Extremum,
    pub max: Extremum,
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

/// A witness may differ from the MILP optimum by the solver's tolerances; more
/// than this (relative) is a bug.
pub const REPLAY_TOLERANCE: f64 = 1e-6;

/// Builds the MILP of `net` over `input` and solves max and min of every output.
pub fn exact_output_bounds(
    net: &Network,
    input: &InputBox,
    encode: &EncodeOptions,
    solve: &SolveOptions,
) -> Result<ExactBounds, MilpError> {
    let start = Instant::now();
    let mut model = Model::new();
    let xs: Vec<LinExpr> = (0..input.len())
        .map(|i| LinExpr::from(model.continuous(&format!("x{i}"), input.lo[i], input.hi[i])))
        .collect();
    model.validate()?;
    let copy = model.add_network("net", net, &xs, None, encode)?;
    let bounds_time = start.elapsed();
    // Exact means no relative gap; the absolute gap stays HiGHS's (1e-6).
    let solve = SolveOptions {
        mip_gap: Some(solve.mip_gap.unwrap_or(0.0)),
        ..solve.clone()
    };
    let out_bounds = copy.bounds.output();
    let solve_start = Instant::now();
    let mut outputs = Vec::with_capacity(net.output_size());
    for (j, &y) in copy.outputs.iter().enumerate() {
        let side = |maximise: bool| -> Result<Extremum, MilpError> {
            let objective = if maximise {
                Objective::Maximise(y.into())
            } else {
                Objective::Minimise(y.into())
            };
            let outcome = model.solve(&objective, &solve)?;
            let fallback = if maximise {
                out_bounds.hi[j]
            } else {
                out_bounds.lo[j]
            };
            let witness = match &outcome.solution {
                Some(s) => {
                    let x: Vec<f64> = (0..input.len())
                        .map(|i| s.eval(&xs[i]).clamp(input.lo[i], input.hi[i]))
                        .collect();
                    let value = net.eval(&x)[j];
                    Some((x, value))
                }
                None => None,
            };
            let value = match (outcome.status, outcome.objective, &witness) {
                (Status::Optimal, Some(v), Some((x, attained))) => {
                    if (attained - v).abs() > REPLAY_TOLERANCE * (1.0 + v.abs()) {
                        return Err(MilpError::Replay(format!(
                            "the MILP {} of output {j} is {v} at input {x:?}, but the network gives {attained} there",
                            if maximise { "maximum" } else { "minimum" }
                        )));
                    }
                    v
                }
                _ => fallback,
            };
            Ok(Extremum {
                value,
                status: outcome.status,
                witness,
            })
        };
        let max = side(true)?;
        let min = side(false)?;
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
