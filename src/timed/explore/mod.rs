//! Exploration strategies over a [`Semantics`]: breadth-first, depth-first,
//! best-first, and the layered search of the seed (Section 5, as adopted in
//! the notes): a layer ends at the instant of a reset of the pacemaker agent,
//! and its border states are those right after the first time step from that
//! instant (every simultaneous reset done); inside a layer the search is breadth-first and merges
//! identical states (the diamonds of interleaved independent actions); across
//! layers it goes depth-first (or best-first) from border state to border
//! state (in [`layered`]).

pub mod layered;
pub mod progress;
pub mod search;
pub mod sweep;

use super::semantics::{Semantics, State, StateEnv, Step};
use crate::lang::{eval, TExpr, Value};
use crate::report::RunError;
use crate::timed::semantics::trace::Trace;
use progress::Measure;
use rand::{rngs::StdRng, seq::SliceRandom, SeedableRng};
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    Bfs,
    Dfs,
    Layered,
    BestFirst,
}

/// What the layered search remembers (the other searches remember every
/// state). Every policy holds at most the states bfs holds (the reachable
/// set); remembering every state is bfs itself, so there is no such policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Border states of every layer, the current layer and recent layers.
    Border,
    /// The borders still to explore (with their ancestry), the current layer
    /// and recent layers: finished borders may be explored again.
    Layer,
    /// The sweep-line search ([`sweep`]) with this progress measure:
    /// the states not behind the sweep and the targets of regress edges.
    /// The default: it holds the fewest states (docs/performance/timed.md).
    Sweep(Measure),
}

impl Default for Memory {
    fn default() -> Self {
        Memory::Sweep(Measure::Pacemaker)
    }
}

impl Memory {
    /// The name of the policy, as `--memory` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Memory::Border => "border",
            Memory::Layer => "layer",
            Memory::Sweep(Measure::Pacemaker) => "sweep",
            Memory::Sweep(Measure::Hyperperiod) => "sweep-hyperperiod",
        }
    }
}

/// The order in which successors are tried.
#[derive(Clone, Debug)]
pub enum Heuristic {
    None,
    Minimize(TExpr),
    Maximize(TExpr),
    Random(u64),
}

#[derive(Clone, Debug)]
pub struct Options {
    pub search: Search,
    pub memory: Memory,
    pub heuristic: Heuristic,
    /// The agent whose resets delimit layers.
    pub pacemaker: usize,
    /// How many inside states of recent layers the layered search keeps
    /// under `border` and `layer` memory, so that a state met again soon is
    /// expanded once (see [`layered`]).
    pub recent_states: usize,
    /// Stop (incomplete) after expanding this many states.
    pub max_states: usize,
    pub deadline: Option<Instant>,
    /// Where the searches show how far they are: states expanded, and
    /// layers or sweeps ([`crate::report::meter`]).
    pub meter: crate::report::meter::Meter,
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// States expanded (a state expanded twice counts twice).
    pub expanded: usize,
    /// Distinct states among the expanded ones (counted by the layered and
    /// sweep-line searches; the other searches expand each state once, see [`Stats::distinct_states`]).
    pub distinct: usize,
    pub transitions: usize,
    /// The largest number of states held at once (visited sets, layer, frontier, borders).
    pub peak_stored: usize,
    pub layers: usize,
    /// Sweeps of the sweep-line search.
    pub sweeps: usize,
    /// The most links (one step of a witness path, 48 bytes each) the
    /// sweep-line search held at once, beside its `peak_stored` states.
    pub peak_links: usize,
    /// Distinct states where time cannot pass and nothing can fire (see
    /// [`Semantics::deadlock_at`]), however often the search met them.
    pub deadlocks: usize,
    /// The deadlocks met, by fingerprint (see [`Stats::note_deadlock`]).
    pub(crate) deadlocks_seen: HashSet<u64>,
    /// False when a limit or the time-out stopped the search.
    pub complete: bool,
    /// True when the visitor asked to stop.
    pub stopped: bool,
}

