//! A network and a VNN-LIB property as a [`Problem`] of the shared search:
//! one root per case (input box), bounds by the specification network
//! ([`Spec`]), the leaf decision by LP tightening and one MILP, branching
//! on unstable ReLUs ([`phases`]).

use super::answer::{replayed, Counterexample};
use super::gradient::{gradient_mass, output_gradient};
use super::options::VerifyOptions;
use super::phases::{self, Phase};
use super::spec::{milp_box, BoxAnswer, MilpCounts, Spec};
use crate::milp::model::MilpError;
use crate::milp::tolerance;
use crate::nn::vnnlib::Property;
use crate::nn::{interval_bounds, output_linear_bounds, InputBox, Network, NetworkBounds};
use crate::search::{Bounded, Leaf, Objective, Problem, Source, SplitRule};
use ndarray::Array2;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The network, the property and one specification network per case.
pub struct NetProblem<'a> {
    pub net: &'a Network,
    pub prop: &'a Property,
    specs: Vec<Spec<'a>>,
    opts: &'a VerifyOptions,
    /// The first solver error of any worker (it ends the run as an error).
    pub error: Mutex<Option<MilpError>>,
}

impl<'a> NetProblem<'a> {
    pub fn new(net: &'a Network, prop: &'a Property, opts: &'a VerifyOptions) -> Self {
        NetProblem {
            net,
            prop,
            specs: prop.cases.iter().map(|c| Spec::new(net, c)).collect(),
            opts,
            error: Mutex::new(None),
        }
    }

    fn failed(&self, e: MilpError) {
        self.error.lock().expect("not poisoned").get_or_insert(e);
    }
}

/// A sub-box of one case with the disjuncts still open on it, the ReLU
/// phases fixed by branching, and bounds.
pub struct NetPart {
    case: usize,
    region: InputBox,
    open: Vec<usize>,
    phases: Vec<Phase>,
    /// The bounds of the part it was split from (they hold on this one too).
    parent: Option<Arc<NetworkBounds>>,
    /// This part's bounds, once bounded.
    bounds: Option<Arc<NetworkBounds>>,
}

/// The counters of the bounds and the MILPs.
#[derive(Clone, Debug, Default)]
pub struct NetStats {
    pub lp_s: f64,
    pub milp: MilpCounts,
    /// Unstable ReLUs of the roots by interval, symbolic and LP bounds.
    pub root_unstable: [usize; 3],
    pub root_lp: bool,
}

impl Objective for NetProblem<'_> {
    fn excess(&self, root: usize, x: &[f64]) -> f64 {
        self.prop.cases[root].excess(x, &self.net.eval(x))
    }

    fn excess_batch(&self, root: usize, points: &[Vec<f64>]) -> Vec<f64> {
        let n = points.first().map_or(0, Vec::len);
        let flat: Vec<f64> = points.iter().flatten().copied().collect();
        let xs = Array2::from_shape_vec((points.len(), n), flat).expect("points of one box");
        let ys = self.net.eval_batch(xs.view());
        let case = &self.prop.cases[root];
        (0..points.len())
            .map(|r| case.excess(&points[r], &ys.row(r).to_vec()))
            .collect()
    }

    fn gradient(&self, root: usize, x: &[f64]) -> Option<Vec<f64>> {
        let case = &self.prop.cases[root];
        let y = self.net.eval(x);
        // The atom that decides the excess: the worst atom of the best disjunct.
        let mut best: Option<(f64, &crate::nn::vnnlib::Atom)> = None;
        for d in &case.disjuncts {
            let worst = d
                .iter()
                .map(|a| (a.excess(x, &y), a))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some(w) = worst {
                if best.is_none_or(|b| w.0 < b.0) {
                    best = Some(w);
                }
            }
        }
        let (_, atom) = best?;
        let g = output_gradient(self.net, x, &atom.outputs);
        Some(g.iter().zip(&atom.inputs).map(|(g, a)| g + a).collect())
    }
}

