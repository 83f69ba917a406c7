//! A reward structure on an explored [`Mdp`], and the step-bounded reward
//! properties over it (PRISM's and Storm's conventions for MDPs): `C<=k`,
//! the expected reward earned in the first k steps, each step earning the
//! state reward of the state it leaves and the action reward of the action
//! it takes; `I=k`, the expected state reward of the state at step k. Both
//! are k rounds of value iteration, in f64 or exactly.

use super::bounded::Prob;
use super::mdp::Mdp;
use crate::lang::{num, Rat};
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;
use num_traits::Zero;

/// One reward structure's values: per state (state rewards) and per choice
/// (action rewards), in f64 and, when explored exactly, as rationals.
#[derive(Clone, Debug)]
pub struct RewardVectors {
    pub state: Vec<f64>,
    pub action: Vec<f64>,
    pub exact: Option<(Vec<Rat>, Vec<Rat>)>,
}

/// A reward property's values at the initial states: f64, exact (when
/// asked and finite), the certified interval (`F`), and for `F` the
/// sweeps and (exact) the schedulers policy iteration evaluated.
#[derive(Clone, Debug)]
pub struct RewardValues {
    pub f64s: Vec<f64>,
    pub exact: Option<Vec<Rat>>,
    pub bounds: Option<Vec<(f64, f64)>>,
    pub iterations: Option<usize>,
    pub schedulers: Option<usize>,
}

impl RewardVectors {
    /// The reward a step earns taking choice `c` of state `s`, in f64.
    pub fn step_f64(&self, s: usize, c: usize) -> f64 {
        self.state[s] + self.action[c]
    }

    /// Per choice, the reward of a step taking it (state reward of its
    /// state plus its action reward), as numbers of type `T`.
    pub fn per_choice<T: RewardNum>(&self, mdp: &Mdp) -> Vec<T> {
        let mut out = Vec::with_capacity(mdp.num_choices());
        for s in 0..mdp.num_states() {
            for c in mdp.choices(s) {
                out.push(T::state(self, s) + T::action(self, c));
            }
        }
        out
    }
}

/// The numbers reward iteration runs on: f64, or rationals when exact.
pub trait RewardNum: Prob + std::ops::Add<Output = Self> {
    fn state(r: &RewardVectors, s: usize) -> Self;
    fn action(r: &RewardVectors, c: usize) -> Self;
}

impl RewardNum for f64 {
    fn state(r: &RewardVectors, s: usize) -> Self {
        r.state[s]
    }
    fn action(r: &RewardVectors, c: usize) -> Self {
        r.action[c]
    }
}

impl RewardNum for Rat {
    fn state(r: &RewardVectors, s: usize) -> Self {
        r.exact.as_ref().expect("evaluated exactly").0[s].clone()
    }
    fn action(r: &RewardVectors, c: usize) -> Self {
        r.exact.as_ref().expect("evaluated exactly").1[c].clone()
    }
}

/// The step-bounded reward properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounded {
    /// `C<=k`: the expected reward of the first k steps.
    Cumulative,
    /// `I=k`: the expected state reward of the state at step k.
    Instant,
}

