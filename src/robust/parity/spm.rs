//! Small progress measures (Jurdzinski 2000), the construction the seed's parity
//! robustness builds on, for max-parity games.
//!
//! Two measures are lifted side by side: the game's (its top means player 1
//! wins; player 0's strategy comes from it) and the dual game's (owners swapped,
//! priorities + 1: its top means player 0 wins; player 1's strategy). Both use
//! the standard lifting optimisations (as in Oink's SPM, van Dijk 2018):
//! - a work list of nodes whose measure changed; a maximising predecessor looks
//!   only at the changed successor, a minimising one only when its best
//!   successor changed;
//! - a periodic stability check: the nodes whose measure can never be lifted
//!   again form a closed set with a progress measure, so their minimiser wins
//!   them, and the other measure is set to top there at once instead of climbing
//!   one bound at a time (the slow climb of random games).

use super::game::{Game, Solution};
use crate::report::{Deadline, Expired};

/// Lifts between two looks at the clock.
const LIFTS_PER_CHECK: u64 = 1024;
/// Nodes between deadline checks in the stability check.
const NODES_PER_CHECK: usize = 1024;

/// Solves the game with progress measures for both players.
pub fn solve(g: &Game) -> Solution {
    solve_until(g, Deadline::NONE).expect("no deadline")
}

/// [`solve`], giving up at `deadline` (checked every [`LIFTS_PER_CHECK`] lifts).
pub fn solve_until(g: &Game, deadline: Deadline) -> Result<Solution, Expired> {
    let dual = Game {
        priority: g.priority.iter().map(|p| p + 1).collect(),
        owner: g.owner.iter().map(|o| 1 - o).collect(),
        ..g.clone()
    };
    let pred = g.predecessors();
    let mut m0 = Measure::new(g, &pred);
    let mut m1 = Measure::new(&dual, &pred);
    let n = g.len();
    // Between stability checks: enough lifts that a check (O(m k)) stays a fraction of the work.
    let budget = (4 * (n + g.succ.len())).max(4096) as u64;
    let mut lifts = 0u64;
    m0.start(deadline)?;
    m1.start(deadline)?;
    loop {
        let idle0 = m0.run(budget, &mut lifts, deadline)?;
        let idle1 = m1.run(budget, &mut lifts, deadline)?;
        if idle0 && idle1 {
            break;
        }
        let (won0, won1) = (m0.stable_finite(deadline)?, m1.stable_finite(deadline)?);
        m1.force_top(&won0);
        m0.force_top(&won1);
    }
    let winner: Vec<u8> = (0..n).map(|v| u8::from(m0.top[v])).collect();
    debug_assert!((0..n).all(|v| m0.top[v] != m1.top[v]));
    let (s0, s1) = (m0.strategy(), m1.strategy());
    let strategy = (0..n)
        .map(|v| match (winner[v], g.owner[v]) {
            (0, 0) => s0[v],
            (1, 1) => s1[v],
            _ => None,
        })
        .collect();
    Ok(Solution { winner, strategy })
}

/// The tuple space of a game's measure: compressed priorities and the bounds.
struct Shape {
    /// Priorities compressed (order and parity kept) so that tuples stay short.
    prio: Vec<u32>,
    /// Components: odd priorities 1, 3, .. at index (p - 1) / 2.
    k: usize,
    /// The number of nodes of each odd priority: a component never exceeds it.
    bound: Vec<u32>,
}

impl Shape {
    fn new(g: &Game) -> Shape {
        let mut distinct: Vec<u32> = g.priority.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let mut level = Vec::with_capacity(distinct.len());
        let mut cur = 0u32;
        for (i, &p) in distinct.iter().enumerate() {
            if i == 0 {
                cur = p % 2;
            } else if p % 2 != cur % 2 {
                cur += 1;
            }
            level.push(cur);
        }
        let prio: Vec<u32> = g
            .priority
            .iter()
            .map(|p| level[distinct.partition_point(|q| q < p)])
            .collect();
        let max_p = prio.iter().copied().max().unwrap_or(0);
        let k = (max_p as usize).div_ceil(2);
        let mut bound = vec![0u32; k];
        for &p in prio.iter().filter(|&&p| p % 2 == 1) {
            bound[(p as usize - 1) / 2] += 1;
        }
        Shape { prio, k, bound }
    }

