//! Running a property on a semantics: explore, evaluate the state formulas,
//! iterate, extract the witness and replay it through the semantics.

use super::bounded::{self, Bounded, Step};
use super::mdp::{explore, Mdp, Semantics, Stop, Successors};
use crate::lang::{eval_f64, Rat, TExpr, Value};
use crate::report::{Deadline, Expired};
use crate::swarm::front::model::{GlobalVar, Model, LABEL_BASE};
use crate::swarm::front::props::{ObsEnv, Opt, Path, Property};
use crate::swarm::semantics::concrete::Concrete;
use crate::swarm::semantics::counting::Counting;
use num_traits::{One, Zero};

/// The semantics a check runs on.
pub enum Sem<'a> {
    Concrete(Concrete<'a>),
    Counting(Counting<'a>),
}

impl Sem<'_> {
    pub fn semantics(&self) -> &dyn Semantics {
        match self {
            Sem::Concrete(c) => c,
            Sem::Counting(c) => c,
        }
    }

    pub fn observe(&self, state: &[u64], refs: &[GlobalVar], out: &mut Vec<f64>) {
        match self {
            Sem::Concrete(c) => c.observe(state, refs, out),
            Sem::Counting(c) => c.observe(state, refs, out),
        }
    }

    pub fn describe_label(&self, l: u32) -> String {
        match self {
            Sem::Concrete(c) => c.describe_label(l),
            Sem::Counting(c) => c.describe_label(l),
        }
    }

    pub fn describe_state(&self, s: &[u64]) -> Vec<String> {
        match self {
            Sem::Concrete(c) => c.describe_state(s),
            Sem::Counting(c) => c.describe_state(s),
        }
    }

    pub fn columns(&self) -> Vec<String> {
        match self {
            Sem::Concrete(c) => c.columns(),
            Sem::Counting(c) => c.columns(),
        }
    }
}

/// What a state shows to labels, properties and rewards: the observed
/// variables and every label's truth, refreshed per state.
pub struct ObsValues {
    refs: Vec<GlobalVar>,
    labels_expr: Vec<TExpr>,
    vars: Vec<f64>,
    labels: Vec<f64>,
}

impl ObsValues {
    pub fn new(model: &Model, refs: &[GlobalVar]) -> Self {
        ObsValues {
            refs: refs.to_vec(),
            labels_expr: model.labels.iter().map(|(_, e)| e.clone()).collect(),
            vars: Vec::new(),
            labels: vec![0.0; model.labels.len()],
        }
    }

    /// Reads `state` (the labels read only variables).
    pub fn observe(&mut self, sem: &Sem, state: &[u64]) {
        sem.observe(state, &self.refs, &mut self.vars);
        for (i, l) in self.labels_expr.iter().enumerate() {
            let env = ObsEnv {
                vars: &self.vars,
                labels: &[],
            };
            self.labels[i] = eval_f64(l, &env);
        }
    }

    pub fn env(&self) -> ObsEnv<'_> {
        ObsEnv {
            vars: &self.vars,
            labels: &self.labels,
        }
    }

    /// The same values for the exact evaluator (Booleans as Booleans).
    pub fn exact_env(&self, model: &Model) -> ExactObsEnv {
        ExactObsEnv {
            vars: self
                .refs
                .iter()
                .zip(&self.vars)
                .map(|(r, &x)| match r.is_bool(model) {
                    true => Value::Bool(x != 0.0),
                    false => Value::Num(crate::lang::num::int(x as i64)),
                })
                .collect(),
            labels: self.labels.iter().map(|&b| Value::Bool(b != 0.0)).collect(),
        }
    }
}

/// [`ObsEnv`] for the exact evaluator.
pub struct ExactObsEnv {
    vars: Vec<Value>,
    labels: Vec<Value>,
}

impl crate::lang::Env for ExactObsEnv {
    fn var(&self, slot: usize) -> Value {
        match slot.checked_sub(LABEL_BASE) {
            Some(l) => self.labels[l].clone(),
            None => self.vars[slot].clone(),
        }
    }
}

