//! The strongly connected components of an [`Mdp`]'s graph, in reverse
//! topological order (Tarjan 1972, without recursion): a component comes
//! after every component it can reach, so the topological solvers
//! ([`super::topological`]) find the values of its successors known when
//! they come to it.

use super::mdp::Mdp;

/// The components of the states `within`: component k is
/// `states[start[k]..start[k + 1]]`.
pub struct Components {
    pub states: Vec<u32>,
    pub start: Vec<usize>,
}

impl Components {
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn get(&self, k: usize) -> &[u32] {
        &self.states[self.start[k]..self.start[k + 1]]
    }

    /// Whether component k is one state without a transition to itself:
    /// its value is one Bellman step from its successors'.
    pub fn trivial(&self, mdp: &Mdp, k: usize) -> bool {
        let c = self.get(k);
        c.len() == 1 && !state_entries(mdp, c[0] as usize).any(|e| mdp.targets[e] == c[0])
    }
}

/// The entries of every choice of `s` (contiguous in the rows).
fn state_entries(mdp: &Mdp, s: usize) -> std::ops::Range<usize> {
    mdp.choice_start[mdp.row_start[s]]..mdp.choice_start[mdp.row_start[s + 1]]
}

const NONE: u32 = u32::MAX;

/// Tarjan's bookkeeping: discovery index and low link per state, the
/// component stack, and the explicit call stack (a state and the next of
/// its entries to follow).
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<u32>,
    frames: Vec<(u32, usize)>,
    next: u32,
}

impl Tarjan {
    fn visit(&mut self, mdp: &Mdp, s: usize) {
        self.index[s] = self.next;
        self.low[s] = self.next;
        self.next += 1;
        self.stack.push(s as u32);
        self.on_stack[s] = true;
        self.frames.push((s as u32, state_entries(mdp, s).start));
    }

    /// Follows the entries of the top frame's state from where it left
    /// off: the first successor in `within` not yet discovered, if any.
    fn advance(&mut self, mdp: &Mdp, within: &[bool]) -> Option<usize> {
        let (v, e) = self.frames.last_mut().expect("a frame");
        let v = *v as usize;
        let end = state_entries(mdp, v).end;
        while *e < end {
            let w = mdp.targets[*e] as usize;
            *e += 1;
            if !within[w] {
                continue;
            }
            if self.index[w] == NONE {
                return Some(w);
            }
            if self.on_stack[w] {
                self.low[v] = self.low[v].min(self.index[w]);
            }
        }
        None
    }

    /// Pops the finished top frame; a root closes its component.
    fn finish(&mut self, out: &mut Components) {
        let (v, _) = self.frames.pop().expect("a frame");
        let v = v as usize;
        if let Some(&(u, _)) = self.frames.last() {
            self.low[u as usize] = self.low[u as usize].min(self.low[v]);
        }
        if self.low[v] == self.index[v] {
            let from = out.states.len();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w as usize] = false;
                out.states.push(w);
                if w as usize == v {
                    break;
                }
            }
            // In the reverse of the exploration order, the order of the
            // Gauss-Seidel sweeps: values flow backwards from the targets,
            // which breadth-first exploration numbers late.
            out.states[from..].sort_unstable_by(|a, b| b.cmp(a));
            out.start.push(out.states.len());
        }
    }
}

/// Tarjan's algorithm over the states `within` and the transitions
/// between them (every choice's).
pub fn components(mdp: &Mdp, within: &[bool]) -> Components {
    let n = mdp.num_states();
    let mut t = Tarjan {
        index: vec![NONE; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        frames: Vec::new(),
        next: 0,
    };
    let mut out = Components {
        states: Vec::with_capacity(n),
        start: vec![0],
    };
    for root in (0..n).filter(|&s| within[s]) {
        if t.index[root] != NONE {
            continue;
        }
        t.visit(mdp, root);
        while !t.frames.is_empty() {
            match t.advance(mdp, within) {
                Some(w) => t.visit(mdp, w),
                None => t.finish(&mut out),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_mdps::{mdp, r, random_mdp};
    use super::*;

    /// Reachability by depth-first search, for the brute-force check.
    fn reaches(m: &Mdp, within: &[bool], from: usize) -> Vec<bool> {
        let mut seen = vec![false; m.num_states()];
        let mut todo = vec![from];
        seen[from] = true;
        while let Some(s) = todo.pop() {
            for e in state_entries(m, s) {
                let t = m.targets[e] as usize;
                if within[t] && !seen[t] {
                    seen[t] = true;
                    todo.push(t);
                }
            }
        }
        seen
    }

    /// On random MDPs: the components partition the states `within`, two
    /// states share one exactly when each reaches the other, and a
    /// component comes after every other component it reaches.
    #[test]
    fn components_are_mutual_reachability_in_reverse_topological_order() {
        let mut seed = 11u64;
        for case in 0..60 {
            let n = 2 + case % 9;
            let m = random_mdp(&mut seed, n);
            let within: Vec<bool> = (0..n).map(|s| (s * 7 + case) % 5 != 0).collect();
            let c = components(&m, &within);
            let mut comp = vec![usize::MAX; n];
            for k in 0..c.len() {
                for &s in c.get(k) {
                    assert_eq!(comp[s as usize], usize::MAX, "case {case}: twice");
                    comp[s as usize] = k;
                }
            }
            let reach: Vec<Vec<bool>> = (0..n).map(|s| reaches(&m, &within, s)).collect();
            for s in (0..n).filter(|&s| within[s]) {
                for t in (0..n).filter(|&t| within[t]) {
                    let mutual = reach[s][t] && reach[t][s];
                    assert_eq!(comp[s] == comp[t], mutual, "case {case}: {s}, {t}");
                    if reach[s][t] {
                        assert!(comp[t] <= comp[s], "case {case}: {s} reaches {t} later");
                    }
                }
            }
            assert!((0..n).all(|s| within[s] == (comp[s] != usize::MAX)));
        }
    }

    /// 0 -> 1 <-> 2 -> 3, 3 loops: {3}, {1, 2}, {0}; only {0} is trivial.
    #[test]
    fn a_chain_with_a_cycle_and_a_loop() {
        let one = || r(1, 1);
        let m = mdp(
            &[
                vec![vec![(1, one())]],
                vec![vec![(2, one())]],
                vec![vec![(1, r(1, 2)), (3, r(1, 2))]],
                vec![vec![(3, one())]],
            ],
            0,
        );
        let c = components(&m, &[true; 4]);
        let mut got: Vec<Vec<u32>> = (0..c.len()).map(|k| c.get(k).to_vec()).collect();
        got[1].sort();
        assert_eq!(got, vec![vec![3], vec![1, 2], vec![0]]);
        let trivial: Vec<bool> = (0..c.len()).map(|k| c.trivial(&m, k)).collect();
        assert_eq!(trivial, [false, false, true]);
    }
}
