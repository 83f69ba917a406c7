//! HiGHS's work as `Outcome::effort` reports it (branch-and-bound nodes, LP
//! iterations), on models whose solve must branch, must iterate, or cannot
//! reach HiGHS at all.

use mavis::milp::{Effort, LinExpr, Model, Objective, SolveOptions, Status};
use mavis::report::Deadline;
use std::time::{Duration, Instant};

/// A market split instance (Cornuejols and Dawande, "A class of hard small
/// 0-1 programs"): `rows` equations sum_j a_ij x_j = floor(sum_j a_ij / 2)
/// over `cols` binaries, a_ij pseudo-random in 0..100. Their LP relaxations
/// stay feasible and fractional deep into the tree, so HiGHS must branch.
fn market_split(rows: usize, cols: usize) -> Model {
    let mut m = Model::new();
    let xs: Vec<_> = (0..cols).map(|j| m.binary(&format!("x{j}"))).collect();
    let mut seed: u64 = 12345;
    for i in 0..rows {
        let mut row = LinExpr::constant(0.0);
        let mut total = 0.0;
        for &x in &xs {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = ((seed >> 33) % 100) as f64;
            row.add_term(x, a);
            total += a;
        }
        m.eq(&format!("split{i}"), row, (total / 2.0).floor());
    }
    m
}

#[test]
fn a_milp_that_must_branch_reports_nodes_and_lp_iterations() {
    let out = market_split(2, 12)
        .solve(&Objective::Feasibility, &SolveOptions::default())
        .unwrap();
    // An infeasibility proof: the effort is read on this path too.
    assert_eq!(out.status, Status::Infeasible);
    assert!(out.effort.nodes > 1, "{:?}", out.effort);
    assert!(out.effort.lp_iterations >= 1, "{:?}", out.effort);
}

#[test]
fn an_lp_has_no_nodes_but_lp_iterations() {
    let mut lp = Model::new();
    let x = lp.continuous("x", 0.0, 10.0);
    let y = lp.continuous("y", 0.0, 10.0);
    lp.le("a", LinExpr::from(x) + LinExpr::from(y) * 2.0, 14.0);
    lp.le("b", LinExpr::from(x) * 3.0 - LinExpr::from(y), 0.0);
    // Without presolve, which solves this LP by itself (0 iterations).
    let opts = SolveOptions {
        presolve: false,
        ..SolveOptions::default()
    };
    let out = lp
        .solve(&Objective::Maximise(LinExpr::from(x) + y), &opts)
        .unwrap();
    assert_eq!(out.status, Status::Optimal);
    assert_eq!(out.effort.nodes, 0);
    assert!(out.effort.lp_iterations >= 1, "{:?}", out.effort);
}

#[test]
fn no_solve_no_effort() {
    let expired = SolveOptions {
        deadline: Deadline::starting_at(Instant::now(), Some(Duration::ZERO)),
        ..SolveOptions::default()
    };
    let out = market_split(2, 12)
        .solve(&Objective::Feasibility, &expired)
        .unwrap();
    assert_eq!(out.status, Status::Unknown);
    assert_eq!(out.effort, Effort::default());
}
