//! Reachability robustness (seed Section 3): opt* and its strategy, the bound of
//! a given memoryless strategy on A|_S, and the control-Lyapunov check.

use super::minmax::{self, MoveGraph};
use crate::robust::front::Automaton;

/// A memoryless strategy: for each state the indices (into `moves[q]`) it allows.
/// An empty set means the strategy stops there (allowed only in F or at dead ends).
pub type Strategy = Vec<Vec<usize>>;

/// The game graph of A: one move per available input, successors Post_a(q).
pub fn game_graph(a: &Automaton) -> MoveGraph {
    let mut g = MoveGraph::new(a.len());
    for (q, ms) in a.moves.iter().enumerate() {
        for m in ms {
            g.push(q as u32, a.post(m));
        }
    }
    g
}

/// The graph of A|_S: the system has no choice left, so every state gets a
/// single move whose successors are all outcomes of every input S allows.
pub fn restricted_graph(a: &Automaton, s: &Strategy) -> MoveGraph {
    let mut g = MoveGraph::new(a.len());
    for (q, ms) in a.moves.iter().enumerate() {
        if s[q].is_empty() {
            continue;
        }
        let succs: Vec<u32> = s[q].iter().flat_map(|&i| a.post(&ms[i])).collect();
        g.push(q as u32, succs);
    }
    g
}

/// The solution of the reachability problem.
#[derive(Clone, Debug)]
pub struct ReachSolution {
    /// opt^0(q) = d(q, F).
    pub dist: Vec<f64>,
    /// opt*(q).
    pub opt: Vec<f64>,
    /// The recovered strategy (one input per state; empty in F and at dead ends).
    pub strategy: Strategy,
    /// opt*(q0) / gamma-bar (0 when opt*(q0) = 0, infinite when gamma-bar = 0 < opt*(q0)).
    pub sigma: f64,
    pub gamma_bar: f64,
}

/// sigma = bound / gamma-bar with the conventions of [`ReachSolution::sigma`].
pub fn sigma_of(bound: f64, gamma_bar: f64) -> f64 {
    if bound == 0.0 {
        0.0
    } else if gamma_bar == 0.0 {
        f64::INFINITY
    } else {
        bound / gamma_bar
    }
}

/// Nominal distance (number of eps-steps) to F using any input; u32::MAX if none.
pub fn nominal_steps(a: &Automaton, f: &[u32]) -> Vec<u32> {
    let n = a.len();
    let mut rev: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (q, ms) in a.moves.iter().enumerate() {
        for m in ms {
            rev[m.nominal as usize].push(q as u32);
        }
    }
    let mut steps = vec![u32::MAX; n];
    let mut queue = std::collections::VecDeque::new();
    for &q in f {
        steps[q as usize] = 0;
        queue.push_back(q);
    }
    while let Some(q) = queue.pop_front() {
        for &p in &rev[q as usize] {
            if steps[p as usize] == u32::MAX {
                steps[p as usize] = steps[q as usize] + 1;
                queue.push_back(p);
            }
        }
    }
    steps
}

/// opt* by the Dijkstra-like min-max computation (seed Def. 3.3 and eq. (5)), and the strategy:
/// where opt*(q) < d(q, F) the input attaining it (its successors were settled earlier,
/// so following it strictly progresses); where opt*(q) = d(q, F) the bound is already
/// met at q and the input taking the nominal trace closest to F (this excludes the
/// self-loops the seed's recovery removes, and keeps the strategy nominally winning
/// whenever the two requirements do not conflict).
pub fn solve(a: &Automaton, f: &[u32]) -> ReachSolution {
    let dist = a.dist_to_set(f);
    let g = game_graph(a);
    let mm = minmax::solve(&g, &dist);
    let steps = nominal_steps(a, f);
    let in_f = membership(a.len(), f);
    let mut move_base = vec![0usize; a.len() + 1];
    for q in 0..a.len() {
        move_base[q + 1] = move_base[q] + a.moves[q].len();
    }
    let strategy = (0..a.len())
        .map(|q| {
            if let Some(m) = mm.witness[q] {
                vec![m as usize - move_base[q]]
            } else if in_f[q] || a.moves[q].is_empty() {
                Vec::new()
            } else {
                let best = (0..a.moves[q].len())
                    .min_by_key(|&i| steps[a.moves[q][i].nominal as usize])
                    .unwrap_or(0);
                vec![best]
            }
        })
        .collect();
    let gamma_bar = a.gamma_bar();
    let sigma = sigma_of(mm.value[a.init as usize], gamma_bar);
    ReachSolution {
        dist,
        opt: mm.value,
        strategy,
        sigma,
        gamma_bar,
    }
}

pub fn membership(n: usize, set: &[u32]) -> Vec<bool> {
    let mut m = vec![false; n];
    for &q in set {
        m[q as usize] = true;
    }
    m
}

