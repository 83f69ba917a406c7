//! Small progress measures on games with few priorities stay usable at
//! 10^6 nodes (issue 36: the cycle settling added for many priorities scans
//! every node, which costs on games with few). The games are built with a
//! known winner on every node, so the answer is checked without a second
//! solver at 10^6 nodes; at 10^4 nodes it is also checked against Zielonka.
//! No time is asserted (shared machines): the 10^6 instance must finish with
//! the right answer.

mod robust_common;

use mavis::robust::parity::game::{verify, Game};
use mavis::robust::parity::{spm, zielonka};
use rand::seq::SliceRandom;
use rand::Rng;
use robust_common::rng;

/// A game of `n` nodes with priorities 0, 1 and 2 whose winners are known
/// by construction: each node is put at random in region E (won by even)
/// or O (won by odd), in a random order inside its region. In E every odd
/// node's successors and one chosen successor of every even node stay in E
/// and either go forward in E's order or reach a node of priority 2, so
/// every cycle even can be held to has top priority 2; O is the mirror
/// image, with priorities 0 and 1 and its backward edges into priority 1.
/// The winner's other nodes also get edges anywhere (choices that lose), so
/// that the measures have work to do. Returns the game and the winners.
fn game_with_known_winners(seed: u64, n: usize) -> (Game, Vec<u8>) {
    let mut r = rng(seed);
    let mut nodes: Vec<u32> = (0..n as u32).collect();
    nodes.shuffle(&mut r);
    let split = n / 2;
    let mut winner = vec![0u8; n];
    let mut priority = vec![0u32; n];
    let mut owner = vec![0u8; n];
    let mut succs = vec![Vec::new(); n];
    for (player, region) in [(0u8, &nodes[..split]), (1u8, &nodes[split..])] {
        // The priority that closes a cycle for the region's winner.
        let top = 2 - u32::from(player);
        for (i, &v) in region.iter().enumerate() {
            let v = v as usize;
            winner[v] = player;
            owner[v] = r.gen_range(0..2u8);
            // The region's first node has the top priority (a target for the
            // backward edges); the others at random below or at it.
            priority[v] = if i == 0 { top } else { r.gen_range(0..=top) };
        }
        let closers: Vec<u32> = (region.iter().copied())
            .filter(|&v| priority[v as usize] == top)
            .collect();
        for (i, &v) in region.iter().enumerate() {
            let v = v as usize;
            let in_region = |r: &mut rand::rngs::StdRng| {
                if i + 1 < region.len() && r.gen_bool(0.8) {
                    region[r.gen_range(i + 1..region.len())]
                } else {
                    closers[r.gen_range(0..closers.len())]
                }
            };
            let k = r.gen_range(1..=3);
            let mut out: Vec<u32> = (0..k).map(|_| in_region(&mut r)).collect();
            if owner[v] == player {
                // The winner may also move anywhere (losing choices too).
                out.extend((0..r.gen_range(0..=2)).map(|_| r.gen_range(0..n as u32)));
            }
            out.sort_unstable();
            out.dedup();
            succs[v] = out;
        }
    }
    (Game::from_lists(priority, owner, succs).unwrap(), winner)
}

#[test]
fn few_priorities_small_instance_against_zielonka_and_the_construction() {
    for seed in 0..4 {
        let (g, expected) = game_with_known_winners(seed, 10_000);
        let s = spm::solve(&g);
        assert_eq!(s.winner, expected, "seed {seed}");
        assert_eq!(zielonka::solve(&g).winner, expected, "seed {seed}");
        verify(&g, &s).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

#[test]
fn few_priorities_a_million_nodes() {
    let (g, expected) = game_with_known_winners(36, 1_000_000);
    assert!(g.priority.iter().all(|&p| p <= 2));
    let s = spm::solve(&g);
    assert_eq!(s.winner, expected);
    verify(&g, &s).unwrap();
}