    /// prog(rho, v, w) into `out`; false for top.
    fn prog(&self, rho: &[u32], top: &[bool], v: usize, w: usize, out: &mut [u32]) -> bool {
        if top[w] {
            return false;
        }
        let k = self.k;
        let p = self.prio[v] as usize;
        let lo = p / 2; // the components that count at p: odd priorities >= p
        out[..lo].fill(0);
        out[lo..].copy_from_slice(&rho[w * k + lo..w * k + k]);
        if p % 2 == 0 {
            return true;
        }
        for (x, &b) in out[lo..].iter_mut().zip(&self.bound[lo..]) {
            if *x < b {
                *x += 1;
                return true;
            }
            *x = 0;
        }
        false
    }

    /// Lexicographic order from the most significant (highest) component.
    fn less(&self, a: &[u32], b: &[u32]) -> bool {
        for c in (0..self.k).rev() {
            if a[c] != b[c] {
                return a[c] < b[c];
            }
        }
        false
    }
}

/// One measure being lifted: owner 0 minimises, owner 1 maximises, top means owner 1 wins.
struct Measure<'a> {
    g: &'a Game,
    pred: &'a (Vec<u32>, Vec<u32>),
    shape: Shape,
    rho: Vec<u32>,
    top: Vec<bool>,
    /// A minimiser's best successor: its measure only changes when this one's does.
    choice: Vec<u32>,
    /// Nodes whose measure changed and whose predecessors have not looked yet.
    work: Vec<u32>,
    queued: Vec<bool>,
    tmp: Vec<u32>,
    best: Vec<u32>,
}

impl<'a> Measure<'a> {
    fn new(g: &'a Game, pred: &'a (Vec<u32>, Vec<u32>)) -> Self {
        let shape = Shape::new(g);
        let (n, k) = (g.len(), shape.k);
        Measure {
            g,
            pred,
            rho: vec![0; n * k],
            top: vec![false; n],
            choice: vec![u32::MAX; n],
            work: Vec::new(),
            queued: vec![false; n],
            tmp: vec![0; k],
            best: vec![0; k],
            shape,
        }
    }

    /// The first pass: every node lifted once from the zero measure.
    /// The first lift of every node. With k measure components it costs
    /// O(m k) (and touches the n k measure table for the first time), so it
    /// looks at the clock like the rest: a 50,000-node game with 2,000
    /// priorities once spent its whole second here, under load, and the run
    /// was ended by the backstop without its partial report.
    fn start(&mut self, deadline: Deadline) -> Result<(), Expired> {
        for v in 0..self.g.len() {
            if v % NODES_PER_CHECK == 0 {
                deadline.check()?;
            }
            if self.lift(v, None) {
                self.push(v);
            }
        }
        Ok(())
    }

    fn push(&mut self, v: usize) {
        if !self.queued[v] {
            self.queued[v] = true;
            self.work.push(v as u32);
        }
    }

    /// Lifts until the work list is empty (true) or `budget` lifts were tried (false).
    fn run(&mut self, budget: u64, lifts: &mut u64, deadline: Deadline) -> Result<bool, Expired> {
        let mut tried = 0u64;
        while let Some(w) = self.work.pop() {
            let w = w as usize;
            self.queued[w] = false;
            let (ps, pred) = self.pred;
            for &u in &pred[ps[w] as usize..ps[w + 1] as usize] {
                *lifts += 1;
                tried += 1;
                if *lifts % LIFTS_PER_CHECK == 0 {
                    deadline.check()?;
                }
                if self.lift(u as usize, Some(w)) {
                    self.push(u as usize);
                }
            }
            if tried >= budget {
                return Ok(self.work.is_empty());
            }
        }
        Ok(true)
    }

    /// Lifts `v` after `changed` (None: any successor) changed; true if its measure rose.
    fn lift(&mut self, v: usize, changed: Option<usize>) -> bool {
        if self.top[v] {
            return false;
        }
        let g = self.g;
        let Measure {
            shape,
            rho,
            top,
            choice,
            tmp,
            best,
            ..
        } = self;
        let k = shape.k;
        let one = changed.map(|w| [w as u32]);
        let succs: &[u32] = match &one {
            Some(w) => w,
            None => g.succs(v),
        };
        let to_top = if g.owner[v] == 1 {
            // The maximum can only rise through the successor that rose.
            best.copy_from_slice(&rho[v * k..v * k + k]);
            let mut to_top = false;
            for &w in succs {
                if !shape.prog(rho, top, v, w as usize, tmp) {
                    to_top = true;
                    break;
                }
                if shape.less(best, tmp) {
                    best.copy_from_slice(tmp);
                }
            }
            to_top
        } else {
            // The minimum only moves when the best successor's measure does.
            if changed.is_some_and(|w| choice[v] != w as u32) {
                return false;
            }
            choice[v] = u32::MAX;
            for &w in g.succs(v) {
                if shape.prog(rho, top, v, w as usize, tmp)
                    && (choice[v] == u32::MAX || shape.less(tmp, best))
                {
                    best.copy_from_slice(tmp);
                    choice[v] = w;
                }
            }
            choice[v] == u32::MAX
        };
        if to_top {
            top[v] = true;
            return true;
        }
        if shape.less(&rho[v * k..v * k + k], best) {
            rho[v * k..v * k + k].copy_from_slice(best);
            return true;
        }
        false
    }

