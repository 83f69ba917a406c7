//! Command-line parsing and dispatch only: every verb maps its arguments to
//! one engine function that returns a [`Report`], and [`main`] prints it.

mod lang;
mod nis;
mod nn;
pub mod robust;
pub mod swarm;
mod timed;

use crate::report::{self, exit, Format, Report, RunContext, RunError};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  the property holds (or a query without a verdict completed)
  1  the property is violated
  2  bad input or usage (model, network, formula, option)
  3  unknown (time-out, solver limit, incomplete procedure, internal error)";

#[derive(Parser, Debug)]
#[command(
    name = "mavis",
    version,
    about = "Verify multi-agent systems of unknown size",
    long_about = "mavis verifies multi-agent systems whose number of agents is not known in advance: \
neural-symbolic agents (nis), probabilistic swarms with faults (swarm), agents with timed periodic \
tasks (timed) and robust strategies for metric automata (robust).",
    after_help = EXIT_STATUS_HELP,
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The most worker threads `--threads` accepts. HiGHS starts one worker per
/// thread asked for; 1,024 of them made a 0.03 s MILP take 14 s, and its
/// scheduler aborts the process on some models.
const MAX_THREADS: i64 = 64;

/// Options every verb accepts.
#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,
    /// Worker threads for solvers and search.
    #[arg(long, global = true, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS))]
    pub threads: u32,
    /// Give up after this many seconds (answer: unknown, exit 3).
    #[arg(long, global = true, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<f64>,
    /// Only the verdict line of a verdict; no notes or progress (a file on stdout stays whole).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// More detail on stderr (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Text,
    Json,
}

fn parse_timeout(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err("the time-out must be a positive number of seconds".into())
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The shared expression language: evaluate expressions exactly.
    #[command(subcommand)]
    Lang(lang::LangCmd),
    /// ONNX networks: information, evaluation, output bounds over a box.
    #[command(subcommand)]
    Nn(nn::NnCmd),
    /// Neural-symbolic agents of unknown number: bICTL, zero-one abstraction, emergence (Kouvaros et al., IJCAI 2024).
    #[command(subcommand)]
    Nis(nis::NisCmd),
    /// Agents with timed periodic tasks (.mapt): accelerated semantics, layered search, nested queries.
    #[command(subcommand)]
    Timed(timed::TimedCmd),
    /// Robust strategies for metric automata (reach, Buchi, parity) and parity games.
    #[command(subcommand)]
    Robust(robust::RobustCmd),
    /// Probabilistic swarms with injected faults, for any number of agents.
    #[command(subcommand)]
    Swarm(Box<swarm::SwarmCmd>),
}

impl GlobalArgs {
    pub fn context(&self) -> RunContext {
        let format = match self.format {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
        };
        let verbosity = if self.quiet {
            -1
        } else {
            self.verbose.min(100) as i8
        };
        RunContext::new(
            format,
            self.threads as usize,
            self.timeout.map(std::time::Duration::from_secs_f64),
            verbosity,
        )
    }
}

fn dispatch(command: Command, ctx: &RunContext) -> Result<Report, RunError> {
    match command {
        Command::Lang(cmd) => lang::run(cmd, ctx),
        Command::Nn(cmd) => nn::run(cmd, ctx),
        Command::Nis(cmd) => nis::run(cmd, ctx),
        Command::Timed(cmd) => timed::run(cmd, ctx),
        Command::Robust(cmd) => robust::run(cmd, ctx),
        Command::Swarm(cmd) => swarm::run(*cmd, ctx),
    }
}

/// Every (sub)command accepts negative numbers as option values
/// (`--set x=-1` is already fine, but `--seed -1` or `--max-sigma -0.5`
/// would otherwise read as unknown flags). Values that merely start with a
/// number, such as `--input -1,1` or an expression `-x + 1`, also allow a
/// leading hyphen on their own arguments.
fn allow_negative_numbers(cmd: clap::Command) -> clap::Command {
    cmd.allow_negative_numbers(true)
        .mut_subcommands(allow_negative_numbers)
}

/// The command line definition with the settings derive cannot express.
pub fn command() -> clap::Command {
    allow_negative_numbers(Cli::command())
}

fn parse_command_line() -> Result<Cli, clap::Error> {
    let mut matches = command().try_get_matches()?;
    Cli::from_arg_matches_mut(&mut matches)
}

/// Parses the command line, runs the verb, prints the outcome.
pub fn main() -> ExitCode {
    let cli = match parse_command_line() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors.
            let code = if e.use_stderr() {
                exit::BAD_INPUT
            } else {
                exit::HOLDS
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let ctx = cli.global.context();
    let code = match dispatch(cli.command, &ctx) {
        Ok(report) => report::emit(&report, &ctx),
        Err(err) => report::emit_error(&err, &ctx),
    };
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }
}