impl Stats {
    /// Counts the deadlock `state` stands for, if any, once: a layered or
    /// sweep-line search expands a state again, and under the accelerated
    /// semantics two states may wait into the same deadlock (issue 33,
    /// item 12: the expansions were counted).
    pub fn note_deadlock(&mut self, sem: &Semantics, state: &State, successors: usize) {
        if let Some(d) = sem.deadlock_at(state, successors) {
            // The layered search's fingerprint (SipHash with fixed keys),
            // written here: this module is below the searches.
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            d.hash(&mut h);
            self.deadlocks_seen.insert(h.finish());
            self.deadlocks = self.deadlocks_seen.len();
        }
    }

    /// Distinct states expanded: counted by the layered and sweep-line searches, equal to
    /// the expansions for the others.
    pub fn distinct_states(&self) -> usize {
        if self.layers > 0 || self.sweeps > 0 {
            self.distinct
        } else {
            self.expanded
        }
    }
}

/// What the visitor wants after seeing a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    Stop,
}

/// Called once per expanded state with a way to build the trace reaching it.
pub type Visitor<'v> = dyn FnMut(&State, &dyn Fn() -> Trace) -> Result<Control, RunError> + 'v;

pub(super) struct Scorer {
    heuristic: Heuristic,
    pub(super) rng: StdRng,
}

