//! One case of a property as a network: the atoms' output parts become the
//! last affine layer (the "specification layer" of complete verifiers), so
//! bound propagation and the MILP see each atom's left-hand side as one
//! output, with bounds tighter than those of the outputs combined.

use crate::milp::expr::LinExpr;
use crate::milp::highs_run::Effort;
use crate::milp::model::{MilpError, Model};
use crate::milp::solve::{Objective, SolveOptions, Status};
use crate::milp::tolerance;
use crate::nn::vnnlib::{Atom, Case};
use crate::nn::{Activation, InputBox, Layer, Network, NetworkBounds};
use crate::report::Deadline;
use ndarray::{Array1, Array2};
use std::time::{Duration, Instant};

/// A case with its specification network: output `r` is the output part of
/// atom `r`, the atoms of all disjuncts in order.
pub struct Spec<'a> {
    pub case: &'a Case,
    pub net: Network,
    /// The rows of each disjunct's atoms.
    pub rows: Vec<Vec<usize>>,
}

impl<'a> Spec<'a> {
    /// Folds the atoms' output coefficients into the network's last layer
    /// (or appends a layer after a final ReLU). Every disjunct has an atom.
    pub fn new(net: &Network, case: &'a Case) -> Spec<'a> {
        let atoms: Vec<&Atom> = case.disjuncts.iter().flatten().collect();
        let m = net.output_size();
        let c = Array2::from_shape_fn((atoms.len(), m), |(r, j)| atoms[r].outputs[j]);
        let mut layers = net.layers().to_vec();
        let last = layers.last_mut().expect("a network has a layer");
        if last.activation == Activation::Identity {
            last.weights = c.dot(&last.weights);
            last.bias = c.dot(&last.bias);
        } else {
            layers.push(Layer {
                weights: c,
                bias: Array1::zeros(atoms.len()),
                activation: Activation::Identity,
            });
        }
        let mut rows = Vec::new();
        let mut next = 0;
        for d in &case.disjuncts {
            rows.push((next..next + d.len()).collect());
            next += d.len();
        }
        Spec {
            case,
            net: Network::from_layers(layers).expect("the shapes were built to match"),
            rows,
        }
    }

    pub fn atom(&self, row: usize) -> &Atom {
        self.case
            .disjuncts
            .iter()
            .flatten()
            .nth(row)
            .expect("a row of the spec")
    }

    /// The disjuncts among `open` that the bounds do not refute: one of
    /// their atoms has a lower bound above its right-hand side (padded by
    /// [`tolerance::BOUND_PADDING`] against rounding in the bounds).
    pub fn unrefuted(&self, bounds: &NetworkBounds, open: &[usize]) -> Vec<usize> {
        let out = bounds.output();
        let input = &bounds.input;
        open.iter()
            .copied()
            .filter(|&d| {
                self.rows[d].iter().all(|&r| {
                    let a = self.atom(r);
                    let lb = out.lo[r] + input_lower(a, input);
                    lb <= a.rhs + tolerance::scaled(tolerance::BOUND_PADDING, lb)
                })
            })
            .collect()
    }
}

/// The least of `a.inputs . x` over the box.
fn input_lower(a: &Atom, b: &InputBox) -> f64 {
    a.inputs
        .iter()
        .enumerate()
        .map(|(i, &c)| (c * b.lo[i]).min(c * b.hi[i]))
        .sum()
}

/// What the MILP said about the open disjuncts of one box.
#[derive(Debug)]
pub enum BoxAnswer {
    /// Every open disjunct is infeasible (confirmed without presolve).
    Refuted,
    /// HiGHS's point for a disjunct (not yet replayed).
    Point { input: Vec<f64> },
    /// The budget ran out; these disjuncts are still open.
    Stalled(Vec<usize>),
}

/// Counts of the MILP stage.
#[derive(Clone, Debug, Default)]
pub struct MilpCounts {
    pub solves: usize,
    pub binaries_max: usize,
    pub binaries_total: usize,
    pub seconds: f64,
    /// HiGHS's nodes and LP iterations over every solve (re-solves included).
    pub effort: Effort,
}

impl MilpCounts {
    /// Adds another run's counts (the most binaries is the larger one).
    pub fn add(&mut self, o: &MilpCounts) {
        self.solves += o.solves;
        self.binaries_max = self.binaries_max.max(o.binaries_max);
        self.binaries_total += o.binaries_total;
        self.seconds += o.seconds;
        self.effort += o.effort;
    }
}

/// One encoding of the spec network over `bounds.input` shared by all
/// open disjuncts; each disjunct adds its atoms as rows to a copy and is
/// solved for feasibility within `budget` (and `opts.deadline`).
pub fn milp_box(
    spec: &Spec,
    bounds: NetworkBounds,
    open: &[usize],
    opts: &SolveOptions,
    budget: Duration,
    counts: &mut MilpCounts,
) -> Result<BoxAnswer, MilpError> {
    let input = bounds.input.clone();
    let mut base = Model::new();
    let xs: Vec<_> = (0..input.len())
        .map(|i| base.continuous(&format!("x{i}"), input.lo[i], input.hi[i]))
        .collect();
    let exprs: Vec<LinExpr> = xs.iter().map(|&v| LinExpr::from(v)).collect();
    let copy = base.add_network_with_bounds("net", &spec.net, &exprs, bounds)?;
    counts.binaries_max = counts.binaries_max.max(copy.binaries.len());
    let limit = opts.deadline.remaining().map_or(budget, |r| r.min(budget));
    let mut solve = opts.clone();
    solve.deadline = Deadline::starting_at(Instant::now(), Some(limit));
    solve
        .feasibility_tolerance
        .get_or_insert(tolerance::FEASIBILITY);
    let mut stalled = Vec::new();
    for &d in open {
        let mut m = base.clone();
        for &r in &spec.rows[d] {
            let a = spec.atom(r);
            let mut lhs = LinExpr::from(copy.outputs[r]);
            for (i, &c) in a.inputs.iter().enumerate() {
                if c != 0.0 {
                    lhs.add_term(xs[i], c);
                }
            }
            m.le(&format!("d{d}.atom{r}"), lhs, a.rhs);
        }
        counts.binaries_total += copy.binaries.len();
        let mut out = m.solve(&Objective::Feasibility, &solve)?;
        counts.solves += 1;
        counts.seconds += out.time.as_secs_f64();
        counts.effort += out.effort;
        if out.status == Status::Infeasible {
            // HiGHS's presolve has answered "infeasible" wrongly on big-M
            // models; a second opinion without it (as the nis deciders do).
            out = m.solve(&Objective::Feasibility, &solve.second_opinion())?;
            counts.solves += 1;
            counts.seconds += out.time.as_secs_f64();
            counts.effort += out.effort;
        }
        match (out.status, out.solution) {
            (Status::Infeasible, _) => {}
            (Status::Optimal | Status::Feasible, Some(s)) => {
                let x = xs
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| s.value(v).clamp(input.lo[i], input.hi[i]))
                    .collect();
                return Ok(BoxAnswer::Point { input: x });
            }
            _ => stalled.push(d),
        }
    }
    Ok(if stalled.is_empty() {
        BoxAnswer::Refuted
    } else {
        BoxAnswer::Stalled(stalled)
    })
}
