//! Buchi, generalised Buchi and parity robustness by inflation (notes/robust.md):
//! the least radius r such that the system wins the original objective nominally
//! and the r-inflated objective against every gamma-bounded disturbance.
//!
//! The strategy has two modes. Nominal mode follows a lasso plan (a finite prefix
//! and a cycle of (state, input) steps) that wins the original objective and only
//! uses inputs whose every outcome stays in the robust winning region W_r. After a
//! disturbance is observed (the state differs from the plan) the recovery mode, a
//! memoryless winning strategy of the inflated game on W_r, takes over. Winning
//! regions grow with r for (generalised) Buchi, so the least r is found by binary
//! search over the sorted distances that occur; inflated parity priorities may
//! also fall to odd values, so parity radii are scanned in increasing order.

use super::minmax::MoveGraph;
use super::omega_common::{plan_stays_in_region, sorted_distinct};
use super::omega_parity::parity;
use super::reach::{membership, sigma_of};
use crate::report::meter::Meter;
use crate::report::{Deadline, Expired, RunError};
use crate::robust::front::{Automaton, Objective};
use crate::robust::parity::game::{verify_region, Game};

pub use super::omega_common::OmegaSolution;
use super::plan::{lasso, safe_edges};
pub use super::plan::{replay_plan, Step};

/// Robust synthesis for the automaton's Buchi, generalised Buchi or parity objective.
/// `None` if no radius works (the original objective is not nominally winnable).
pub fn solve(a: &Automaton) -> Result<Option<OmegaSolution>, String> {
    solve_until(a, Deadline::NONE).map_err(|e| match e {
        RunError::Internal(why) => why,
        other => format!("{other:?}"),
    })
}

/// [`solve`], giving up at `deadline` ([`RunError::TimedOut`]); a failed
/// internal check is [`RunError::Internal`].
pub fn solve_until(a: &Automaton, deadline: Deadline) -> Result<Option<OmegaSolution>, RunError> {
    solve_metered(a, (deadline, &Meter::none()), &mut |_| Ok(()))
}

/// [`solve_until`], counting on `meter` the radii whose inflated game is
/// solved and handing `each_game` every parity game the scan over radii
/// solves (max-parity, before it is solved; only parity objectives have them).
pub fn solve_metered(
    a: &Automaton,
    at: (Deadline, &Meter),
    each_game: &mut dyn FnMut(&Game) -> Result<(), RunError>,
) -> Result<Option<OmegaSolution>, RunError> {
    let gamma_bar = a.gamma_bar();
    match &a.objective {
        Objective::Reach(_) => Err(RunError::Internal(
            "reachability is solved by `reach::solve`".into(),
        )),
        Objective::Buchi(f) => buchi(a, std::slice::from_ref(f), gamma_bar, at),
        Objective::GenBuchi(fs) => buchi(a, fs, gamma_bar, at),
        Objective::Parity(p) => parity(a, p, gamma_bar, at, each_game),
    }
}

/// The counter product for generalised Buchi: node q*k+i waits for set i.
struct Product {
    k: usize,
    graph: MoveGraph,
    /// Automaton move index of each product move.
    index: Vec<usize>,
    accept: Vec<bool>,
}

fn product(a: &Automaton, sets: &[Vec<bool>]) -> Product {
    let k = sets.len();
    let mut graph = MoveGraph::new(a.len() * k);
    let mut index = Vec::new();
    for q in 0..a.len() {
        for (i, set) in sets.iter().enumerate() {
            let next = if set[q] { (i + 1) % k } else { i };
            for (j, m) in a.moves[q].iter().enumerate() {
                graph.push(
                    (q * k + i) as u32,
                    a.post(m).map(|t| t * k as u32 + next as u32),
                );
                index.push(j);
            }
        }
    }
    let accept = (0..a.len() * k)
        .map(|v| v % k == k - 1 && sets[k - 1][v / k])
        .collect();
    Product {
        k,
        graph,
        index,
        accept,
    }
}

