//! Command-line parsing and dispatch only: every verb maps its arguments to
//! one engine function that returns a [`Report`], and [`main`] prints it.
//! [`run_in_process`] runs the same command lines for a caller in the same
//! process (the Python package) and hands the report back instead.

mod batch;
mod grid;
mod lang;
mod nis;
mod nn;
pub mod robust;
pub mod swarm;
mod timed;

use crate::nn::Network;
use crate::report::{self, exit, Format, Report, RunContext, RunError};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
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
    /// Worker threads for solvers and search [default: 1; `nn verify`: the machine's cores].
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS))]
    pub threads: Option<u32>,
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
    /// Merge the parts of a sharded grid or sweep (`--shard I/N`) into the unsharded run's output.
    Merge(grid::MergeArgs),
    /// Run many independent queries, one command line per line of a file (one JSON report each).
    Batch(batch::BatchArgs),
}

impl Cli {
    /// The run's settings ([`GlobalArgs::context`]); without `--threads`,
    /// the search of `nn verify` uses the machine's cores, every other verb 1.
    pub fn context(&self, start: Instant) -> RunContext {
        let searches = matches!(self.command, Command::Nn(nn::NnCmd::Verify { .. }));
        let default = if searches {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS as usize))
        } else {
            1
        };
        self.global.context_with(start, default)
    }
}

impl GlobalArgs {
    /// The run's settings; `--timeout` counts from `start`, the start of
    /// the process; `default_threads` when `--threads` is not given.
    pub fn context_with(&self, start: Instant, default_threads: usize) -> RunContext {
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
            self.threads.map_or(default_threads, |t| t as usize),
            self.timeout,
            verbosity,
        )
    }
}

/// What a caller in the same process hands over instead of files. The
/// command line still names the files (reports identify them by path and
/// sha256); these win over them.
#[derive(Clone, Debug, Default)]
pub struct Given {
    /// Networks by the name the `.nis` model declares (as `--network NAME=PATH`).
    pub networks: HashMap<String, Network>,
    /// A `.nis` model already loaded from the command line's model file, with
    /// its networks and constants: `nis` verbs use it instead of reading the
    /// file (their `--network` and `--set` are then ignored).
    pub nis_model: Option<Arc<crate::nis::Model>>,
}

