//! The report of `mavis robust parity` (`robust faults`: `faults_report`).

use crate::lang::Source;
use crate::report::TableFormat;
use crate::report::{Expired, ModelRef, Report, RunContext, RunError, Table};
use crate::robust::outcome::ParityStats;
use crate::robust::parity::game::{verify, Game, Solution};
use crate::robust::{parity::spm, parity::zielonka, read::pgsolver};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Which parity solver to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    Zielonka,
    ProgressMeasures,
}

/// `mavis robust parity`: solves a PGSolver game, verifies the solution, writes it.
pub fn parity_report(
    path: &Path,
    solver: Solver,
    solution_out: Option<&Path>,
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let mut r = Report::new("robust", "parity");
    r.model = ModelRef::from_path(path).ok();
    let t0 = Instant::now();
    // The text is dropped once read: it was a third of the peak memory of a
    // large game's run (issue 36).
    let g = {
        let src = Source::read(path).map_err(|e| RunError::reading(path, e))?;
        pgsolver::read_game(&src)?
    };
    let mut stats = ParityStats {
        parse_s: t0.elapsed().as_secs_f64(),
        nodes: g.len(),
        edges: g.succ.len(),
        ..ParityStats::default()
    };
    ctx.stage(format!(
        "robust parity: solving a game of {} nodes ({})",
        g.len(),
        match solver {
            Solver::Zielonka => "Zielonka",
            Solver::ProgressMeasures => "progress measures",
        }
    ));
    if solver == Solver::ProgressMeasures {
        spm::check_memory(&g).map_err(RunError::Limit)?;
    }
    let t1 = Instant::now();
    let solved = solve(&g, solver, ctx);
    stats.solve_s = t1.elapsed().as_secs_f64();
    let sol: Solution = match solved {
        Ok(sol) => sol,
        Err(e) => {
            r.put_stats(&stats);
            r.stopped_at_deadline(&format!("{e} while solving the game"));
            return Ok(r);
        }
    };
    let t2 = Instant::now();
    verify(&g, &sol)
        .map_err(|e| RunError::Internal(format!("the computed solution does not verify: {e}")))?;
    stats.verify_s = Some(t2.elapsed().as_secs_f64());
    r.put_stats(&stats);
    let won0 = sol.winner.iter().filter(|&&w| w == 0).count();
    r.line(format!(
        "solved ({}): player 0 (even) wins {} of {} nodes, player 1 (odd) wins {}; both strategies verified",
        if solver == Solver::Zielonka { "zielonka" } else { "progress measures" },
        won0,
        g.len(),
        g.len() - won0
    ));
    node_table(&g, &sol, ctx.verbose(), &mut r);
    if let Some(out) = solution_out {
        let text = pgsolver::write_solution(&g, &sol);
        crate::report::output::write_file(out, text.as_bytes())?;
        r.line(format!("solution written to {}", out.display()));
    }
    r.results = json!({
        "winner": sol.winner,
        "strategy": sol.strategy,
        "won_by_even": won0,
        "won_by_odd": g.len() - won0,
    });
    Ok(r)
}

/// Solves `g` with `solver`, under a meter: Zielonka's nodes attracted (its
/// level the recursive calls), or the progress measures' lifts.
fn solve(g: &Game, solver: Solver, ctx: &RunContext) -> Result<Solution, Expired> {
    let (unit, level) = match solver {
        Solver::Zielonka => ("nodes attracted", Some("recursive calls")),
        Solver::ProgressMeasures => ("lifts", None),
    };
    let guard = ctx.meter(crate::report::meter::Counting {
        label: "robust parity: solving".into(),
        unit,
        level,
        total: None,
    });
    match solver {
        Solver::Zielonka => zielonka::solve_metered(g, ctx.deadline(), &guard.meter()),
        Solver::ProgressMeasures => spm::solve_metered(g, ctx.deadline(), &guard.meter()),
    }
}

/// The table of the solved game's nodes (their winner and strategy), the
/// first 40 only unless `verbose` (a game can be large).
fn node_table(g: &Game, sol: &Solution, verbose: bool, r: &mut Report) {
    let mut t = Table::new(["node", "name", "priority", "owner", "winner", "strategy"]);
    let shown = if verbose { g.len() } else { g.len().min(40) };
    for v in 0..shown {
        t.row([
            v.to_string(),
            g.name(v).unwrap_or_default().to_string(),
            g.priority[v].to_string(),
            g.owner[v].to_string(),
            sol.winner[v].to_string(),
            sol.strategy[v]
                .map(|s| s.to_string())
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    r.line("");
    r.text.push_str(&t.render(TableFormat::Text));
    if shown < g.len() {
        r.line(format!("({} more nodes; -v shows all)", g.len() - shown));
    }
}
