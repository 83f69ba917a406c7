//! One player's progress measure of [`super::spm`]: its components, the
//! progress of a successor's measure, the comparison that treats cycles as
//! equal, and the lifting with a work list.

use super::game::Game;
use super::spm_rows::{Entry, Rows};
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
    /// Per node: the non-zero components of its measure. A lift reads and
    /// writes those only, not k components.
    pub(super) rho: Rows,
    pub(super) top: Vec<bool>,
    /// A minimiser's best successor: its measure only changes when this one's does.
    pub(super) choice: Vec<u32>,
    /// Nodes whose measure changed and whose predecessors have not looked yet.
    work: Vec<u32>,
    queued: Vec<bool>,
    /// Reused for the measure being written.
    scratch: Vec<Entry>,
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
            rho: Rows::new(n),
            top: vec![false; n],
            choice: vec![u32::MAX; n],
            work: Vec::new(),
            queued: vec![false; n],
            scratch: Vec::new(),
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

    /// `v`'s own measure, read in place.
    #[inline]
    pub(super) fn own(&self, v: usize) -> View {
        View {
            row: v,
            len: self.rho.get(v).len(),
            lo: (self.shifted(v) / 2) as u32,
            bump: false,
        }
    }

    /// The progress of `w`'s measure through `v`, read in place: components
    /// below `v`'s level cleared, `v`'s own one (if counted) one higher,
    /// without carry; None for top.
    #[inline]
    pub(super) fn prog(&self, v: usize, w: usize) -> Option<View> {
        if self.top[w] {
            return None;
        }
        let s = self.shifted(v);
        let lo = (s / 2) as u32; // the components of the counted levels below s
        let list = self.rho.get(w);
        let mut len = list.len();
        while len > 0 && list[len - 1].0 < lo {
            len -= 1;
        }
        Some(View {
            row: w,
            len,
            lo,
            bump: s % 2 == 1,
        })
    }

    /// The non-zero components of `a`, highest first: a slice of the
    /// table and the bumped last one.
    #[inline]
    fn parts(&self, a: View) -> (&[Entry], Option<Entry>) {
        let list = &self.rho.get(a.row)[..a.len];
        match list.last() {
            _ if !a.bump => (list, None),
            Some(&(c, x)) if c == a.lo => (&list[..a.len - 1], Some((c, x.saturating_add(1)))),
            _ => (list, Some((a.lo, 1))),
        }
    }

    /// The order of measures from the highest component down, where two
    /// values both above a component's open count are equal there and below
    /// (both say the play cycles at that level, nothing finer counts). Only
    /// the non-zero components are read (a zero is never above its open count).
    #[inline]
    pub(super) fn less(&self, a: View, b: View) -> bool {
        let ((xs, xt), (ys, yt)) = (self.parts(a), self.parts(b));
        let at = |list: &[Entry], tail: Option<Entry>, i: usize| match list.get(i) {
            Some(&e) => Some(e),
            None if i == list.len() => tail,
            None => None,
        };
        let (mut i, mut j) = (0, 0);
        loop {
            let (c, vx, vy) = match (at(xs, xt, i), at(ys, yt, j)) {
                (None, None) => return false,
                (Some((c, vx)), Some((d, vy))) if c == d => {
                    (i, j) = (i + 1, j + 1);
                    (c, vx, vy)
                }
                (Some((c, vx)), Some((d, _))) if c > d => {
                    i += 1;
                    (c, vx, 0)
                }
                (Some((c, vx)), None) => {
                    i += 1;
                    (c, vx, 0)
                }
                (_, Some((d, vy))) => {
                    j += 1;
                    (d, 0, vy)
                }
            };
            let open = self.open[c as usize];
            if vx > open && vy > open {
                return false;
            }
            if vx != vy {
                return vx < vy;
            }
        }
    }

    /// Makes `a` the measure of `v` (a progress at `v`).
    pub(super) fn write(&mut self, v: usize, a: View) {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let (body, tail) = self.parts(a);
        out.extend_from_slice(body);
        out.extend(tail);
        self.rho.set(v, &out);
        self.scratch = out;
    }

    /// The highest component at which `v`'s measure is cyclic.
    pub(super) fn cyclic(&self, v: usize) -> Option<usize> {
        self.rho
            .get(v)
            .iter()
            .find(|&&(c, x)| x > self.open[c as usize])
            .map(|&(c, _)| c as usize)
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
    pub(super) fn start(
        &mut self,
        lifts: &mut u64,
        (deadline, meter): (Deadline, &crate::report::meter::Meter),
    ) -> Result<(), Expired> {
        for v in 0..self.g.len() {
            *lifts += 1;
            if v % NODES_PER_CHECK == 0 {
                deadline.check()?;
                meter.set(*lifts);
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
        (deadline, meter): (Deadline, &crate::report::meter::Meter),
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
                    meter.set(*lifts);
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
        let best = if self.maximises(v) {
            self.max_lift(v, changed)
        } else if changed.is_some_and(|w| self.choice[v] != w as u32) {
            // The minimum only moves when the best successor's measure does.
            return false;
        } else {
            self.min_lift(v)
        };
        match best {
            None => self.mark_top(v),
            Some(b) if self.less(self.own(v), b) => {
                self.write(v, b);
                true
            }
            Some(_) => false,
        }
    }

    /// The maximum of `v`'s measure and the progress of its successors (the
    /// changed successor only: the maximum can only rise through it); None for top.
    fn max_lift(&self, v: usize, changed: Option<usize>) -> Option<View> {
        let one = changed.map(|w| [w as u32]);
        let succs: &[u32] = match &one {
            Some(w) => w,
            None => self.g.succs(v),
        };
        let mut best = self.own(v);
        for &w in succs {
            let p = self.prog(v, w as usize)?;
            if self.less(best, p) {
                best = p;
            }
        }
        Some(best)
    }

    /// The least progress of `v`'s successors, remembering its successor;
    /// None for top (every successor top).
    fn min_lift(&mut self, v: usize) -> Option<View> {
        let (choice, best) = self.least_successor(v);
        self.choice[v] = choice.unwrap_or(u32::MAX);
        best
    }

    /// A successor of `v` of least progress, and that progress.
    pub(super) fn least_successor(&self, v: usize) -> (Option<u32>, Option<View>) {
        let mut out = (None, None);
        for &w in self.g.succs(v) {
            if let Some(p) = self.prog(v, w as usize) {
                if out.1.is_none_or(|b| self.less(p, b)) {
                    out = (Some(w), Some(p));
                }
            }
        }
        out
    }
}

/// A measure read in place: the first `len` entries of node `row`'s list
/// (those at or above component `lo`), and with `bump` one more at `lo`
/// (the progress through a counted level). Reading in place spares a copy
/// per successor looked at.
#[derive(Clone, Copy, Debug)]
pub(super) struct View {
    row: usize,
    len: usize,
    lo: u32,
    bump: bool,
}
