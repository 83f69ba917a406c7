//! Topological interval iteration: the maybe-states split into strongly
//! connected components ([`super::scc`]), solved one at a time in reverse
//! topological order, so each is iterated only until its own bounds meet,
//! with the bounds of every state it can leave to already final (Storm's
//! topological solver does the same; Baier, Klein, Leuschner, Parker and
//! Wunderlich, CAV 2017, for the interval iteration). A component of one
//! state without a self-loop is solved by one Bellman step of each bound.
//! Inside a component the sweeps are Gauss-Seidel: each uses the values of
//! the same sweep where it has them, which keeps a lower bound rising and an
//! upper one falling, so both stay sound.
//!
//! Rounding. The f64 model is not the exact one (1/6 is stored a little
//! below 1/6, so a row of sixths sums to less than 1) and each Bellman
//! value is rounded; on a component that mixes slowly a rounding of
//! 1e-16 per step adds up over the 10^4-10^5 steps a path stays, and an
//! upper iterate that is a fixed point in f64 ended up to 7e-12 relative
//! BELOW the exact value (found with random seeds: 25, 150, 223, 275, 340
//! of the proptests). So every computed Bellman value is moved outward by
//! a bound on its error ([`outward`], [`rounding_error`]) before it is
//! kept: an upper iterate then stays at or above the exact operator's
//! value of the exact model, and a lower one at or below (induction over
//! the sweeps: the exact operator is monotone and the value is its fixed
//! point). The bounds then meet only to within the rounding floor, about
//! `rounding_error` times the value times the expected time to leave a
//! component; where that is over the precision the interval reported is
//! that wider one (it is sound, and the report gives both bounds).
//!
//! Why the bounds meet: in a component whose exits have bound gaps of at
//! most W, the least fixed points of the lower and the upper iteration
//! differ by at most W (one scheduler's values differ only through the
//! exits, whose probabilities sum to at most 1; for a reward, the rewards
//! earned inside are the same on both sides), so a component is done when
//! its gaps are within W + eps; only the states read beyond it are
//! watched (those entered from other components, and the initial states),
//! since the others converge slower and matter to no one. Gaps add up
//! along a chain of components;
//! when the initial states' gap is still over the precision, another pass
//! with a tenth of eps continues from the bounds reached (they stay sound).
//! Each component is first given an optimistic phase (guessed bounds,
//! kept only when inductive: [`super::optimistic`], which also holds
//! `narrow`).

use super::graph::Mecs;
use super::mdp::Mdp;
use super::scc::{components, Components};

/// A bound on the relative error of a Bellman value computed in f64 on
/// `mdp`, against the exact value on the exact model: a choice of k
/// entries sums k products (each probability within half an ulp of the
/// exact one, each product and each addition rounded: at most (k + 2)
/// units of roundoff of the sum of the terms' magnitudes, the step reward
/// included; Higham, Accuracy and Stability, Section 3.1), and moving the
/// value outward rounds twice more; each unit is taken twice over. Every
/// term is non-negative (probabilities, values, rewards), so the terms'
/// magnitudes sum to the value.
pub(super) fn rounding_error(mdp: &Mdp) -> f64 {
    let widest = (0..mdp.num_choices())
        .map(|c| mdp.entries(c).len())
        .max()
        .unwrap_or(0);
    (widest as f64 + 4.0) * f64::EPSILON
}

/// A computed Bellman value `x` moved outward by its error bound `delta`
/// (relative): down for a lower bound (`up`: it rises), up for an upper
/// one. Infinite values stay.
pub(super) fn outward(x: f64, delta: f64, up: bool) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let e = x.abs() * delta;
    if up {
        x - e
    } else {
        x + e
    }
}

/// The Bellman operator a topological solver iterates.
pub(super) trait Bellman {
    fn mdp(&self) -> &Mdp;
    /// The relative error bound of its values ([`rounding_error`]).
    fn delta(&self) -> f64;
    /// The best choice of `s` under `v`: (value, choice).
    fn best(&self, s: usize, v: &[f64]) -> (f64, u32);
    /// The collapsed end components (every state of one takes the value of
    /// the best choice that leaves it).
    fn collapse(&self) -> Option<&Mecs>;
    /// The best value of a choice leaving end component `m`, under `v`.
    fn exit_value(&self, m: usize, v: &[f64]) -> f64;
}

/// The components of the maybe-states, with the end components inside each.
pub(super) struct Blocks {
    pub comps: Components,
    /// The component of every maybe-state (`u32::MAX` elsewhere).
    pub block_of: Vec<u32>,
    /// The states of every collapsed end component.
    members: Vec<Vec<u32>>,
    /// The states whose bounds are read beyond their component: the
    /// initial states and those entered from another component. A
    /// component is done when these are within their gap.
    watched: Vec<bool>,
}