    /// Sets the measure to top on `won` (nodes the top's player is known to win).
    fn force_top(&mut self, won: &[bool]) {
        for (v, &w) in won.iter().enumerate() {
            if w && !self.top[v] {
                self.top[v] = true;
                self.push(v);
            }
        }
    }

    /// The nodes whose measure can never rise again: neither top nor liftable,
    /// nor able to reach such a node against the minimiser. They form a closed
    /// set on which the measure is a progress measure, so the minimiser wins them.
    /// The check costs O(m k) for k measure components: the deadline is
    /// checked every [`NODES_PER_CHECK`] nodes.
    fn stable_finite(&mut self, deadline: Deadline) -> Result<Vec<bool>, Expired> {
        let n = self.g.len();
        let mut unstable = Vec::with_capacity(n);
        for v in 0..n {
            if v % NODES_PER_CHECK == 0 {
                deadline.check()?;
            }
            unstable.push(self.top[v] || self.can_lift(v));
        }
        let mut queue: Vec<u32> = (0..n as u32).filter(|&v| unstable[v as usize]).collect();
        let (ps, pred) = self.pred;
        let mut popped = 0usize;
        while let Some(w) = queue.pop() {
            popped += 1;
            if popped % NODES_PER_CHECK == 0 {
                deadline.check()?;
            }
            let w = w as usize;
            for &u in &pred[ps[w] as usize..ps[w + 1] as usize] {
                let u = u as usize;
                if !unstable[u] && (self.g.owner[u] == 1 || !self.keeps(u, &unstable)) {
                    unstable[u] = true;
                    queue.push(u as u32);
                }
            }
        }
        Ok(unstable.iter().map(|&x| !x).collect())
    }

    /// Whether lifting `v` now would raise its measure (without changing it).
    fn can_lift(&mut self, v: usize) -> bool {
        let k = self.shape.k;
        let Measure {
            g,
            shape,
            rho,
            top,
            tmp,
            ..
        } = self;
        let cur = &rho[v * k..v * k + k];
        let mut rises = g
            .succs(v)
            .iter()
            .map(|&w| !shape.prog(rho, top, v, w as usize, tmp) || shape.less(cur, tmp));
        if g.owner[v] == 1 {
            rises.any(|r| r)
        } else {
            rises.all(|r| r)
        }
    }

    /// Whether the minimiser at `u` has a successor outside `unstable` whose
    /// progress does not exceed the measure of `u`.
    fn keeps(&mut self, u: usize, unstable: &[bool]) -> bool {
        let k = self.shape.k;
        let Measure {
            g,
            shape,
            rho,
            top,
            tmp,
            ..
        } = self;
        g.succs(u).iter().any(|&w| {
            !unstable[w as usize]
                && shape.prog(rho, top, u, w as usize, tmp)
                && !shape.less(&rho[u * k..u * k + k], tmp)
        })
    }

    /// The minimiser's move at each node it wins: a successor of least progress.
    fn strategy(&self) -> Vec<Option<u32>> {
        let k = self.shape.k;
        let mut out = vec![0u32; k];
        let mut best = vec![0u32; k];
        (0..self.g.len())
            .map(|v| {
                if self.top[v] || self.g.owner[v] != 0 {
                    return None;
                }
                let mut choice = None;
                for &w in self.g.succs(v) {
                    if self
                        .shape
                        .prog(&self.rho, &self.top, v, w as usize, &mut out)
                        && (choice.is_none() || self.shape.less(&out, &best))
                    {
                        best.copy_from_slice(&out);
                        choice = Some(w);
                    }
                }
                choice
            })
            .collect()
    }
}
