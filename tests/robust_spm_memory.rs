//! `robust parity --solver spm` estimates the memory of its measure tables
//! before allocating them (issue 33, item 11): a game of many nodes and
//! many priorities aborted the process ("memory allocation of ... bytes
//! failed", exit 134) before the deadline could act. It now stops with exit
//! 3 and the estimate; a game whose tables fit is still solved.

#[path = "support/cli.rs"]
mod cli;

/// A ring of `n` nodes, node i of priority i (n distinct priorities, about
/// n/2 odd levels), owners alternating.
fn ring(n: usize) -> String {
    let mut text = format!("parity {};\n", n - 1);
    for i in 0..n {
        text.push_str(&format!("{i} {i} {} {};\n", i % 2, (i + 1) % n));
    }
    text
}

#[test]
fn progress_measures_beyond_the_memory_budget_stop_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ring.pg");
    // 10^5 nodes and 5 * 10^4 odd levels: two tables of 20 GB each.
    std::fs::write(&path, ring(100_000)).unwrap();
    let game = path.to_str().unwrap();
    let r = cli::run(&["robust", "parity", game, "--solver", "spm"]).expect_code(3);
    assert!(r.stderr.contains("GiB budget"), "{}", r.stderr);
    assert!(r.stderr.contains("--solver zielonka"), "{}", r.stderr);
    // A ring is won by the parity of its highest priority: 99 is odd, so
    // player 1 wins every node.
    let small = dir.path().join("small.pg");
    std::fs::write(&small, ring(100)).unwrap();
    let small = small.to_str().unwrap();
    let r = cli::run(&[
        "--format", "json", "robust", "parity", small, "--solver", "spm",
    ])
    .success();
    assert_eq!(r.json()["results"]["won_by_odd"], 100, "{}", r.stdout);
}
