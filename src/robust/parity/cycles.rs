//! The lowest level at which each node of a graph lies on a cycle, by Tarjan's
//! hierarchical strong components ("A hierarchical clustering algorithm using
//! strong components", 1983) over node levels.
//!
//! Every node has a level (a priority's rank). Weight an edge by the larger
//! level of its two ends; then node v lies on a cycle of nodes of level <= l iff
//! l >= `cyclic[v]`. A parity solution verifier needs exactly this: a play the
//! strategy allows has highest priority p infinitely often iff some node of
//! priority p lies on a cycle of nodes of priority <= p, i.e. iff
//! `cyclic[v] == level[v]` for a node v of priority p.
//!
//! Divide and conquer over the levels: strong components of the edges up to the
//! middle level; the edges inside a component go to the lower half, the others
//! (with the components contracted) to the upper half. Each edge goes to one half
//! at each depth, so the cost is O((n + m) log d) for d levels, instead of one
//! strong-component pass per level.

use super::scc::components_of_edges;

/// `cyclic[v]` for a node on no cycle at all.
pub const NEVER: u32 = u32::MAX;

/// A subproblem: local nodes, edges `[from, to, weight]` with weights in `lo..=hi`.
struct Part {
    /// The original node of a local node, or [`NEVER`] for a contracted
    /// component whose nodes already lie on a cycle (their levels are known).
    orig: Vec<u32>,
    edges: Vec<[u32; 3]>,
    lo: u32,
    hi: u32,
}

/// For every node, the least level `l` such that it lies on a cycle of nodes of
/// level <= l ([`NEVER`] if it lies on no cycle). `edges` are pairs of nodes in
/// `0..level.len()`.
/// The edges are read twice, to count them first: the table of weighted
/// edges is the largest of a parity solution's verification, and growing it
/// by doubling would hold up to twice its size.
pub fn cyclic_levels(level: &[u32], edges: impl Iterator<Item = (u32, u32)> + Clone) -> Vec<u32> {
    let n = level.len();
    let mut out = vec![NEVER; n];
    let mut weighted: Vec<[u32; 3]> = Vec::with_capacity(edges.clone().count());
    weighted.extend(edges.map(|(u, v)| [u, v, level[u as usize].max(level[v as usize])]));
    let edges = weighted;
    let (lo, hi) = edges
        .iter()
        .fold((u32::MAX, 0), |(lo, hi), e| (lo.min(e[2]), hi.max(e[2])));
    if !edges.is_empty() {
        let part = Part {
            orig: (0..n as u32).collect(),
            edges,
            lo,
            hi,
        };
        split(part, &mut out);
    }
    out
}

/// Assigns the levels of the part's trivial nodes that lie on a cycle in it.
fn split(part: Part, out: &mut [u32]) {
    let Part {
        orig,
        edges,
        lo,
        hi,
    } = part;
    if edges.is_empty() {
        return;
    }
    let n = orig.len();
    let mid = lo + (hi - lo) / 2;
    let low = |e: &[u32; 3]| e[2] <= mid;
    let (comp, ncomp) =
        components_of_edges(n, edges.iter().filter(|e| low(e)).map(|e| (e[0], e[1])));
    // A component is cyclic at `mid` if it has two nodes or a self-loop of weight <= mid.
    let mut size = vec![0u32; ncomp as usize];
    for &c in &comp {
        size[c as usize] += 1;
    }
    let mut cyclic: Vec<bool> = size.iter().map(|&s| s > 1).collect();
    for e in edges.iter().filter(|e| low(e) && e[0] == e[1]) {
        cyclic[comp[e[0] as usize] as usize] = true;
    }
    if lo == hi {
        for (i, &o) in orig.iter().enumerate() {
            if o != NEVER && cyclic[comp[i] as usize] {
                out[o as usize] = lo;
            }
        }
        return;
    }
    let (left, right) = halves(&orig, edges, &comp, &cyclic, mid);
    // Nothing of this level is kept while the halves are split (the peak of
    // verification was these tables held at every depth), and the larger
    // half goes first, so that the halves waiting along the recursion add
    // up to at most the edges of the whole part. Each node's level is set
    // in one half only, so the order does not change the result.
    drop((orig, comp, size, cyclic));
    let left = Part {
        lo,
        hi: mid,
        ..left
    };
    let right = Part {
        lo: mid + 1,
        hi,
        ..right
    };
    let (first, second) = if left.edges.len() >= right.edges.len() {
        (left, right)
    } else {
        (right, left)
    };
    split(first, out);
    split(second, out);
}