impl Scorer {
    pub(super) fn new(h: &Heuristic) -> Self {
        let seed = if let Heuristic::Random(s) = h { *s } else { 0 };
        Scorer {
            heuristic: h.clone(),
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Larger is better; `None` without a heuristic expression.
    pub(super) fn score(&self, sem: &Semantics, s: &State) -> Result<Option<f64>, RunError> {
        let (e, sign) = match &self.heuristic {
            Heuristic::Minimize(e) => (e, -1.0),
            Heuristic::Maximize(e) => (e, 1.0),
            _ => return Ok(None),
        };
        let v = eval(
            e,
            &StateEnv {
                model: sem.model,
                state: s,
            },
        )
        .map_err(|err| RunError::input(format!("the heuristic cannot be evaluated: {err}")))?;
        Ok(Some(sign * v.to_f64()))
    }

    /// Reorders successors so that the best comes first.
    pub(super) fn order(
        &mut self,
        sem: &Semantics,
        succ: &mut Vec<(Step, State)>,
    ) -> Result<(), RunError> {
        match self.heuristic {
            Heuristic::None => {}
            Heuristic::Random(_) => succ.shuffle(&mut self.rng),
            _ => {
                let mut keyed = Vec::with_capacity(succ.len());
                for (step, s) in succ.drain(..) {
                    let k = self.score(sem, &s)?.unwrap_or(0.0);
                    keyed.push((k, step, s));
                }
                keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
                succ.extend(keyed.into_iter().map(|(_, st, s)| (st, s)));
            }
        }
        Ok(())
    }
}

/// A heap entry: best score first, then insertion order.
#[derive(PartialEq)]
pub(super) struct Ranked(pub(super) f64, pub(super) std::cmp::Reverse<usize>);
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ranked {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// The stores of a search stopped by the deadline are freed on another
/// thread (see [`crate::report::free_in_background`]), so that the report
/// of what it found goes out in time (issue 33, item 5); else here.
pub(super) fn release<T: Send + 'static>(opts: &Options, stores: T) {
    if opts.deadline.is_some_and(|d| Instant::now() >= d) {
        crate::report::free_in_background(stores);
    }
}

/// Also where every search shows its progress: it asks once per expansion.
pub(super) fn out_of_budget(opts: &Options, stats: &Stats) -> bool {
    opts.meter.set(stats.expanded as u64);
    opts.meter.set_level(stats.layers.max(stats.sweeps) as u64);
    stats.expanded >= opts.max_states || opts.deadline.is_some_and(|d| Instant::now() >= d)
}

/// Breadth-first, depth-first and best-first search with a full visited set and parent links.
pub fn flat(sem: &Semantics, opts: &Options, visit: &mut Visitor) -> Result<Stats, RunError> {
    let mut stats = Stats::default();
    let mut scorer = Scorer::new(&opts.heuristic);
    let init = sem.initial();
    // Arena of (state, parent, step into it).
    let mut nodes: Vec<(State, usize, Option<Step>)> = vec![(init.clone(), 0, None)];
    let mut index: HashMap<State, usize> = HashMap::from([(init, 0)]);
    let mut queue: VecDeque<usize> = VecDeque::from([0]);
    let mut heap: BinaryHeap<Ranked> = BinaryHeap::new();
    if opts.search == Search::BestFirst {
        queue.clear();
        heap.push(Ranked(
            scorer.score(sem, &nodes[0].0)?.unwrap_or(0.0),
            std::cmp::Reverse(0),
        ));
    }
    let mut succ = Vec::new();
    loop {
        let next = match opts.search {
            Search::Bfs => queue.pop_front(),
            Search::Dfs => queue.pop_back(),
            _ => heap.pop().map(|r| r.1 .0),
        };
        let Some(id) = next else { break };
        if out_of_budget(opts, &stats) {
            release(opts, (nodes, index, queue, heap));
            return Ok(stats);
        }
        stats.expanded += 1;
        let state = nodes[id].0.clone();
        let control = {
            let nodes = &nodes;
            let trace = || flat_trace(nodes, id);
            visit(&state, &trace)?
        };
        if control == Control::Stop {
            stats.stopped = true;
            stats.complete = true;
            return Ok(stats);
        }
        sem.successors(&state, &mut succ)?;
        stats.note_deadlock(sem, &state, succ.len());
        stats.transitions += succ.len();
        scorer.order(sem, &mut succ)?;
        if opts.search == Search::Dfs {
            // The stack pops the last pushed: push the best last.
            succ.reverse();
        }
        for (step, s) in succ.drain(..) {
            if index.contains_key(&s) {
                continue;
            }
            let nid = nodes.len();
            index.insert(s.clone(), nid);
            if opts.search == Search::BestFirst {
                let k = scorer.score(sem, &s)?.unwrap_or(0.0);
                heap.push(Ranked(k, std::cmp::Reverse(nid)));
            } else {
                queue.push_back(nid);
            }
            nodes.push((s, id, Some(step)));
        }
        stats.peak_stored = stats.peak_stored.max(nodes.len());
    }
    stats.complete = true;
    Ok(stats)
}

pub(super) fn flat_trace(nodes: &[(State, usize, Option<Step>)], mut id: usize) -> Trace {
    let mut steps = Vec::new();
    while let Some(step) = nodes[id].2 {
        steps.push((step, nodes[id].0.clone()));
        id = nodes[id].1;
    }
    steps.reverse();
    Trace {
        initial: nodes[0].0.clone(),
        steps,
    }
}

/// The trace of `steps` from the initial state, each state re-derived
/// through the semantics (the searches that forget states keep only the
/// steps). A step that is not enabled (a bug) keeps the state unchanged, so
/// that the trace's replay rejects it.
pub(super) fn replay(sem: &Semantics, steps: Vec<Step>) -> Trace {
    let initial = sem.initial();
    let mut cur = initial.clone();
    let mut succ = Vec::new();
    let mut out = Vec::with_capacity(steps.len());
    for step in steps {
        let next = match sem.successors(&cur, &mut succ) {
            Ok(()) => succ
                .iter()
                .find(|(st, _)| *st == step)
                .map(|(_, s)| s.clone()),
            Err(_) => None,
        };
        cur = next.unwrap_or(cur);
        out.push((step, cur.clone()));
    }
    Trace {
        initial,
        steps: out,
    }
}

/// Values of a state, for stats and tests: the untimed part `(l, v)`.
pub fn untimed(s: &State) -> (Vec<u32>, Vec<Value>) {
    (s.locs.clone(), s.vars.clone())
}