impl Problem for NetProblem<'_> {
    type Part = NetPart;
    type Witness = Counterexample;
    type Stats = NetStats;

    fn roots(&self) -> Vec<NetPart> {
        (0..self.prop.cases.len())
            .map(|c| NetPart {
                case: c,
                region: self.prop.cases[c].input.clone(),
                open: (0..self.prop.cases[c].disjuncts.len()).collect(),
                phases: Vec::new(),
                parent: None,
                bounds: None,
            })
            .collect()
    }

    fn region<'p>(&self, part: &'p NetPart) -> &'p InputBox {
        &part.region
    }

    fn root_of(&self, part: &NetPart) -> usize {
        part.case
    }

    fn replay(&self, part: &NetPart, x: Vec<f64>, source: Source) -> Option<Counterexample> {
        let tol = match source {
            Source::Milp => tolerance::COUNTEREXAMPLE,
            Source::Sampling | Source::LocalSearch => 0.0,
        };
        let case = &self.prop.cases[part.case];
        let y = self.net.eval(&x);
        let d = case.satisfied_disjunct(&x, &y, tol)?;
        replayed(self.net, case, part.case, d, x, source, tol)
    }

    fn bound(&self, part: &mut NetPart, root: bool, st: &mut NetStats) -> Bounded {
        let spec = &self.specs[part.case];
        if root {
            st.root_unstable[0] += interval_bounds(&spec.net, &part.region).unstable_count();
        }
        let parent = part.parent.as_deref();
        let Some(bounds) = phases::bounds(&spec.net, &part.region, parent, &part.phases) else {
            // The fixed phases leave no input of the box.
            return Bounded::Refuted;
        };
        part.open = spec.unrefuted(&bounds, &part.open);
        let unstable = bounds.unstable_count();
        if root {
            st.root_unstable[1] += unstable;
        }
        part.bounds = Some(Arc::new(bounds));
        if part.open.is_empty() {
            Bounded::Refuted
        } else {
            Bounded::Open { unstable }
        }
    }

    fn leaf(&self, part: &mut NetPart, root: bool, budget: Duration, st: &mut NetStats) -> Leaf {
        match self.milp_stage(part, root, budget, st) {
            Ok(leaf) => leaf,
            Err(e) => {
                self.failed(e);
                Leaf::Stalled
            }
        }
    }

    fn influence(&self, part: &NetPart, rule: SplitRule) -> Vec<f64> {
        let spec = &self.specs[part.case];
        let rows: Vec<usize> = part
            .open
            .iter()
            .flat_map(|&d| spec.rows[d].iter().copied())
            .collect();
        match (rule, &part.bounds) {
            (SplitRule::Sensitivity, Some(b)) => sensitivity(spec, b, &rows),
            _ => gradient_mass(&spec.net, &part.region, &rows),
        }
    }

    fn restrict(&self, part: &NetPart, region: InputBox) -> NetPart {
        NetPart {
            case: part.case,
            region,
            open: part.open.clone(),
            phases: part.phases.clone(),
            parent: part.bounds.clone(),
            bounds: None,
        }
    }

    fn branch(&self, part: &NetPart) -> Option<[NetPart; 2]> {
        let bounds = part.bounds.as_ref()?;
        let (layer, neuron) = phases::pick_neuron(bounds)?;
        let child = |active| {
            let mut phases = part.phases.clone();
            phases.push(Phase {
                layer,
                neuron,
                active,
            });
            NetPart {
                case: part.case,
                region: part.region.clone(),
                open: part.open.clone(),
                phases,
                parent: Some(bounds.clone()),
                bounds: None,
            }
        };
        Some([child(true), child(false)])
    }

    fn merge(&self, into: &mut NetStats, from: NetStats) {
        into.lp_s += from.lp_s;
        into.milp.add(&from.milp);
        for (a, b) in into.root_unstable.iter_mut().zip(from.root_unstable) {
            *a += b;
        }
        into.root_lp |= from.root_lp;
    }
}

/// `sum_r |c_ri|` per input `i`, where `c_r . x + d_r` is the linear lower
/// bound (by back-substitution through the part's relaxations) of atom
/// `r`'s left-hand side: the input's width times this is how much the
/// input's range lowers the atoms' bounds (bound sensitivity).
fn sensitivity(spec: &Spec, b: &NetworkBounds, rows: &[usize]) -> Vec<f64> {
    let l = output_linear_bounds(&spec.net, b, rows);
    (0..b.input.len())
        .map(|i| {
            rows.iter()
                .enumerate()
                .map(|(k, &r)| (l.low[[k, i]] + spec.atom(r).inputs[i]).abs())
                .sum()
        })
        .collect()
}

impl NetProblem<'_> {
    /// LP tightening and the MILP of one part (the disjuncts still open are
    /// kept in the part when it stalls).
    fn milp_stage(
        &self,
        part: &mut NetPart,
        root: bool,
        budget: Duration,
        st: &mut NetStats,
    ) -> Result<Leaf, MilpError> {
        let spec = &self.specs[part.case];
        let opts = self.opts;
        let mut bounds = NetworkBounds::clone(part.bounds.as_ref().expect("bounded first"));
        if opts.lp_tighten && bounds.unstable_count() > 0 {
            let t = Instant::now();
            bounds = crate::milp::lp_tighten(&spec.net, &bounds, &opts.solve)?;
            st.lp_s += t.elapsed().as_secs_f64();
            part.open = spec.unrefuted(&bounds, &part.open);
        }
        if root {
            st.root_unstable[2] += bounds.unstable_count();
            st.root_lp = true;
        }
        if part.open.is_empty() {
            return Ok(Leaf::Refuted);
        }
        Ok(
            match milp_box(spec, bounds, &part.open, &opts.solve, budget, &mut st.milp)? {
                BoxAnswer::Refuted => Leaf::Refuted,
                BoxAnswer::Point { input, .. } => Leaf::Candidate(input),
                BoxAnswer::Stalled(still) => {
                    part.open = still;
                    Leaf::Stalled
                }
            },
        )
    }
}
