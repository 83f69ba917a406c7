//! Strongly connected components (iterative Tarjan) of a node subset.

/// Component id per node (u32::MAX outside `keep`); edges leaving `keep` are ignored.
pub fn components(n: usize, keep: &[bool], edges: &[Vec<u32>]) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![NONE; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, usize)> = Vec::new();
    let (mut next, mut ncomp) = (0u32, 0u32);
    for root in 0..n {
        if !keep[root] || index[root] != NONE {
            continue;
        }
        call.push((root as u32, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            let vi = v as usize;
            if *i < edges[vi].len() {
                let t = edges[vi][*i] as usize;
                *i += 1;
                if !keep[t] {
                    continue;
                }
                if index[t] == NONE {
                    index[t] = next;
                    low[t] = next;
                    next += 1;
                    stack.push(t as u32);
                    on_stack[t] = true;
                    call.push((t as u32, 0));
                } else if on_stack[t] {
                    low[vi] = low[vi].min(index[t]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p as usize] = low[p as usize].min(low[vi]);
                }
                if low[vi] == index[vi] {
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
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
    comp
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
    tarjan_csr(n, &start, &succ)
}

/// Iterative Tarjan over a CSR graph; see [`components_of_edges`].
fn tarjan_csr(n: usize, start: &[u32], succ: &[u32]) -> (Vec<u32>, u32) {
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    // (node, position of the next edge to look at)
    let mut call: Vec<(u32, u32)> = Vec::new();
    let (mut next, mut ncomp) = (0u32, 0u32);
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root as u32);
        call.push((root as u32, start[root]));
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            let vi = v as usize;
            if *i < start[vi + 1] {
                let t = succ[*i as usize] as usize;
                *i += 1;
                if index[t] == NONE {
                    index[t] = next;
                    low[t] = next;
                    next += 1;
                    stack.push(t as u32);
                    call.push((t as u32, start[t]));
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
