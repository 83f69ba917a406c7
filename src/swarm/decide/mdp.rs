//! Our explicit MDP (Definition 2): states interned BY VALUE in an
//! open-addressing table (the hash only picks the bucket; equality compares
//! the packed words), transitions in compressed sparse rows
//! (state -> choices -> entries).

use crate::lang::Rat;
use num_traits::Zero;

/// A semantics the explorer can unfold: packed states and their choices.
pub trait Semantics {
    /// u64 words per packed state.
    fn words(&self) -> usize;
    fn initial_states(&self) -> Vec<Vec<u64>>;
    /// Appends the choices of `state` to `out` (already cleared).
    fn successors(&self, state: &[u64], exact: bool, out: &mut Successors);
}

/// The choices of one state as the semantics produce them.
#[derive(Clone, Debug, Default)]
pub struct Successors {
    pub words: usize,
    /// Set when the entries outgrew [`SUCCESSOR_BYTES`]: the list is cut
    /// short and exploration stops (one state of a huge system can have
    /// more successors than memory holds).
    pub overflow: bool,
    pub labels: Vec<u32>,
    /// End (exclusive, in entries) of each choice.
    pub ends: Vec<usize>,
    pub targets: Vec<u64>,
    pub probs: Vec<f64>,
    pub exact: Vec<Rat>,
}

impl Successors {
    pub fn new(words: usize) -> Self {
        Successors {
            words,
            ..Default::default()
        }
    }

    pub fn clear(&mut self) {
        self.overflow = false;
        self.labels.clear();
        self.ends.clear();
        self.targets.clear();
        self.probs.clear();
        self.exact.clear();
    }

    pub fn entry(&mut self, target: &[u64], p: f64, exact: Option<Rat>) {
        if self.overflow || (self.targets.len() + target.len()) * 8 > SUCCESSOR_BYTES {
            self.overflow = true;
            return;
        }
        self.targets.extend_from_slice(target);
        self.probs.push(p);
        if let Some(e) = exact {
            self.exact.push(e);
        }
    }

    pub fn end_choice(&mut self, label: u32) {
        self.labels.push(label);
        self.ends.push(self.probs.len());
    }

    pub fn choices(&self) -> usize {
        self.labels.len()
    }

    /// Entries of choice `c`: (target words, f64 probability, index into `exact`).
    pub fn choice(&self, c: usize) -> impl Iterator<Item = (&[u64], f64, usize)> + '_ {
        let start = if c == 0 { 0 } else { self.ends[c - 1] };
        (start..self.ends[c]).map(move |e| {
            (
                &self.targets[e * self.words..(e + 1) * self.words],
                self.probs[e],
                e,
            )
        })
    }
}

/// States keyed by value.
#[derive(Clone, Debug)]
pub struct StateTable {
    words: usize,
    data: Vec<u64>,
    /// 0 = empty, else state index + 1.
    slots: Vec<u32>,
}