fn dispatch(command: Command, given: &Given, ctx: &RunContext) -> Result<Report, RunError> {
    match command {
        Command::Lang(cmd) => lang::run(cmd, ctx),
        Command::Nn(cmd) => nn::run(cmd, ctx),
        Command::Nis(cmd) => nis::run(cmd, given, ctx),
        Command::Timed(cmd) => timed::run(cmd, ctx),
        Command::Robust(cmd) => robust::run(cmd, ctx),
        Command::Swarm(cmd) => swarm::run(*cmd, ctx),
        Command::Merge(args) => grid::merge(args, ctx),
        Command::Batch(args) => batch::run(args, ctx),
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
    with_report_output(allow_negative_numbers(Cli::command()))
}

/// The id of the `-o FILE` that every verb without an `-o` of its own gets.
const REPORT_OUTPUT: &str = "report_output";

/// Every verb writes what would go to standard output to `-o FILE` instead.
/// Grids and `merge` declare theirs (`grid::GridArgs`); a verb whose `-o`
/// is its product (an export, a conversion) keeps that meaning; every other
/// verb gets this one, checked for writability before the run starts.
fn with_report_output(cmd: clap::Command) -> clap::Command {
    if cmd.has_subcommands() {
        return cmd.mut_subcommands(with_report_output);
    }
    let taken = cmd
        .get_arguments()
        .any(|a| a.get_short() == Some('o') || a.get_long() == Some("output"));
    if taken {
        return cmd;
    }
    cmd.arg(
        clap::Arg::new(REPORT_OUTPUT)
            .short('o')
            .long("output")
            .value_name("FILE")
            .value_parser(crate::report::output::writable)
            .help("Write what would go to standard output to FILE instead"),
    )
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
    let ctx = cli.context(start);
    let answer = run_bounded(cli.command, Given::default(), &ctx);
    let stopped = answer.is_none();
    let code = match finish(answer, &matches, &ctx, start) {
        Ok(report) => report::emit(&report, &ctx),
        Err(err) => report::emit_error(&err, &ctx),
    };
    if stopped {
        // The verb is still running on its thread: end the process now.
        std::process::exit(i32::from(code));
    }
    ExitCode::from(code)
}

/// Runs one command line in this process as [`main`] does (`argv[0]` is the
/// program's name) and returns the report instead of printing it; a bad
/// command line is bad input with clap's message. The verb runs on its own
/// thread as in [`main`]; if it has not stopped [`GRACE`] after the deadline,
/// the report says unknown and the thread is left to end by itself (its
/// answer is dropped).
pub fn run_in_process(argv: Vec<String>, given: Given) -> Result<Report, RunError> {
    let start = Instant::now();
    let bad_usage = |e: clap::Error| RunError::input(e.render().to_string().trim_end());
    let matches = command().try_get_matches_from(argv).map_err(bad_usage)?;
    let cli = Cli::from_arg_matches(&matches).map_err(bad_usage)?;
    let ctx = cli.context(start);
    let answer = run_bounded(cli.command, given, &ctx);
    finish(answer, &matches, &ctx, start)
}

/// The outcome of a run from the verb's answer: a deadline reached with
/// nothing found, or a verb that did not stop in time (`None`), is a report
/// with verdict unknown; anything else is the verb's own answer.
fn finish(
    answer: Option<Result<Report, RunError>>,
    matches: &clap::ArgMatches,
    ctx: &RunContext,
    start: Instant,
) -> Result<Report, RunError> {
    let timed_out = |reason: &str| {
        let (engine, verb) = verb_names(matches);
        let mut report = Report::timed_out(engine, verb, reason, ctx);
        report.stat("time_s", start.elapsed().as_secs_f64());
        report
    };
    let mut report = match answer {
        Some(Err(RunError::TimedOut(reason))) => timed_out(&reason),
        Some(Ok(mut report)) => {
            if report.write_to.is_none() {
                report.write_to = report_output(matches);
            }
            return Ok(report);
        }
        Some(Err(other)) => return Err(other),
        None => {
            let limit = ctx.timeout().map_or(0.0, |t| t.as_secs_f64());
            match ctx.take_published() {
                // What the verb had finished when it was stopped.
                Some(mut partial) => {
                    partial.stopped_at_deadline(&format!(
                        "the time-out of {limit} s was reached and the run was stopped; this is what it had finished"
                    ));
                    partial.stat("time_s", start.elapsed().as_secs_f64());
                    partial
                }
                None => timed_out(&format!(
                    "the time-out of {limit} s was reached and the run was stopped before it could report what it had found"
                )),
            }
        }
    };
    // A grid's `-o FILE` gets the report the run ends with, as it would have
    // got the verb's (a report of a verb whose `-o` is its product, an
    // export, is not written there).
    if report.write_to.is_none() {
        report.write_to = report_output(matches);
    }
    Ok(report)
}

/// The `-o FILE` that takes the report: a grid's or `merge`'s own (its
/// report is its output: `--shard`) or the one [`with_report_output`] gave
/// the verb; never the `-o` of an export, whose product it names.
fn report_output(matches: &clap::ArgMatches) -> Option<std::path::PathBuf> {
    let grid = matches!(
        verb_names(matches),
        ("nis", "table") | ("swarm", "sweep") | ("robust", "faults") | ("merge", _)
    );
    let mut m = matches;
    while let Some((_, sub)) = m.subcommand() {
        m = sub;
    }
    let id = if grid { "output" } else { REPORT_OUTPUT };
    let output = m.try_get_one::<std::path::PathBuf>(id).ok().flatten();
    output.cloned()
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
fn run_bounded(
    command: Command,
    given: Given,
    ctx: &RunContext,
) -> Option<Result<Report, RunError>> {
    let (send, receive) = std::sync::mpsc::channel();
    let verb_ctx = ctx.clone();
    let verb = std::thread::Builder::new()
        .name("verb".into())
        .stack_size(VERB_STACK)
        .spawn(move || {
            let _ = send.send(dispatch(command, &given, &verb_ctx));
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
fn verb_names(matches: &clap::ArgMatches) -> (&'static str, &'static str) {
    let (engine, sub) = matches.subcommand().unwrap_or(("", matches));
    let verb = sub.subcommand_name().unwrap_or("");
    (lasting(engine), lasting(verb))
}

/// A name that lives until the process ends, as a [`Report`] needs: each
/// distinct name is leaked once (a few bytes), however many runs a process
/// makes.
fn lasting(name: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&known) = names.iter().find(|&&n| n == name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }
}
