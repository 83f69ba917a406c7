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
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

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
    /// Bound the whole run to this many seconds from its start (at most 1e9):
    /// at the deadline the answer is unknown (exit 3) with what was found so far.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = report::parse_timeout)]
    pub timeout: Option<Duration>,
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
    /// The run's settings; `--timeout` counts from `start`, the start of the process.
    pub fn context(&self, start: Instant) -> RunContext {
        let format = match self.format {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
        };
        let verbosity = if self.quiet {
            -1
        } else {
            self.verbose.min(100) as i8
        };
        RunContext::started_at(
            start,
            format,
            self.threads as usize,
            self.timeout,
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

/// The values of the `--set` constants, evaluated on the verb's thread so
/// that `--timeout` bounds them like the rest of the verb: the deadline is
/// checked between constants, and the backstop of [`run_bounded`] stops one
/// long exact computation.
fn set_constants(
    set: &[crate::lang::Assignment],
    ctx: &RunContext,
) -> Result<Vec<(String, crate::lang::Value)>, RunError> {
    let mut values = Vec::with_capacity(set.len());
    for assignment in set {
        ctx.deadline().check()?;
        values.push(assignment.evaluate()?);
    }
    Ok(values)
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

fn parse_command_line() -> Result<(Cli, clap::ArgMatches), clap::Error> {
    let matches = command().try_get_matches()?;
    let cli = Cli::from_arg_matches(&matches)?;
    Ok((cli, matches))
}

/// Parses the command line, runs the verb, prints the outcome.
pub fn main() -> ExitCode {
    let start = Instant::now();
    let (cli, matches) = match parse_command_line() {
        Ok(parsed) => parsed,
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
    let ctx = cli.global.context(start);
    let timed_out = |reason: &str| {
        let (engine, verb) = verb_names(&matches);
        let mut report = Report::timed_out(engine, verb, reason, &ctx);
        report.stat("time_s", start.elapsed().as_secs_f64());
        report::emit(&report, &ctx)
    };
    let code = match run_bounded(cli.command, &ctx) {
        Some(Ok(report)) => report::emit(&report, &ctx),
        Some(Err(RunError::TimedOut(reason))) => timed_out(&reason),
        Some(Err(err)) => report::emit_error(&err, &ctx),
        None => {
            let limit = ctx.timeout().map_or(0.0, |t| t.as_secs_f64());
            let code = timed_out(&format!(
                "the time-out of {limit} s was reached and the run was stopped before it could report what it had found"
            ));
            // The verb is still running on its thread: end the process now.
            std::process::exit(i32::from(code));
        }
    };
    ExitCode::from(code)
}

/// How long after the deadline a verb may take to stop by itself and report
/// its partial results before the run is stopped from outside.
const GRACE: Duration = Duration::from_millis(500);

/// The stack of the thread that runs the verb: the main thread's usual 8 MiB.
const VERB_STACK: usize = 8 << 20;

/// Runs the verb on its own thread and waits at most until the deadline plus
/// [`GRACE`]; `None` when the verb has not finished by then. Every engine
/// checks the deadline itself and returns partial results; this is the
/// backstop for any work that cannot be interrupted (a long HiGHS presolve,
/// one huge exact multiplication). A panic of the verb is resumed here.
fn run_bounded(command: Command, ctx: &RunContext) -> Option<Result<Report, RunError>> {
    let (send, receive) = std::sync::mpsc::channel();
    let verb_ctx = ctx.clone();
    let verb = std::thread::Builder::new()
        .name("verb".into())
        .stack_size(VERB_STACK)
        .spawn(move || {
            let _ = send.send(dispatch(command, &verb_ctx));
        })
        .expect("spawn the verb's thread");
    let answer = match ctx.deadline().at() {
        None => receive.recv().map_err(|_| RecvTimeoutError::Disconnected),
        Some(at) => {
            let wait = (at + GRACE).saturating_duration_since(Instant::now());
            receive.recv_timeout(wait)
        }
    };
    match answer {
        Ok(outcome) => Some(outcome),
        Err(RecvTimeoutError::Timeout) => None,
        Err(RecvTimeoutError::Disconnected) => match verb.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => Some(Err(RunError::Internal(
                "the verb's thread ended without an answer".into(),
            ))),
        },
    }
}

/// The engine and verb named on the command line, for a report made here.
/// They live until the process ends (one leak of a few bytes, once).
fn verb_names(matches: &clap::ArgMatches) -> (&'static str, &'static str) {
    let (engine, sub) = matches.subcommand().unwrap_or(("", matches));
    let verb = sub.subcommand_name().unwrap_or("");
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    (leak(engine), leak(verb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }
}
