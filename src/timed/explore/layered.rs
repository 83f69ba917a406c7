//! The layered search of the seed (Section 5, as adopted in the notes): a
//! layer ends at the instant of a reset of the pacemaker agent, and its
//! border states are those right after the first time step from that instant
//! (every simultaneous reset done). Inside a layer the search is
//! breadth-first and merges identical states (the diamonds of interleaved
//! independent actions); across layers it goes depth-first (or best-first)
//! from border state to border state.
//!
//! Memory policies: `border` remembers every border state and the inside of
//! the most recent layers ([`RecentLayers`]), so that a state reached again
//! from a sibling border soon after is not expanded again; `layer` remembers
//! only the borders still to explore (with their ancestry, for witnesses)
//! and the recent layers, so it never holds more than `border`. The number
//! of distinct states expanded is counted by fingerprints ([`fingerprint`]).
//!
//! Never more than bfs: the sets held (the borders remembered, the recent
//! layers and the current layer) are kept disjoint and each state is stored
//! once (shared by [`Rc`]), so the states held at once are distinct
//! reachable states, at most the reachable set that bfs stores. A border
//! keeps the steps from its parent border, not the states along them; a
//! witness re-derives those states through the semantics ([`replay`]).

use crate::report::RunError;
use crate::timed::explore::{out_of_budget, replay, Heuristic, Memory, Options, Ranked, Scorer};
use crate::timed::explore::{Control, Search, Stats, Visitor};
use crate::timed::semantics::{Semantics, State, Step};
use rand::seq::SliceRandom;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// A border state with the steps that led to it from the previous border.
/// `pending` counts the layers still to explore at it or below it: under
/// `--memory layer` a border with none is freed.
struct Border {
    state: Rc<State>,
    parent: Option<usize>,
    steps: Vec<Step>,
    pending: usize,
}

/// The steps from the initial state to border `id`, then `local`.
fn border_steps(borders: &[Option<Border>], mut id: usize, local: Vec<Step>) -> Vec<Step> {
    let mut chunks = vec![local];
    loop {
        let b = borders[id]
            .as_ref()
            .expect("the ancestors of a live border are live");
        chunks.push(b.steps.clone());
        match b.parent {
            Some(p) => id = p,
            None => break,
        }
    }
    chunks.into_iter().rev().flatten().collect()
}

/// One state of the current layer: the state, its parent's index in the
/// layer and the step from it.
type Node = (Rc<State>, usize, Option<Step>);

/// The steps from the layer's start to node `id`.
fn layer_steps(layer: &[Node], mut id: usize) -> Vec<Step> {
    let mut steps = Vec::new();
    while let Some(step) = layer[id].2 {
        steps.push(step);
        id = layer[id].1;
    }
    steps.reverse();
    steps
}

/// The inside states of the most recent layers. Whole layers are forgotten,
/// oldest first, beyond `capacity` states.
struct RecentLayers {
    set: HashSet<Rc<State>>,
    layers: VecDeque<Vec<Rc<State>>>,
    capacity: usize,
}

impl RecentLayers {
    fn push(&mut self, layer: Vec<Rc<State>>) {
        self.set.extend(layer.iter().cloned());
        self.layers.push_back(layer);
        while self.set.len() > self.capacity && self.layers.len() > 1 {
            for s in self.layers.pop_front().expect("more than one layer") {
                self.set.remove(&s);
            }
        }
    }
}

/// A 64-bit fingerprint of a state (SipHash with fixed keys), to count the
/// distinct states expanded in 8 bytes each. Used only for counting, never
/// to prune, so a collision can only make the count low, never hide a state.
pub(super) fn fingerprint(s: &State) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// Everything the search remembers across layers.
struct Memo {
    borders: Vec<Option<Border>>,
    /// The borders remembered: under `layer` memory the live ones, else all.
    seen_borders: HashSet<Rc<State>>,
    recent: RecentLayers,
    distinct: HashSet<u64>,
    memory: Memory,
}

impl Memo {
    /// The distinct states held with a layer of `layer` states, its start
    /// (a border) counted once.
    fn held(&self, layer: usize) -> usize {
        layer.saturating_sub(1) + self.seen_borders.len() + self.recent.set.len()
    }

    /// A layer at or below `id` is done: under `--memory layer`, free the
    /// borders with nothing left to explore below them, up the ancestry, and
    /// forget them as seen (they may be met and explored again).
    fn finish(&mut self, mut id: usize) {
        loop {
            let Some(b) = self.borders[id].as_mut() else {
                return;
            };
            b.pending -= 1;
            if b.pending > 0 || self.memory != Memory::Layer {
                return;
            }
            let b = self.borders[id].take().expect("checked live");
            self.seen_borders.remove(&b.state);
            match b.parent {
                Some(p) => id = p,
                None => return,
            }
        }
    }
}

