//! Parity games (Zielonka against progress measures, verified solutions, PGSolver
//! round trips) and robust Buchi / parity synthesis by inflation.

mod robust_common;

use mavis::lang::Source;
use mavis::robust::front::Objective;
use mavis::robust::parity::game::{verify, Game, Solution};
use mavis::robust::{parity::spm, parity::zielonka, read::pgsolver, synth::omega};
use proptest::prelude::*;
use rand::Rng;
use robust_common::parity::{brute_verify, random_game};
use robust_common::*;

#[test]
fn zielonka_and_progress_measures_agree_and_verify() {
    let mut r = rng(21);
    for case in 0..300 {
        let n = 1 + case % 40;
        let g = random_game(&mut r, n, (case % 7) as u32, 3);
        let z = zielonka::solve(&g);
        let s = spm::solve(&g);
        assert_eq!(z.winner, s.winner, "case {case}");
        verify(&g, &z).unwrap_or_else(|e| panic!("case {case} zielonka: {e}"));
        verify(&g, &s).unwrap_or_else(|e| panic!("case {case} spm: {e}"));
    }
}

#[test]
fn verifier_rejects_wrong_solutions() {
    // 0 (prio 1, odd's) -> 1 (prio 2, even's) -> 0: the cycle's top priority is 2, even wins.
    let g = Game::from_lists(vec![1, 2], vec![1, 0], vec![vec![1], vec![0]]).unwrap();
    let good = zielonka::solve(&g);
    assert_eq!(good.winner, vec![0, 0]);
    let mut bad = good.clone();
    bad.winner = vec![1, 1];
    bad.strategy = vec![Some(1), None];
    assert!(verify(&g, &bad).is_err());
}

