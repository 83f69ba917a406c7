//! Optimisation-based bound tightening (OBBT) of a network copy in the
//! context of the model it is added to. [`super::lp_tighten`] sees only an
//! input box; here the copy's inputs are expressions over the model's
//! earlier variables (an unrolling's state at step t), so the LP relaxation
//! of every row added so far, and of the copy's lower layers, bounds each
//! pre-activation far more tightly than the box of the inputs does.
//!
//! One HiGHS LP mirrors the model (binaries relaxed to `[0, 1]`) and grows
//! with it: each tightening adds only the columns and rows added since the
//! last one, changes the objective and re-solves from the previous basis
//! (a warm start). Only an `Optimal` LP tightens a bound, padded by
//! [`super::tolerance::LP_PADDING`], and never beyond the old one. Rows are
//! never removed from a model and its variable bounds only narrow, so a
//! bound proven over the rows so far holds at every feasible point of the
//! finished model: the MILP keeps its feasible set and loses binaries.

use super::expr::{pre_activation, LinExpr};
use super::model::{MilpError, Model, Sense};
use super::network::EncodeOptions;
use super::network::{check_input_size, copy_bounds, NetworkCopy};
use super::tolerance::{scaled, LP_PADDING};
use crate::nn::{symbolic_layer, Activation, Layer, LayerBounds, Network, Stability};
use highs::{HighsModelStatus, HighsSolutionStatus, Sense as LpSense};
use std::time::{Duration, Instant};

/// What OBBT did, summed over the copies of one model.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ObbtStats {
    /// LPs solved (each a maximum or a minimum of one pre-activation).
    pub lps: usize,
    /// Simplex iterations of those LPs.
    pub lp_iterations: u64,
    /// Unstable neurons (binaries) of the copies' symbolic bounds that OBBT
    /// made stable, directly or through the bounds of a lower layer.
    pub binaries_removed: usize,
    /// Time spent, building the LP included.
    pub seconds: f64,
}

impl ObbtStats {
    /// Adds `other`'s counts and time to these.
    pub fn add(&mut self, other: &ObbtStats) {
        self.lps += other.lps;
        self.lp_iterations += other.lp_iterations;
        self.binaries_removed += other.binaries_removed;
        self.seconds += other.seconds;
    }
}

/// The OBBT state of one model: its time budget and the LP mirroring it.
pub struct Obbt {
    budget: Duration,
    threads: usize,
    deadline: crate::report::Deadline,
    /// `None` before the first LP, or after HiGHS failed (OBBT then stops).
    lp: Option<highs::Model>,
    failed: bool,
    /// The LP's column of each model variable mirrored so far.
    cols: Vec<highs::Col>,
    /// Model rows mirrored so far.
    rows: usize,
    /// The columns of the last objective (reset to cost 0 before the next).
    objective: Vec<highs::Col>,
    /// When the copy being tightened began (its time is not yet in `stats`).
    began: Option<Instant>,
    pub stats: ObbtStats,
    /// Counts the LPs, and as its level the copies tightened.
    meter: crate::report::meter::Meter,
}

impl Obbt {
    /// OBBT within `opts.obbt_budget` (zero: none), HiGHS run as `opts.lp` says.
    pub fn new(opts: &EncodeOptions) -> Self {
        Obbt {
            budget: opts.obbt_budget,
            threads: opts.lp.threads.max(1),
            deadline: opts.lp.deadline,
            lp: None,
            failed: false,
            cols: Vec::new(),
            rows: 0,
            objective: Vec::new(),
            began: None,
            stats: ObbtStats::default(),
            meter: opts.obbt_meter.clone(),
        }
    }

    /// Budget left, or `None` when spent (or the run's deadline passed).
    fn left(&self) -> Option<Duration> {
        let running = self.began.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let spent = Duration::from_secs_f64(self.stats.seconds + running);
        let left = self.budget.checked_sub(spent).filter(|d| !d.is_zero())?;
        if self.failed || self.deadline.expired() {
            return None;
        }
        Some(match self.deadline.remaining() {
            Some(r) => left.min(r),
            None => left,
        })
    }

    /// Adds the model's columns and rows not yet in the LP (integers and
    /// binaries as continuous columns: the relaxation); false when HiGHS
    /// refuses one, after which OBBT stops.
    fn sync(&mut self, model: &Model) -> bool {
        let lp = self.lp.get_or_insert_with(|| new_lp(self.threads));
        for info in &model.vars[self.cols.len()..] {
            match lp.try_add_column(0.0, info.lo..=info.hi, []) {
                Ok(col) => self.cols.push(col),
                Err(_) => return self.fail(),
            }
        }
        for row in &model.rows[self.rows..] {
            let terms = row.terms.iter().map(|&(v, c)| (self.cols[v.0], c));
            let added = match row.sense {
                Sense::Le => lp.try_add_row(..=row.rhs, terms),
                Sense::Ge => lp.try_add_row(row.rhs.., terms),
                Sense::Eq => lp.try_add_row(row.rhs..=row.rhs, terms),
            };
            if added.is_err() {
                return self.fail();
            }
            self.rows += 1;
        }
        true
    }

    /// Stops OBBT for this model (HiGHS refused the LP); always false.
    fn fail(&mut self) -> bool {
        self.failed = true;
        self.lp = None;
        false
    }

