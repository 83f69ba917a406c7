//! The plain interval iteration the topological solvers replaced, kept as
//! the second decider of the tests (`topological_tests.rs`): every sweep
//! goes over all the maybe-states, in one block, until the initial states'
//! bounds meet. The same graph preprocessing, collapse and upper-bound
//! search, so a difference points at the decomposition into components.

use super::graph::{mecs, zero_one, Mecs, Preds};
use super::mdp::Mdp;
use super::reward_reach::{RewardInterval, Setup};
use super::topological::{outward, rounding_error};
use super::unbounded::{best, choice_value, Interval};
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;

/// States between two looks at the clock.
const STATES_PER_CHECK: usize = 4096;

/// The smallest change of a lower-bound sweep waited for before guessing
/// (as the topological solver's).
const THRESHOLD_FLOOR: f64 = 1e-13;

/// Interval iteration until the bounds at the initial states are within
/// `precision` of each other (Gauss-Seidel: each sweep uses the values of
/// the same sweep where it has them, which keeps both iterates monotone).
pub fn plain_interval_iteration(
    mdp: &Mdp,
    target: &[bool],
    allowed: &[bool],
    opt: Opt,
    precision: f64,
    deadline: Deadline,
) -> Result<Interval, Expired> {
    let n = mdp.num_states();
    let preds = Preds::new(mdp);
    let zo = zero_one(mdp, &preds, target, allowed, opt);
    let one = |s: usize| target[s] || zo.one[s];
    let fixed: Vec<bool> = (0..n).map(|s| one(s) || zo.zero[s]).collect();
    let mut lo: Vec<f64> = (0..n).map(|s| if one(s) { 1.0 } else { 0.0 }).collect();
    let mut hi: Vec<f64> = (0..n).map(|s| if zo.zero[s] { 0.0 } else { 1.0 }).collect();
    let maybe: Vec<usize> = (0..n).filter(|&s| !fixed[s]).collect();
    let collapse = match opt {
        Opt::Max => Some(mecs(mdp, &(0..n).map(|s| !fixed[s]).collect::<Vec<_>>())),
        Opt::Min => None,
    };
    let mut iterations = 0;
    // Each computed value moved outward by its rounding error, as the
    // topological solver's (`topological.rs`, Rounding).
    let delta = rounding_error(mdp);
    while mdp
        .initial
        .iter()
        .any(|&i| hi[i as usize] - lo[i as usize] > precision)
    {
        deadline.check()?;
        iterations += 1;
        let mut moved = false;
        for (k, &s) in maybe.iter().enumerate() {
            if k % STATES_PER_CHECK == STATES_PER_CHECK - 1 {
                deadline.check()?;
            }
            let (l, h) = (lo[s], hi[s]);
            lo[s] = l.max(outward(best(mdp, s, &lo, opt).0, delta, true));
            if collapse.as_ref().is_none_or(|m| m.mec[s] == u32::MAX) {
                hi[s] = h.min(outward(best(mdp, s, &hi, opt).0, delta, false));
            }
            moved |= lo[s] != l || hi[s] != h;
        }
        if let Some(m) = &collapse {
            moved |= collapsed_upper(mdp, m, &mut hi, delta);
        }
        // The rounding floor: the bounds meet no closer.
        if !moved {
            break;
        }
    }
    let mut scheduler = vec![u32::MAX; n];
    for &s in &maybe {
        scheduler[s] = best(mdp, s, &lo, opt).1;
    }
    Ok(Interval {
        lo,
        hi,
        iterations,
        fixed,
        scheduler,
    })
}

/// The upper iterate on the collapsed end components: every state of a
/// component gets the best value of a choice that leaves it. Returns
/// whether one fell.
fn collapsed_upper(mdp: &Mdp, m: &Mecs, hi: &mut [f64], delta: f64) -> bool {
    let values: Vec<f64> = m
        .exits
        .iter()
        .map(|exits| {
            exits
                .iter()
                .map(|&c| choice_value(mdp, c as usize, hi))
                .fold(0.0, f64::max)
        })
        .map(|x| outward(x, delta, false))
        .collect();
    let mut fell = false;
    for (s, &k) in m.mec.iter().enumerate() {
        if k != u32::MAX && values[k as usize] < hi[s] {
            hi[s] = values[k as usize];
            fell = true;
        }
    }
    fell
}

/// The plain sweeps of the reward iteration.
impl Setup<'_> {
    fn in_mec(&self, s: usize) -> bool {
        self.collapse.as_ref().is_some_and(|m| m.mec[s] != u32::MAX)
    }

    /// One Gauss-Seidel sweep of `v` towards the value, keeping the better
    /// of old and new (`up`: a lower iterate rises, an upper one falls);
    /// returns the largest change. The states go in the reverse of their
    /// exploration order: values flow backwards from the targets, which
    /// breadth-first exploration numbers late, so one sweep carries them
    /// along every path that follows the numbering.
    fn sweep(&self, v: &mut [f64], up: bool, deadline: Deadline) -> Result<f64, Expired> {
        let mut change: f64 = 0.0;
        for (k, &s) in self.maybe.iter().rev().enumerate() {
            if k % 4096 == 4095 {
                deadline.check()?;
            }
            if !self.in_mec(s) {
                change = change.max(self.keep(v, s, self.best(s, v).0, up));
            }
        }
        if let Some(m) = &self.collapse {
            let values: Vec<f64> = m
                .exits
                .iter()
                .map(|ex| {
                    let usable = ex.iter().map(|&c| c as usize).filter(|&c| self.usable[c]);
                    self.best_of(usable, v).0
                })
                .collect();
            for &s in &self.maybe {
                if m.mec[s] != u32::MAX {
                    change = change.max(self.keep(v, s, values[m.mec[s] as usize], up));
                }
            }
        }
        Ok(change)
    }

    fn keep(&self, v: &mut [f64], s: usize, x: f64, up: bool) -> f64 {
        let x = outward(x, self.delta, up);
        let old = v[s];
        v[s] = if up { old.max(x) } else { old.min(x) };
        (v[s] - old).abs()
    }
}

