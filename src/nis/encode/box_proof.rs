//! Prove by boxes before the MILP (issue 32, "bound through time" and
//! "split the initial set"): a universal sentence on a real-valued M(n)
//! holds when its existential dual fails on every run of the box semantics
//! ([`crate::nis::semantics::real_box`]), which follows every choice of the
//! agents and the environment with each state's own box. The MILP instead
//! bounds each step by one hull over all choices (Section 4's big-M
//! bounds), so its bounds lose the correlation that one path keeps: on
//! VerticalCAS the altitude after k steps depends on which accelerations
//! were taken, and the hull over all of them admits advisories no path
//! reaches.
//!
//! Over-approximation makes a failure of the dual sound: every concrete
//! successor lies in some box successor. A dual that may hold on a box
//! proves nothing; the box is then halved along its widest initial
//! interval (relative to the initial set), up to a count of boxes, and the
//! MILP decides what is left unproved. Only a proof counts here; a
//! counterexample is the falsifier's and the MILP's, replayed as always.
//! The work is bounded by counts of states and boxes (deterministic) and
//! by the run's deadline.

use super::falsify::refute_existential;
use super::options::FalsifyOptions;
use super::stats::{BoxStats, FalsifyStats};
use crate::lang::interval::Iv;
use crate::lang::num;
use crate::nis::front::core::{Core, Node};
use crate::nis::front::model::{InitPercept, InitSpec, Model};
use crate::nis::semantics::real_box::{
    agent_vals, choices, env_vals, percepts, successors, truth, BoxLocal, BoxSlots, BoxState, Lost,
};
use crate::nis::semantics::rules::Truth;
use crate::report::Deadline;
use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;
use std::time::Instant;

/// Roots beyond this many (combinations of listed initial values) are not tried.
const MAX_ROOTS: usize = 64;

/// The proof of an existential sentence, and each of its refutations
/// (sampled, then at points of the boxes left unproved), may compute this
/// many times `--box-states` box states.
const EXISTENTIAL_BUDGET: usize = 10;

/// The quick proof of an existential sentence, before its sampled
/// refutation, may compute `--box-states` over this many box states.
const QUICK_SHARE: usize = 10;

/// The most boxes of the quick pass ([`Layers::Merged`]).
const QUICK_BOXES: usize = 8;

/// How the states of one layer are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layers {
    /// States of one shape merged into their hull: few states, looser;
    /// at most [`QUICK_BOXES`] boxes (the pass before the falsifier).
    Merged,
    /// Merged first, then every path on its own.
    MergedThenPaths,
}

/// Whether the existential goal `goal` (the dual of a universal sentence)
/// fails from every initial state of M(n), proved over boxes; false when
/// it is not proved within the budget (nothing is concluded then).
pub fn prove_universal(
    model: &Model,
    goal: &Core,
    n: usize,
    (opts, layers): (&FalsifyOptions, Layers),
    deadline: &Deadline,
    stats: &mut BoxStats,
) -> bool {
    let start = Instant::now();
    let mut p = Prover::new((model, goal), opts, deadline, stats, (Aim::Refute, layers));
    // The quick pass before the falsifier halves little: where it fails a
    // counterexample is likely, and the falsifier's to find.
    let boxes = match layers {
        Layers::Merged => opts.box_splits.min(QUICK_BOXES),
        Layers::MergedThenPaths => opts.box_splits,
    };
    let proved = p.all_roots(n, boxes);
    p.stats.proved = proved;
    p.stats.time_s += start.elapsed().as_secs_f64();
    proved
}

/// What the proof by boxes decides of an existential sentence.
#[derive(Clone, Debug, PartialEq)]
pub enum BoxAnswer {
    /// It holds from every initial state.
    Holds,
    /// It fails from this initial environment state (each variable's value).
    Fails(Vec<f64>),
    /// Not decided within the budget.
    Open,
}