    /// The optimum of `e` (maximum when `maximise`) over the LP, or `None`
    /// when HiGHS does not prove one within the budget.
    fn optimum(&mut self, e: &LinExpr, maximise: bool) -> Option<f64> {
        let left = self.left()?;
        let mut lp = self.lp.take()?;
        for &c in &self.objective {
            lp.change_column_cost(c, 0.0);
        }
        self.objective.clear();
        for (v, c) in e.merged_terms() {
            lp.change_column_cost(self.cols[v.0], c);
            self.objective.push(self.cols[v.0]);
        }
        lp.set_sense(if maximise {
            LpSense::Maximise
        } else {
            LpSense::Minimise
        });
        // HiGHS checks `time_limit` against its instance's run time, which
        // adds up over the re-solves: the limit is that time plus what is left.
        // SAFETY: `lp.as_ptr()` is the live Highs instance `lp` owns; the
        // call only reads its run clock.
        let run_so_far = unsafe { highs_sys::Highs_getRunTime(lp.as_ptr()) };
        lp.set_option(
            "time_limit",
            run_so_far.max(0.0) + left.as_secs_f64().max(1e-3),
        );
        self.stats.lps += 1;
        self.meter.add(1);
        let Ok(solved) = lp.try_solve() else {
            self.fail();
            return None;
        };
        self.stats.lp_iterations += u64::try_from(solved.simplex_iteration_count()).unwrap_or(0);
        let proven = solved.status() == HighsModelStatus::Optimal
            && solved.primal_solution_status() == HighsSolutionStatus::Feasible;
        let value = solved.objective_value() + e.constant;
        self.lp = Some(solved.into());
        (proven && value.is_finite()).then_some(value)
    }

    /// Tightens the unstable neurons of `layer` (pre-activation bounds
    /// `bounds`, values of the layer below `current`), widest triangle
    /// first, while the budget lasts. Bounds only narrow.
    fn tighten_layer(
        &mut self,
        model: &Model,
        layer: &Layer,
        current: &[LinExpr],
        bounds: &mut LayerBounds,
    ) {
        let mut unstable: Vec<usize> = (0..layer.outputs())
            .filter(|&j| {
                Stability::of(layer.activation, bounds.lo[j], bounds.hi[j]) == Stability::Unstable
            })
            .collect();
        if unstable.is_empty() || self.left().is_none() || model.validate().is_err() {
            return;
        }
        // The width of the ReLU triangle: its area grows with min(-l, u).
        unstable.sort_by(|&a, &b| {
            let w = |j: usize| (-bounds.lo[j]).min(bounds.hi[j]);
            w(b).total_cmp(&w(a))
        });
        if !self.sync(model) {
            return;
        }
        let old = bounds.clone();
        for j in unstable {
            let z = pre_activation(layer, j, current);
            if let Some(v) = self.optimum(&z, true) {
                bounds.hi[j] = bounds.hi[j].min(v + scaled(LP_PADDING, v));
            }
            if bounds.hi[j] > 0.0 {
                if let Some(v) = self.optimum(&z, false) {
                    bounds.lo[j] = bounds.lo[j].max(v - scaled(LP_PADDING, v));
                }
            }
            if bounds.lo[j] > bounds.hi[j] {
                // Only rounding can do this; keep the old, wider bounds.
                (bounds.lo[j], bounds.hi[j]) = (old.lo[j], old.hi[j]);
            }
        }
    }
}

/// An empty LP, quiet, without presolve (HiGHS's presolve has returned
/// wrong optima on these models, docs/nn.md), on `threads` threads.
fn new_lp(threads: usize) -> highs::Model {
    let mut lp = highs::Model::new(highs::ColProblem::default());
    lp.set_option("presolve", "off");
    lp.set_option("threads", i32::try_from(threads).unwrap_or(1));
    lp
}

impl Model {
    /// Adds a copy of `net` reading `inputs` as [`Model::add_network`] does
    /// (bounds of the input expressions, `opts.bounds`), then, layer by
    /// layer before it is encoded, tightens the unstable neurons' bounds by
    /// LPs over this model's relaxation ([`Obbt`]) while `obbt`'s budget lasts.
    pub fn add_network_obbt(
        &mut self,
        prefix: &str,
        net: &Network,
        inputs: &[LinExpr],
        opts: &EncodeOptions,
        obbt: &mut Obbt,
    ) -> Result<NetworkCopy, MilpError> {
        check_input_size(prefix, net, inputs)?;
        let input_box = self.input_box(prefix, inputs)?;
        let start = copy_bounds(net, &input_box, opts)?;
        if obbt.left().is_none() {
            return self.add_network_with_bounds(prefix, net, inputs, start);
        }
        obbt.began = Some(Instant::now());
        let mut copy = NetworkCopy::empty(inputs, start.clone());
        let mut current = inputs.to_vec();
        let mut pre: Vec<LayerBounds> = Vec::new();
        for (k, layer) in net.layers().iter().enumerate() {
            let mut bounds = if k == 0 {
                start.pre[0].clone()
            } else {
                symbolic_layer(net, &input_box, &pre, k).intersect(&start.pre[k])
            };
            if layer.activation == Activation::Relu {
                obbt.tighten_layer(self, layer, &current, &mut bounds);
            }
            current = self.add_layer(prefix, net, k, &current, &bounds, &mut copy);
            pre.push(bounds);
        }
        copy.bounds = crate::nn::NetworkBounds::new(net, input_box, pre);
        let removed = start
            .unstable_count()
            .saturating_sub(copy.bounds.unstable_count());
        obbt.stats.binaries_removed += removed;
        obbt.meter.add_level(1);
        if let Some(t) = obbt.began.take() {
            obbt.stats.seconds += t.elapsed().as_secs_f64();
        }
        Ok(copy)
    }
}
