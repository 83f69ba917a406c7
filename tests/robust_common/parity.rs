//! Random parity games and the definition of a correct solution, for the
//! parity tests.

use mavis::robust::parity::game::{Game, Solution};
use rand::Rng;

/// A random game: priorities 0..=max_prio, owners at random, 1 to `out`
/// successors per node.
pub fn random_game(r: &mut rand::rngs::StdRng, n: usize, max_prio: u32, out: usize) -> Game {
    let prio = (0..n).map(|_| r.gen_range(0..=max_prio)).collect();
    let owner = (0..n).map(|_| r.gen_range(0..2u8)).collect();
    let succs = (0..n)
        .map(|_| {
            let k = r.gen_range(1..=out);
            let mut s: Vec<u32> = (0..k).map(|_| r.gen_range(0..n) as u32).collect();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    Game::from_lists(prio, owner, succs).unwrap()
}

/// The definition of a correct solution, checked directly on small games: the
/// winner's strategy is a successor inside its region, the opponent cannot leave
/// it, and no node v of the loser's parity returns to itself through nodes of
/// priority <= priority(v) along the edges the strategy allows.
pub fn brute_verify(g: &Game, sol: &Solution) -> bool {
    let n = g.len();
    let allowed = |v: usize| -> Vec<u32> {
        if g.owner[v] == sol.winner[v] {
            sol.strategy[v].into_iter().collect()
        } else {
            g.succs(v).to_vec()
        }
    };
    for v in 0..n {
        let w = sol.winner[v];
        if g.owner[v] == w {
            match sol.strategy[v] {
                Some(t) if g.succs(v).contains(&t) && sol.winner[t as usize] == w => {}
                _ => return false,
            }
        } else if g.succs(v).iter().any(|&t| sol.winner[t as usize] != w) {
            return false;
        }
    }
    (0..n).all(|v| {
        let p = g.priority[v];
        if (p % 2) as u8 == sol.winner[v] {
            return true;
        }
        let mut seen = vec![false; n];
        let mut stack = vec![v];
        while let Some(u) = stack.pop() {
            for t in allowed(u) {
                let t = t as usize;
                if t == v {
                    return false;
                }
                if g.priority[t] <= p && !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
        true
    })
}