/// The optimal value of `C<=k` or `I=k` at every state: k rounds of
/// [`bellman`], from 0 with each choice's step reward (`C`), or from the
/// state rewards with none (`I`).
pub fn step_bounded<T: RewardNum>(
    mdp: &Mdp,
    r: &RewardVectors,
    kind: Bounded,
    k: usize,
    opt: Opt,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<Vec<T>, Expired> {
    let (mut v, step) = match kind {
        Bounded::Cumulative => (
            vec![T::zero(); mdp.num_states()],
            Some(r.per_choice::<T>(mdp)),
        ),
        Bounded::Instant => (
            (0..mdp.num_states()).map(|s| T::state(r, s)).collect(),
            None,
        ),
    };
    for _ in 0..k {
        deadline.check()?;
        v = bellman(mdp, &v, step.as_deref(), opt);
        meter.add(v.len() as u64);
    }
    Ok(v)
}

/// One round: per state, the best choice's step reward (if any) plus the
/// expected value of `v` after it.
fn bellman<T: RewardNum>(mdp: &Mdp, v: &[T], step: Option<&[T]>, opt: Opt) -> Vec<T> {
    (0..mdp.num_states())
        .map(|s| {
            let mut best: Option<T> = None;
            for c in mdp.choices(s) {
                let mut x = step.map_or_else(T::zero, |r| r[c].clone());
                for e in mdp.entries(c) {
                    x = x + T::of(mdp, e) * v[mdp.targets[e] as usize].clone();
                }
                let better = match (&best, opt) {
                    (None, _) => true,
                    (Some(b), Opt::Max) => x > *b,
                    (Some(b), Opt::Min) => x < *b,
                };
                if better {
                    best = Some(x);
                }
            }
            best.unwrap_or_else(T::zero)
        })
        .collect()
}

/// The values of reward property `prop` (its path `F`, `C<=k` or `I=k`)
/// at the initial states.
pub fn reward_values(
    mdp: &Mdp,
    prop: &crate::swarm::front::props::Property,
    r: &RewardVectors,
    truth: &[Vec<bool>],
    exact: bool,
    precision: f64,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<RewardValues, Expired> {
    use crate::swarm::front::props::Path;
    let (k, kind) = match &prop.path {
        Path::Cumulative { steps } => (*steps, Bounded::Cumulative),
        Path::Instant { steps } => (*steps, Bounded::Instant),
        _ => {
            return reach_values(
                mdp,
                prop.opt,
                r,
                &truth[0],
                exact,
                precision,
                (deadline, meter),
            )
        }
    };
    let at = |v: &[f64]| mdp.initial.iter().map(|&i| v[i as usize]).collect();
    let at_exact = |v: Vec<Rat>| mdp.initial.iter().map(|&i| v[i as usize].clone()).collect();
    let f64s = at(&step_bounded::<f64>(
        mdp,
        r,
        kind,
        k,
        prop.opt,
        (deadline, meter),
    )?);
    let ex = exact
        .then(|| step_bounded::<Rat>(mdp, r, kind, k, prop.opt, (deadline, meter)))
        .transpose()?
        .map(at_exact);
    Ok(RewardValues {
        f64s,
        exact: ex,
        bounds: None,
        iterations: None,
        schedulers: None,
    })
}

/// `R[ F psi ]`: the certified interval, and (`exact`) the exact values by
/// policy iteration; an infinite value has no exact rational (`exact` is
/// left out when an initial state's value is infinite).
pub(super) fn reach_values(
    mdp: &Mdp,
    opt: Opt,
    r: &RewardVectors,
    target: &[bool],
    exact: bool,
    precision: f64,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<RewardValues, Expired> {
    use super::reward_reach::{reward_interval, Setup};
    let step = r.per_choice::<f64>(mdp);
    let iv = reward_interval(mdp, &step, target, opt, precision, (deadline, meter))?;
    let bounds: Vec<(f64, f64)> = mdp
        .initial
        .iter()
        .map(|&i| (iv.lo[i as usize], iv.hi[i as usize]))
        .collect();
    let mut values = RewardValues {
        f64s: bounds.iter().map(|(l, h)| (l + h) / 2.0).collect(),
        exact: None,
        bounds: Some(bounds),
        iterations: Some(iv.iterations),
        schedulers: None,
    };
    let finite = mdp.initial.iter().all(|&i| !iv.infinite[i as usize]);
    if exact && finite && mdp.exact.is_some() {
        let st = Setup::new(mdp, &step, target, opt);
        let step_exact = r.per_choice::<Rat>(mdp);
        let mut is_free = vec![false; mdp.num_states()];
        st.maybe.iter().for_each(|&s| is_free[s] = true);
        let problem = super::policy::Problem {
            mdp,
            free: &st.maybe,
            is_free: &is_free,
            outside: &vec![Rat::zero(); mdp.num_states()],
            usable: Some(&st.usable),
            step: Some(&step_exact),
            opt,
        };
        let solving = super::policy::meter_under(meter);
        let e = problem.solve(iv.scheduler.clone(), (deadline, &solving.meter()))?;
        let ex: Vec<Rat> = mdp
            .initial
            .iter()
            .map(|&i| e.values[i as usize].clone())
            .collect();
        values.f64s = ex.iter().map(num::to_f64).collect();
        values.exact = Some(ex);
        values.schedulers = Some(e.rounds);
    }
    Ok(values)
}
