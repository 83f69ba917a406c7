//! Falsify first (issue 32): before any MILP on a universal sentence over a
//! real-valued model, S(n) is simulated in f64 from sampled initial states,
//! and a run on which the sentence fails is the counterexample.
//!
//! The initial set is a box (the environment variables initialised by an
//! interval) times a list of roots (every combination of the variables
//! initialised by a point or a list). The shared sampler of
//! [`crate::search::falsify()`] draws the box's centre, its corners (at
//! most [`crate::search::falsify::MAX_CORNERS`]), Halton points and seeded
//! uniform points, then a pattern search from the best of them; each point
//! is scored by a walk of its runs ([`super::falsify_walk`]): every branch
//! of nondeterminism (moves, argmax ties) while a state has at most
//! [`FalsifyOptions::branches`], a seeded sample of them otherwise. The
//! score is the robustness of the existential dual goal, so the local
//! search moves towards a violation.
//!
//! A run found is a [`RealTree`] like the MILP's counterexamples, and the
//! caller replays it in the same way ([`crate::nis::witness::replay::real`]);
//! if the replay rejects it the MILP decides as if nothing had been found.
//! Deterministic: the points and the branches sampled depend on the seed
//! only; the walk's work is bounded by counts ([`FalsifyOptions`]), and the
//! time by a share of the run's deadline (a safety cap).

use super::falsify_walk::Walk;
use super::options::FalsifyOptions;
use super::stats::FalsifyStats;
use crate::lang::num;
use crate::nis::front::core::Core;
use crate::nis::front::model::{InitSpec, Model};
use crate::nis::semantics::real::RealState;
use crate::nis::semantics::real_sim::{initial_env_passes, initial_local, initial_percepts};
use crate::nis::witness::replay::real::RealTree;
use crate::nn::InputBox;
use crate::report::Deadline;
use crate::search::{falsify, Objective};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Roots beyond this many (combinations of listed initial values) are not sampled.
pub const MAX_ROOTS: usize = 64;

/// The initial set as the sampler sees it, and the goal walked from it.
struct Sampled<'a> {
    model: &'a Model,
    goal: &'a Core,
    n: usize,
    opts: &'a FalsifyOptions,
    /// Per root, every environment variable's value (NaN: from the box).
    roots: Vec<Vec<f64>>,
    /// The box's variables (environment indices), integer or not.
    dims: Vec<(usize, bool)>,
    region: InputBox,
    stop: Deadline,
    samples: AtomicUsize,
    states: AtomicUsize,
    /// A counterexample was scored: the rest of a batch is skipped.
    hit: AtomicBool,
}

