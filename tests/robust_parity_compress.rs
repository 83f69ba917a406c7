//! Priority compression (`robust::parity::compress`), which both solvers
//! apply before solving: the map against its definition, and solutions
//! computed on the compressed game checked on the original one by the
//! definition of a correct solution.

mod robust_common;

use mavis::robust::parity::compress::{compressed, count};
use mavis::robust::parity::game::{verify, Game};
use mavis::robust::parity::{spm, zielonka};
use proptest::prelude::*;
use robust_common::parity::{brute_verify, random_game};
use robust_common::rng;

/// Checks `c = compressed(p)` against the definition: parity kept, order
/// kept, two priorities merged exactly when they have the same parity and
/// no occurring priority of the other parity lies between them, the values
/// a contiguous range starting at 0 or 1.
fn check_definition(p: &[u32], c: &[u32]) -> Result<(), String> {
    if p.len() != c.len() {
        return Err("length differs".into());
    }
    for i in 0..p.len() {
        if c[i] % 2 != p[i] % 2 {
            return Err(format!("node {i}: parity of {} lost in {}", p[i], c[i]));
        }
        for j in 0..p.len() {
            let (lo, hi) = (p[i].min(p[j]), p[i].max(p[j]));
            let separated = p.iter().any(|&q| lo <= q && q <= hi && q % 2 != lo % 2);
            let merged = p[i] % 2 == p[j] % 2 && !separated;
            if merged != (c[i] == c[j]) {
                return Err(format!(
                    "{} and {} map to {} and {}",
                    p[i], p[j], c[i], c[j]
                ));
            }
            if p[i] < p[j] && c[i] > c[j] {
                return Err(format!("order of {} and {} reversed", p[i], p[j]));
            }
        }
    }
    let mut values: Vec<u32> = c.to_vec();
    values.sort_unstable();
    values.dedup();
    if values.first().is_some_and(|&m| m > 1) || values.windows(2).any(|w| w[1] != w[0] + 1) {
        return Err(format!("values {values:?} not dense"));
    }
    Ok(())
}

#[test]
fn compression_by_hand() {
    // Distinct 1 3 4 5 8 10: 1 and 3 merge (odd), 4, 5, then 8 and 10 merge.
    let p = [3, 5, 4, 8, 10, 1];
    assert_eq!(compressed(&p), vec![1, 3, 2, 4, 4, 1]);
    assert_eq!(count(&compressed(&p)), 5);
    // Only even priorities: one priority left.
    assert_eq!(compressed(&[0, 2, 40, 6]), vec![0, 0, 0, 0]);
    assert_eq!(compressed(&[]), Vec::<u32>::new());
    assert_eq!(count(&[]), 0);
}

/// A game of the given nodes and successors whose priorities are `priority`.
fn with_priorities(g: &Game, priority: Vec<u32>) -> Game {
    Game {
        priority,
        ..g.clone()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// Both ways of computing the map (a table for priorities up to a few
    /// times the number of nodes, sorting beyond) meet the definition.
    #[test]
    fn compression_meets_its_definition(
        p in prop::collection::vec(0u32..60, 0..40),
        spread in prop_oneof![Just(1u32), Just(1_000_003u32)],
    ) {
        // An odd spread keeps every parity and the order.
        let p: Vec<u32> = p.iter().map(|&x| x * spread).collect();
        let c = compressed(&p);
        prop_assert!(check_definition(&p, &c).is_ok(), "{:?}", check_definition(&p, &c));
    }

    /// Winners and strategies computed on the compressed game are correct on
    /// the original (checked by the definition, which knows nothing of the
    /// compression), and the winners equal those of the original game.
    #[test]
    fn winners_on_the_compressed_game_equal_winners_on_the_original(
        n in 1usize..40, top in 0u32..200, out in 1usize..5, seed in any::<u64>()
    ) {
        let g = random_game(&mut rng(seed), n, top, out);
        let small = with_priorities(&g, compressed(&g.priority));
        let original = zielonka::solve(&g);
        prop_assert!(brute_verify(&g, &original));
        for sol in [zielonka::solve(&small), spm::solve(&small)] {
            prop_assert_eq!(&sol.winner, &original.winner);
            prop_assert!(brute_verify(&g, &sol));
            prop_assert!(verify(&g, &sol).is_ok(), "{:?}", verify(&g, &sol));
        }
    }
}