/// Interval iteration for `R_opt[ F target ]` with the per-choice step
/// rewards `step`, until the bounds at the initial states are within
/// `precision`.
pub fn plain_reward_interval(
    mdp: &Mdp,
    step: &[f64],
    target: &[bool],
    opt: Opt,
    precision: f64,
    deadline: Deadline,
) -> Result<RewardInterval, Expired> {
    let st = Setup::new(mdp, step, target, opt);
    let n = mdp.num_states();
    let init = |s: usize| if st.infinite[s] { f64::INFINITY } else { 0.0 };
    let mut lo: Vec<f64> = (0..n).map(init).collect();
    let mut iterations = 0;
    // As the topological solver's `find_upper`: the threshold falls to a
    // floor, then the guess's margin grows. Without the floor the threshold
    // fell to 0 once the lower iterate had stopped moving in f64, and a
    // guess from that iterate whose zero-reward choices meet it with no
    // slack fails by one rounding forever (a loop without end, found with a
    // random proptest seed; `plain_upper_search_ends_on_tight_zero_rewards`).
    let (mut threshold, mut margin) = (1e-3_f64, 1e-3_f64);
    let (mut hi, mut scheduler) = loop {
        iterations += 1;
        let change = st.sweep(&mut lo, true, deadline)?;
        if change > threshold {
            continue;
        }
        if let Some(found) = guess_upper(&st, &lo, margin, iterations, deadline)? {
            break found;
        }
        if threshold > THRESHOLD_FLOOR {
            threshold /= 10.0;
            margin = threshold;
        } else {
            margin *= 10.0;
        }
    };
    let width = |lo: &[f64], hi: &[f64]| {
        mdp.initial
            .iter()
            .map(|&i| hi[i as usize] - lo[i as usize])
            .filter(|w| !w.is_nan())
            .fold(0.0, f64::max)
    };
    // Until the precision, or the rounding floor (a sweep changes nothing).
    while width(&lo, &hi) > precision {
        iterations += 1;
        let up = st.sweep(&mut lo, true, deadline)?;
        let down = st.sweep(&mut hi, false, deadline)?;
        if up == 0.0 && down == 0.0 {
            break;
        }
    }
    if let Some(s) = inductive(&st, &hi) {
        scheduler = s;
    }
    Ok(RewardInterval {
        lo,
        hi,
        infinite: st.infinite,
        iterations,
        scheduler,
    })
}

/// An inductive upper bound and the proper scheduler that attains it.
type Upper = (Vec<f64>, Vec<u32>);

/// Guesses an upper bound a little above `lo` and iterates it down for up
/// to `rounds` sweeps, until it is inductive with a proper scheduler.
fn guess_upper(
    st: &Setup,
    lo: &[f64],
    eps: f64,
    rounds: usize,
    deadline: Deadline,
) -> Result<Option<Upper>, Expired> {
    let mut u: Vec<f64> = lo.iter().map(|&x| x + (x.abs() + 1.0) * eps).collect();
    for (s, x) in u.iter_mut().enumerate() {
        if st.target[s] {
            *x = 0.0;
        }
    }
    for _ in 0..rounds.max(8) {
        deadline.check()?;
        if let Some(sched) = inductive(st, &u) {
            return Ok(Some((u, sched)));
        }
        let next: Vec<f64> = (0..u.len())
            .map(|s| {
                if st.target[s] || st.infinite[s] {
                    u[s]
                } else {
                    st.best(s, &u).0
                }
            })
            .collect();
        u = next;
    }
    Ok(None)
}

/// Whether `u` is an inductive upper bound: a proper scheduler whose one
/// step from `u` stays at or below `u` everywhere (Rmax: every usable
/// choice must). Returns that scheduler.
fn inductive(st: &Setup, u: &[f64]) -> Option<Vec<u32>> {
    let mdp = st.mdp;
    let n = mdp.num_states();
    let ok = |c: usize, s: usize| st.within(c, s, u);
    if st.opt == Opt::Max {
        let all_ok = st
            .maybe
            .iter()
            .all(|&s| mdp.choices(s).all(|c| ok(c, s) || !st.usable[c]));
        if !all_ok {
            return None;
        }
        let mut sched = vec![u32::MAX; n];
        for &s in &st.maybe {
            sched[s] = st.best(s, u).1;
        }
        return Some(sched);
    }
    // Rmin: states join backwards from the target by a choice that is
    // within the bound and enters the states already joined.
    let mut joined: Vec<bool> = st.target.to_vec();
    let mut sched = vec![u32::MAX; n];
    let mut left = st.maybe.len();
    let mut changed = true;
    while changed && left > 0 {
        changed = false;
        for &s in &st.maybe {
            if joined[s] {
                continue;
            }
            let enter = mdp
                .choices(s)
                .find(|&c| ok(c, s) && mdp.entries(c).any(|e| joined[mdp.targets[e] as usize]));
            if let Some(c) = enter {
                joined[s] = true;
                sched[s] = c as u32;
                left -= 1;
                changed = true;
            }
        }
    }
    (left == 0).then_some(sched)
}