/// Truth of every state formula at every state, computed once per model.
pub struct Formulas {
    pub truth: Vec<Vec<bool>>,
}

/// Evaluates the formulas (slots index `refs`; labels from the model).
pub fn evaluate_formulas(
    sem: &Sem,
    mdp: &Mdp,
    model: &Model,
    refs: &[GlobalVar],
    formulas: &[&TExpr],
) -> Formulas {
    let mut truth = vec![Vec::with_capacity(mdp.num_states()); formulas.len()];
    let mut vars = Vec::new();
    let mut labels = vec![0.0; model.labels.len()];
    for s in 0..mdp.num_states() {
        sem.observe(mdp.states.get(s as u32), refs, &mut vars);
        for (i, (_, l)) in model.labels.iter().enumerate() {
            labels[i] = eval_f64(
                l,
                &ObsEnv {
                    vars: &vars,
                    labels: &[],
                },
            );
        }
        let env = ObsEnv {
            vars: &vars,
            labels: &labels,
        };
        for (f, t) in formulas.iter().zip(truth.iter_mut()) {
            t.push(eval_f64(f, &env) != 0.0);
        }
    }
    Formulas { truth }
}

/// The state formulas a path formula needs, in the order `target_sets` reads them.
pub fn path_formulas(path: &Path) -> Vec<&TExpr> {
    match path {
        Path::Until {
            phi: Some(phi),
            psi,
            ..
        } => vec![psi, phi],
        Path::Until { psi, .. } => vec![psi],
        Path::Globally { phi, .. } | Path::Next { phi } => vec![phi],
        Path::Cumulative { .. } | Path::Instant { .. } => vec![],
    }
}

/// Values of one property: per initial state, f64 and (under `--exact`)
/// exact; for an unbounded property the certified interval too.
#[derive(Clone, Debug)]
pub struct Values {
    pub f64s: Vec<f64>,
    pub exact: Option<Vec<Rat>>,
    pub witness: Option<Vec<Step>>,
    /// Per initial state, sound lower and upper bounds (unbounded properties).
    pub bounds: Option<Vec<(f64, f64)>>,
    pub method: Method,
}

/// How the values were computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// k rounds of value iteration (step-bounded; exact under `--exact`).
    Bounded,
    /// Interval iteration in f64 until the bounds are within the precision.
    Interval { iterations: usize },
    /// Interval iteration, then policy iteration over the rationals from its
    /// scheduler (`schedulers` evaluated exactly).
    Policy {
        iterations: usize,
        schedulers: usize,
    },
}

impl From<super::reward::RewardValues> for Values {
    fn from(v: super::reward::RewardValues) -> Self {
        let method = match (v.iterations, v.schedulers) {
            (None, _) => Method::Bounded,
            (Some(iterations), None) => Method::Interval { iterations },
            (Some(iterations), Some(schedulers)) => Method::Policy {
                iterations,
                schedulers,
            },
        };
        Values {
            f64s: v.f64s,
            exact: v.exact,
            witness: None,
            bounds: v.bounds,
            method,
        }
    }
}

