//! One player's progress measure of [`super::spm`]: its components, the
//! progress of a successor's measure, the comparison that treats cycles as
//! equal, and the lifting with a work list.

use super::game::Game;
use crate::report::{Deadline, Expired};

/// Lifts between two looks at the clock.
const LIFTS_PER_CHECK: u64 = 1024;
/// Nodes between deadline checks in the passes over every node.
pub(super) const NODES_PER_CHECK: usize = 1024;

/// Player `q`'s measure: `q` maximises it, the opponent minimises it, top
/// means `q` wins. A node's level is shifted by `1 - q` so that the counted
/// levels (those of `q`'s parity) are the odd ones: shifted level `s` has
/// component `(s - 1) / 2`.
pub(super) struct Measure<'a> {
    pub(super) g: &'a Game,
    pub(super) pred: &'a (Vec<u32>, Vec<u32>),
    level: &'a [u32],
    pub(super) q: u8,
    /// Components per node.
    pub(super) k: usize,
    /// Per component: the nodes of its level that are not top. A component
    /// above it means a cycle (see [`Measure::less`]).
    pub(super) open: Vec<u32>,
    pub(super) rho: Vec<u32>,
    pub(super) top: Vec<bool>,
    /// A minimiser's best successor: its measure only changes when this one's does.
    pub(super) choice: Vec<u32>,
    /// Nodes whose measure changed and whose predecessors have not looked yet.
    work: Vec<u32>,
    queued: Vec<bool>,
    pub(super) tmp: Vec<u32>,
    pub(super) best: Vec<u32>,
}

impl<'a> Measure<'a> {
    pub(super) fn new(
        g: &'a Game,
        pred: &'a (Vec<u32>, Vec<u32>),
        level: &'a [u32],
        q: u8,
    ) -> Self {
        let n = g.len();
        let shifted_max = level.iter().max().map_or(0, |&l| l + 1 - q as u32);
        let k = shifted_max.div_ceil(2) as usize;
        let mut m = Measure {
            g,
            pred,
            level,
            q,
            k,
            open: vec![0; k],
            rho: vec![0; n * k],
            top: vec![false; n],
            choice: vec![u32::MAX; n],
            work: Vec::new(),
            queued: vec![false; n],
            tmp: vec![0; k],
            best: vec![0; k],
        };
        for v in 0..n {
            if let Some(c) = m.component(v) {
                m.open[c] += 1;
            }
        }
        m
    }

    /// The level of `v` shifted so that this measure counts the odd ones.
    pub(super) fn shifted(&self, v: usize) -> usize {
        (self.level[v] + 1 - self.q as u32) as usize
    }

    /// The component that counts visits to `v`, if its level is counted.
    fn component(&self, v: usize) -> Option<usize> {
        let s = self.shifted(v);
        (s % 2 == 1).then_some(s / 2)
    }

    pub(super) fn is_top(&self, v: usize) -> bool {
        self.top[v]
    }

    /// Whether `q` maximises at `v`.
    pub(super) fn maximises(&self, v: usize) -> bool {
        self.g.owner[v] == self.q
    }

    /// The progress of `w`'s measure through `v` into `out`: components below
    /// `v`'s level cleared, `v`'s own one (if counted) one higher, without
    /// carry; false for top.
    pub(super) fn prog(&self, v: usize, w: usize, out: &mut [u32]) -> bool {
        prog(&self.rho, &self.top, self.k, self.shifted(v), w, out)
    }

    /// The order of measures from the highest component down, where two
    /// values both above a component's open count are equal there and below
    /// (both say the play cycles at that level, nothing finer counts).
    pub(super) fn less(&self, a: &[u32], b: &[u32]) -> bool {
        less(&self.open, a, b)
    }

    /// The highest component at which `v`'s measure is cyclic.
    pub(super) fn cyclic(&self, v: usize) -> Option<usize> {
        let m = &self.rho[v * self.k..(v + 1) * self.k];
        (0..self.k).rev().find(|&i| m[i] > self.open[i])
    }

    pub(super) fn push(&mut self, v: usize) {
        if !self.queued[v] {
            self.queued[v] = true;
            self.work.push(v as u32);
        }
    }