/// A game and a candidate solution that is often closed but not always winning:
/// winners from Zielonka's solution or drawn at random, strategies drawn among
/// the successors.
fn game_and_candidate() -> impl Strategy<Value = (Game, Solution)> {
    (1usize..14, 0u32..9, any::<u64>(), 0u8..3).prop_map(|(n, top, seed, mode)| {
        let mut r = rng(seed);
        let g = random_game(&mut r, n, top, 3);
        let mut sol = zielonka::solve(&g);
        match mode {
            0 => {}
            1 => sol.winner = vec![r.gen_range(0..2u8); n],
            _ => sol.winner = (0..n).map(|_| r.gen_range(0..2u8)).collect(),
        }
        for v in 0..n {
            let succ = g.succs(v);
            sol.strategy[v] = if g.owner[v] == sol.winner[v] && (mode > 0 || r.gen_bool(0.3)) {
                Some(succ[r.gen_range(0..succ.len())])
            } else if g.owner[v] == sol.winner[v] {
                sol.strategy[v]
            } else {
                None
            };
        }
        (g, sol)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// The O((n + m) log d) verifier accepts exactly the solutions the definition accepts.
    #[test]
    fn verifier_agrees_with_the_definition((g, sol) in game_and_candidate()) {
        let fast = verify(&g, &sol);
        prop_assert_eq!(fast.is_ok(), brute_verify(&g, &sol), "{:?}", fast);
    }
}

/// Many priorities (about one per node), where the hierarchy of components is
/// deep: the verifier accepts Zielonka's solutions and rejects them with every
/// winner flipped (by determinacy no strategy wins there).
#[test]
fn verifier_on_many_priorities() {
    let mut r = rng(77);
    for case in 0..40 {
        let n = 50 + case;
        let g = random_game(&mut r, n, 10 * n as u32, 3);
        let sol = zielonka::solve(&g);
        verify(&g, &sol).unwrap_or_else(|e| panic!("case {case}: {e}"));
        assert!(brute_verify(&g, &sol));
        let mut bad = sol.clone();
        bad.winner = sol.winner.iter().map(|w| 1 - w).collect();
        bad.strategy = (0..n)
            .map(|v| (g.owner[v] == bad.winner[v]).then(|| g.succs(v)[0]))
            .collect();
        assert!(verify(&g, &bad).is_err(), "case {case}");
        assert!(!brute_verify(&g, &bad));
    }
}

#[test]
fn hand_solved_game() {
    // Node 0 (even player, prio 0) chooses 1 or 2; 1 (prio 3) loops on itself; 2 (prio 4)
    // loops. Player 0 wins everything except 1 by moving 0 -> 2.
    let text = "parity 2;\n0 0 0 1,2 \"start\";\n1 3 1 1;\n2 4 1 2;\n";
    let g = pgsolver::read_game(&Source::new("g.pg", text)).unwrap();
    for sol in [zielonka::solve(&g), spm::solve(&g)] {
        assert_eq!(sol.winner, vec![0, 1, 0]);
        assert_eq!(sol.strategy[0], Some(2));
    }
    assert_eq!(g.names[0].as_deref(), Some("start"));
}

/// The reader lays out the nodes by id whatever the order of the rows; a
/// file in order is read without a copy, one out of order through a sort,
/// and both must give the same game (names included).
#[test]
fn rows_out_of_order_give_the_game_of_rows_in_order() {
    let rows = [
        "0 4 0 1,2;",
        "1 3 1 1 \"one\";",
        "2 0 1 0,1,2;",
        "3 7 0 3 \"three\";",
    ];
    let read = |order: &[usize]| {
        let text: String = std::iter::once("parity 3;".to_string())
            .chain(order.iter().map(|&i| rows[i].to_string()))
            .collect::<Vec<_>>()
            .join("\n");
        pgsolver::read_game(&Source::new("g.pg", text.as_str())).unwrap()
    };
    let in_order = read(&[0, 1, 2, 3]);
    assert_eq!(in_order.priority, vec![4, 3, 0, 7]);
    assert_eq!(in_order.owner, vec![0, 1, 1, 0]);
    assert_eq!(in_order.start, vec![0, 2, 3, 6, 7]);
    assert_eq!(in_order.succ, vec![1, 2, 1, 0, 1, 2, 3]);
    assert_eq!(in_order.name(1), Some("one"));
    assert_eq!(in_order.name(3), Some("three"));
    assert_eq!(in_order.name(0), None);
    for order in [[3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]] {
        assert_eq!(read(&order), in_order, "rows in the order {order:?}");
    }
}

#[test]
fn pgsolver_round_trip() {
    let mut r = rng(4);
    for case in 0..50 {
        let mut g = random_game(&mut r, 1 + case, 9, 4);
        // Half the games name a node; the others have no names at all.
        if case % 2 == 1 {
            g.names = vec![None; g.len()];
            g.names[0] = Some("init".into());
        }
        let text = pgsolver::write_game(&g);
        let back = pgsolver::read_game(&Source::new("g.pg", text.as_str())).unwrap();
        assert_eq!(back, g);
        let sol = zielonka::solve(&g);
        let stext = pgsolver::write_solution(&g, &sol);
        let sback =
            pgsolver::read_solution(&Source::new("g.sol", stext.as_str()), g.len()).unwrap();
        assert_eq!(sback, sol);
    }
}

#[test]
fn pgsolver_errors_are_located() {
    for (text, needle) in [
        ("parity 1;\n0 1 0 1;\n1 2 2 0;\n", "owner must be 0 or 1"),
        (
            "parity 1;\n0 1 0 5;\n1 2 1 0;\n",
            "successor 5 is not a node",
        ),
        ("parity 1;\n0 1 0 1\n1 2 1 0;\n", "expected `;`"),
        ("parity 2;\n0 1 0 0;\n2 2 1 0;\n", "node 1 is missing"),
    ] {
        let err = pgsolver::read_game(&Source::new("bad.pg", text)).unwrap_err();
        assert!(err.message.contains(needle), "{text:?}: {}", err.message);
        assert!(err.location.starts_with("bad.pg:"), "{}", err.location);
    }
}

/// Headers, `start` lines and solution headers are checked against the
/// nodes really defined (they were accepted unchecked: `parity 0;` alone was
/// solved as an empty game).
#[test]
fn pgsolver_headers_and_start_lines_are_checked() {
    for (text, needle) in [
        ("", "the game has no nodes"),
        ("parity 0;", "the game has no nodes"),
        ("parity 0;\n", "the game has no nodes"),
        (
            "parity 5;\n0 1 0 1;\n1 2 1 0;\n",
            "the header declares nodes 0..=5 (or 5 nodes), but the largest node defined is 1",
        ),
        (
            "parity 5;\n0 1 0 1;\n1 2 1 2;\n2 2 1 0;\n",
            "the header declares nodes 0..=5 (or 5 nodes), but the largest node defined is 2",
        ),
        (
            "parity 1;\n0 1 0 1;\n1 2 1 2;\n2 2 1 0;\n",
            "node 2 exceeds the declared largest id",
        ),
        (
            "parity 1;\nstart 7;\n0 1 0 1;\n1 2 1 0;\n",
            "the start node 7 is not a node of the game",
        ),
    ] {
        let err = pgsolver::read_game(&Source::new("bad.pg", text)).unwrap_err();
        assert!(err.message.contains(needle), "{text:?}: {}", err.message);
        assert!(err.location.starts_with("bad.pg:"), "{}", err.location);
    }
    // `parity N;` is the largest id for PGSolver and the node count for Oink's
    // rngame; Oink reads both, and so does mavis.
    for good in [
        "parity 1;\nstart 1;\n0 1 0 1;\n1 2 1 0;\n",
        "parity 2;\nstart 1;\n0 1 0 1;\n1 2 1 0;\n",
    ] {
        assert_eq!(
            pgsolver::read_game(&Source::new("g.pg", good))
                .unwrap()
                .len(),
            2
        );
    }
    for (text, needle) in [
        ("paritysol 4;\n0 0;\n1 0;\n", "declares nodes 0..=4"),
        ("paritysol 1;\n0 0;\n0 1;\n1 0;\n", "node 0 is solved twice"),
    ] {
        let err = pgsolver::read_solution(&Source::new("s.sol", text), 2).unwrap_err();
        assert!(err.message.contains(needle), "{text:?}: {}", err.message);
    }
}

fn with_objective(
    mut a: mavis::robust::front::Automaton,
    obj: Objective,
) -> mavis::robust::front::Automaton {
    a.objective = obj;
    a.gamma = a.least_gamma();
    a
}

#[test]
fn buchi_equals_parity_with_priorities_0_and_1() {
    // For a Buchi set F written as priorities 0 (F) / 1 the r-inflated priorities are
    // exactly F_r (notes/robust.md): the nested fixed point with binary search and
    // Zielonka with the radius scan must find the same radius.
    let mut r = rng(31);
    let mut compared = 0;
    for case in 0..150 {
        let a = random_automaton(&mut r, 3 + case % 8, 2, 2);
        let Objective::Reach(f) = a.objective.clone() else {
            unreachable!()
        };
        let b = with_objective(a.clone(), Objective::Buchi(f.clone()));
        let p = with_objective(
            a,
            Objective::Parity(
                (0..b.len() as u32)
                    .map(|q| if f.contains(&q) { 0 } else { 1 })
                    .collect(),
            ),
        );
        let sb = omega::solve(&b).unwrap();
        let sp = omega::solve(&p).unwrap();
        assert_eq!(
            sb.as_ref().map(|s| s.radius),
            sp.as_ref().map(|s| s.radius),
            "case {case}"
        );
        compared += sb.is_some() as usize;
    }
    assert!(compared > 20, "too few solvable cases ({compared})");
}

#[test]
fn buchi_laws_no_disturbance_scaling_monotone() {
    let mut r = rng(37);
    for case in 0..120 {
        let a = random_automaton(&mut r, 3 + case % 8, 2, 1);
        let Objective::Reach(f) = a.objective.clone() else {
            unreachable!()
        };
        let b = with_objective(a.clone(), Objective::Buchi(f.clone()));
        let base = omega::solve(&b).unwrap();
        // Without disturbances the radius is 0 exactly when F can be visited
        // infinitely often nominally (then the plan alone wins).
        let mut calm = b.clone();
        let mut lists = calm.moves.to_lists();
        lists.iter_mut().flatten().for_each(|m| m.disturbed.clear());
        calm.moves = mavis::robust::front::MoveTable::from_lists(lists);
        calm.gamma = calm.least_gamma();
        let c = omega::solve(&calm).unwrap();
        if let Some(c) = &c {
            assert_eq!(c.radius, 0.0, "case {case}");
        }
        // Disturbances can only remove solutions (they may push into dead ends).
        assert!(c.is_some() || base.is_none(), "case {case}");
        // Scaling.
        let s = omega::solve(&b.scaled(2.0)).unwrap();
        assert_eq!(
            s.map(|s| s.radius),
            base.as_ref().map(|x| 2.0 * x.radius),
            "case {case}"
        );
        // More disturbance never helps.
        if let Some(base) = &base {
            let mut more = b.clone();
            let q = r.gen_range(0..more.len());
            if !more.moves[q].is_empty() {
                more.disturbances.push("extra".into());
                let x = (more.disturbances.len() - 1) as u32;
                let t = r.gen_range(0..more.len()) as u32;
                let mut lists = more.moves.to_lists();
                lists[q][0].disturbed.push((x, t));
                more.moves = mavis::robust::front::MoveTable::from_lists(lists);
                more.gamma = more.least_gamma();
                if let Some(m) = omega::solve(&more).unwrap() {
                    assert!(m.radius >= base.radius, "case {case}");
                }
            }
        }
    }
}

#[test]
fn generalised_buchi_needs_both_sets() {
    // A ring a -> b -> c -> a with a shortcut; visiting {a} and {c} infinitely often.
    let text = r#"
        metric euclidean;
        inputs go, skip;
        disturbances wind;
        state a at (0, 0); state b at (1, 0); state c at (2, 0); state d at (5, 0);
        init a;
        trans a go -> b;
        trans b go -> c | wind -> d;
        trans b skip -> a;
        trans c go -> a;
        trans d go -> c;
        gen-buchi {a}, {c};
    "#;
    let (a, _) =
        mavis::robust::load_source(&Source::new("g.ma", text), &mut Default::default()).unwrap();
    let s = omega::solve(&a).unwrap().expect("winnable");
    // The only way to c is b -go->, where wind may push to d (distance 3 from c, 5 from a).
    // From d the system goes to c, then a: both sets are still visited infinitely often,
    // so the radius is 0.
    assert_eq!(s.radius, 0.0);
    let cycle: Vec<&str> = s.plan[s.cycle_start..]
        .iter()
        .map(|&(q, _)| &a.states[q as usize])
        .collect();
    assert!(cycle.contains(&"a") && cycle.contains(&"c"), "{cycle:?}");
}

/// A random game as scripts/compare_oink.py writes them: priorities drawn
/// from 0..p, owners at random, 2 to 4 distinct successors per node.
fn oink_like_game(r: &mut rand::rngs::StdRng, n: usize, p: u32) -> Game {
    let prio = (0..n).map(|_| r.gen_range(0..p)).collect();
    let owner = (0..n).map(|_| r.gen_range(0..2u8)).collect();
    let succs = (0..n)
        .map(|_| {
            let k = r.gen_range(2..=4);
            let mut s: Vec<u32> = (0..k).map(|_| r.gen_range(0..n) as u32).collect();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    Game::from_lists(prio, owner, succs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]
    /// Progress measures against Zielonka on every node, with up to one
    /// priority per node (cycles are settled at many levels), and the
    /// strategies accepted by the verifier.
    #[test]
    fn progress_measures_agree_with_zielonka_on_many_priorities(
        n in 1usize..60, top in 0u32..80, out in 1usize..5, seed in any::<u64>()
    ) {
        let g = random_game(&mut rng(seed), n, top, out);
        let s = spm::solve(&g);
        prop_assert_eq!(&s.winner, &zielonka::solve(&g).winner);
        prop_assert!(verify(&g, &s).is_ok(), "{:?}", verify(&g, &s));
        prop_assert!(brute_verify(&g, &s));
    }
}

/// The held-out shape of issue 36 (random games with 50 to 1000 priorities
/// and up to 10^4 nodes, on which the measures used to climb for minutes):
/// winners equal to Zielonka's on every node, strategies verified.
#[test]
fn progress_measures_on_oink_like_games_with_many_priorities() {
    let mut r = rng(36);
    for (case, (n, p)) in [
        (100, 50),
        (1000, 50),
        (1000, 1000),
        (3000, 300),
        (10_000, 1000),
    ]
    .into_iter()
    .enumerate()
    {
        let g = oink_like_game(&mut r, n, p);
        let s = spm::solve(&g);
        assert_eq!(s.winner, zielonka::solve(&g).winner, "case {case}");
        verify(&g, &s).unwrap_or_else(|e| panic!("case {case}: {e}"));
    }
}
