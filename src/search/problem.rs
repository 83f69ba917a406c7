//! What the driver searches: a problem over a box of real inputs, cut into
//! parts, each decided by bounds, by a leaf decision, or split further.

use super::split::SplitRule;
use crate::nn::InputBox;
use std::time::Duration;

/// What bounds said about a part.
#[derive(Clone, Debug, PartialEq)]
pub enum Bounded {
    /// No input of the part is a counterexample.
    Refuted,
    /// Still open; `unstable` measures how far the bounds are from exact
    /// (for a network: its unstable ReLUs over the part). The driver sends
    /// a part to the leaf decision once it is at most
    /// [`super::SearchOptions::leaf_unstable`], and counts an input split
    /// that does not lower it as a stall.
    Open { unstable: usize },
}

/// What the leaf decision (a small MILP) said about a part.
#[derive(Clone, Debug, PartialEq)]
pub enum Leaf {
    Refuted,
    /// A candidate input, not yet replayed (the driver replays it).
    Candidate(Vec<f64>),
    /// The budget ran out (or the decision cannot answer): split further.
    Stalled,
}

/// Where a counterexample was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A sampled point (corner, centre, low-discrepancy or random).
    Sampling,
    /// The local search (pattern search or gradient steps) from the best samples.
    LocalSearch,
    /// The leaf decision's candidate.
    Milp,
}

/// What falsification scores: the concrete (f64) run's distance from a
/// violation at a point of a root's box. The sampler of [`super::falsify()`]
/// needs only this, so a decider may falsify without being a whole
/// [`Problem`] (the NIS deciders falsify before their MILPs).
pub trait Objective: Sync {
    /// The concrete run's distance from a violation at `x` (in the root
    /// `root`'s box): `<= 0` exactly when `x` is a counterexample (no
    /// tolerance: the f64 semantics is the judge).
    fn excess(&self, root: usize, x: &[f64]) -> f64;

    /// [`Objective::excess`] at many points (a problem may batch them).
    fn excess_batch(&self, root: usize, points: &[Vec<f64>]) -> Vec<f64> {
        points.iter().map(|x| self.excess(root, x)).collect()
    }

    /// A direction in which the excess decreases at `x` (its gradient,
    /// where the run is differentiable); `None` when the problem has none.
    fn gradient(&self, _root: usize, _x: &[f64]) -> Option<Vec<f64>> {
        None
    }
}

/// A problem over a box of inputs: is there an input in the box whose
/// concrete (f64) run violates the property? Parts are sub-problems: a
/// sub-box, and whatever else narrows them (for a network, ReLU phases;
/// for an unrolled system, the branch taken). Every method is called from
/// worker threads, on distinct parts.
pub trait Problem: Objective {
    /// A sub-problem, with what it inherits from its parent (bounds).
    type Part: Send;
    /// A counterexample, replayed.
    type Witness: Send;
    /// The problem's own counters (MILP sizes, LP time, ...), merged in order.
    type Stats: Default + Send;

    /// The parts the search starts from (for VNN-LIB, one per input box).
    fn roots(&self) -> Vec<Self::Part>;

    /// The box of a part's inputs.
    fn region<'a>(&self, part: &'a Self::Part) -> &'a InputBox;

    /// The root index a part descends from.
    fn root_of(&self, part: &Self::Part) -> usize;

    /// `x` replayed exactly through the concrete semantics: a witness when
    /// it is a counterexample (within the problem's tolerance for `Milp`
    /// points, exactly for the others).
    fn replay(&self, part: &Self::Part, x: Vec<f64>, source: Source) -> Option<Self::Witness>;

    /// Bounds over the part (stored in it for its leaf and its children).
    /// `root` is true for the parts [`Problem::roots`] made.
    fn bound(&self, part: &mut Self::Part, root: bool, stats: &mut Self::Stats) -> Bounded;

    /// The leaf decision on a bounded part, within `budget`.
    fn leaf(
        &self,
        part: &mut Self::Part,
        root: bool,
        budget: Duration,
        stats: &mut Self::Stats,
    ) -> Leaf;

    /// How much each input moves the open conditions over the part, as
    /// `rule` measures it (the split picks the largest score times width);
    /// empty: no preference.
    fn influence(&self, _part: &Self::Part, _rule: SplitRule) -> Vec<f64> {
        Vec::new()
    }

    /// The part restricted to `region` (a sub-box of its own), inheriting
    /// its bounds.
    fn restrict(&self, part: &Self::Part, region: InputBox) -> Self::Part;

    /// Two parts whose union is the part, by a case split other than the
    /// input box (for a network: one unstable ReLU active, then inactive);
    /// `None` when there is none left.
    fn branch(&self, _part: &Self::Part) -> Option<[Self::Part; 2]> {
        None
    }

    /// Adds a worker's counters to the run's.
    fn merge(&self, into: &mut Self::Stats, from: Self::Stats);
}