impl<'a> Sampled<'a> {
    /// `None` when the initial set has no box and no root, or too many roots.
    fn new(
        model: &'a Model,
        goal: &'a Core,
        n: usize,
        opts: &'a FalsifyOptions,
        stop: Deadline,
    ) -> Option<Self> {
        let mut roots: Vec<Vec<f64>> = vec![Vec::new()];
        let (mut dims, mut lo, mut hi) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (v, spec)) in model.env.vars.iter().zip(&model.env.init).enumerate() {
            let values: Vec<f64> = match spec {
                InitSpec::Point(x) => vec![x.to_f64()],
                InitSpec::List(xs) => xs.iter().map(|x| x.to_f64()).collect(),
                InitSpec::Range(l, h) => {
                    let integer = !matches!(v.ty, crate::lang::DeclType::Real { .. });
                    dims.push((i, integer));
                    lo.push(num::to_f64(l));
                    hi.push(num::to_f64(h));
                    vec![f64::NAN]
                }
            };
            roots = roots
                .iter()
                .flat_map(|r| values.iter().map(move |&x| [r.as_slice(), &[x]].concat()))
                .collect();
            if roots.len() > MAX_ROOTS {
                return None;
            }
        }
        let region = InputBox::new(lo, hi).ok()?;
        Some(Sampled {
            model,
            goal,
            n,
            opts,
            roots,
            dims,
            region,
            stop,
            samples: AtomicUsize::new(0),
            states: AtomicUsize::new(0),
            hit: AtomicBool::new(false),
        })
    }

    /// The initial environment state of root `root` at box point `x`.
    fn env(&self, root: usize, x: &[f64]) -> Vec<f64> {
        let mut env = self.roots[root].clone();
        for (&(i, integer), &xi) in self.dims.iter().zip(x) {
            env[i] = if integer { xi.round() } else { xi };
        }
        env
    }

    /// A walk from one initial point, its generator seeded by the point.
    fn walk(&self, root: usize, x: &[f64]) -> Walk<'a> {
        let mut seed = self.opts.seed ^ (root as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for v in x {
            seed = seed.rotate_left(7) ^ v.to_bits();
        }
        Walk {
            model: self.model,
            goal: self.goal,
            n: self.n,
            budget: self.opts.states_per_sample,
            branches: self.opts.branches,
            rng: StdRng::seed_from_u64(seed),
            expanded: 0,
            sampled: false,
        }
    }

    /// The initial states at `env` (one per combination of first percepts,
    /// sampled as moves are) with the best score from them, the tree, and
    /// the successor states the walk computed.
    fn best(&self, root: usize, x: &[f64]) -> (f64, Option<RealTree>, usize) {
        let env = self.env(root, x);
        let mut w = self.walk(root, x);
        let starts = self.starts(&env, &mut w);
        let mut best = (f64::NEG_INFINITY, None);
        for s in starts {
            let (sc, frag) = w.score(&s, self.goal.root);
            if sc > 0.0 {
                best = (sc, frag.map(|f| f.at(s)));
                break;
            }
            best.0 = best.0.max(sc);
        }
        (best.0, best.1, w.expanded)
    }

    /// The initial global states at `env` (Definition 4's I), or none when
    /// `env` is not decidedly initial.
    fn starts(&self, env: &[f64], w: &mut Walk) -> Vec<RealState> {
        let model = self.model;
        if initial_env_passes(model, env) != Ok(true) {
            return Vec::new();
        }
        let templates: Vec<_> = std::iter::repeat_n(&model.template, self.n)
            .chain(model.named.iter().map(|a| &a.template))
            .collect();
        let mut firsts = Vec::new();
        for t in &templates {
            match initial_percepts(model, t, env) {
                Ok(ps) => firsts.push(ps),
                Err(_) => return Vec::new(),
            }
        }
        let sizes: Vec<usize> = firsts.iter().map(Vec::len).collect();
        let picks = w.picks(&sizes);
        picks
            .into_iter()
            .map(|p| {
                let mut locals = templates
                    .iter()
                    .zip(&firsts)
                    .zip(&p)
                    .map(|((t, ps), &i)| initial_local(t, ps[i]));
                RealState {
                    agents: locals.by_ref().take(self.n).collect(),
                    env: env.to_vec(),
                    named: locals.collect(),
                }
            })
            .collect()
    }
}

impl Objective for Sampled<'_> {
    fn excess(&self, root: usize, x: &[f64]) -> f64 {
        if self.hit.load(Ordering::Relaxed) || self.stop.expired() {
            return f64::INFINITY;
        }
        let (sc, _, expanded) = self.best(root, x);
        self.samples.fetch_add(1, Ordering::Relaxed);
        self.states.fetch_add(expanded, Ordering::Relaxed);
        self.opts.meter.add(expanded as u64);
        self.opts.meter.add_level(1);
        if sc > 0.0 {
            self.hit.store(true, Ordering::Relaxed);
        }
        -sc
    }
}

/// An existential goal's refutation as the sampler's objective: the excess
/// at a point is the best score of its initial states, and a
/// point where no run walked satisfies the goal is a hit only once
/// `confirm` (every run of the box semantics) refutes it there.
struct Refuting<'a, 'c> {
    sampled: Sampled<'a>,
    confirm: &'c (dyn Fn(&[f64]) -> bool + Sync),
}

impl Objective for Refuting<'_, '_> {
    fn excess(&self, root: usize, x: &[f64]) -> f64 {
        let s = &self.sampled;
        if s.hit.load(Ordering::Relaxed) || s.stop.expired() {
            return f64::INFINITY;
        }
        // The best score of all initial states at x: <= 0 when none has a
        // run walked that satisfies the goal (each must fail, as
        // `confirm` checks).
        let (worst, _, expanded) = s.best(root, x);
        s.samples.fetch_add(1, Ordering::Relaxed);
        s.states.fetch_add(expanded, Ordering::Relaxed);
        s.opts.meter.add(expanded as u64);
        s.opts.meter.add_level(1);
        if worst > 0.0 {
            return worst;
        }
        if (self.confirm)(&s.env(root, x)) {
            s.hit.store(true, Ordering::Relaxed);
            return worst.min(0.0);
        }
        // The f64 walk missed a run (a sampled branch, a dropped border
        // case) that the boxes follow: not a hit, but near one.
        f64::MIN_POSITIVE
    }
}

