//! Parity robustness by inflation (the parity half of [`super::omega`]): the
//! arena of the automaton, the scan over radii, the nominal lasso and the
//! independent checks of the recovery strategy and the plan.

use super::omega_common::{plan_stays_in_region, sorted_distinct, OmegaSolution};
use super::plan::{lasso, replay_plan, safe_edges, Step};
use super::reach::sigma_of;
use crate::report::{Deadline, RunError};
use crate::robust::front::Automaton;
use crate::robust::parity::game::{verify_region, Game};
use crate::robust::parity::zielonka;

/// The parity arena of the automaton: system node q, one environment node per move,
/// a losing sink for dead ends. `prio` is max-parity, per state.
fn arena(a: &Automaton, prio: &[u32]) -> (Game, Vec<usize>) {
    let n = a.len();
    let mut first = vec![0usize; n + 1];
    for q in 0..n {
        first[q + 1] = first[q] + a.moves[q].len();
    }
    let moves = first[n];
    let sink = (n + moves) as u32;
    let top_odd = prio.iter().copied().max().unwrap_or(0) | 1;
    let mut p = prio.to_vec();
    let mut owner = vec![0u8; n];
    let mut succs: Vec<Vec<u32>> = (0..n)
        .map(|q| {
            if a.moves[q].is_empty() {
                vec![sink]
            } else {
                (first[q]..first[q + 1]).map(|m| (n + m) as u32).collect()
            }
        })
        .collect();
    for m in a.moves.all() {
        let mut s: Vec<u32> = a.post(m).collect();
        s.sort_unstable();
        s.dedup();
        succs.push(s);
        p.push(0);
        owner.push(1);
    }
    succs.push(vec![sink]);
    p.push(top_odd);
    owner.push(1);
    (
        Game::from_lists(p, owner, succs).expect("arena nodes all have successors"),
        first,
    )
}

/// Checks the recovery strategy on the arena: it wins the inflated objective from its region.
fn verify_arena(
    a: &Automaton,
    prio: &[u32],
    region: &[bool],
    choice: &[Option<usize>],
) -> Result<(), String> {
    let (g, first) = arena(a, prio);
    let n = a.len();
    let mut reg = vec![false; g.len()];
    let mut strat = vec![None; g.len()];
    for q in 0..n {
        if region[q] {
            reg[q] = true;
            let i = choice[q].ok_or("recovery strategy undefined in its region")?;
            strat[q] = Some((n + first[q] + i) as u32);
            let e = n + first[q] + i;
            reg[e] = true;
        }
    }
    verify_region(&g, &reg, &strat, 0).map_err(|e| format!("recovery strategy fails: {e}"))
}

/// Parity objective (min-parity priorities `p`): the least radius, scanned in
/// increasing order, whose inflated parity game is won from the initial
/// state and has a nominal lasso winning both the original and the inflated
/// priorities. `each_game` sees each radius's game before it is solved.
pub fn parity(
    a: &Automaton,
    p: &[u32],
    gamma_bar: f64,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
    each_game: &mut dyn FnMut(&Game) -> Result<(), RunError>,
) -> Result<Option<OmegaSolution>, RunError> {
    let n = a.len();
    let mut levels: Vec<u32> = p.to_vec();
    levels.sort_unstable();
    levels.dedup();
    let by_level: Vec<Vec<u32>> = levels
        .iter()
        .map(|&l| (0..n as u32).filter(|&q| p[q as usize] == l).collect())
        .collect();
    let dists: Vec<Vec<f64>> = by_level.iter().map(|s| a.dist_to_set(s)).collect();
    let candidates = sorted_distinct(dists.iter().flatten().copied().collect());
    let top = levels.last().copied().unwrap_or(0);
    let even_top = top + (top % 2);
    for (tried, &r) in candidates.iter().enumerate() {
        let solved = tried + 1;
        let pr = inflated_priorities(&levels, &dists, p, r);
        let max_prio: Vec<u32> = pr.iter().map(|&x| even_top - x).collect();
        let (g, first) = arena(a, &max_prio);
        each_game(&g)?;
        let sol = zielonka::solve_until(&g, deadline)?;
        meter.add(1);
        let region: Vec<bool> = (0..n).map(|q| sol.winner[q] == 0).collect();
        if !region[a.init as usize] {
            continue;
        }
        let recovery: Vec<Option<usize>> = (0..n)
            .map(|q| {
                if region[q] {
                    sol.strategy[q].map(|e| e as usize - n - first[q])
                } else {
                    None
                }
            })
            .collect();
        let Some((plan, cycle_start)) = parity_lasso(a, &region, &levels, p, &pr) else {
            continue;
        };
        check_parity_cycle(a, &plan, cycle_start, p, &pr)?;
        verify_arena(a, &max_prio, &region, &recovery).map_err(RunError::Internal)?;
        plan_stays_in_region(a, &plan, &region).map_err(RunError::Internal)?;
        return Ok(Some(OmegaSolution {
            radius: r,
            sigma: sigma_of(r, gamma_bar),
            gamma_bar,
            candidates: candidates.len(),
            solved,
            plan,
            cycle_start,
            recovery,
            counters: 1,
            region,
        }));
    }
    Ok(None)
}

/// The r-inflated priority of each state: the least priority level within
/// distance r (`dists[i]` are the distances to the states of `levels[i]`),
/// as in the seed's min-parity.
fn inflated_priorities(levels: &[u32], dists: &[Vec<f64>], p: &[u32], r: f64) -> Vec<u32> {
    (0..p.len())
        .map(|q| {
            levels
                .iter()
                .zip(dists)
                .find(|(_, d)| d[q] <= r)
                .map(|(&l, _)| l)
                .unwrap_or(p[q])
        })
        .collect()
}

/// A nominal lasso inside `region` winning both parity conditions: for some
/// even levels e1 and e2 its cycle stays at original priority >= e1 and
/// inflated priority >= e2 and visits both (the first pair that has one).
fn parity_lasso(
    a: &Automaton,
    region: &[bool],
    levels: &[u32],
    p: &[u32],
    pr: &[u32],
) -> Option<(Vec<Step>, usize)> {
    let n = a.len();
    let edges = safe_edges(a, region);
    for e1 in levels.iter().copied().filter(|l| l % 2 == 0) {
        for e2 in levels.iter().copied().filter(|l| l % 2 == 0) {
            let restrict: Vec<bool> = (0..n).map(|q| p[q] >= e1 && pr[q] >= e2).collect();
            let req = vec![
                (0..n).map(|q| p[q] == e1).collect(),
                (0..n).map(|q| pr[q] == e2).collect(),
            ];
            if let Some(l) = lasso(a, &edges, &restrict, &req) {
                return Some(l);
            }
        }
    }
    None
}

/// Independent check of the plan: it replays, and the least original and
/// inflated priorities on its cycle are even.
fn check_parity_cycle(
    a: &Automaton,
    plan: &[Step],
    cycle_start: usize,
    p: &[u32],
    pr: &[u32],
) -> Result<(), RunError> {
    let cycle = replay_plan(a, plan, cycle_start).map_err(RunError::Internal)?;
    let min_p = cycle.iter().map(|&q| p[q as usize]).min().unwrap_or(1);
    let min_r = cycle.iter().map(|&q| pr[q as usize]).min().unwrap_or(1);
    if min_p % 2 == 1 || min_r % 2 == 1 {
        return Err(RunError::Internal(
            "internal: plan cycle loses the parity condition".into(),
        ));
    }
    Ok(())
}