/// Buchi game by the classical nested fixed point nu Z. mu Y. (F & Cpre Z) | Cpre Y,
/// where Cpre Y = states with a move whose every successor is in Y. Returns the
/// region and a winning move (global id) per winning node.
/// The deadline is checked once per outer iteration (each is linear in the graph).
fn buchi_game(
    g: &MoveGraph,
    accept: &[bool],
    deadline: Deadline,
) -> Result<(Vec<bool>, Vec<Option<u32>>), Expired> {
    let n = g.n;
    let mut rev: Vec<Vec<u32>> = vec![Vec::new(); n];
    for m in 0..g.moves() {
        for &s in g.succs(m) {
            rev[s as usize].push(m as u32);
        }
    }
    let mut by_owner: Vec<Vec<u32>> = vec![Vec::new(); n];
    for m in 0..g.moves() {
        by_owner[g.owner[m] as usize].push(m as u32);
    }
    let mut z = vec![true; n];
    loop {
        deadline.check()?;
        let mut strat = vec![None; n];
        let mut y = vec![false; n];
        let mut queue = Vec::new();
        for v in (0..n).filter(|&v| accept[v] && z[v]) {
            let stay = by_owner[v]
                .iter()
                .find(|&&m| g.succs(m as usize).iter().all(|&s| z[s as usize]));
            if let Some(&m) = stay {
                y[v] = true;
                strat[v] = Some(m);
                queue.push(v as u32);
            }
        }
        let mut pending: Vec<u32> = (0..g.moves()).map(|m| g.succs(m).len() as u32).collect();
        let mut i = 0;
        while i < queue.len() {
            let s = queue[i] as usize;
            i += 1;
            for &m in &rev[s] {
                pending[m as usize] -= 1;
                let o = g.owner[m as usize] as usize;
                if pending[m as usize] == 0 && !y[o] {
                    y[o] = true;
                    strat[o] = Some(m);
                    queue.push(o as u32);
                }
            }
        }
        if y == z {
            return Ok((z, strat));
        }
        z = y;
    }
}

struct Attempt {
    plan: Vec<Step>,
    cycle_start: usize,
    recovery: Vec<Option<usize>>,
    region: Vec<bool>,
    /// Winning product nodes (all of `region` when there is one counter).
    win: Vec<bool>,
}

/// (Generalised) Buchi objective with accepting sets `fs`: the least radius
/// whose inflated product game is won from the initial state by a strategy
/// that also has a nominal lasso meeting every original set.
fn buchi(
    a: &Automaton,
    fs: &[Vec<u32>],
    gamma_bar: f64,
    (deadline, meter): (Deadline, &Meter),
) -> Result<Option<OmegaSolution>, RunError> {
    let n = a.len();
    let dists: Vec<Vec<f64>> = fs.iter().map(|f| a.dist_to_set(f)).collect();
    let candidates = sorted_distinct(dists.iter().flatten().copied().collect());
    let original: Vec<Vec<bool>> = fs.iter().map(|f| membership(n, f)).collect();
    let mut solved = 0;
    // Binary search for the least feasible candidate (feasibility is monotone in r).
    let (mut lo, mut hi) = (0usize, candidates.len());
    let mut best = None;
    while lo < hi {
        let mid = (lo + hi) / 2;
        solved += 1;
        let attempt = buchi_attempt(a, &dists, &original, candidates[mid], deadline)?;
        meter.add(1);
        match attempt {
            Some(at) => {
                best = Some((mid, at));
                hi = mid;
            }
            None => lo = mid + 1,
        }
    }
    let Some((idx, at)) = best else {
        return Ok(None);
    };
    let r = candidates[idx];
    verify_buchi(a, &dists, &original, r, &at)?;
    Ok(Some(OmegaSolution {
        radius: r,
        sigma: sigma_of(r, gamma_bar),
        gamma_bar,
        candidates: candidates.len(),
        solved,
        plan: at.plan,
        cycle_start: at.cycle_start,
        recovery: at.recovery,
        counters: fs.len(),
        region: at.region,
    }))
}

/// The accepting sets inflated by `r`: the states within distance `r` of
/// each set (`dists[i][q]` is the distance of `q` to set `i`).
fn inflated_sets(dists: &[Vec<f64>], r: f64) -> Vec<Vec<bool>> {
    dists
        .iter()
        .map(|d| d.iter().map(|&x| x <= r).collect())
        .collect()
}