/// The first root and initial point whose excess is at most 0, each root
/// searched with `sampler` in turn until `stop`.
fn search_roots(
    problem: &dyn Objective,
    sampled: &Sampled,
    sampler: &crate::search::FalsifyOptions,
    stop: &Deadline,
) -> Option<(usize, Vec<f64>)> {
    for root in 0..sampled.roots.len() {
        let hit = if sampled.dims.is_empty() {
            (problem.excess(root, &[]) <= 0.0).then(Vec::new)
        } else {
            let f = falsify(problem, root, &sampled.region, sampler, &|| stop.expired());
            f.hit.map(|h| h.input)
        };
        if let Some(x) = hit {
            return Some((root, x));
        }
        if stop.expired() {
            break;
        }
    }
    None
}

/// Looks for a counterexample of the universal sentence whose existential
/// dual is `goal` on M(n), from sampled initial states (module docs). The
/// run found, not yet replayed, and what the search did.
pub fn falsify_universal(
    model: &Model,
    goal: &Core,
    n: usize,
    opts: &FalsifyOptions,
    deadline: &Deadline,
) -> (Option<RealTree>, FalsifyStats) {
    let start = Instant::now();
    let mut stats = FalsifyStats::default();
    let budget = opts.share_of(deadline);
    let stop = Deadline::starting_at(start, Some(budget));
    let Some(sampled) = Sampled::new(model, goal, n, opts, stop) else {
        return (None, stats);
    };
    let mut found = None;
    for sampler in &passes(opts, &sampled) {
        if let Some((root, x)) = search_roots(&sampled, &sampled, sampler, &stop) {
            found = sampled.best(root, &x).1;
            break;
        }
    }
    stats.samples = sampled.samples.load(Ordering::Relaxed);
    stats.states = sampled.states.load(Ordering::Relaxed);
    stats.traces = usize::from(found.is_some());
    stats.time_s = start.elapsed().as_secs_f64();
    (found, stats)
}

/// The sampler's passes: with several roots (a list of initial values),
/// the centre and corners of every root first, so that one root's long
/// search does not spend the budget before another's first points
/// (ARCH-COMP's VCAS: four climbrates, the unsafe ones last).
fn passes(opts: &FalsifyOptions, sampled: &Sampled) -> Vec<crate::search::FalsifyOptions> {
    let full = opts.sampler();
    let quick = crate::search::FalsifyOptions {
        samples: (2 + (1usize << sampled.dims.len().min(6))).min(full.samples),
        starts: 0,
        ..full.clone()
    };
    if sampled.roots.len() > 1 {
        vec![quick, full]
    } else {
        vec![full]
    }
}

/// Looks for an initial state of M(n) from which the existential goal
/// `goal` holds on no run: points sampled as for a counterexample, scored
/// by the robustness of their best run (the local search moves towards a
/// point where every run fails), each candidate confirmed by `confirm`
/// (the caller's sound check at that initial environment state). The
/// environment state confirmed, and what the search did.
pub fn refute_existential(
    model: &Model,
    goal: &Core,
    n: usize,
    opts: &FalsifyOptions,
    deadline: &Deadline,
    confirm: &(dyn Fn(&[f64]) -> bool + Sync),
) -> (Option<Vec<f64>>, FalsifyStats) {
    let start = Instant::now();
    let mut stats = FalsifyStats::default();
    let stop = Deadline::starting_at(start, Some(opts.share_of(deadline)));
    let Some(sampled) = Sampled::new(model, goal, n, opts, stop) else {
        return (None, stats);
    };
    let problem = Refuting { sampled, confirm };
    let mut found = None;
    for sampler in &passes(opts, &problem.sampled) {
        if let Some((root, x)) = search_roots(&problem, &problem.sampled, sampler, &stop) {
            found = Some(problem.sampled.env(root, &x));
            break;
        }
    }
    stats.samples = problem.sampled.samples.load(Ordering::Relaxed);
    stats.states = problem.sampled.states.load(Ordering::Relaxed);
    stats.time_s = start.elapsed().as_secs_f64();
    (found, stats)
}
