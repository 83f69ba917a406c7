//! Small progress measures (Jurdzinski 2000), the construction the seed's parity
//! robustness builds on, for max-parity games. Player 0's strategy comes from the
//! measure; player 1's from the measure of the dual game (owners swapped, priorities + 1).

use super::game::{Game, Solution};
use crate::report::{Deadline, Expired};

/// Lifts between two looks at the clock.
const LIFTS_PER_CHECK: u64 = 1024;

/// Solves the game with progress measures for both players.
pub fn solve(g: &Game) -> Solution {
    solve_until(g, Deadline::NONE).expect("no deadline")
}

/// [`solve`], giving up at `deadline` (checked every [`LIFTS_PER_CHECK`] lifts).
pub fn solve_until(g: &Game, deadline: Deadline) -> Result<Solution, Expired> {
    let (win0, strat0) = even_measure(g, deadline)?;
    let dual = Game {
        priority: g.priority.iter().map(|p| p + 1).collect(),
        owner: g.owner.iter().map(|o| 1 - o).collect(),
        ..g.clone()
    };
    let (win1, strat1) = even_measure(&dual, deadline)?;
    let n = g.len();
    let winner: Vec<u8> = (0..n).map(|v| if win0[v] { 0 } else { 1 }).collect();
    debug_assert!((0..n).all(|v| win0[v] != win1[v]));
    let strategy = (0..n)
        .map(|v| match (winner[v], g.owner[v]) {
            (0, 0) => strat0[v],
            (1, 1) => strat1[v],
            _ => None,
        })
        .collect();
    Ok(Solution { winner, strategy })
}

/// The least progress measure for player 0: winning nodes and the measure-minimising move.
fn even_measure(g: &Game, deadline: Deadline) -> Result<(Vec<bool>, Vec<Option<u32>>), Expired> {
    let n = g.len();
    // Compress priorities (order and parity kept) so tuples stay short.
    let mut distinct: Vec<u32> = g.priority.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let mut level = Vec::with_capacity(distinct.len());
    let mut cur = 0u32;
    for (i, &p) in distinct.iter().enumerate() {
        if i == 0 {
            cur = p % 2;
        } else if p % 2 != cur % 2 {
            cur += 1;
        }
        level.push(cur);
    }
    let prio: Vec<u32> = g
        .priority
        .iter()
        .map(|p| level[distinct.binary_search(p).unwrap_or(0)])
        .collect();
    let max_p = prio.iter().copied().max().unwrap_or(0);
    let k = (max_p as usize).div_ceil(2); // odd priorities 1, 3, .., component (p - 1) / 2
    let mut bound = vec![0u32; k];
    for &p in &prio {
        if p % 2 == 1 {
            bound[(p as usize - 1) / 2] += 1;
        }
    }
    // rho[v * k .. v * k + k]; `top[v]` marks the top element.
    let mut rho = vec![0u32; n * k];
    let mut top = vec![false; n];
    let (pstart, pred) = g.predecessors();
    let mut queued = vec![true; n];
    let mut work: Vec<u32> = (0..n as u32).collect();
    let mut tmp = vec![0u32; k];
    let mut best = vec![0u32; k];
    // prog(v, w) into out; returns false for top.
    let prog = |rho: &[u32], top: &[bool], v: usize, w: usize, out: &mut [u32]| -> bool {
        if top[w] {
            return false;
        }
        let p = prio[v] as usize;
        let lo = p / 2; // first component that counts at priority p: odd priorities >= p
        for c in 0..k {
            out[c] = if c < lo { 0 } else { rho[w * k + c] };
        }
        if p % 2 == 1 {
            let mut c = lo;
            loop {
                if c == k {
                    return false;
                }
                if out[c] < bound[c] {
                    out[c] += 1;
                    return true;
                }
                out[c] = 0;
                c += 1;
            }
        }
        true
    };
    // Lexicographic comparison from the most significant (highest) component.
    let less = |a: &[u32], b: &[u32]| -> bool {
        for c in (0..k).rev() {
            if a[c] != b[c] {
                return a[c] < b[c];
            }
        }
        false
    };
    let mut lifts = 0u64;
    while let Some(v) = work.pop() {
        lifts += 1;
        if lifts % LIFTS_PER_CHECK == 0 {
            deadline.check()?;
        }
        let vi = v as usize;
        queued[vi] = false;
        if top[vi] {
            continue;
        }
        // Even nodes take the least successor measure, odd nodes the greatest.
        let even = g.owner[vi] == 0;
        let mut have = false;
        let mut best_top_set = false;
        for &w in g.succs(vi) {
            let finite = prog(&rho, &top, vi, w as usize, &mut tmp);
            if even {
                if finite && (!have || less(&tmp, &best)) {
                    best.copy_from_slice(&tmp);
                    have = true;
                }
            } else if !finite {
                best_top_set = true;
                break;
            } else if !have || less(&best, &tmp) {
                best.copy_from_slice(&tmp);
                have = true;
            }
        }
        let new_top = if even { !have } else { best_top_set || !have };
        let changed = if new_top {
            top[vi] = true;
            true
        } else if less(&rho[vi * k..vi * k + k], &best) {
            rho[vi * k..vi * k + k].copy_from_slice(&best);
            true
        } else {
            false
        };
        if changed {
            for &u in &pred[pstart[vi] as usize..pstart[vi + 1] as usize] {
                if !queued[u as usize] && !top[u as usize] {
                    queued[u as usize] = true;
                    work.push(u);
                }
            }
        }
    }
    let strategy = (0..n)
        .map(|v| {
            if top[v] || g.owner[v] != 0 {
                return None;
            }
            let mut choice: Option<(Vec<u32>, u32)> = None;
            for &w in g.succs(v) {
                let mut out = vec![0u32; k];
                if prog(&rho, &top, v, w as usize, &mut out)
                    && choice.as_ref().is_none_or(|c| less(&out, &c.0))
                {
                    choice = Some((out, w));
                }
            }
            choice.map(|c| c.1)
        })
        .collect();
    Ok((top.iter().map(|t| !t).collect(), strategy))
}