/// Decides the existential goal `goal` (an existential sentence's core)
/// from every initial state of M(n) over boxes ([`super::box_witness`]):
/// proved, or refuted at a point (every run from it fails), or open.
///
/// A quick proof comes first, on a tenth of `--box-states`. Then points
/// to refute at are sampled ([`refute_existential`]: the
/// f64 runs from a point, scored by robustness, guide the search towards a
/// point where every run fails), each confirmed by the boxes from it. Then
/// the proof, on a larger budget than a universal sentence's, since what
/// is left after it is a covering by MILP witnesses of minutes (the wide
/// VerticalCAS boxes at k = 6: 107,000 box states). Last, the centres and
/// corners of the boxes where the proof failed. The sampler's statistics
/// come back with the answer.
pub fn decide_existential(
    model: &Model,
    goal: &Core,
    n: usize,
    opts: &FalsifyOptions,
    deadline: &Deadline,
    stats: &mut BoxStats,
) -> (BoxAnswer, Option<FalsifyStats>) {
    let start = Instant::now();
    let witness = (Aim::Witness, Layers::MergedThenPaths);
    let mut p = Prover::new((model, goal), opts, deadline, stats, witness);
    // A quick proof first: most holding cells need a few hundred box
    // states, and the sampler's walks cost more than that.
    p.states_left = opts.box_states / QUICK_SHARE;
    if p.all_roots(n, opts.box_splits) {
        p.stats.proved = true;
        p.stats.time_s += start.elapsed().as_secs_f64();
        return (BoxAnswer::Holds, None);
    }
    let budget = opts.box_states.saturating_mul(EXISTENTIAL_BUDGET);
    p.states_left = budget;
    let (sampled, sampler) = p.sampled_refutation(n, opts);
    p.stats.lost = None;
    p.unproved.clear();
    let answer = match sampled {
        Some(point) => BoxAnswer::Fails(point),
        None => {
            p.states_left = budget;
            let proved = p.all_roots(n, opts.box_splits);
            p.stats.proved = proved;
            p.states_left = budget;
            match proved {
                true => BoxAnswer::Holds,
                false => p.refuted_point(n).map_or_else(
                    |Lost(why)| {
                        p.stats.lost = Some(why);
                        BoxAnswer::Open
                    },
                    |point| point.map_or(BoxAnswer::Open, BoxAnswer::Fails),
                ),
            }
        }
    };
    p.stats.time_s += start.elapsed().as_secs_f64();
    (answer, Some(sampler))
}

/// What a proof over a box shows of the existential goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Aim {
    /// It fails at every state (the dual of a universal sentence).
    Refute,
    /// It holds at every state (an existential sentence).
    Witness,
}

pub(super) struct Prover<'a> {
    pub(super) model: &'a Model,
    pub(super) goal: &'a Core,
    pub(super) states_left: usize,
    pub(super) deadline: &'a Deadline,
    pub(super) stats: &'a mut BoxStats,
    /// Counts the box states, and as its level the boxes.
    pub(super) meter: crate::report::meter::Meter,
    /// Whether the states of a layer that differ only in their intervals
    /// are merged into their hull.
    pub(super) merge: bool,
    layers: Layers,
    aim: Aim,
    /// The boxes on which the existential goal was not proved, in order.
    pub(super) unproved: Vec<Vec<Iv>>,
}

impl<'a> Prover<'a> {
    fn new(
        (model, goal): (&'a Model, &'a Core),
        opts: &FalsifyOptions,
        deadline: &'a Deadline,
        stats: &'a mut BoxStats,
        (aim, layers): (Aim, Layers),
    ) -> Self {
        Prover {
            model,
            goal,
            states_left: opts.box_states,
            deadline,
            stats,
            meter: opts.box_meter.clone(),
            merge: true,
            layers,
            aim,
            unproved: Vec::new(),
        }
    }
}