/// The lower half (the cyclic components, with their inner edges of weight
/// <= mid) and the upper half (components contracted, the other edges with
/// weight at least mid + 1). Nodes without edges are left out of both.
fn halves(
    orig: &[u32],
    edges: Vec<[u32; 3]>,
    comp: &[u32],
    cyclic: &[bool],
    mid: u32,
) -> (Part, Part) {
    let ncomp = cyclic.len();
    // The original node each trivial component stands for.
    let mut comp_orig = vec![NEVER; ncomp];
    for (i, &c) in comp.iter().enumerate() {
        if !cyclic[c as usize] {
            comp_orig[c as usize] = orig[i];
        }
    }
    let mut left_id = vec![NEVER; orig.len()];
    let mut right_id = vec![NEVER; ncomp];
    let mut left = Part {
        orig: Vec::new(),
        edges: Vec::new(),
        lo: 0,
        hi: 0,
    };
    let mut right = Part {
        orig: Vec::new(),
        edges: Vec::new(),
        lo: 0,
        hi: 0,
    };
    let local = |ids: &mut [u32], part: &mut Part, key: u32, o: u32| -> u32 {
        if ids[key as usize] == NEVER {
            ids[key as usize] = part.orig.len() as u32;
            part.orig.push(o);
        }
        ids[key as usize]
    };
    let (to_left, to_right) = half_sizes(&edges, comp, cyclic, mid);
    // The larger half is written over this part's table, the smaller one
    // into a new one: at most 1.5 times the part's edges are held while
    // halving, against twice before (issue 36: verification was the peak
    // of a parity run's memory).
    let left_in_place = to_left >= to_right;
    let mut other = Vec::with_capacity(if left_in_place { to_right } else { to_left });
    let mut edges = edges;
    let mut kept = 0;
    for i in 0..edges.len() {
        let e = edges[i];
        let (cu, cv) = (comp[e[0] as usize], comp[e[1] as usize]);
        let routed = if cu == cv && e[2] <= mid {
            cyclic[cu as usize].then(|| {
                let a = local(&mut left_id, &mut left, e[0], orig[e[0] as usize]);
                let b = local(&mut left_id, &mut left, e[1], orig[e[1] as usize]);
                (true, [a, b, e[2]])
            })
        } else if cu != cv || !cyclic[cu as usize] {
            let a = local(&mut right_id, &mut right, cu, comp_orig[cu as usize]);
            let b = local(&mut right_id, &mut right, cv, comp_orig[cv as usize]);
            Some((false, [a, b, e[2].max(mid + 1)]))
        } else {
            None
        };
        match routed {
            // `kept <= i`: the edge written over was read already.
            Some((is_left, t)) if is_left == left_in_place => {
                edges[kept] = t;
                kept += 1;
            }
            Some((_, t)) => other.push(t),
            None => {}
        }
    }
    edges.truncate(kept);
    edges.shrink_to_fit();
    (left.edges, right.edges) = if left_in_place {
        (edges, other)
    } else {
        (other, edges)
    };
    (left, right)
}

/// How many edges go to the lower and to the upper half (see [`halves`]),
/// counted first so that each half's table is allocated at its size.
fn half_sizes(edges: &[[u32; 3]], comp: &[u32], cyclic: &[bool], mid: u32) -> (usize, usize) {
    let (mut to_left, mut to_right) = (0, 0);
    for e in edges {
        let (cu, cv) = (comp[e[0] as usize], comp[e[1] as usize]);
        if cu == cv && e[2] <= mid {
            to_left += usize::from(cyclic[cu as usize]);
        } else if cu != cv || !cyclic[cu as usize] {
            to_right += 1;
        }
    }
    (to_left, to_right)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The definition: the least l such that v reaches itself through nodes of level <= l.
    fn brute(level: &[u32], edges: &[(u32, u32)]) -> Vec<u32> {
        let n = level.len();
        (0..n)
            .map(|v| {
                let mut levels: Vec<u32> =
                    level.iter().copied().filter(|&l| l >= level[v]).collect();
                levels.sort_unstable();
                levels.dedup();
                levels
                    .into_iter()
                    .find(|&l| {
                        let ok = |u: u32| level[u as usize] <= l;
                        let mut seen = vec![false; n];
                        let mut stack = vec![v as u32];
                        while let Some(u) = stack.pop() {
                            for b in edges.iter().filter(|e| e.0 == u && ok(e.1)).map(|e| e.1) {
                                if b as usize == v {
                                    return true;
                                }
                                if !seen[b as usize] {
                                    seen[b as usize] = true;
                                    stack.push(b);
                                }
                            }
                        }
                        false
                    })
                    .unwrap_or(NEVER)
            })
            .collect()
    }

    #[test]
    fn hierarchical_levels_equal_the_definition() {
        let mut r = rand::rngs::StdRng::seed_from_u64(19);
        for case in 0..600 {
            let n = 1 + case % 25;
            let d = 1 + (case / 7) % 12;
            let level: Vec<u32> = (0..n).map(|_| r.gen_range(0..d as u32)).collect();
            let m = r.gen_range(0..=3 * n);
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| (r.gen_range(0..n as u32), r.gen_range(0..n as u32)))
                .collect();
            let fast = cyclic_levels(&level, edges.iter().copied());
            assert_eq!(
                fast,
                brute(&level, &edges),
                "case {case}: {level:?} {edges:?}"
            );
        }
    }

    #[test]
    fn a_cycle_counts_at_its_highest_level() {
        // 0 (level 0) -> 1 (level 5) -> 0, and 2 (level 1) with a self-loop.
        let level = [0, 5, 1];
        let got = cyclic_levels(&level, [(0, 1), (1, 0), (2, 2)].into_iter());
        assert_eq!(got, vec![5, 5, 1]);
    }
}
