//! The min-max fixed point behind the seed's operator g (Section 3.2):
//! v(q) = min(base(q), min over moves m of q of max over successors s of m of v(s)),
//! the greatest such fixed point. Computed Dijkstra-like: states are settled in
//! increasing value; a move is decided once all its successors are settled, and
//! its value is then the value of the last one settled (the maximum).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A sparse game graph: every move belongs to one state and has distinct successors.
#[derive(Clone, Debug, Default)]
pub struct MoveGraph {
    pub n: usize,
    /// owner[m]: the state at which move m is available.
    pub owner: Vec<u32>,
    /// Successors of move m: succ[start[m]..start[m+1]].
    pub start: Vec<u32>,
    pub succ: Vec<u32>,
}

impl MoveGraph {
    pub fn new(n: usize) -> Self {
        MoveGraph {
            n,
            owner: Vec::new(),
            start: vec![0],
            succ: Vec::new(),
        }
    }

    /// Adds a move of `owner`; repeated successors are merged.
    pub fn push(&mut self, owner: u32, succs: impl IntoIterator<Item = u32>) {
        let from = self.succ.len();
        for s in succs {
            if !self.succ[from..].contains(&s) {
                self.succ.push(s);
            }
        }
        self.owner.push(owner);
        self.start.push(self.succ.len() as u32);
    }

    pub fn moves(&self) -> usize {
        self.owner.len()
    }

    pub fn succs(&self, m: usize) -> &[u32] {
        &self.succ[self.start[m] as usize..self.start[m + 1] as usize]
    }
}

/// The fixed point and, per state, the move that attains it (None: base(q) itself).
#[derive(Clone, Debug)]
pub struct MinMax {
    pub value: Vec<f64>,
    pub witness: Vec<Option<u32>>,
    /// Settling order: a witness move only leads to states settled earlier.
    pub order: Vec<u32>,
}

#[derive(PartialEq)]
struct Key(f64, u32);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    // Reversed: BinaryHeap is a max-heap and we settle the least value first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

/// Dijkstra-like computation of the greatest fixed point, O((V + E) log V).
pub fn solve(g: &MoveGraph, base: &[f64]) -> MinMax {
    let n = g.n;
    // Reverse adjacency: for each state the moves having it as a successor.
    let mut rstart = vec![0u32; n + 1];
    for &s in &g.succ {
        rstart[s as usize + 1] += 1;
    }
    for i in 0..n {
        rstart[i + 1] += rstart[i];
    }
    let mut fill = rstart.clone();
    let mut rmove = vec![0u32; g.succ.len()];
    for m in 0..g.moves() {
        for &s in g.succs(m) {
            rmove[fill[s as usize] as usize] = m as u32;
            fill[s as usize] += 1;
        }
    }
    let mut pending: Vec<u32> = (0..g.moves()).map(|m| g.succs(m).len() as u32).collect();
    let mut key = base.to_vec();
    let mut witness = vec![None; n];
    let mut settled = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut heap: BinaryHeap<Key> = (0..n).map(|q| Key(key[q], q as u32)).collect();
    // Moves without successors never become decided (they do not occur in automata).
    while let Some(Key(k, q)) = heap.pop() {
        let qi = q as usize;
        if settled[qi] || k != key[qi] {
            continue;
        }
        settled[qi] = true;
        order.push(q);
        for &m in &rmove[rstart[qi] as usize..rstart[qi + 1] as usize] {
            pending[m as usize] -= 1;
            if pending[m as usize] == 0 {
                let p = g.owner[m as usize] as usize;
                if !settled[p] && k < key[p] {
                    key[p] = k;
                    witness[p] = Some(m);
                    heap.push(Key(k, p as u32));
                }
            }
        }
    }
    MinMax {
        value: key,
        witness,
        order,
    }
}

/// The plain iteration opt^{i+1} = g(opt^i) from opt^0 = base (the seed's Bellman-Ford form).
/// Used as the reference the Dijkstra-like computation is tested against.
pub fn iterate(g: &MoveGraph, base: &[f64]) -> (Vec<f64>, usize) {
    let mut v = base.to_vec();
    let mut rounds = 0;
    loop {
        let mut next = v.clone();
        for m in 0..g.moves() {
            let worst = g
                .succs(m)
                .iter()
                .map(|&s| v[s as usize])
                .fold(f64::NEG_INFINITY, f64::max);
            let p = g.owner[m] as usize;
            if worst < next[p] {
                next[p] = worst;
            }
        }
        if next == v {
            return (v, rounds);
        }
        v = next;
        rounds += 1;
    }
}