impl Prover<'_> {
    /// A point refuted by [`refute_existential`]'s sampling, each candidate
    /// confirmed by [`Prover::refuted_at`] on this prover's budget.
    fn sampled_refutation(
        &mut self,
        n: usize,
        opts: &FalsifyOptions,
    ) -> (Option<Vec<f64>>, FalsifyStats) {
        let (model, goal, deadline) = (self.model, self.goal, self.deadline);
        let prover = std::sync::Mutex::new(self);
        let confirm = |env: &[f64]| {
            let mut p = prover.lock().unwrap_or_else(|e| e.into_inner());
            p.refuted_at(env, n).unwrap_or(false)
        };
        refute_existential(model, goal, n, opts, deadline, &confirm)
    }

    fn all_roots(&mut self, n: usize, splits: usize) -> bool {
        if !self.model.named.is_empty() || self.goal.has_universal() {
            self.stats.lost = Some("named agents or a universal dual".into());
            return false;
        }
        let Some((roots, widths)) = initial_boxes(self.model) else {
            self.stats.lost = Some("too many initial combinations".into());
            return false;
        };
        let mut boxes_left = splits.max(1);
        let mut stack = roots;
        while let Some(env) = stack.pop() {
            self.stats.boxes += 1;
            self.meter.add_level(1);
            match self.box_decided(&env, n) {
                Ok(true) => continue,
                Ok(false) => {}
                Err(Lost(why)) => self.stats.lost = Some(why),
            }
            if self.states_left == 0 || boxes_left < 2 || self.deadline.expired() {
                return false;
            }
            let Some((a, b)) = halve(&env, &widths) else {
                return false;
            };
            boxes_left -= 2;
            self.stats.splits += 1;
            stack.push(a);
            stack.push(b);
        }
        true
    }

    /// The goal fails (with [`Aim::Witness`]: holds) from every initial
    /// state over `env` (every first
    /// percept the agents may observe there).
    fn box_decided(&mut self, env: &[Iv], n: usize) -> Result<bool, Lost> {
        if self.init_filter(env) == Truth::False {
            return Ok(true);
        }
        let starts = self.starts_over(env, n)?;
        if self.aim == Aim::Witness {
            for s in &starts {
                if !self.holds_everywhere(s, self.goal.root)? {
                    self.unproved.push(env.to_vec());
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        self.every_run_in_range(&starts, depth(self.goal, self.goal.root))?;
        self.refuted_from(&starts)
    }

    /// The initial states over `env`: the agents at iota_t, with every
    /// first percept they may observe there (all assignments of n agents).
    pub(super) fn starts_over(&self, env: &[Iv], n: usize) -> Result<Vec<BoxState>, Lost> {
        let (m, t) = (self.model, &self.model.template);
        let private: Vec<Iv> = t.init.iter().map(|v| Iv::point(v.to_f64())).collect();
        let firsts = match t.init_percept {
            InitPercept::Given(p) => vec![p],
            InitPercept::Observed => {
                let l = BoxLocal {
                    private: private.clone(),
                    percept: 0,
                };
                percepts(m, t, &l, env)?
            }
        };
        let starts = assignments(&firsts, n).into_iter().map(|agents| BoxState {
            agents: agents
                .into_iter()
                .map(|percept| BoxLocal {
                    private: private.clone(),
                    percept,
                })
                .collect(),
            env: env.to_vec(),
        });
        Ok(starts.collect())
    }

    /// Whether the states over `env` pass the model's `init COND`.
    pub(super) fn init_filter(&self, env: &[Iv]) -> Truth {
        let Some(f) = &self.model.env.init_filter else {
            return Truth::True;
        };
        let slots = BoxSlots {
            model: self.model,
            vals: [env, &[Iv::ANY]].concat(),
            performed: None,
            env_action: None,
        };
        truth(f, &slots)
    }

    /// The first decided step of the box search: the refutation of the
    /// existential goal (the dual of a universal sentence) over `starts`,
    /// merged layers first (cheap, looser), then every path on its own.
    fn refuted_from(&mut self, starts: &[BoxState]) -> Result<bool, Lost> {
        let phases: &[bool] = match self.layers {
            Layers::Merged => &[true],
            Layers::MergedThenPaths => &[true, false],
        };
        for &merge in phases {
            self.merge = merge;
            if self.refuted(starts, self.goal.root)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Every run of `depth` rounds from `starts` stays in the declared
    /// ranges, also where the goal need not look (a run that leaves one is
    /// a model error the MILP decider reports, `final_checks`): the merged
    /// layers, so a range that may be left is [`Lost`] and nothing is proved.
    fn every_run_in_range(&mut self, starts: &[BoxState], depth: usize) -> Result<(), Lost> {
        let mut layer = starts.to_vec();
        for _ in 0..depth {
            let mut next = Vec::new();
            for s in &layer {
                next.extend(self.expand(s)?);
            }
            layer = merged(next);
        }
        Ok(())
    }

    /// The existential goal node `node` fails at every state of `states`.
    pub(super) fn refuted(&mut self, states: &[BoxState], node: usize) -> Result<bool, Lost> {
        match &self.goal.nodes[node] {
            &Node::Lit { .. } => Ok(states.iter().all(|s| self.literal_fails(s, node))),
            // A conjunction fails at a state when one part does: state by state.
            Node::And(parts) => {
                for s in states {
                    let mut fails = false;
                    for &p in parts {
                        if self.refuted(std::slice::from_ref(s), p)? {
                            fails = true;
                            break;
                        }
                    }
                    if !fails {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Node::Or(parts) => {
                for &p in parts {
                    if !self.refuted(states, p)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            &Node::EX(c) => {
                let mut next = Vec::new();
                for s in states {
                    next.extend(self.expand(s)?);
                }
                if self.merge {
                    next = merged(next);
                }
                self.refuted(&next, c)
            }
            Node::AX(_) => Err(Lost("a universal step in the dual".into())),
        }
    }

    /// Literal `node` fails at every state of `s`.
    fn literal_fails(&self, s: &BoxState, node: usize) -> bool {
        self.literal(s, node) == Some(Truth::False)
    }

    /// The truth of literal `node` (its negation applied) over the whole
    /// of `s`; `None` when `node` is not a literal.
    pub(super) fn literal(&self, s: &BoxState, node: usize) -> Option<Truth> {
        let Node::Lit {
            label,
            agent,
            negated,
        } = self.goal.nodes[node]
        else {
            return None;
        };
        let m = self.model;
        let vals = match agent {
            Some(a) => agent_vals(&s.agents[a], None, None, None, m),
            None => env_vals(&s.env, None),
        };
        let slots = BoxSlots {
            model: m,
            vals,
            performed: None,
            env_action: None,
        };
        let t = truth(&m.labels[label].expr, &slots);
        Some(if negated { !t } else { t })
    }

    /// Every box successor of `s` (duplicates once), counted against the budget.
    fn expand(&mut self, s: &BoxState) -> Result<Vec<BoxState>, Lost> {
        if self.states_left == 0 || self.deadline.expired() {
            return Err(Lost("the box search's budget ran out".into()));
        }
        let options = choices(self.model, s)?;
        let mut out: Vec<BoxState> = Vec::new();
        for mv in joint_moves(&options) {
            for next in successors(self.model, s, mv[0], &mv[1..])? {
                if !out.contains(&next) {
                    out.push(next);
                }
            }
        }
        self.stats.states += out.len();
        self.meter.add(out.len() as u64);
        self.states_left = self.states_left.saturating_sub(out.len());
        Ok(out)
    }
}

/// `states` with those of one shape (the same percepts, the same point
/// values, intervals where the other has intervals) merged into their
/// hull: fewer states, each standing for all it merged.
fn merged(states: Vec<BoxState>) -> Vec<BoxState> {
    let mut out: Vec<BoxState> = Vec::new();
    let mut index: HashMap<Vec<u64>, usize> = HashMap::default();
    for s in states {
        match index.entry(shape(&s)) {
            Entry::Occupied(e) => hull_into(&mut out[*e.get()], &s),
            Entry::Vacant(e) => {
                e.insert(out.len());
                out.push(s);
            }
        }
    }
    out
}

/// The shape of a state: its percepts and point values (intervals as one mark).
fn shape(s: &BoxState) -> Vec<u64> {
    let mark = |x: &Iv| {
        if x.is_point() {
            x.lo.to_bits()
        } else {
            u64::MAX
        }
    };
    let mut key: Vec<u64> = s.env.iter().map(mark).collect();
    for l in &s.agents {
        key.push(l.percept as u64);
        key.extend(l.private.iter().map(mark));
    }
    key
}

fn hull_into(into: &mut BoxState, s: &BoxState) {
    let join = |a: &mut [Iv], b: &[Iv]| a.iter_mut().zip(b).for_each(|(x, y)| *x = x.hull(*y));
    join(&mut into.env, &s.env);
    for (a, b) in into.agents.iter_mut().zip(&s.agents) {
        join(&mut a.private, &b.private);
    }
}

/// The temporal depth of `node` (its deepest nesting of steps).
fn depth(goal: &Core, node: usize) -> usize {
    match &goal.nodes[node] {
        Node::Lit { .. } => 0,
        Node::And(parts) | Node::Or(parts) => {
            parts.iter().map(|&p| depth(goal, p)).max().unwrap_or(0)
        }
        &Node::EX(c) | &Node::AX(c) => 1 + depth(goal, c),
    }
}

/// Every combination of one choice per list.
pub(super) fn joint_moves(options: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for o in options {
        out = out
            .into_iter()
            .flat_map(|pre: Vec<usize>| {
                o.iter().map(move |&a| {
                    let mut v = pre.clone();
                    v.push(a);
                    v
                })
            })
            .collect();
    }
    out
}

/// Every assignment of a first percept to each of n agents (agents are
/// interchangeable in S(n) but the goal may name some: all of them).
fn assignments(firsts: &[usize], n: usize) -> Vec<Vec<usize>> {
    joint_moves(&vec![firsts.to_vec(); n])
}

/// The initial set as boxes: one per combination of listed values, every
/// interval whole; and each variable's initial width (0: a point).
fn initial_boxes(model: &Model) -> Option<(Vec<Vec<Iv>>, Vec<f64>)> {
    let mut roots: Vec<Vec<Iv>> = vec![Vec::new()];
    let mut widths = Vec::new();
    for spec in &model.env.init {
        let values: Vec<Iv> = match spec {
            InitSpec::Point(x) => vec![Iv::point(x.to_f64())],
            InitSpec::List(xs) => xs.iter().map(|x| Iv::point(x.to_f64())).collect(),
            InitSpec::Range(l, h) => vec![Iv::new(num::to_f64(l), num::to_f64(h))],
        };
        widths.push(values[0].width());
        roots = roots
            .into_iter()
            .flat_map(|r| {
                values.iter().map(move |&x| {
                    let mut r = r.clone();
                    r.push(x);
                    r
                })
            })
            .collect();
        if roots.len() > MAX_ROOTS {
            return None;
        }
    }
    Some((roots, widths))
}

/// `env` halved along the variable widest relative to its initial width.
fn halve(env: &[Iv], widths: &[f64]) -> Option<(Vec<Iv>, Vec<Iv>)> {
    let rel = |i: usize| env[i].width() / widths[i];
    let i = (0..env.len())
        .filter(|&i| widths[i] > 0.0 && env[i].width() > 0.0)
        .max_by(|&a, &b| rel(a).total_cmp(&rel(b)))?;
    let mid = env[i].mid();
    let (mut a, mut b) = (env.to_vec(), env.to_vec());
    a[i] = Iv::new(env[i].lo, mid);
    b[i] = Iv::new(mid, env[i].hi);
    Some((a, b))
}
