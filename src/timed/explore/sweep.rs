//! The sweep-line search (`--search layered --memory sweep`): the
//! generalised sweep-line method of Kristensen and Mailund, with a progress
//! measure from [`super::progress`] (the global time under a horizon, else
//! the phase of the clocks).
//!
//! A sweep explores states in increasing progress (one queue per progress
//! value, breadth-first inside it) and holds only the states whose progress
//! is at least the one being expanded: a progress value is forgotten once
//! expanded. A step to a state of lower progress (a regress edge) cannot be
//! followed in this sweep: its target is stored for good (the persistent
//! set) and, unless it was stored before, becomes a root of the next sweep;
//! all the roots of a sweep are swept together, so the states their paths
//! share are expanded once. The search ends when a sweep finds no new root.
//! Under a horizon the time never decreases: one sweep, each state expanded
//! once. Without one, a state may be expanded again in a later sweep (it was
//! forgotten); `Stats::distinct` counts the distinct states expanded.
//!
//! Witnesses: each state held carries a chain of steps back to the initial
//! state ([`Link`], shared between states, freed with the last state that
//! uses it); the states along it are re-derived through the semantics.

use super::layered::fingerprint;
use super::progress::{Measure, Progress};
use crate::report::RunError;
use crate::timed::explore::{out_of_budget, replay, Control, Options, Scorer, Stats, Visitor};
use crate::timed::semantics::trace::Trace;
use crate::timed::semantics::{Semantics, State, Step};
use std::cell::Cell;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::rc::Rc;

thread_local! {
    /// Links alive on this thread (a search runs on one thread), for `Stats::peak_links`.
    static LIVE_LINKS: Cell<usize> = const { Cell::new(0) };
}

/// The last step of a path from the initial state, and the path before it.
struct Link {
    step: Step,
    parent: Option<Rc<Link>>,
}

impl Link {
    fn new(step: Step, parent: Path) -> Path {
        LIVE_LINKS.with(|n| n.set(n.get() + 1));
        Some(Rc::new(Link { step, parent }))
    }
}

impl Drop for Link {
    // Iteratively: a long chain freed at once would overflow the stack.
    fn drop(&mut self) {
        LIVE_LINKS.with(|n| n.set(n.get().saturating_sub(1)));
        let mut next = self.parent.take();
        while let Some(rc) = next {
            next = match Rc::try_unwrap(rc) {
                Ok(mut link) => link.parent.take(),
                Err(_) => None,
            };
        }
    }
}

type Path = Option<Rc<Link>>;

/// A state to sweep from, with its path.
type Root = (Rc<State>, Path);

/// The states of one progress value: those met (to merge) and those still to expand.
#[derive(Default)]
struct Slice {
    met: HashSet<Rc<State>>,
    queue: VecDeque<Root>,
    /// Roots of the sweep among `met` (stored for good too, counted once).
    roots: usize,
}

impl Slice {
    fn add(&mut self, s: Rc<State>, path: Path) {
        self.met.insert(s.clone());
        self.queue.push_back((s, path));
    }
}

/// What the search keeps across sweeps.
struct Sweeper<'a, 's> {
    sem: &'a Semantics<'s>,
    opts: &'a Options,
    progress: Progress,
    scorer: Scorer,
    persistent: HashSet<Rc<State>>,
    distinct: HashSet<u64>,
    stats: Stats,
    /// Links alive on this thread before the search (none, unless a search is nested).
    links_before: usize,
}

/// The sweep-line search (see the module header) with the given measure
/// (ignored under a horizon, where the progress is the time).
pub fn sweep_with(
    sem: &Semantics,
    opts: &Options,
    measure: Measure,
    visit: &mut Visitor,
) -> Result<Stats, RunError> {
    let mut run = Sweeper {
        sem,
        opts,
        progress: Progress::new(sem.model, sem.horizon.is_some(), measure, opts.pacemaker),
        scorer: Scorer::new(&opts.heuristic),
        persistent: HashSet::new(),
        distinct: HashSet::new(),
        stats: Stats::default(),
        links_before: LIVE_LINKS.with(Cell::get),
    };
    let init = Rc::new(sem.initial());
    run.persistent.insert(init.clone());
    let mut roots = vec![(init, None)];
    while !roots.is_empty() {
        run.stats.sweeps += 1;
        match run.one_sweep(roots, visit)? {
            Some(next) => roots = next,
            None => {
                run.stats.distinct = run.distinct.len();
                return Ok(run.stats);
            }
        }
    }
    run.stats.complete = true;
    run.stats.distinct = run.distinct.len();
    Ok(run.stats)
}