impl Blocks {
    pub fn new(op: &dyn Bellman, maybe: &[bool]) -> Self {
        let mdp = op.mdp();
        let comps = components(mdp, maybe);
        let mut block_of = vec![u32::MAX; mdp.num_states()];
        for k in 0..comps.len() {
            for &s in comps.get(k) {
                block_of[s as usize] = k as u32;
            }
        }
        let mut members: Vec<Vec<u32>> = Vec::new();
        if let Some(m) = op.collapse() {
            members = vec![Vec::new(); m.exits.len()];
            for (s, &k) in m.mec.iter().enumerate() {
                if k != u32::MAX {
                    members[k as usize].push(s as u32);
                }
            }
        }
        let mut watched = vec![false; mdp.num_states()];
        mdp.initial.iter().for_each(|&i| watched[i as usize] = true);
        for s in (0..mdp.num_states()).filter(|&s| maybe[s]) {
            for c in mdp.choices(s) {
                for e in mdp.entries(c) {
                    let t = mdp.targets[e] as usize;
                    watched[t] |= block_of[t] != block_of[s];
                }
            }
        }
        Blocks {
            comps,
            block_of,
            members,
            watched,
        }
    }

    /// The end components inside component k (an end component is
    /// strongly connected, so it lies in one).
    pub fn mecs_of(&self, op: &dyn Bellman, k: usize) -> Vec<u32> {
        let Some(m) = op.collapse() else {
            return Vec::new();
        };
        let mut ids: Vec<u32> = self
            .comps
            .get(k)
            .iter()
            .map(|&s| m.mec[s as usize])
            .filter(|&id| id != u32::MAX)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The largest bound gap of a state outside component k that one of its
    /// states moves to (infinite gaps, of infinite values, left out).
    pub fn exit_gap(&self, mdp: &Mdp, k: usize, lo: &[f64], hi: &[f64]) -> f64 {
        let mut w: f64 = 0.0;
        for &s in self.comps.get(k) {
            for c in mdp.choices(s as usize) {
                for e in mdp.entries(c) {
                    let t = mdp.targets[e] as usize;
                    if self.block_of[t] != k as u32 && hi[t].is_finite() {
                        w = w.max(hi[t] - lo[t]);
                    }
                }
            }
        }
        w
    }
}

/// Keeps the better of `v[s]` and `x` moved outward by `delta`
/// ([`outward`]; `up`: the larger, for a lower bound); returns the
/// change, and whether `x` went against the direction (below `v[s]` for a
/// lower bound, above it for an upper one).
fn keep(v: &mut [f64], s: usize, x: f64, (delta, up): (f64, bool)) -> (f64, bool) {
    let x = outward(x, delta, up);
    let old = v[s];
    v[s] = if up { old.max(x) } else { old.min(x) };
    let against = if up { x < old } else { x > old };
    if v[s] == old {
        (0.0, against)
    } else {
        ((v[s] - old).abs(), against)
    }
}

/// What one sweep did.
#[derive(Clone, Copy, Debug)]
pub(super) struct Swept {
    /// The largest change.
    pub change: f64,
    /// Whether some Bellman value went against the sweep's direction; an
    /// upper sweep with none has made `v` inductive on the states swept
    /// (a Bellman step from it stays at or below it: each state was set to
    /// its Bellman value, and the states swept after it only fell).
    pub against: bool,
}

/// One Gauss-Seidel sweep of `v` over `states` (the states of collapsed end
/// components `mecs` take their best exit's value); the largest change.
pub(super) fn sweep(
    op: &dyn Bellman,
    blocks: &Blocks,
    states: &[u32],
    mecs: &[u32],
    v: &mut [f64],
    up: bool,
) -> f64 {
    sweep_checked(op, blocks, states, mecs, v, up).change
}

/// [`sweep`], saying whether a Bellman value went against the direction.
pub(super) fn sweep_checked(
    op: &dyn Bellman,
    blocks: &Blocks,
    states: &[u32],
    mecs: &[u32],
    v: &mut [f64],
    up: bool,
) -> Swept {
    let mut out = Swept {
        change: 0.0,
        against: false,
    };
    let mut add = |(change, against): (f64, bool)| {
        out.change = out.change.max(change);
        out.against |= against;
    };
    let in_mec = |s: usize| op.collapse().is_some_and(|m| m.mec[s] != u32::MAX);
    for &s in states {
        let s = s as usize;
        if !in_mec(s) {
            add(keep(v, s, op.best(s, v).0, (op.delta(), up)));
        }
    }
    for &m in mecs {
        let x = op.exit_value(m as usize, v);
        for &s in &blocks.members[m as usize] {
            add(keep(v, s as usize, x, (op.delta(), up)));
        }
    }
    out
}

/// The largest bound gap over the watched `states`.
pub(super) fn gap(blocks: &Blocks, states: &[u32], lo: &[f64], hi: &[f64]) -> f64 {
    states
        .iter()
        .filter(|&&s| blocks.watched[s as usize])
        .map(|&s| hi[s as usize] - lo[s as usize])
        .fold(0.0, f64::max)
}

/// One Bellman step of both bounds of the single state of a trivial
/// component; returns its best choice under the upper bound.
pub(super) fn step_trivial(op: &dyn Bellman, s: usize, lo: &mut [f64], hi: &mut [f64]) -> u32 {
    let l = op.best(s, lo).0;
    keep(lo, s, l, (op.delta(), true));
    let (h, c) = op.best(s, hi);
    keep(hi, s, h, (op.delta(), false));
    c
}

/// The largest gap at the initial states (NaN, of infinite values, left out).
pub(super) fn initial_gap(mdp: &Mdp, lo: &[f64], hi: &[f64]) -> f64 {
    mdp.initial
        .iter()
        .map(|&i| hi[i as usize] - lo[i as usize])
        .filter(|w| !w.is_nan())
        .fold(0.0, f64::max)
}
