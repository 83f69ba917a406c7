//! `mavis robust solve --write-games PREFIX`: the parity games the robust
//! parity synthesis solves (one per inflation radius tried), written in
//! PGSolver's format, so that other solvers can be compared on them
//! (docs/performance/robust.md). Checked against the automaton: one system
//! node per state with one successor per move, one environment node per
//! move whose successors are the move's outcomes, a losing sink; as many
//! files as the report's `radii_solved`; the last game won from the initial
//! state; refused (exit 2) for objectives solved without parity games.

#[path = "support/cli.rs"]
mod cli;
use cli::{repo, run};
use mavis::lang::{Constants, Source};
use mavis::robust::parity::zielonka;
use mavis::robust::{load_source, read::pgsolver};

#[test]
fn the_games_of_the_radius_scan_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("ring");
    let model = repo("examples/robust/ring_parity.ma");
    let out = run(&[
        "--format",
        "json",
        "robust",
        "solve",
        &model,
        "--write-games",
        prefix.to_str().unwrap(),
    ])
    .success();
    let solved = out.json()["stats"]["radii_solved"].as_u64().unwrap() as usize;
    assert!(solved >= 1);
    let text = std::fs::read_to_string(&model).unwrap();
    let (a, _) = load_source(&Source::new("ring.ma", text), &mut Constants::default()).unwrap();
    let n = a.len();
    let moves = a.moves.all();
    for k in 1..=solved {
        let path = format!("{}.{k}.pg", prefix.display());
        let g = pgsolver::read_game(&Source::new(&path, std::fs::read_to_string(&path).unwrap()))
            .unwrap();
        assert_eq!(g.len(), n + moves.len() + 1, "{path}");
        let mut next_move = n;
        for q in 0..n {
            assert_eq!(g.owner[q], 0);
            let count = a.moves[q].len();
            let mut expected: Vec<u32> = (next_move..next_move + count).map(|m| m as u32).collect();
            if count == 0 {
                expected.push((n + moves.len()) as u32); // the losing sink
            }
            assert_eq!(g.succs(q), &expected[..], "{path}: state {q}");
            next_move += count;
        }
        for (i, m) in moves.iter().enumerate() {
            let mut post: Vec<u32> = a.post(m).collect();
            post.sort_unstable();
            post.dedup();
            assert_eq!(g.owner[n + i], 1);
            assert_eq!(g.succs(n + i), &post[..], "{path}: move {i}");
        }
        let sol = zielonka::solve(&g);
        if k == solved {
            assert_eq!(sol.winner[a.init as usize], 0, "{path}: the radius found");
        }
    }
    let past = format!("{}.{}.pg", prefix.display(), solved + 1);
    assert!(!std::path::Path::new(&past).exists());
}

#[test]
fn objectives_without_parity_games_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("g");
    for model in ["grid_patrol.ma", "grid_reach.ma"] {
        let out = run(&[
            "robust",
            "solve",
            &repo(&format!("examples/robust/{model}")),
            "--write-games",
            prefix.to_str().unwrap(),
        ])
        .expect_code(2);
        assert!(out.stderr.contains("--write-games"), "{}", out.stderr);
    }
}