/// An unbounded property's values: interval iteration, then (`exact`)
/// policy iteration over the rationals from its scheduler.
fn unbounded_values(
    mdp: &Mdp,
    g: &Goal,
    exact: bool,
    precision: f64,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<Values, Expired> {
    let iv = super::unbounded::interval_iteration(
        mdp,
        &g.target,
        &g.allowed,
        g.opt,
        precision,
        (deadline, meter),
    )?;
    let at = |s: u32| -> (f64, f64) {
        let (l, h) = (iv.lo[s as usize], iv.hi[s as usize]);
        if g.complement {
            (1.0 - h, 1.0 - l)
        } else {
            (l, h)
        }
    };
    let bounds: Vec<(f64, f64)> = mdp.initial.iter().map(|&s| at(s)).collect();
    let mut f64s: Vec<f64> = bounds.iter().map(|(l, h)| (l + h) / 2.0).collect();
    let mut method = Method::Interval {
        iterations: iv.iterations,
    };
    let mut ex = None;
    if exact && mdp.exact.is_some() {
        let solving = super::policy::meter_under(meter);
        let e = super::policy::exact_reachability(mdp, &iv, g.opt, (deadline, &solving.meter()))?;
        let values: Vec<Rat> = mdp
            .initial
            .iter()
            .map(|&s| {
                let x = e.values[s as usize].clone();
                if g.complement {
                    Rat::one() - x
                } else {
                    x
                }
            })
            .collect();
        f64s = values.iter().map(crate::lang::num::to_f64).collect();
        method = Method::Policy {
            iterations: iv.iterations,
            schedulers: e.rounds,
        };
        ex = Some(values);
    }
    Ok(Values {
        f64s,
        exact: ex,
        witness: None,
        bounds: Some(bounds),
        method,
    })
}

/// Definition 15's phase markers: (starting, before starting) per state.
pub struct Phases {
    pub starting: Vec<bool>,
    pub before: Vec<bool>,
}

fn negate(v: Vec<bool>) -> Vec<bool> {
    v.into_iter().map(|b| !b).collect()
}

/// What a property's path asks: the best probability `opt` of reaching
/// `target` through `allowed` states, or, with `complement`, one minus it
/// (G by the dual F).
struct Goal {
    target: Vec<bool>,
    allowed: Vec<bool>,
    opt: Opt,
    complement: bool,
}

/// The [`Goal`] of `prop` over `n` states, from the truth of its state formulas.
fn goal(prop: &Property, truth: &[Vec<bool>], n: usize) -> Goal {
    let all = vec![true; n];
    let (target, allowed, opt, complement) = match &prop.path {
        Path::Until { phi, .. } => (
            truth[0].clone(),
            if phi.is_some() {
                truth[1].clone()
            } else {
                all.clone()
            },
            prop.opt,
            false,
        ),
        Path::Globally { .. } => (negate(truth[0].clone()), all.clone(), prop.opt.flip(), true),
        Path::Next { .. } => (truth[0].clone(), all.clone(), prop.opt, false),
        // Reward paths are computed by `reward::reward_values`.
        Path::Cumulative { .. } | Path::Instant { .. } => {
            (all.clone(), all.clone(), prop.opt, false)
        }
    };
    Goal {
        target,
        allowed,
        opt,
        complement,
    }
}

/// The exact values of goal `g` of `prop` at every state (before phases).
fn exact_values(
    mdp: &Mdp,
    prop: &Property,
    g: &Goal,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
    threads: usize,
) -> Result<Vec<Rat>, Expired> {
    let steps = prop.path.steps().unwrap_or(0);
    let mut v: Vec<Rat> = if matches!(prop.path, Path::Next { .. }) {
        bounded::next(mdp, &g.target, g.opt)
    } else {
        let at = (deadline, meter);
        match super::exact::bounded_until_exact(mdp, &g.target, &g.allowed, steps, g.opt, at)? {
            Some(v) => v,
            None => {
                bounded::bounded_until::<Rat>(
                    mdp, &g.target, &g.allowed, steps, g.opt, false, at, threads,
                )?
                .values
            }
        }
    };
    if g.complement {
        v.iter_mut().for_each(|x| *x = Rat::one() - x.clone());
    }
    Ok(v)
}

/// One property asked of an explored MDP: its formulas' truth per state,
/// its reward vectors when it is a reward property, and Definition 16's
/// initialisation phases with the rounds that bound the exact one.
pub struct Asked<'a> {
    pub mdp: &'a Mdp,
    pub prop: &'a Property,
    pub truth: &'a [Vec<bool>],
    pub rewards: Option<&'a super::reward::RewardVectors>,
    pub phases: Option<(&'a Phases, usize)>,
}

/// How a property's values are computed: exact rationals besides f64, a
/// witness path, threads, and the width of certified intervals.
#[derive(Clone, Copy, Debug)]
pub struct Numerics {
    pub exact: bool,
    pub witness: bool,
    pub threads: usize,
    pub precision: f64,
}

impl Numerics {
    /// f64 values only, one thread, intervals of width 1e-6.
    pub const F64: Numerics = Numerics {
        exact: false,
        witness: false,
        threads: 1,
        precision: 1e-6,
    };
}

/// Definition 16: the values of P[G((starting) -> X psi)] from those of
/// psi (f64 and exact), each phase iteration under a meter of its own
/// inside the checking stage's.
fn with_phases(
    mdp: &Mdp,
    opt: Opt,
    (ph, rounds): (&Phases, usize),
    (f, ex): (Vec<f64>, Option<Vec<Rat>>),
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<(Vec<f64>, Option<Vec<Rat>>), Expired> {
    let x = bounded::one_step(mdp, &f, opt);
    let phase = bounded::phase_meter(meter, None);
    let f = bounded::until_starting(
        mdp,
        &ph.starting,
        &ph.before,
        &x,
        opt,
        (deadline, &phase.meter()),
    )?;
    drop(phase);
    let Some(e) = ex else {
        return Ok((f, None));
    };
    let x = bounded::one_step(mdp, &e, opt);
    let phase = bounded::phase_meter(meter, Some(rounds));
    let e = bounded::until_starting_exact(
        mdp,
        &ph.starting,
        &ph.before,
        &x,
        opt,
        rounds,
        (deadline, &phase.meter()),
    )?;
    Ok((f, Some(e)))
}

/// Computes a property's values at the initial states; the iterations add
/// the states they update to `meter`.
pub fn compute(
    asked: &Asked,
    how: Numerics,
    at: (Deadline, &crate::report::meter::Meter),
) -> Result<Values, Expired> {
    let Asked {
        mdp,
        prop,
        truth,
        rewards,
        phases,
    } = *asked;
    let (exact, threads) = (how.exact, how.threads);
    if let (Some(_), Some(r)) = (prop.reward, rewards) {
        // The caller refuses reward properties with Definition 16's phases.
        let v = super::reward::reward_values(mdp, prop, r, truth, exact, how.precision, at)?;
        return Ok(v.into());
    }
    let g = goal(prop, truth, mdp.num_states());
    let Some(steps) = prop.path.steps() else {
        // The caller refuses unbounded properties with Definition 16's phases.
        return unbounded_values(mdp, &g, exact, how.precision, at);
    };
    let record = how.witness && phases.is_none() && matches!(prop.path, Path::Until { .. });
    let is_next = matches!(prop.path, Path::Next { .. });
    let run_f64: Bounded<f64> = if is_next {
        Bounded {
            values: bounded::next(mdp, &g.target, g.opt),
            decisions: vec![],
            history: vec![],
        }
    } else {
        bounded::bounded_until(
            mdp, &g.target, &g.allowed, steps, g.opt, record, at, threads,
        )?
    };
    let mut f = run_f64.values.clone();
    if g.complement {
        f.iter_mut().for_each(|x| *x = 1.0 - *x);
    }
    let mut ex: Option<Vec<Rat>> = if exact {
        Some(exact_values(mdp, prop, &g, at, threads)?)
    } else {
        None
    };
    if let Some(phases) = phases {
        (f, ex) = with_phases(mdp, prop.opt, phases, (f, ex), at)?;
    }
    let witness = if record {
        mdp.initial
            .first()
            .and_then(|&i| bounded::witness_path(mdp, &run_f64, &g.target, i, steps))
    } else {
        None
    };
    Ok(Values {
        f64s: mdp.initial.iter().map(|&i| f[i as usize]).collect(),
        exact: ex.map(|e| mdp.initial.iter().map(|&i| e[i as usize].clone()).collect()),
        witness,
        bounds: None,
        method: Method::Bounded,
    })
}

/// Explores with the run's limits.
pub fn build(
    sem: &Sem,
    exact: bool,
    max_states: usize,
    deadline: Option<std::time::Instant>,
) -> Result<Mdp, Stop> {
    explore(sem.semantics(), exact, max_states, deadline)
}

/// Explores only as deep as a property of `depth` steps can look.
pub fn build_to_depth(
    sem: &Sem,
    exact: bool,
    max_states: usize,
    deadline: Option<std::time::Instant>,
    depth: usize,
) -> Result<Mdp, Stop> {
    super::mdp::explore_to_depth(sem.semantics(), exact, max_states, deadline, Some(depth))
}

/// Replays a witness through the semantics (not the stored MDP): every step
/// must be a choice the semantics offers, with the same label and the same
/// probability of the next state; the last state must satisfy the target,
/// the others the path condition. Returns the path probability.
pub fn replay(
    sem: &Sem,
    mdp: &Mdp,
    path: &[Step],
    target: &[bool],
    allowed: &[bool],
    steps: usize,
) -> Result<f64, String> {
    if path.len() > steps {
        return Err(format!(
            "the witness has {} steps, more than the bound {steps}",
            path.len()
        ));
    }
    let s0 = *mdp.initial.first().ok_or("no initial state")?;
    let semantics = sem.semantics();
    if semantics
        .initial_states()
        .iter()
        .all(|i| i.as_slice() != mdp.states.get(s0))
    {
        return Err("the witness does not start in an initial state".into());
    }
    let mut cur = mdp.states.get(s0).to_vec();
    let mut cur_index = s0 as usize;
    let mut prob = 1.0;
    let mut succ = Successors::new(semantics.words());
    for (i, step) in path.iter().enumerate() {
        if target[cur_index] || !allowed[cur_index] {
            return Err(format!(
                "step {i} leaves a state that is a target or violates the path condition"
            ));
        }
        succ.clear();
        semantics.successors(&cur, false, &mut succ);
        let label = mdp.choice_label[step.choice];
        let next = mdp.states.get(step.state).to_vec();
        let found = (0..succ.choices())
            .filter(|&c| succ.labels[c] == label)
            .any(|c| {
                let p: f64 = succ
                    .choice(c)
                    .filter(|(t, _, _)| *t == next.as_slice())
                    .map(|(_, p, _)| p)
                    .sum();
                (p - step.prob).abs() <= 1e-12 && p > 0.0
            });
        if !found {
            return Err(format!(
                "step {} ({}) is not a move of the semantics with probability {}",
                i + 1,
                sem.describe_label(label),
                step.prob
            ));
        }
        prob *= step.prob;
        cur = next;
        cur_index = step.state as usize;
    }
    if !target[cur_index] {
        return Err("the witness does not end in a target state".into());
    }
    Ok(prob)
}

/// Whether a value meets the bound (exactly when available).
pub fn meets(prop: &Property, f: f64, exact: Option<&Rat>) -> Option<bool> {
    let (cmp, b) = prop.bound.as_ref()?;
    Some(match exact {
        Some(e) => cmp.holds(e, b),
        None => {
            let v = crate::lang::num::from_f64(f).unwrap_or_else(Rat::zero);
            cmp.holds(&v, b)
        }
    })
}

/// The optimum over initial states (the abstraction's several initial
/// counts): by the exact values, else by the sound side of the certified
/// intervals (the upper bound for Pmax, the lower for Pmin), else by f64.
pub fn over_initials(v: &Values, opt: Opt) -> (f64, Option<Rat>, usize) {
    let mut best = 0usize;
    let key = |i: usize| match (&v.bounds, opt) {
        (Some(b), Opt::Max) => b[i].1,
        (Some(b), Opt::Min) => b[i].0,
        (None, _) => v.f64s[i],
    };
    for i in 1..v.f64s.len() {
        let better = match (&v.exact, opt) {
            (Some(e), Opt::Max) => e[i] > e[best],
            (Some(e), Opt::Min) => e[i] < e[best],
            (None, Opt::Max) => key(i) > key(best),
            (None, Opt::Min) => key(i) < key(best),
        };
        if better {
            best = i;
        }
    }
    (
        v.f64s[best],
        v.exact.as_ref().map(|e| e[best].clone()),
        best,
    )
}
