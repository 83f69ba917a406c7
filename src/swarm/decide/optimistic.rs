//! The optimistic phase of a component's iteration (optimistic value
//! iteration: Hartmanns and Kaminski, CAV 2020, with both bounds guessed):
//! the lower bound alone is raised until a sweep changes it by little; the
//! fixed point is then estimated by extrapolating each state's last change
//! geometrically (the ratio of the last two sweeps' largest changes), and
//! bounds a margin below and above the estimate are guessed, each
//! accepted only once it is inductive; on failure the lower bound goes on
//! with a smaller threshold. Interval iteration
//! ([`narrow`], below) finishes whatever is left.
//!
//! Why an inductive guess is sound. Let the component's operator B read
//! the states it leaves to at their bounds (upper bounds for the upper
//! guess, lower for the lower one; both already sound), and let v be the
//! true values. Through the graph preprocessing and the collapse of end
//! components (Pmax's maximal end components, Rmin's zero-reward ones), no
//! end component is left among the component's states under B in which a
//! scheduler could stay at no cost (Baier et al., CAV 2017, Lemma 3 for
//! reachability; Bertsekas and Tsitsiklis 1991 for a stochastic shortest
//! path whose improper schedulers earn infinity), so B has one fixed point
//! and its iterates reach it from every start. Upper: if B(u) <= u, then
//! the iterates B^j(u) fall towards the fixed point, which is at least v
//! since the exits are read at or above their values; so u >= v (a reward
//! also asks for a proper scheduler attaining u, [`super::reward_reach`]).
//! Lower, symmetrically: B(l) >= l gives l <= B^j(l), which tends to a
//! fixed point at most v. A Gauss-Seidel sweep in which no Bellman value
//! went against the sweep's direction leaves such a u or l
//! ([`super::topological::Swept`]); later sweeps keep them sound (B is
//! monotone and v its fixed point).
//!
//! Why it is fast where interval iteration is slow: on the swarm's large
//! components the upper iterate, started at 1, falls by little per sweep
//! (a scheduler can delay by moving the other robots), and the lower one
//! approaches its limit geometrically, one slow mode dominating (an
//! expected time of 200 steps): a guess verified by a few sweeps skips the
//! upper descent, and the extrapolation skips most of the lower approach.

use super::topological::{gap, sweep, sweep_checked, Bellman, Blocks};
use crate::report::{Deadline, Expired};

/// The sweeps a guess gets to become inductive.
const VERIFY_ROUNDS: usize = 6;

/// The first threshold a lower-bound sweep's change must fall under before
/// a guess, and the last, as multiples of the margin: guesses start early
/// (the extrapolation reaches far past the lower bound), and the phase
/// gives up where guessing from a lower bound so close has failed (a
/// component mixing too slowly for its estimate; interval iteration then
/// takes over).
const FIRST_THRESHOLD: f64 = 1e2;
const LAST_THRESHOLD: f64 = 1e-3;

/// A convergence ratio above which no extrapolation is tried (the estimate
/// would be all noise).
const RATIO_CAP: f64 = 0.9999;

/// An extra condition on an inductive upper bound (the reward solver's
/// proper scheduler); `u` is the whole vector of bounds.
pub(super) type Accept<'a> = &'a mut dyn FnMut(&[f64]) -> bool;

/// The component's states and end components, and the bounds it leaves to.
struct Part<'a> {
    op: &'a dyn Bellman,
    blocks: &'a Blocks,
    states: &'a [u32],
    mecs: Vec<u32>,
}

impl Part<'_> {
    fn sweep(&self, v: &mut [f64], up: bool) -> f64 {
        sweep(self.op, self.blocks, self.states, &self.mecs, v, up)
    }

    fn values(&self, v: &[f64]) -> Vec<f64> {
        self.states.iter().map(|&s| v[s as usize]).collect()
    }

    fn restore(&self, v: &mut [f64], saved: &[f64]) {
        for (&s, &x) in self.states.iter().zip(saved) {
            v[s as usize] = x;
        }
    }

    /// Up to [`VERIFY_ROUNDS`] sweeps of `v` towards the fixed point until
    /// one goes nowhere against its direction (and, for an upper bound,
    /// `accept` agrees): whether one did, and the sweeps taken.
    fn verify(
        &self,
        v: &mut [f64],
        up: bool,
        accept: &mut Accept,
        deadline: Deadline,
    ) -> Result<(bool, usize), Expired> {
        for round in 1..=VERIFY_ROUNDS {
            deadline.check()?;
            let swept = sweep_checked(self.op, self.blocks, self.states, &self.mecs, v, up);
            if !swept.against && (up || accept(v)) {
                return Ok((true, round));
            }
        }
        Ok((false, VERIFY_ROUNDS))
    }

    /// Guesses `v` on the component at `guess` (kept only where it improves
    /// on `v`: `up` for a lower bound), and keeps it if it verifies, else
    /// puts `v` back. Returns whether it was kept, and the sweeps taken.
    fn try_guess(
        &self,
        v: &mut [f64],
        guess: impl Iterator<Item = f64>,
        up: bool,
        accept: &mut Accept,
        deadline: Deadline,
    ) -> Result<(bool, usize), Expired> {
        let saved = self.values(v);
        for ((&s, &x), g) in self.states.iter().zip(&saved).zip(guess) {
            v[s as usize] = if up { x.max(g) } else { x.min(g) };
        }
        let (kept, sweeps) = self.verify(v, up, accept, deadline)?;
        if !kept {
            self.restore(v, &saved);
        }
        Ok((kept, sweeps))
    }
}

