//! `mavis robust`: robust strategies for metric automata, and parity games.

use crate::lang;
use crate::report::{Report, RunContext, RunError};
use crate::robust::verbs::check::check_report;
use crate::robust::verbs::convert::convert_report;
use crate::robust::verbs::faults::{faults_report, FaultsLook};
use crate::robust::verbs::parity::{parity_report, Solver};
use crate::robust::verbs::solve::solve_report;
use clap::{Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SolverArg {
    Zielonka,
    Spm,
}

fn parse_periods(s: &str) -> Result<(usize, usize), String> {
    let (a, b) = s.split_once("..").unwrap_or((s, s));
    let lo: usize = a
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a period range like 1..20"))?;
    let hi: usize = b
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a period range like 1..20"))?;
    if lo == 0 || hi < lo || hi > 1000 {
        return Err("periods must satisfy 1 <= LO <= HI <= 1000".into());
    }
    Ok((lo, hi))
}

/// A bound on sigma: a number >= 0 (`inf` allowed); NaN compares false with
/// everything and would make every verdict "violated".
fn parse_max_sigma(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a bound on sigma (a number >= 0)")),
    }
}

#[derive(Subcommand, Debug)]
pub enum RobustCmd {
    /// Synthesise an optimally robust strategy: sigma, the strategy, the bound per state.
    #[command(
        after_help = "Examples:\n  mavis robust solve examples/robust/grid_reach.ma\n  mavis robust solve examples/robust/grid_patrol.ma --format json\n  mavis robust solve examples/robust/grid_reach.ma --strategy-out best.strat"
    )]
    Solve {
        /// The metric automaton (.ma text, JSON, or the binary form of `robust convert`).
        model: PathBuf,
        /// Constants: NAME=VALUE (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
        set: Vec<lang::Assignment>,
        /// Verdict "violated" if sigma exceeds this.
        #[arg(long, value_name = "SIGMA", value_parser = parse_max_sigma)]
        max_sigma: Option<f64>,
        /// Write the reachability strategy in the `check` format.
        #[arg(long, value_name = "FILE", value_parser = crate::report::output::writable)]
        strategy_out: Option<PathBuf>,
        /// Parity objectives: write each parity game the scan over radii
        /// solves, in PGSolver's format, to PREFIX.1.pg, PREFIX.2.pg, ...
        #[arg(long, value_name = "PREFIX", value_parser = crate::report::output::writable_prefix)]
        write_games: Option<PathBuf>,
    },
    /// The robustness bound of a given memoryless reachability strategy (on A restricted to S).
    #[command(
        after_help = "Example:\n  mavis robust check examples/robust/grid_reach.ma --strategy examples/robust/naive.strat"
    )]
    Check {
        model: PathBuf,
        /// Strategy file: `STATE -> INPUT[, INPUT];` per line.
        #[arg(long, value_name = "FILE")]
        strategy: PathBuf,
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
        set: Vec<lang::Assignment>,
        /// Verdict "violated" if sigma exceeds this.
        #[arg(long, value_name = "SIGMA", value_parser = parse_max_sigma)]
        max_sigma: Option<f64>,
    },
    /// Solve a parity game in PGSolver format, with strategies for both players.
    #[command(
        after_help = "Examples:\n  mavis robust parity examples/robust/game.pg\n  mavis robust parity examples/robust/game.pg --solver spm --solution game.sol"
    )]
    Parity {
        game: PathBuf,
        #[arg(long, value_enum, default_value_t = SolverArg::Zielonka)]
        solver: SolverArg,
        /// Write the solution in PGSolver's `paritysol` format.
        #[arg(long, value_name = "FILE", value_parser = crate::report::output::writable)]
        solution: Option<PathBuf>,
    },
    /// Write a model in the compact binary form (`.mab`), which every robust command reads fast.
    #[command(
        after_help = "Example:\n  mavis robust convert examples/robust/grid_reach.ma -o grid_reach.mab\n  mavis robust solve grid_reach.mab"
    )]
    Convert {
        /// The metric automaton (.ma text, JSON or binary), with coordinates.
        model: PathBuf,
        /// Where the binary form goes.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
        set: Vec<lang::Assignment>,
    },
    /// Transient faults at most once every T steps: the bound against T, as a table and plot.
    #[command(
        after_help = "Example:\n  mavis robust faults examples/robust/icy_ramp.ma --period 1..8 --plot tradeoff.svg"
    )]
    Faults {
        model: PathBuf,
        /// Range of periods LO..HI.
        #[arg(long, value_parser = parse_periods, default_value = "1..10")]
        period: (usize, usize),
        /// Write the trade-off plot as SVG.
        #[arg(long, value_name = "FILE", value_parser = crate::report::output::writable)]
        plot: Option<PathBuf>,
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
        set: Vec<lang::Assignment>,
        #[command(flatten)]
        grid: super::grid::GridArgs,
    },
}

pub fn run(cmd: RobustCmd, ctx: &RunContext) -> Result<Report, RunError> {
    match cmd {
        RobustCmd::Solve {
            model,
            set,
            max_sigma,
            strategy_out,
            write_games,
        } => solve_report(
            &model,
            super::set_constants(&set, ctx)?,
            max_sigma,
            (strategy_out.as_deref(), write_games.as_deref()),
            ctx,
        ),
        RobustCmd::Check {
            model,
            strategy,
            set,
            max_sigma,
        } => check_report(
            &model,
            super::set_constants(&set, ctx)?,
            &strategy,
            max_sigma,
            ctx,
        ),
        RobustCmd::Parity {
            game,
            solver,
            solution,
        } => {
            let solver = match solver {
                SolverArg::Zielonka => Solver::Zielonka,
                SolverArg::Spm => Solver::ProgressMeasures,
            };
            large_tables_in_their_own_mappings();
            parity_report(&game, solver, solution.as_deref(), ctx)
        }
        RobustCmd::Convert { model, output, set } => {
            convert_report(&model, super::set_constants(&set, ctx)?, &output)
        }
        RobustCmd::Faults {
            model,
            period,
            plot,
            set,
            grid,
        } => {
            let look = FaultsLook {
                plot,
                no_times: grid.no_times,
            };
            let set = super::set_constants(&set, ctx)?;
            let r = faults_report(&model, set, period, &look, grid.shard, ctx)?;
            Ok(grid.written(r))
        }
    }
}

/// Keeps glibc's allocator from raising its mmap threshold as large blocks
/// are freed (by default it follows the largest freed block, up to 32 MiB):
/// a parity game's run allocates and frees tables of a few MiB each (the
/// text, the rows, the verification's parts), which then came from the
/// heap, stayed mapped as free space, and made the peak resident set 1.3x
/// the tables' (issue 36: 137 MiB against 107 MiB on 10^6 nodes, 30 against
/// 24 MiB on 10^5). The cost is time: each large table is a fresh mapping,
/// and the verification, which allocates its parts level by level, took
/// 5.2 s instead of 3.6 s on 10^6 nodes x 1000 priorities (docs/performance/
/// robust.md). Set here, for the command line only: the Python module must
/// not change its host's allocator.
fn large_tables_in_their_own_mappings() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; 128 KiB is
    // glibc's own initial threshold.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}