/// The layered search (see the module header).
pub fn layered(sem: &Semantics, opts: &Options, visit: &mut Visitor) -> Result<Stats, RunError> {
    let mut stats = Stats::default();
    let mut scorer = Scorer::new(&opts.heuristic);
    let init = Rc::new(sem.initial());
    let mut memo = Memo {
        seen_borders: HashSet::from([init.clone()]),
        borders: vec![Some(Border {
            state: init.clone(),
            parent: None,
            steps: Vec::new(),
            pending: 1,
        })],
        recent: RecentLayers {
            set: HashSet::new(),
            layers: VecDeque::new(),
            capacity: opts.recent_states,
        },
        distinct: HashSet::new(),
        memory: opts.memory,
    };
    let mut stack: Vec<usize> = vec![0];
    let mut heap: BinaryHeap<Ranked> = BinaryHeap::new();
    let best_first = opts.search == Search::BestFirst
        || !matches!(opts.heuristic, Heuristic::None | Heuristic::Random(_));
    if best_first {
        stack.clear();
        let k = scorer.score(sem, &init)?.unwrap_or(0.0);
        heap.push(Ranked(k, std::cmp::Reverse(0)));
    }
    loop {
        let next = if best_first {
            heap.pop().map(|r| r.1 .0)
        } else {
            stack.pop()
        };
        let Some(bid) = next else { break };
        stats.layers += 1;
        let Some(mut new_borders) = explore_layer(sem, opts, visit, &mut memo, &mut stats, bid)?
        else {
            stats.distinct = memo.distinct.len();
            return Ok(stats);
        };
        if let Some(b) = memo.borders[bid].as_mut() {
            b.pending += new_borders.len();
        }
        memo.finish(bid);
        // Depth-first across layers: the first new border is explored next.
        match &opts.heuristic {
            Heuristic::Random(_) => new_borders.shuffle(&mut scorer.rng),
            _ => new_borders.reverse(),
        }
        for b in new_borders {
            if best_first {
                let st = &memo.borders[b]
                    .as_ref()
                    .expect("a new border is live")
                    .state;
                let k = scorer.score(sem, st)?.unwrap_or(0.0);
                heap.push(Ranked(k, std::cmp::Reverse(b)));
            } else {
                stack.push(b);
            }
        }
    }
    stats.complete = true;
    stats.distinct = memo.distinct.len();
    Ok(stats)
}

/// Explores the layer of border `bid` breadth-first; returns its new
/// borders, or `None` when the search ends (budget, or the visitor stopped).
fn explore_layer(
    sem: &Semantics,
    opts: &Options,
    visit: &mut Visitor,
    memo: &mut Memo,
    stats: &mut Stats,
    bid: usize,
) -> Result<Option<Vec<usize>>, RunError> {
    let start = memo.borders[bid]
        .as_ref()
        .expect("a border to explore is live")
        .state
        .clone();
    let mut layer: Vec<Node> = vec![(start.clone(), 0, None)];
    let mut index: HashMap<Rc<State>, usize> = HashMap::from([(start, 0)]);
    let mut queue: VecDeque<usize> = VecDeque::from([0]);
    let mut new_borders: Vec<usize> = Vec::new();
    let mut succ = Vec::new();
    while let Some(id) = queue.pop_front() {
        if out_of_budget(opts, stats) {
            return Ok(None);
        }
        stats.expanded += 1;
        memo.distinct.insert(fingerprint(&layer[id].0));
        let state = layer[id].0.clone();
        let control = {
            let (layer, borders) = (&layer, &memo.borders);
            let trace = || replay(sem, border_steps(borders, bid, layer_steps(layer, id)));
            visit(&state, &trace)?
        };
        if control == Control::Stop {
            stats.stopped = true;
            stats.complete = true;
            return Ok(None);
        }
        sem.successors(&state, &mut succ)?;
        stats.note_deadlock(sem, &state, succ.len());
        stats.transitions += succ.len();
        for (step, s) in succ.drain(..) {
            // The border: the first time step after the pacemaker's reset (its
            // clock is 0 only from its reset until time passes), so that the
            // diamonds of simultaneous resets are merged inside the layer.
            // Held already (in this layer, a recent one or the borders): the
            // sets stay disjoint, each state held once.
            let known = memo.recent.set.contains(&s) || memo.seen_borders.contains(&s);
            if index.contains_key(&s) || known {
                continue;
            }
            let s = Rc::new(s);
            if matches!(step, Step::Delay(_)) && state.clocks[opts.pacemaker] == 0 {
                memo.seen_borders.insert(s.clone());
                let mut steps = layer_steps(&layer, id);
                steps.push(step);
                memo.borders.push(Some(Border {
                    state: s,
                    parent: Some(bid),
                    steps,
                    pending: 1,
                }));
                new_borders.push(memo.borders.len() - 1);
                continue;
            }
            index.insert(s.clone(), layer.len());
            queue.push_back(layer.len());
            layer.push((s, id, Some(step)));
        }
        stats.peak_stored = stats.peak_stored.max(memo.held(layer.len()));
    }
    // The start is remembered as a border; the rest is the inside.
    drop(index);
    memo.recent
        .push(layer.into_iter().skip(1).map(|n| n.0).collect());
    Ok(Some(new_borders))
}
