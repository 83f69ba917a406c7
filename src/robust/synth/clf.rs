//! Rank functions and control Lyapunov functions (seed Section 3.1, Def. 3.1,
//! Theorem 3.2): R_F(q) = 0 iff q in F, and for every q outside F some input a
//! with R(q^{a,eps}) - R(q) <= -f(d(q, F)). For linear f(x) = c x the bound is
//! sigma = K / c, K the Lipschitz constant of R.

use super::reach::membership;
use crate::robust::front::Automaton;
use std::collections::BinaryHeap;

/// The outcome of checking a rank function as a control Lyapunov function with linear f.
#[derive(Clone, Debug)]
pub struct ClfCheck {
    /// The largest c for which inequality (2) holds with f(x) = c x (0: not a CLF;
    /// infinite when every reachable state is in F).
    pub c: f64,
    /// The Lipschitz constant of R (over all pairs of considered states, or over the
    /// pairs (q^{a,eps}, q^{a,x}) the proof uses when |Q| is large).
    pub lipschitz: f64,
    pub lipschitz_all_pairs: bool,
    /// K / c, infinite when c = 0.
    pub sigma: f64,
    /// Why R is not a CLF, if it is not.
    pub failure: Option<String>,
}

/// The computed rank function: nominal cost-to-go to F where leaving q costs d(q, F).
/// It satisfies inequality (2) with c = 1 wherever F is nominally coreachable.
pub fn cost_to_go(a: &Automaton, f: &[u32]) -> Vec<f64> {
    let dist = a.dist_to_set(f);
    let mut rev: Vec<Vec<u32>> = vec![Vec::new(); a.len()];
    for (q, ms) in a.moves.iter().enumerate() {
        for m in ms {
            rev[m.nominal as usize].push(q as u32);
        }
    }
    let mut r = vec![f64::INFINITY; a.len()];
    let mut heap = BinaryHeap::new();
    for &q in f {
        r[q as usize] = 0.0;
        heap.push((std::cmp::Reverse(OrdF(0.0)), q));
    }
    while let Some((std::cmp::Reverse(OrdF(k)), q)) = heap.pop() {
        if k > r[q as usize] {
            continue;
        }
        for &p in &rev[q as usize] {
            let cand = k + dist[p as usize];
            if cand < r[p as usize] {
                r[p as usize] = cand;
                heap.push((std::cmp::Reverse(OrdF(cand)), p));
            }
        }
    }
    r
}

#[derive(PartialEq, Clone, Copy)]
struct OrdF(f64);
impl Eq for OrdF {}
impl PartialOrd for OrdF {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for OrdF {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// Checks R on the states reachable from q0 (the seed's standing assumption).
pub fn check(a: &Automaton, f: &[u32], rank: &[f64]) -> ClfCheck {
    let dist = a.dist_to_set(f);
    let in_f = membership(a.len(), f);
    let reach = a.reachable();
    let states: Vec<usize> = (0..a.len()).filter(|&q| reach[q]).collect();
    let mut failure = None;
    let mut c = f64::INFINITY;
    for &q in &states {
        if !rank[q].is_finite() || rank[q] < 0.0 {
            failure.get_or_insert(format!(
                "R({}) is not a finite non-negative number (F not nominally coreachable?)",
                &a.states[q]
            ));
            continue;
        }
        if in_f[q] != (rank[q] == 0.0) {
            failure.get_or_insert(format!(
                "R({}) = {} but R must be 0 exactly on F",
                &a.states[q], rank[q]
            ));
        }
        if in_f[q] {
            continue;
        }
        let best = a.moves[q]
            .iter()
            .map(|m| (rank[q] - rank[m.nominal as usize]) / dist[q])
            .fold(f64::NEG_INFINITY, f64::max);
        c = c.min(best);
    }
    if c <= 0.0 {
        failure.get_or_insert("some state outside F has no input that decreases R (c <= 0)".into());
        c = c.max(0.0);
    }
    // c stays infinite when every reachable state is in F: no decrease is required.
    let all_pairs = states.len() <= 3000;
    let mut k = 0.0f64;
    let mut see = |p: usize, q: usize| {
        let d = a.dist(p, q);
        if d > 0.0 && rank[p].is_finite() && rank[q].is_finite() {
            k = k.max((rank[p] - rank[q]).abs() / d);
        }
    };
    if all_pairs {
        for (i, &p) in states.iter().enumerate() {
            for &q in &states[i + 1..] {
                see(p, q);
            }
        }
    } else {
        for &q in &states {
            for m in &a.moves[q] {
                for &(_, t) in a.moves.disturbed(m) {
                    see(m.nominal as usize, t as usize);
                }
            }
        }
    }
    let sigma = if failure.is_some() || c == 0.0 {
        f64::INFINITY
    } else if c.is_infinite() {
        0.0
    } else {
        k / c
    };
    ClfCheck {
        c,
        lipschitz: k,
        lipschitz_all_pairs: all_pairs,
        sigma,
        failure,
    }
}