fn hash_words(key: &[u64]) -> u64 {
    let mut h: u64 = 0x243f_6a88_85a3_08d3;
    for &w in key {
        h = (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^ (h >> 29)
}

impl StateTable {
    pub fn new(words: usize) -> Self {
        StateTable {
            words: words.max(1),
            data: Vec::new(),
            slots: vec![0; 1024],
        }
    }

    pub fn len(&self) -> usize {
        self.data.len() / self.words
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn get(&self, i: u32) -> &[u64] {
        let w = self.words;
        &self.data[i as usize * w..(i as usize + 1) * w]
    }

    fn find(&self, key: &[u64]) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut b = hash_words(key) as usize & mask;
        loop {
            match self.slots[b] {
                0 => return Err(b),
                s if self.get(s - 1) == key => return Ok(s - 1),
                _ => b = (b + 1) & mask,
            }
        }
    }

    pub fn lookup(&self, key: &[u64]) -> Option<u32> {
        self.find(key).ok()
    }

    /// The index of `key`, inserting it if new; `true` when it was new.
    pub fn insert(&mut self, key: &[u64]) -> (u32, bool) {
        debug_assert_eq!(key.len(), self.words);
        match self.find(key) {
            Ok(i) => (i, false),
            Err(b) => {
                let i = self.len() as u32;
                self.data.extend_from_slice(key);
                self.slots[b] = i + 1;
                if self.len() * 2 > self.slots.len() {
                    self.grow();
                }
                (i, true)
            }
        }
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        self.slots = vec![0; n];
        let mask = n - 1;
        for i in 0..self.len() {
            let mut b = hash_words(self.get(i as u32)) as usize & mask;
            while self.slots[b] != 0 {
                b = (b + 1) & mask;
            }
            self.slots[b] = i as u32 + 1;
        }
    }
}

/// An explicit MDP in compressed sparse rows.
#[derive(Clone, Debug)]
pub struct Mdp {
    pub states: StateTable,
    pub initial: Vec<u32>,
    /// Choices of state s: `row_start[s]..row_start[s+1]`.
    pub row_start: Vec<usize>,
    pub choice_label: Vec<u32>,
    /// Entries of choice c: `choice_start[c]..choice_start[c+1]`.
    pub choice_start: Vec<usize>,
    pub targets: Vec<u32>,
    pub probs: Vec<f64>,
    /// Exact probabilities beside `probs` under `--exact`.
    pub exact: Option<Vec<Rat>>,
}

impl Mdp {
    pub fn num_states(&self) -> usize {
        self.row_start.len() - 1
    }

    pub fn num_choices(&self) -> usize {
        self.choice_label.len()
    }

    pub fn num_transitions(&self) -> usize {
        self.targets.len()
    }

    pub fn choices(&self, s: usize) -> std::ops::Range<usize> {
        self.row_start[s]..self.row_start[s + 1]
    }

    pub fn entries(&self, c: usize) -> std::ops::Range<usize> {
        self.choice_start[c]..self.choice_start[c + 1]
    }
}

/// The most memory the successor list of one state may take (bytes).
pub const SUCCESSOR_BYTES: usize = 256 << 20;

/// The most memory the explorer may hold in states and transitions (bytes):
/// past it exploration stops with [`Stop::Memory`] (unknown, exit 3) instead
/// of running the machine out of memory. Wide states (many agents) reach it
/// long before `--max-states`.
pub const MEMORY_BUDGET: usize = 8 << 30;

/// Bytes per stored transition: target, f64 probability, and an exact
/// fraction's two small big integers when exact.
fn transition_bytes(exact: bool) -> usize {
    if exact {
        4 + 8 + 64
    } else {
        4 + 8
    }
}

/// An estimate of the explorer's memory: the state table (states, its hash
/// index) and the transitions.
fn explorer_bytes(states: usize, words: usize, transitions: usize, exact: bool) -> usize {
    states
        .saturating_mul(8 * words + 16)
        .saturating_add(transitions.saturating_mul(transition_bytes(exact)))
}

/// Why exploration stopped early.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    StateLimit(usize),
    /// The memory estimate passed its budget; the reason.
    Memory(String),
    /// The deadline passed after exploring this many states.
    TimedOut(usize),
}

/// Unfolds the reachable part of a semantics breadth-first.
pub fn explore(
    sem: &dyn Semantics,
    exact: bool,
    max_states: usize,
    deadline: Option<std::time::Instant>,
) -> Result<Mdp, Stop> {
    explore_to_depth(sem, exact, max_states, deadline, None)
}

impl Mdp {
    /// The choices of the state being expanded, from `succ`: targets added
    /// to `table`, the probabilities of a target reached twice in one choice
    /// summed (`merged` is scratch space).
    fn push_choices(
        &mut self,
        succ: &Successors,
        table: &mut StateTable,
        merged: &mut Vec<(u32, f64, usize)>,
        exact: bool,
        max_states: usize,
    ) -> Result<(), Stop> {
        for c in 0..succ.choices() {
            merged.clear();
            for (t, p, e) in succ.choice(c) {
                let (i, _) = table.insert(t);
                merged.push((i, p, e));
            }
            if table.len() > max_states {
                return Err(Stop::StateLimit(max_states));
            }
            merged.sort_by_key(|m| m.0);
            let mut k = 0;
            while k < merged.len() {
                let (t, mut p, e) = merged[k];
                let mut q = if exact {
                    succ.exact[e].clone()
                } else {
                    Rat::zero()
                };
                k += 1;
                while k < merged.len() && merged[k].0 == t {
                    p += merged[k].1;
                    if exact {
                        q += &succ.exact[merged[k].2];
                    }
                    k += 1;
                }
                self.targets.push(t);
                self.probs.push(p);
                if let Some(ex) = &mut self.exact {
                    ex.push(q);
                }
            }
            self.choice_label.push(succ.labels[c]);
            self.choice_start.push(self.targets.len());
        }
        Ok(())
    }
}

/// As [`explore`], but states first reached at depth `max_depth` get a
/// self-loop instead of their successors: exact for properties of at most
/// `max_depth` steps, evaluated at the initial states.
pub fn explore_to_depth(
    sem: &dyn Semantics,
    exact: bool,
    max_states: usize,
    deadline: Option<std::time::Instant>,
    max_depth: Option<usize>,
) -> Result<Mdp, Stop> {
    explore_settled(sem, exact, max_states, deadline, max_depth, &mut |_| false)
}

/// As [`explore_to_depth`], and states where `settled` holds get a
/// self-loop too: exact for unbounded properties whose answer is fixed at
/// those states (a target reached, or the until's left side broken).
pub fn explore_settled(
    sem: &dyn Semantics,
    exact: bool,
    max_states: usize,
    deadline: Option<std::time::Instant>,
    max_depth: Option<usize>,
    settled: &mut dyn FnMut(&[u64]) -> bool,
) -> Result<Mdp, Stop> {
    let words = sem.words().max(1);
    let mut table = StateTable::new(words);
    let mut initial = Vec::new();
    for s in sem.initial_states() {
        let (i, _) = table.insert(&s);
        if !initial.contains(&i) {
            initial.push(i);
        }
    }
    let mut mdp = Mdp {
        states: StateTable::new(words),
        initial,
        row_start: vec![0],
        choice_label: Vec::new(),
        choice_start: vec![0],
        targets: Vec::new(),
        probs: Vec::new(),
        exact: exact.then(Vec::new),
    };
    let mut succ = Successors::new(words);
    let mut state = vec![0u64; words];
    let mut merged: Vec<(u32, f64, usize)> = Vec::new();
    let mut next = 0usize;
    let (mut depth, mut layer_end) = (0usize, table.len());
    while next < table.len() {
        if next == layer_end {
            depth += 1;
            layer_end = table.len();
        }
        if next % 4096 == 0 && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Err(Stop::TimedOut(next));
        }
        state.copy_from_slice(table.get(next as u32));
        succ.clear();
        if max_depth.is_some_and(|d| depth >= d) || settled(&state) {
            succ.entry(&state, 1.0, exact.then(num_traits::One::one));
            succ.end_choice(u32::MAX);
        } else {
            sem.successors(&state, exact, &mut succ);
            if succ.overflow {
                return Err(Stop::Memory(format!(
                    "one state's successors need more than {} MiB ({words} words per state)",
                    SUCCESSOR_BYTES >> 20
                )));
            }
        }
        mdp.push_choices(&succ, &mut table, &mut merged, exact, max_states)?;
        mdp.row_start.push(mdp.choice_label.len());
        next += 1;
        let bytes = explorer_bytes(table.len(), words, mdp.targets.len(), exact);
        if bytes > MEMORY_BUDGET {
            return Err(Stop::Memory(format!(
                "{} states ({words} words each) and {} transitions reach the {} GiB memory budget after {next} states were expanded",
                table.len(),
                mdp.targets.len(),
                MEMORY_BUDGET >> 30
            )));
        }
    }
    mdp.states = table;
    Ok(mdp)
}
