//! Small progress measures (Jurdzinski 2000), the construction the seed's parity
//! robustness builds on, for max-parity games.
//!
//! Two measures are lifted side by side, one per player: player Q's measure
//! counts the visits to priorities of Q's parity, Q maximises it, its top
//! means Q wins, and the opponent takes its strategy from it (the successor of
//! least measure). What keeps a lift cheap when the game has many priorities
//! (the ideas of van Dijk's SPM in Oink, 2018, written anew here):
//! - priorities compressed ([`super::compress`]) to the dense levels that
//!   occur: a measure has one component per level of its player's parity;
//! - measures stored sparsely, their non-zero components only
//!   ([`super::spm_rows`]), and read in place: the progress of a successor
//!   is never copied, a comparison reads the non-zero components from the
//!   highest down, and only a lift that raises a measure writes one (with
//!   k components per measure on 10^3 priorities, the copies and scans of
//!   dense rows were most of the time);
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

use super::compress::compressed;
use super::game::{Game, Solution};
use super::spm_measure::Measure;
use crate::report::{Deadline, Expired};

/// The most memory the two measure tables may take (as the swarm
/// explorer's budget): past it the solver is refused before it allocates.
pub const MEMORY_BUDGET: u128 = 8 << 30;

/// The bytes the two measures may take at worst (n nodes, each with every
/// one of its k components non-zero: 8 bytes per entry and the node's
/// 20-byte slot, for the game and its dual; k is at most half the number of
/// distinct priorities, rounded up): an error past [`MEMORY_BUDGET`], said
/// before anything is allocated (a game of 10^6 nodes and 10^5 priorities
/// could ask for 800 GB). Measures are stored sparsely
/// ([`super::spm_rows`]), so a game within the budget mostly takes far less.
pub fn check_memory(g: &Game) -> Result<(), String> {
    let mut distinct = g.priority.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let k = distinct.len().div_ceil(2) as u128;
    let bytes = 2 * g.len() as u128 * (20 + 8 * k);
    if bytes > MEMORY_BUDGET {
        return Err(format!(
            "progress measures on {} nodes with about {k} odd priority levels need about {} GiB for their tables, beyond the {} GiB budget; use --solver zielonka",
            g.len(),
            bytes >> 30,
            MEMORY_BUDGET >> 30
        ));
    }
    Ok(())
}

/// Solves the game with progress measures for both players.
pub fn solve(g: &Game) -> Solution {
    solve_until(g, Deadline::NONE).expect("no deadline")
}

/// [`solve`], giving up at `deadline` (checked every thousand lifts or nodes).
pub fn solve_until(g: &Game, deadline: Deadline) -> Result<Solution, Expired> {
    solve_metered(g, deadline, &crate::report::meter::Meter::none())
}

/// [`solve_until`], counting the lifts tried on `meter`.
pub fn solve_metered(
    g: &Game,
    deadline: Deadline,
    meter: &crate::report::meter::Meter,
) -> Result<Solution, Expired> {
    let level = compressed(&g.priority);
    let pred = g.predecessors();
    let mut even = Measure::new(g, &pred, &level, 0);
    let mut odd = Measure::new(g, &pred, &level, 1);
    // Between stability checks: enough lifts that a check (O(m k)) stays a fraction of the work.
    let budget = (4 * (g.len() + g.succ.len())).max(4096) as u64;
    let mut lifts = 0u64;
    even.start(&mut lifts, (deadline, meter))?;
    odd.start(&mut lifts, (deadline, meter))?;
    loop {
        let idle_even = even.run(budget, &mut lifts, (deadline, meter))?;
        let idle_odd = odd.run(budget, &mut lifts, (deadline, meter))?;
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
