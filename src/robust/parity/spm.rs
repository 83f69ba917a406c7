//! Small progress measures (Jurdzinski 2000), the construction the seed's parity
//! robustness builds on, for max-parity games.
//!
//! Two measures are lifted side by side, one per player: player Q's measure
//! counts the visits to priorities of Q's parity, Q maximises it, its top
//! means Q wins, and the opponent takes its strategy from it (the successor of
//! least measure). What keeps a lift cheap when the game has many priorities
//! (the ideas of van Dijk's SPM in Oink, 2018, written anew here):
//! - priorities renumbered to the dense levels that occur ([`levels`]): a
//!   measure has one component per level of its player's parity;
//! - no carry from a component into the next: a component above the number
//!   of nodes of its level that are not yet won says that the play returns to
//!   that level without a higher priority, a cycle ("cyclic" measure); any two
//!   measures cyclic at the same component compare equal, so lifting stops
//!   there instead of counting through every tuple below top (the climb that
//!   made random games with 50 priorities run for minutes);
//! - when no lift is left, the cycles are settled at once
//!   ([`super::spm_settle`]): cyclic at the highest level still open means
//!   top; otherwise the opponent's least exit out of the cyclic nodes is taken
//!   in one jump, and without an exit the cyclic nodes the opponent cannot
//!   leave are won;
//! - a work list of changed nodes (a maximiser looks only at the successor
//!   that changed, a minimiser only when its best successor changed) and a
//!   periodic stability check (a closed set of nodes whose measures can never
//!   rise is won by the minimiser: the other measure is set to top there).

use super::game::{Game, Solution};
use super::spm_measure::Measure;
use crate::report::{Deadline, Expired};

/// Solves the game with progress measures for both players.
pub fn solve(g: &Game) -> Solution {
    solve_until(g, Deadline::NONE).expect("no deadline")
}

/// [`solve`], giving up at `deadline` (checked every thousand lifts or nodes).
pub fn solve_until(g: &Game, deadline: Deadline) -> Result<Solution, Expired> {
    let level = levels(g);
    let pred = g.predecessors();
    let mut even = Measure::new(g, &pred, &level, 0);
    let mut odd = Measure::new(g, &pred, &level, 1);
    // Between stability checks: enough lifts that a check (O(m k)) stays a fraction of the work.
    let budget = (4 * (g.len() + g.succ.len())).max(4096) as u64;
    let mut lifts = 0u64;
    even.start(deadline)?;
    odd.start(deadline)?;
    loop {
        let idle_even = even.run(budget, &mut lifts, deadline)?;
        let idle_odd = odd.run(budget, &mut lifts, deadline)?;
        if idle_even && idle_odd {
            let settled_even = even.settle_cycles(deadline)?;
            let settled_odd = odd.settle_cycles(deadline)?;
            if settled_even || settled_odd {
                continue;
            }
        }
        // A closed set where a measure is finite and stable is its minimiser's.
        let won_by_odd = even.stable_finite(deadline)?;
        let won_by_even = odd.stable_finite(deadline)?;
        let forced = even.force_top(&won_by_even) | odd.force_top(&won_by_odd);
        if idle_even && idle_odd && !forced {
            break;
        }
    }
    Ok(solution(g, &even, &odd))
}

/// The winners (the player whose measure is top) and both strategies.
fn solution(g: &Game, even: &Measure, odd: &Measure) -> Solution {
    let n = g.len();
    let winner: Vec<u8> = (0..n).map(|v| u8::from(!even.is_top(v))).collect();
    debug_assert!((0..n).all(|v| even.is_top(v) != odd.is_top(v)));
    // Player 0 minimises odd's measure where it wins, player 1 even's.
    let (s0, s1) = (odd.strategy(), even.strategy());
    let strategy = (0..n)
        .map(|v| match (winner[v], g.owner[v]) {
            (0, 0) => s0[v],
            (1, 1) => s1[v],
            _ => None,
        })
        .collect();
    Solution { winner, strategy }
}

/// Priorities renumbered to dense levels, order and parity kept: the
/// distinct priorities in increasing order, consecutive ones of the same
/// parity merged (no node lies between them, so no play can tell them apart),
/// the lowest at level 0 or 1 by its parity.
pub fn levels(g: &Game) -> Vec<u32> {
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
    g.priority
        .iter()
        .map(|p| level[distinct.partition_point(|q| q < p)])
        .collect()
}