    /// Makes `v` top (its level no longer open); false if it was.
    fn mark_top(&mut self, v: usize) -> bool {
        if self.top[v] {
            return false;
        }
        self.top[v] = true;
        if let Some(c) = self.component(v) {
            self.open[c] -= 1;
        }
        true
    }

    /// [`Measure::mark_top`], and `v`'s predecessors queued to look at it.
    pub(super) fn set_top(&mut self, v: usize) -> bool {
        let changed = self.mark_top(v);
        if changed {
            self.push(v);
        }
        changed
    }

    /// Sets the measure to top on `won` (nodes `q` is known to win); true if any changed.
    pub(super) fn force_top(&mut self, won: &[bool]) -> bool {
        let mut any = false;
        for (v, &w) in won.iter().enumerate() {
            any |= w && self.set_top(v);
        }
        any
    }

    /// The first pass: every node lifted once from the zero measure. It
    /// costs O(m k) and touches the n k measure table for the first time, so
    /// it looks at the clock like the rest.
    pub(super) fn start(&mut self, deadline: Deadline) -> Result<(), Expired> {
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

    /// Lifts until the work list is empty (true) or `budget` lifts were tried (false).
    pub(super) fn run(
        &mut self,
        budget: u64,
        lifts: &mut u64,
        deadline: Deadline,
    ) -> Result<bool, Expired> {
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
        let k = self.k;
        let mut best = std::mem::take(&mut self.best);
        let mut tmp = std::mem::take(&mut self.tmp);
        let to_top = if self.maximises(v) {
            self.max_lift(v, changed, &mut best, &mut tmp)
        } else if changed.is_some_and(|w| self.choice[v] != w as u32) {
            // The minimum only moves when the best successor's measure does.
            self.best = best;
            self.tmp = tmp;
            return false;
        } else {
            self.min_lift(v, &mut best, &mut tmp)
        };
        let rose = if to_top {
            self.mark_top(v)
        } else if self.less(&self.rho[v * k..v * k + k], &best) {
            self.rho[v * k..v * k + k].copy_from_slice(&best);
            true
        } else {
            false
        };
        self.best = best;
        self.tmp = tmp;
        rose
    }

    /// The maximum into `best` (the changed successor only: the maximum can
    /// only rise through it); true for top.
    fn max_lift(
        &self,
        v: usize,
        changed: Option<usize>,
        best: &mut [u32],
        tmp: &mut [u32],
    ) -> bool {
        let k = self.k;
        best.copy_from_slice(&self.rho[v * k..v * k + k]);
        let one = changed.map(|w| [w as u32]);
        let succs: &[u32] = match &one {
            Some(w) => w,
            None => self.g.succs(v),
        };
        for &w in succs {
            if !self.prog(v, w as usize, tmp) {
                return true;
            }
            if self.less(best, tmp) {
                best.copy_from_slice(tmp);
            }
        }
        false
    }

    /// The minimum into `best`, remembering its successor; true for top
    /// (every successor top).
    fn min_lift(&mut self, v: usize, best: &mut [u32], tmp: &mut [u32]) -> bool {
        let mut choice = u32::MAX;
        for &w in self.g.succs(v) {
            if self.prog(v, w as usize, tmp) && (choice == u32::MAX || self.less(tmp, best)) {
                best.copy_from_slice(tmp);
                choice = w;
            }
        }
        self.choice[v] = choice;
        choice == u32::MAX
    }
}

/// [`Measure::prog`] on the measure table, `s` the shifted level of the node.
fn prog(rho: &[u32], top: &[bool], k: usize, s: usize, w: usize, out: &mut [u32]) -> bool {
    if top[w] {
        return false;
    }
    let lo = s / 2; // the components of the counted levels below s
    out[..lo].fill(0);
    out[lo..].copy_from_slice(&rho[w * k + lo..w * k + k]);
    if s % 2 == 1 {
        out[lo] = out[lo].saturating_add(1);
    }
    true
}

/// [`Measure::less`] with the open counts `open`.
fn less(open: &[u32], a: &[u32], b: &[u32]) -> bool {
    for i in (0..open.len()).rev() {
        let (x, y) = (a[i], b[i]);
        if x > open[i] && y > open[i] {
            return false;
        }
        if x != y {
            return x < y;
        }
    }
    false
}