/// The optimistic phase on component k: returns the sweeps taken, with
/// `hi` (and `lo`) on the component moved to inductive guesses within
/// `margin` of the estimate (plus the exits' gap `exits`) when they were
/// found, and the bounds left sound whatever happens.
pub(super) fn optimistic(
    op: &dyn Bellman,
    blocks: &Blocks,
    k: usize,
    (lo, hi): (&mut [f64], &mut [f64]),
    (exits, margin): (f64, f64),
    mut accept: Accept,
    deadline: Deadline,
) -> Result<usize, Expired> {
    let part = Part {
        op,
        blocks,
        states: blocks.comps.get(k),
        mecs: blocks.mecs_of(op, k),
    };
    let (mut threshold, mut last) = (FIRST_THRESHOLD * margin, f64::INFINITY);
    let mut sweeps = 0;
    loop {
        deadline.check()?;
        sweeps += 1;
        let before = part.values(lo);
        let change = part.sweep(lo, true);
        let ratio = change / last;
        last = change;
        if change > threshold {
            continue;
        }
        // The remaining approach of a geometric sequence of this ratio.
        let grow = if ratio < RATIO_CAP {
            ratio / (1.0 - ratio)
        } else {
            0.0
        };
        let estimate: Vec<f64> = part
            .states
            .iter()
            .zip(&before)
            .map(|(&s, &b)| lo[s as usize] + (lo[s as usize] - b) * grow)
            .collect();
        let guess = estimate.iter().map(|x| x + exits + margin);
        let (upper, taken) = part.try_guess(hi, guess, false, &mut accept, deadline)?;
        sweeps += taken;
        if upper && grow == 0.0 {
            return Ok(sweeps);
        }
        if upper {
            let guess = estimate.iter().map(|x| x - margin);
            let (lower, taken) = part.try_guess(lo, guess, true, &mut accept, deadline)?;
            sweeps += taken;
            if lower {
                return Ok(sweeps);
            }
        }
        if change == 0.0 || threshold <= LAST_THRESHOLD * margin {
            return Ok(sweeps);
        }
        threshold /= 10.0;
    }
}

/// Brings component k's watched states within its exits' gap plus `eps`:
/// the optimistic phase first ([`optimistic`], its guesses also
/// subject to `accept`), then both bounds iterated until they are, or a
/// sweep changes neither (the rounding floor). Each sweep adds the states
/// it updated to `meter`. Returns the sweeps taken.
#[allow(clippy::too_many_arguments)]
pub(super) fn narrow(
    op: &dyn Bellman,
    blocks: &Blocks,
    k: usize,
    lo: &mut [f64],
    hi: &mut [f64],
    eps: f64,
    accept: Accept,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<usize, Expired> {
    let states = blocks.comps.get(k);
    let mecs = blocks.mecs_of(op, k);
    let exits = blocks.exit_gap(op.mdp(), k, lo, hi);
    let enough = exits + eps;
    let mut sweeps = 0;
    if gap(blocks, states, lo, hi) > enough {
        // Each guess a little under eps/2 from the estimate, so that the
        // two together, rounding included, leave the gap within eps.
        let margin = 0.4375 * eps;
        sweeps += optimistic(op, blocks, k, (lo, hi), (exits, margin), accept, deadline)?;
        // Each of its sweeps updates one bound of the component's states.
        meter.add((sweeps * states.len()) as u64);
    }
    while gap(blocks, states, lo, hi) > enough {
        deadline.check()?;
        sweeps += 1;
        meter.add(2 * states.len() as u64);
        let up = sweep(op, blocks, states, &mecs, lo, true);
        let down = sweep(op, blocks, states, &mecs, hi, false);
        if up == 0.0 && down == 0.0 {
            break;
        }
    }
    Ok(sweeps)
}
