//! Nominal-mode plans for omega-regular robustness: lassos in the safe nominal
//! graph (inputs all of whose outcomes stay in the robust winning region).

use crate::robust::front::Automaton;
use crate::robust::parity::scc;
use std::collections::VecDeque;

/// One step of a plan: at `state` choose input `moves[state][index]`.
pub type Step = (u32, usize);

/// The safe nominal graph: edges q -> delta(q, a, eps) for inputs all of whose outcomes stay in `w`.
pub fn safe_edges(a: &Automaton, w: &[bool]) -> Vec<Vec<(u32, usize)>> {
    (0..a.len())
        .map(|q| {
            if !w[q] {
                return Vec::new();
            }
            a.moves[q]
                .iter()
                .enumerate()
                .filter(|(_, m)| a.post(m).all(|t| w[t as usize]))
                .map(|(j, m)| (m.nominal, j))
                .collect()
        })
        .collect()
}

/// Shortest path of steps from `src` to `dst` inside `allowed` (at least one step if `nonempty`).
pub fn path(
    edges: &[Vec<(u32, usize)>],
    allowed: &[bool],
    src: u32,
    dst: u32,
    nonempty: bool,
) -> Option<Vec<Step>> {
    if src == dst && !nonempty {
        return Some(Vec::new());
    }
    let mut back: Vec<Option<(u32, usize)>> = vec![None; edges.len()];
    let mut queue = VecDeque::from([src]);
    let mut first = true;
    while let Some(v) = queue.pop_front() {
        if v == dst && !first {
            // Walk back until src, taking at least one step (dst may equal src).
            let mut steps = Vec::new();
            let mut cur = dst;
            loop {
                let (p, j) = back[cur as usize]?;
                steps.push((p, j));
                cur = p;
                if cur == src {
                    break;
                }
            }
            steps.reverse();
            return Some(steps);
        }
        first = false;
        for &(t, j) in &edges[v as usize] {
            if allowed[t as usize] && back[t as usize].is_none() {
                back[t as usize] = Some((v, j));
                queue.push_back(t);
            }
        }
    }
    None
}

/// A lasso from q0 whose cycle lies in a strongly connected part of `restrict` and
/// meets every set in `required`; the prefix may use any safe edge.
pub fn lasso(
    a: &Automaton,
    edges: &[Vec<(u32, usize)>],
    restrict: &[bool],
    required: &[Vec<bool>],
) -> Option<(Vec<Step>, usize)> {
    let n = a.len();
    let everywhere = vec![true; n];
    // States reachable from q0 by safe edges.
    let mut reach = vec![false; n];
    let mut stack = vec![a.init];
    reach[a.init as usize] = true;
    while let Some(v) = stack.pop() {
        for &(t, _) in &edges[v as usize] {
            if !reach[t as usize] {
                reach[t as usize] = true;
                stack.push(t);
            }
        }
    }
    let keep: Vec<bool> = (0..n).map(|q| reach[q] && restrict[q]).collect();
    let plain: Vec<Vec<u32>> = edges
        .iter()
        .map(|es| es.iter().map(|e| e.0).collect())
        .collect();
    let comp = scc::components(n, &keep, &plain);
    let mut members: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for q in (0..n).filter(|&q| keep[q]) {
        members.entry(comp[q]).or_default().push(q as u32);
    }
    let mut ids: Vec<u32> = members.keys().copied().collect();
    ids.sort_unstable();
    for c in ids {
        let nodes = &members[&c];
        let inside: Vec<bool> = (0..n).map(|q| keep[q] && comp[q] == c).collect();
        let nontrivial = nodes
            .iter()
            .any(|&q| edges[q as usize].iter().any(|e| inside[e.0 as usize]));
        if !nontrivial {
            continue;
        }
        let picks: Option<Vec<u32>> = required
            .iter()
            .map(|set| nodes.iter().copied().find(|&q| set[q as usize]))
            .collect();
        let Some(picks) = picks else { continue };
        let x = picks.first().copied().unwrap_or(nodes[0]);
        let mut plan = path(edges, &everywhere, a.init, x, false)?;
        let cycle_start = plan.len();
        // Visit the picks in order and close the cycle at x (at least one step).
        let mut cur = x;
        for &target in picks.iter().skip(1).filter(|&&t| t != x) {
            plan.extend(path(edges, &inside, cur, target, false)?);
            cur = target;
        }
        plan.extend(path(edges, &inside, cur, x, cur == x)?);
        return Some((plan, cycle_start));
    }
    None
}

/// Replays a plan through delta: it starts in q0, each step is the nominal
/// successor of the previous, and the cycle closes.
pub fn replay_plan(a: &Automaton, plan: &[Step], cycle_start: usize) -> Result<Vec<u32>, String> {
    if plan.is_empty() || cycle_start >= plan.len() {
        return Err("empty plan or empty cycle".into());
    }
    if plan[0].0 != a.init {
        return Err("plan does not start in q0".into());
    }
    for (i, &(q, j)) in plan.iter().enumerate() {
        let m = a.moves[q as usize]
            .get(j)
            .ok_or("plan uses an unavailable input")?;
        let next = if i + 1 < plan.len() {
            plan[i + 1].0
        } else {
            plan[cycle_start].0
        };
        if m.nominal != next {
            return Err(format!(
                "plan step at {} does not lead to {}",
                &a.states[q as usize], &a.states[next as usize]
            ));
        }
    }
    Ok(plan[cycle_start..].iter().map(|s| s.0).collect())
}