impl Sweeper<'_, '_> {
    /// Sweeps from `roots` together; returns the roots of the next sweep,
    /// or `None` when the search ends (budget, or the visitor stopped).
    fn one_sweep(
        &mut self,
        roots: Vec<Root>,
        visit: &mut Visitor,
    ) -> Result<Option<Vec<Root>>, RunError> {
        let mut slices: BTreeMap<u64, Slice> = BTreeMap::new();
        // States in the slices, and those of them also in `persistent`.
        let (mut held, mut roots_held) = (0usize, 0usize);
        for (s, path) in roots {
            let slice = slices.entry(self.progress.of(&s)).or_default();
            if !slice.met.contains(&s) {
                slice.add(s, path);
                slice.roots += 1;
                held += 1;
                roots_held += 1;
            }
        }
        let mut next = Vec::new();
        let mut succ = Vec::new();
        while let Some((now, mut slice)) = slices.pop_first() {
            while let Some((state, path)) = slice.queue.pop_front() {
                if out_of_budget(self.opts, &self.stats) {
                    return Ok(None);
                }
                if self.expand(&state, &path, visit, &mut succ)? == Control::Stop {
                    return Ok(None);
                }
                for (step, s) in succ.drain(..) {
                    if self.persistent.contains(&s) {
                        continue;
                    }
                    let child = || Link::new(step, path.clone());
                    let p = self.progress.of(&s);
                    if p < now {
                        // A regress edge: behind the sweep, for the next one.
                        let s = Rc::new(s);
                        self.persistent.insert(s.clone());
                        next.push((s, child()));
                        continue;
                    }
                    let target = if p == now {
                        &mut slice
                    } else {
                        slices.entry(p).or_default()
                    };
                    if !target.met.contains(&s) {
                        target.add(Rc::new(s), child());
                        held += 1;
                    }
                }
                let stored = held - roots_held + self.persistent.len();
                self.stats.peak_stored = self.stats.peak_stored.max(stored);
                let links = LIVE_LINKS.with(Cell::get).saturating_sub(self.links_before);
                self.stats.peak_links = self.stats.peak_links.max(links);
            }
            // Behind the sweep: forgotten.
            held -= slice.met.len();
            roots_held -= slice.roots;
        }
        Ok(Some(next))
    }

    /// Visits `state` and puts its successors (in the heuristic's order) in `succ`.
    fn expand(
        &mut self,
        state: &State,
        path: &Path,
        visit: &mut Visitor,
        succ: &mut Vec<(Step, State)>,
    ) -> Result<Control, RunError> {
        self.stats.expanded += 1;
        self.distinct.insert(fingerprint(state));
        let sem = self.sem;
        let control = visit(state, &|| derive_trace(sem, path))?;
        if control == Control::Stop {
            self.stats.stopped = true;
            self.stats.complete = true;
            return Ok(Control::Stop);
        }
        sem.successors(state, succ)?;
        self.stats.note_deadlock(sem, state, succ.len());
        self.stats.transitions += succ.len();
        self.scorer.order(sem, succ)?;
        Ok(Control::Continue)
    }
}

/// The trace of the steps of `path`, states re-derived through the semantics ([`replay`]).
fn derive_trace(sem: &Semantics, path: &Path) -> Trace {
    let mut steps = Vec::new();
    let mut at = path.as_deref();
    while let Some(link) = at {
        steps.push(link.step);
        at = link.parent.as_deref();
    }
    steps.reverse();
    replay(sem, steps)
}