/// Radius `r` decided: the strategy of the inflated product game and a
/// nominal lasso through the `original` sets, or `None` when the initial
/// state is lost or no such lasso stays in the winning region.
fn buchi_attempt(
    a: &Automaton,
    dists: &[Vec<f64>],
    original: &[Vec<bool>],
    r: f64,
    deadline: Deadline,
) -> Result<Option<Attempt>, Expired> {
    let n = a.len();
    let prod = product(a, &inflated_sets(dists, r));
    let (win, strat) = buchi_game(&prod.graph, &prod.accept, deadline)?;
    let region: Vec<bool> = (0..n).map(|q| win[q * prod.k]).collect();
    if !region[a.init as usize] {
        return Ok(None);
    }
    let edges = safe_edges(a, &region);
    let Some((plan, cycle_start)) = lasso(a, &edges, &vec![true; n], original) else {
        return Ok(None);
    };
    let recovery = strat
        .iter()
        .map(|m| m.map(|m| prod.index[m as usize]))
        .collect();
    Ok(Some(Attempt {
        plan,
        cycle_start,
        recovery,
        region,
        win,
    }))
}

/// Independent checks of the solution at radius `r`: the plan replays and
/// meets every original set on its cycle; the recovery strategy wins the
/// inflated product game (as a parity game).
fn verify_buchi(
    a: &Automaton,
    dists: &[Vec<f64>],
    original: &[Vec<bool>],
    r: f64,
    at: &Attempt,
) -> Result<(), RunError> {
    let cycle = replay_plan(a, &at.plan, at.cycle_start).map_err(RunError::Internal)?;
    for (i, set) in original.iter().enumerate() {
        if !cycle.iter().any(|&q| set[q as usize]) {
            return Err(RunError::Internal(format!(
                "internal: plan cycle misses accepting set {i}"
            )));
        }
    }
    verify_product(a, &inflated_sets(dists, r), at).map_err(RunError::Internal)
}

/// Checks the recovery strategy of a (generalised) Buchi solution on the product, and that
/// every plan input keeps all its outcomes inside the recovery region.
fn verify_product(a: &Automaton, sets: &[Vec<bool>], at: &Attempt) -> Result<(), String> {
    let prod = product(a, sets);
    let g = &prod.graph;
    let mut prio = Vec::new();
    let mut owner = Vec::new();
    let mut succs = Vec::new();
    let mut first = vec![0usize; g.n + 1];
    for m in 0..g.moves() {
        first[g.owner[m] as usize + 1] += 1;
    }
    for v in 0..g.n {
        first[v + 1] += first[v];
    }
    let sink = (g.n + g.moves()) as u32;
    for v in 0..g.n {
        prio.push(if prod.accept[v] { 2 } else { 1 });
        owner.push(0);
        let s: Vec<u32> = (first[v]..first[v + 1]).map(|m| (g.n + m) as u32).collect();
        succs.push(if s.is_empty() { vec![sink] } else { s });
    }
    for m in 0..g.moves() {
        prio.push(0);
        owner.push(1);
        succs.push(g.succs(m).to_vec());
    }
    prio.push(1);
    owner.push(1);
    succs.push(vec![sink]);
    let game = Game::from_lists(prio, owner, succs)?;
    // Region: product nodes from which recovery is defined and wins.
    let mut reg = vec![false; game.len()];
    let mut strat = vec![None; game.len()];
    for v in 0..g.n {
        if let Some(j) = at.recovery[v] {
            if at.win[v] {
                reg[v] = true;
            }
            let m = first[v] + j;
            strat[v] = Some((g.n + m) as u32);
        }
    }
    // The product region must be exactly those nodes the fixed point found winning.
    for v in 0..g.n {
        if reg[v] {
            if let Some(Some(e)) = strat.get(v) {
                reg[*e as usize] = true;
            }
        }
    }
    verify_region(&game, &reg, &strat, 0)
        .map_err(|e| format!("internal: recovery strategy fails: {e}"))?;
    plan_stays_in_region(a, &at.plan, &at.region)
}
