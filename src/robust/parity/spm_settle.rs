//! What [`super::spm`] does with a measure when lifting alone makes no more
//! progress: settle its cycles, find the nodes where it is final, and read the
//! minimiser's strategy from it.

use super::spm_measure::{Measure, View, NODES_PER_CHECK};
use crate::report::{Deadline, Expired};

impl Measure<'_> {
    /// Settles the cyclic measures of a measure no lift can raise: cyclic at
    /// the highest component still open means top (the counter of the
    /// highest level overflowed); otherwise the opponent's least exit out of
    /// a cyclic node is taken at once (the value the cycle's measures would
    /// climb to one lift at a time), and without any exit the cyclic nodes
    /// the opponent cannot leave are won. True if a measure changed.
    pub(super) fn settle_cycles(&mut self, deadline: Deadline) -> Result<bool, Expired> {
        let k = self.k;
        if k == 0 {
            return Ok(false);
        }
        let highest = (0..k).rev().find(|&i| self.open[i] > 0).unwrap_or(0);
        let mut changed = false;
        let mut cycles = Vec::new();
        let mut exit = None;
        for v in 0..self.g.len() {
            if v % NODES_PER_CHECK == 0 {
                deadline.check()?;
            }
            if self.top[v] {
                continue;
            }
            match self.cyclic(v) {
                None => {}
                Some(c) if c == highest => changed |= self.set_top(v),
                Some(_) => {
                    cycles.push(v as u32);
                    if !self.maximises(v) {
                        self.least_exit(v, &mut exit);
                    }
                }
            }
        }
        if let Some((from, to, best)) = exit {
            self.write(from, best);
            self.choice[from] = to;
            self.push(from);
            return Ok(true);
        }
        let trapped = self.trapped(&cycles);
        for &v in &cycles {
            if trapped[v as usize] {
                changed |= self.set_top(v as usize);
            }
        }
        Ok(changed)
    }

    /// Keeps in `exit` the least successor measure of the minimiser at `v`
    /// that is above `v`'s own (a way out of its cycle), with its ends.
    fn least_exit(&self, v: usize, exit: &mut Option<(usize, u32, View)>) {
        for &w in self.g.succs(v) {
            let Some(p) = self.prog(v, w as usize) else {
                continue;
            };
            if !self.less(self.own(v), p) {
                continue;
            }
            if exit.is_none_or(|(_, _, best)| self.less(p, best)) {
                *exit = Some((v, w, p));
            }
        }
    }

    /// The nodes of `cycles` the minimiser cannot leave while the maximiser
    /// stays: removed backwards from those with a way out (the minimiser's to
    /// a node neither top nor among them, the maximiser's none inside).
    fn trapped(&self, cycles: &[u32]) -> Vec<bool> {
        let mut inside = vec![false; self.g.len()];
        for &v in cycles {
            inside[v as usize] = true;
        }
        let leaves = |inside: &[bool], v: usize| {
            let succs = self.g.succs(v);
            if self.maximises(v) {
                !succs.iter().any(|&w| inside[w as usize])
            } else {
                succs
                    .iter()
                    .any(|&w| !inside[w as usize] && !self.top[w as usize])
            }
        };
        let mut queue: Vec<u32> = Vec::new();
        for &v in cycles {
            if leaves(&inside, v as usize) {
                queue.push(v);
            }
        }
        for &v in &queue {
            inside[v as usize] = false;
        }
        let (ps, pred) = self.pred;
        while let Some(w) = queue.pop() {
            let w = w as usize;
            for &u in &pred[ps[w] as usize..ps[w + 1] as usize] {
                let u = u as usize;
                if inside[u] && leaves(&inside, u) {
                    inside[u] = false;
                    queue.push(u as u32);
                }
            }
        }
        inside
    }

    /// The nodes whose measure can never rise again: neither top, cyclic nor
    /// liftable, nor able to reach such a node against the minimiser. They
    /// form a closed set on which the measure is a progress measure, so the
    /// minimiser wins them. O(m k) for k components: the deadline is checked
    /// every [`NODES_PER_CHECK`] nodes.
    pub(super) fn stable_finite(&self, deadline: Deadline) -> Result<Vec<bool>, Expired> {
        let n = self.g.len();
        let mut unstable = Vec::with_capacity(n);
        for v in 0..n {
            if v % NODES_PER_CHECK == 0 {
                deadline.check()?;
            }
            let moving = self.top[v] || self.cyclic(v).is_some() || self.can_lift(v);
            unstable.push(moving);
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
                if !unstable[u] && (self.maximises(u) || !self.keeps(u, &unstable)) {
                    unstable[u] = true;
                    queue.push(u as u32);
                }
            }
        }
        Ok(unstable.iter().map(|&x| !x).collect())
    }

    /// Whether lifting `v` now would raise its measure (without changing it).
    fn can_lift(&self, v: usize) -> bool {
        let mut rises = self.g.succs(v).iter().map(|&w| {
            self.prog(v, w as usize)
                .is_none_or(|p| self.less(self.own(v), p))
        });
        if self.maximises(v) {
            rises.any(|r| r)
        } else {
            rises.all(|r| r)
        }
    }

    /// Whether the minimiser at `u` has a successor outside `unstable` whose
    /// progress does not exceed the measure of `u`.
    fn keeps(&self, u: usize, unstable: &[bool]) -> bool {
        self.g.succs(u).iter().any(|&w| {
            !unstable[w as usize]
                && self
                    .prog(u, w as usize)
                    .is_some_and(|p| !self.less(self.own(u), p))
        })
    }

    /// The minimiser's move at each of its nodes not top: a successor of
    /// least progress.
    pub(super) fn strategy(&self) -> Vec<Option<u32>> {
        (0..self.g.len())
            .map(|v| {
                if self.top[v] || self.maximises(v) {
                    return None;
                }
                self.least_successor(v).0
            })
            .collect()
    }
}
