//! Step-bounded probabilistic model checking on our [`Mdp`]: k rounds of max
//! or min over choices, restricted to the states that can still reach the
//! target; f64 or exact rationals. Also the step-dependent optimal scheduler
//! and the most likely witness path under it.

use super::mdp::Mdp;
use crate::lang::Rat;
use crate::report::meter::{Counting, Meter, MeterGuard};
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;
use num_traits::{One, Zero};

/// States of one value-iteration step between two looks at the clock.
const STATES_PER_CHECK: usize = 4096;

/// Numbers the value iteration runs on.
pub trait Prob: Clone + PartialOrd + Zero + One + Send + Sync {
    fn of(mdp: &Mdp, entry: usize) -> Self;
}

impl Prob for f64 {
    fn of(mdp: &Mdp, entry: usize) -> Self {
        mdp.probs[entry]
    }
}

impl Prob for Rat {
    fn of(mdp: &Mdp, entry: usize) -> Self {
        mdp.exact
            .as_ref()
            .expect("explored with exact probabilities")[entry]
            .clone()
    }
}

/// The states that are not targets, are allowed, and can reach a target
/// through allowed states (backward search over the CSR).
pub fn maybe_states(mdp: &Mdp, target: &[bool], allowed: &[bool]) -> Vec<bool> {
    let n = mdp.num_states();
    // Reverse edges: predecessor lists.
    let mut count = vec![0usize; n + 1];
    for s in 0..n {
        for c in mdp.choices(s) {
            for e in mdp.entries(c) {
                count[mdp.targets[e] as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let mut preds = vec![0u32; count[n]];
    for s in 0..n {
        for c in mdp.choices(s) {
            for e in mdp.entries(c) {
                let t = mdp.targets[e] as usize;
                preds[fill[t]] = s as u32;
                fill[t] += 1;
            }
        }
    }
    let mut reach = target.to_vec();
    let mut stack: Vec<usize> = (0..n).filter(|&s| target[s]).collect();
    while let Some(t) = stack.pop() {
        for &p in &preds[count[t]..count[t + 1]] {
            let p = p as usize;
            if !reach[p] && allowed[p] {
                reach[p] = true;
                stack.push(p);
            }
        }
    }
    (0..n).map(|s| reach[s] && !target[s]).collect()
}

/// Result of a bounded until.
#[derive(Clone, Debug)]
pub struct Bounded<T> {
    /// Value at every state with `steps` steps left.
    pub values: Vec<T>,
    /// `decisions[r-1][s]`: the optimal choice at s with r steps left (when recorded).
    pub decisions: Vec<Vec<u32>>,
    /// `history[r]`: values with r steps left (when recorded).
    pub history: Vec<Vec<T>>,
}

/// The best choice at each of `states` and its value, one Bellman step on `cur`.
fn bellman<T: Prob>(
    mdp: &Mdp,
    cur: &[T],
    states: &[usize],
    opt: Opt,
    deadline: Deadline,
) -> Result<Vec<(T, u32)>, Expired> {
    let mut out = Vec::with_capacity(states.len());
    for (i, &s) in states.iter().enumerate() {
        if i % STATES_PER_CHECK == STATES_PER_CHECK - 1 {
            deadline.check()?;
        }
        let mut best: Option<(T, usize)> = None;
        for c in mdp.choices(s) {
            let mut v = T::zero();
            for e in mdp.entries(c) {
                let x = &cur[mdp.targets[e] as usize];
                if !x.is_zero() {
                    v = v + T::of(mdp, e) * x.clone();
                }
            }
            let better = match &best {
                None => true,
                Some((b, _)) => match opt {
                    Opt::Max => v > *b,
                    Opt::Min => v < *b,
                },
            };
            if better {
                best = Some((v, c));
            }
        }
        let (v, c) = best.unwrap_or_else(|| (T::zero(), u32::MAX as usize));
        out.push((v, c as u32));
    }
    Ok(out)
}

/// Fewer states than this per thread are not worth a thread.
const STATES_PER_THREAD: usize = 1 << 15;

/// [`bellman`] over `states`, split among up to `threads` threads.
fn bellman_parallel<T: Prob>(
    mdp: &Mdp,
    cur: &[T],
    states: &[usize],
    opt: Opt,
    deadline: Deadline,
    threads: usize,
) -> Result<Vec<(T, u32)>, Expired> {
    let threads = threads.min(states.len() / STATES_PER_THREAD).max(1);
    if threads == 1 {
        return bellman(mdp, cur, states, opt, deadline);
    }
    let chunk = states.len().div_ceil(threads);
    let parts: Vec<Result<Vec<(T, u32)>, Expired>> = std::thread::scope(|scope| {
        let handles: Vec<_> = states
            .chunks(chunk)
            .map(|part| scope.spawn(move || bellman(mdp, cur, part, opt, deadline)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut out = Vec::with_capacity(states.len());
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// `P_opt[ allowed U<=steps target ]` for every state.
/// Gives up at `deadline`, checked at every step and every
/// [`STATES_PER_CHECK`] states within a step. Each step's states are split
/// among `threads` threads (`--threads`) when there are enough of them.
/// Each step adds the states it updated to `meter`.
#[allow(clippy::too_many_arguments)]
pub fn bounded_until<T: Prob>(
    mdp: &Mdp,
    target: &[bool],
    allowed: &[bool],
    steps: usize,
    opt: Opt,
    record: bool,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
    threads: usize,
) -> Result<Bounded<T>, Expired> {
    let n = mdp.num_states();
    let maybe = maybe_states(mdp, target, allowed);
    let active: Vec<usize> = (0..n).filter(|&s| maybe[s]).collect();
    let mut cur: Vec<T> = target
        .iter()
        .map(|&t| if t { T::one() } else { T::zero() })
        .collect();
    let mut next = cur.clone();
    let mut out = Bounded {
        values: Vec::new(),
        decisions: Vec::new(),
        history: Vec::new(),
    };
    if record {
        out.history.push(cur.clone());
    }
    for _ in 0..steps {
        deadline.check()?;
        let mut decision = if record {
            vec![u32::MAX; n]
        } else {
            Vec::new()
        };
        let best = bellman_parallel(mdp, &cur, &active, opt, deadline, threads)?;
        meter.add(active.len() as u64);
        for (&s, (v, c)) in active.iter().zip(best) {
            next[s] = v;
            if record {
                decision[s] = c;
            }
        }
        std::mem::swap(&mut cur, &mut next);
        if record {
            out.decisions.push(decision);
            out.history.push(cur.clone());
        }
    }
    out.values = cur;
    Ok(out)
}

/// `P_opt[ X phi ]` for every state.
pub fn next<T: Prob>(mdp: &Mdp, phi: &[bool], opt: Opt) -> Vec<T> {
    let values: Vec<T> = phi
        .iter()
        .map(|&t| if t { T::one() } else { T::zero() })
        .collect();
    one_step(mdp, &values, opt)
}

/// One Bellman step on a value vector.
pub fn one_step<T: Prob>(mdp: &Mdp, values: &[T], opt: Opt) -> Vec<T> {
    (0..mdp.num_states())
        .map(|s| {
            let vals = mdp.choices(s).map(|c| {
                mdp.entries(c).fold(T::zero(), |acc, e| {
                    acc + T::of(mdp, e) * values[mdp.targets[e] as usize].clone()
                })
            });
            fold_opt(vals, opt)
        })
        .collect()
}

/// The better of the best so far and `v` under `opt` (`v` when there is none).
pub(super) fn better<T: PartialOrd>(best: Option<T>, v: T, opt: Opt) -> T {
    match best {
        None => v,
        Some(b) => match opt {
            Opt::Max if v > b => v,
            Opt::Min if v < b => v,
            _ => b,
        },
    }
}

fn fold_opt<T: Prob>(vals: impl Iterator<Item = T>, opt: Opt) -> T {
    let mut best: Option<T> = None;
    for v in vals {
        best = Some(better(best, v, opt));
    }
    best.unwrap_or_else(T::zero)
}

/// Definition 16: the value of `G(starting -> X psi)` given `x` = the value
/// of `X psi` everywhere. Every concrete path passes `starting` exactly
/// once, so the value is the optimal expected `x` at the first `starting`
/// state (least fixed point: paths that never start count 0, which keeps
/// both bounds of an abstraction sound). Iterates until nothing changes;
/// `meter` ([`phase_meter`]) counts the rounds and the states they update.
pub fn until_starting(
    mdp: &Mdp,
    starting: &[bool],
    before: &[bool],
    x: &[f64],
    opt: Opt,
    (deadline, meter): (Deadline, &Meter),
) -> Result<Vec<f64>, Expired> {
    let n = mdp.num_states();
    let mut v: Vec<f64> = (0..n)
        .map(|s| if starting[s] { x[s] } else { 0.0 })
        .collect();
    let phase: Vec<usize> = (0..n).filter(|&s| before[s] && !starting[s]).collect();
    for _ in 0..100_000 {
        deadline.check().inspect_err(|_| meter.timed_out())?;
        let mut change: f64 = 0.0;
        let mut w = v.clone();
        for &s in &phase {
            let vals = mdp.choices(s).map(|c| {
                mdp.entries(c)
                    .map(|e| mdp.probs[e] * v[mdp.targets[e] as usize])
                    .sum::<f64>()
            });
            w[s] = fold_opt(vals, opt);
            change = change.max((w[s] - v[s]).abs());
        }
        meter.add(1);
        meter.add_level(phase.len() as u64);
        v = w;
        if change == 0.0 {
            break;
        }
    }
    Ok(v)
}

/// Exact variant for acyclic initialisation phases (concrete systems):
/// `rounds` Bellman steps suffice; `meter` ([`phase_meter`]) counts them
/// and the states they update.
pub fn until_starting_exact(
    mdp: &Mdp,
    starting: &[bool],
    before: &[bool],
    x: &[Rat],
    opt: Opt,
    rounds: usize,
    (deadline, meter): (Deadline, &Meter),
) -> Result<Vec<Rat>, Expired> {
    let n = mdp.num_states();
    let mut v: Vec<Rat> = (0..n)
        .map(|s| {
            if starting[s] {
                x[s].clone()
            } else {
                Rat::zero()
            }
        })
        .collect();
    let phase: Vec<usize> = (0..n).filter(|&s| before[s] && !starting[s]).collect();
    for _ in 0..rounds {
        deadline.check().inspect_err(|_| meter.timed_out())?;
        let mut w = v.clone();
        for &s in &phase {
            let vals = mdp.choices(s).map(|c| {
                mdp.entries(c).fold(Rat::zero(), |acc, e| {
                    acc + Rat::of(mdp, e) * v[mdp.targets[e] as usize].clone()
                })
            });
            w[s] = fold_opt(vals, opt);
        }
        meter.add(1);
        meter.add_level(phase.len() as u64);
        v = w;
    }
    Ok(v)
}

/// The meter of Definition 16's phase iteration inside the checking stage
/// `meter` counts: rounds (of `total`, when known: the exact iteration's),
/// and as its level the states they update; lines of its own under `-v`.
pub fn phase_meter(meter: &Meter, total: Option<usize>) -> MeterGuard {
    meter.nested(Counting {
        label: match total {
            Some(_) => "swarm: Definition 16's phase, exact".into(),
            None => "swarm: Definition 16's phase".into(),
        },
        unit: "rounds",
        level: Some("state updates"),
        total: total.map(|t| t as u64),
    })
}

/// One step of a witness path: the choice taken and the state reached.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub choice: usize,
    pub state: u32,
    pub prob: f64,
}

/// The most likely path from `init` to a target within `steps` steps under
/// the recorded step-dependent scheduler (Viterbi over the induced chain).
pub fn witness_path(
    mdp: &Mdp,
    run: &Bounded<f64>,
    target: &[bool],
    init: u32,
    steps: usize,
) -> Option<Vec<Step>> {
    let n = mdp.num_states();
    // best[r][s]: the largest probability of one path from s reaching a target within r steps.
    let mut best: Vec<Vec<f64>> = vec![target.iter().map(|&t| if t { 1.0 } else { 0.0 }).collect()];
    for r in 1..=steps {
        let prev = &best[r - 1];
        let dec = &run.decisions[r - 1];
        let layer: Vec<f64> = (0..n)
            .map(|s| {
                if target[s] {
                    return 1.0;
                }
                if dec[s] == u32::MAX {
                    return 0.0;
                }
                mdp.entries(dec[s] as usize)
                    .map(|e| mdp.probs[e] * prev[mdp.targets[e] as usize])
                    .fold(0.0, f64::max)
            })
            .collect();
        best.push(layer);
    }
    if best[steps][init as usize] == 0.0 {
        return None;
    }
    let mut path = Vec::new();
    let mut s = init as usize;
    let mut r = steps;
    while !target[s] {
        let c = run.decisions[r - 1][s] as usize;
        let (e, _) = mdp
            .entries(c)
            .map(|e| (e, mdp.probs[e] * best[r - 1][mdp.targets[e] as usize]))
            .fold((usize::MAX, -1.0), |a, b| if b.1 > a.1 { b } else { a });
        let t = mdp.targets[e];
        path.push(Step {
            choice: c,
            state: t,
            prob: mdp.probs[e],
        });
        s = t as usize;
        r -= 1;
    }
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::super::test_mdps::{mdp, r};
    use super::*;
    use crate::report::meter::Show;

    fn counted() -> MeterGuard {
        MeterGuard::start(
            Counting {
                label: "t".into(),
                unit: "rounds",
                level: Some("state updates"),
                total: None,
            },
            Some(Show::Bar),
        )
    }

    /// Definition 16's phase meter (issue 34) on the chain 0 -> 1 -> 2 ->
    /// 3, where 3 starts (X psi = 1/2 there) and 0, 1, 2 come before: the
    /// value 1/2 reaches 2, 1 and 0 in rounds 1 to 3 and round 4 changes
    /// nothing, so the f64 iteration counts 4 rounds of 3 state updates;
    /// the exact one, given 3 rounds, counts 3 of 3.
    #[test]
    fn the_phase_iteration_counts_its_rounds_and_updates() {
        let one = |t: u32| vec![vec![(t, r(1, 1))]];
        let m = mdp(&[one(1), one(2), one(3), one(3)], 0);
        let starting = [false, false, false, true];
        let before = [true, true, true, false];
        let g = counted();
        let x = [0.0, 0.0, 0.0, 0.5];
        let v = until_starting(
            &m,
            &starting,
            &before,
            &x,
            Opt::Max,
            (Deadline::NONE, &g.meter()),
        )
        .unwrap();
        assert_eq!(v, [0.5; 4]);
        assert_eq!(g.meter().read(), Some((4, 12)));
        let g = counted();
        let x = [r(0, 1), r(0, 1), r(0, 1), r(1, 2)];
        let at = (Deadline::NONE, &g.meter());
        let v = until_starting_exact(&m, &starting, &before, &x, Opt::Max, 3, at).unwrap();
        assert_eq!(v, vec![r(1, 2); 4]);
        assert_eq!(g.meter().read(), Some((3, 9)));
        assert!(!g.meter().was_cut());
        // A deadline already past: the meter says "timed out".
        let past = Deadline::after(std::time::Duration::ZERO);
        let at = (past, &g.meter());
        assert!(until_starting_exact(&m, &starting, &before, &x, Opt::Max, 3, at).is_err());
        assert!(g.meter().was_cut());
    }
}
