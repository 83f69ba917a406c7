//! Strongly connected components (iterative Tarjan) of a node subset.

/// Component id per node (u32::MAX outside `keep`); edges leaving `keep` are ignored.
pub fn components(n: usize, keep: &[bool], edges: &[Vec<u32>]) -> Vec<u32> {
    tarjan(n, |v| keep[v], |v| &edges[v]).0
}

/// Strong components of the graph on nodes `0..n` with edges `edges` (CSR-built
/// inside, so the cost is O(n + m) with no per-node allocation). Returns the
/// component of every node and the number of components.
pub fn components_of_edges(
    n: usize,
    edges: impl Iterator<Item = (u32, u32)> + Clone,
) -> (Vec<u32>, u32) {
    let mut start = vec![0u32; n + 1];
    for (u, _) in edges.clone() {
        start[u as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut succ = vec![0u32; start[n] as usize];
    for (u, v) in edges {
        succ[fill[u as usize] as usize] = v;
        fill[u as usize] += 1;
    }
    tarjan(
        n,
        |_| true,
        |v| &succ[start[v] as usize..start[v + 1] as usize],
    )
}

/// Iterative Tarjan over the nodes `v < n` with `keep(v)`, the successors
/// of `v` being `succ(v)` (those outside `keep` ignored): the component of
/// every node (u32::MAX outside `keep`) and the number of components.
fn tarjan<'g>(
    n: usize,
    keep: impl Fn(usize) -> bool,
    succ: impl Fn(usize) -> &'g [u32],
) -> (Vec<u32>, u32) {
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    // (node, position of the next successor to look at)
    let mut call: Vec<(u32, usize)> = Vec::new();
    let (mut next, mut ncomp) = (0u32, 0u32);
    for root in 0..n {
        if !keep(root) || index[root] != NONE {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root as u32);
        call.push((root as u32, 0));
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            let vi = v as usize;
            if let Some(&t) = succ(vi).get(*i) {
                let t = t as usize;
                *i += 1;
                if !keep(t) {
                    continue;
                }
                if index[t] == NONE {
                    index[t] = next;
                    low[t] = next;
                    next += 1;
                    stack.push(t as u32);
                    call.push((t as u32, 0));
                } else if comp[t] == NONE {
                    // On the stack: not yet assigned to a component.
                    low[vi] = low[vi].min(index[t]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p as usize] = low[p as usize].min(low[vi]);
                }
                if low[vi] == index[vi] {
                    while let Some(w) = stack.pop() {
                        comp[w as usize] = ncomp;
                        if w == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
    }
    (comp, ncomp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::StdRng, Rng, SeedableRng};

    /// Whether `to` is reachable from `from` inside `keep` (brute force).
    fn reaches(keep: &[bool], edges: &[Vec<u32>], from: usize, to: usize) -> bool {
        let mut seen = vec![false; keep.len()];
        let mut todo = vec![from];
        seen[from] = true;
        while let Some(v) = todo.pop() {
            for &t in &edges[v] {
                let t = t as usize;
                if keep[t] && !seen[t] {
                    seen[t] = true;
                    todo.push(t);
                }
            }
        }
        seen[to]
    }

    /// Two kept nodes share a component exactly when each reaches the
    /// other; both entry points agree on the graph without a subset.
    #[test]
    fn components_are_mutual_reachability() {
        let mut rng = StdRng::seed_from_u64(31);
        for _ in 0..300 {
            let n = rng.gen_range(1..9);
            let edges: Vec<Vec<u32>> = (0..n)
                .map(|_| {
                    (0..rng.gen_range(0..4))
                        .map(|_| rng.gen_range(0..n as u32))
                        .collect()
                })
                .collect();
            let keep: Vec<bool> = (0..n).map(|_| rng.gen_bool(0.8)).collect();
            let comp = components(n, &keep, &edges);
            for u in 0..n {
                assert_eq!(comp[u] == u32::MAX, !keep[u]);
                for v in 0..n {
                    if keep[u] && keep[v] {
                        let mutual = reaches(&keep, &edges, u, v) && reaches(&keep, &edges, v, u);
                        assert_eq!(comp[u] == comp[v], mutual, "{edges:?} {keep:?} {u} {v}");
                    }
                }
            }
            let all = vec![true; n];
            let pairs = (0..n).flat_map(|u| edges[u].iter().map(move |&v| (u as u32, v)));
            let (by_edges, count) = components_of_edges(n, pairs);
            assert_eq!(by_edges, components(n, &all, &edges));
            assert_eq!(
                count as usize,
                by_edges
                    .iter()
                    .collect::<std::collections::HashSet<_>>()
                    .len()
            );
        }
    }
}