/// The states reachable from q0 when the system plays strategy `s`: every
/// input it allows, with every outcome of that input (disturbed ones too).
pub fn reachable_under(a: &Automaton, s: &Strategy) -> Vec<bool> {
    let mut seen = vec![false; a.len()];
    let mut stack = vec![a.init];
    seen[a.init as usize] = true;
    while let Some(q) = stack.pop() {
        for &i in &s[q as usize] {
            for t in a.post(&a.moves[q as usize][i]) {
                if !seen[t as usize] {
                    seen[t as usize] = true;
                    stack.push(t);
                }
            }
        }
    }
    seen
}

/// The bound of a memoryless strategy: the greatest fixed point of
/// v(q) = min(d(q, F), max over every outcome successor of v) on A|_S, i.e. the
/// largest distance to F the disturbance can keep every visited state at.
/// All inputs a set-valued strategy allows count as outcomes (seed: "there exists a_i in S").
pub fn strategy_values(a: &Automaton, f: &[u32], s: &Strategy) -> Vec<f64> {
    let dist = a.dist_to_set(f);
    minmax::solve(&restricted_graph(a, s), &dist).value
}

/// Whether every nominal outcome of S from q0 reaches F (seed: nominally winning).
pub fn nominally_winning(a: &Automaton, f: &[u32], s: &Strategy) -> bool {
    let in_f = membership(a.len(), f);
    // Nominal outcomes: a set-valued S branches; all branches must reach F without cycling.
    let mut state = vec![0u8; a.len()]; // 0 new, 1 on stack, 2 done-and-winning
    fn visit(a: &Automaton, q: usize, s: &Strategy, in_f: &[bool], state: &mut [u8]) -> bool {
        if in_f[q] || state[q] == 2 {
            return true;
        }
        if state[q] == 1 || s[q].is_empty() {
            return false;
        }
        state[q] = 1;
        for &i in &s[q] {
            if !visit(a, a.moves[q][i].nominal as usize, s, in_f, state) {
                return false;
            }
        }
        state[q] = 2;
        true
    }
    // Nominal traces are short paths of distinct states; recursion depth is at most |Q|,
    // so the recursion runs on an explicit big stack for large automata.
    let depth_ok = a.len() < 10_000;
    if depth_ok {
        visit(a, a.init as usize, s, &in_f, &mut state)
    } else {
        let (a2, s2) = (a.clone(), s.clone());
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || visit(&a2, a2.init as usize, &s2, &in_f, &mut state))
            .ok()
            .and_then(|h| h.join().ok())
            .unwrap_or(false)
    }
}

/// A worst-case outcome of S from q0 (a lasso or a trace to a dead end) on which
/// every state stays at distance >= the bound from F: the disturbance's witness.
/// Returns (state, input index, disturbance index) steps; the last step has no input.
pub fn worst_trace(a: &Automaton, s: &Strategy, v: &[f64]) -> Vec<(u32, Option<(usize, u32)>)> {
    let mut trace = Vec::new();
    let mut seen = vec![false; a.len()];
    let mut q = a.init as usize;
    loop {
        if seen[q] || s[q].is_empty() {
            trace.push((q as u32, None));
            return trace;
        }
        seen[q] = true;
        let mut best: Option<(f64, usize, u32, u32)> = None;
        for &i in &s[q] {
            let m = &a.moves[q][i];
            let outs =
                std::iter::once((0u32, m.nominal)).chain(a.moves.disturbed(m).iter().copied());
            for (x, t) in outs {
                if best.is_none_or(|b| v[t as usize] > b.0) {
                    best = Some((v[t as usize], i, x, t));
                }
            }
        }
        let (_, i, x, t) = best.expect("non-empty strategy set has successors");
        trace.push((q as u32, Some((i, x))));
        q = t as usize;
    }
}

/// Replays a trace through delta and S; returns the least distance to F on it.
pub fn replay_trace(
    a: &Automaton,
    f: &[u32],
    s: &Strategy,
    trace: &[(u32, Option<(usize, u32)>)],
) -> Result<f64, String> {
    if trace.first().map(|t| t.0) != Some(a.init) {
        return Err("trace does not start in q0".into());
    }
    for w in trace.windows(2) {
        let (q, step) = (w[0].0 as usize, w[0].1);
        let (i, x) = step.ok_or("step without input inside trace")?;
        if !s[q].contains(&i) {
            return Err(format!(
                "input at {} not allowed by the strategy",
                &a.states[q]
            ));
        }
        let m = &a.moves[q][i];
        let t = if x == 0 {
            Some(m.nominal)
        } else {
            a.moves.disturbed(m).iter().find(|d| d.0 == x).map(|d| d.1)
        };
        if t != Some(w[1].0) {
            return Err(format!(
                "delta({}, .., ..) does not lead to {}",
                &a.states[q], &a.states[w[1].0 as usize]
            ));
        }
    }
    let dist = a.dist_to_set(f);
    Ok(trace
        .iter()
        .map(|t| dist[t.0 as usize])
        .fold(f64::INFINITY, f64::min))
}
