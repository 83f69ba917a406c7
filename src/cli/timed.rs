//! `mavis timed`: multi-agent systems with timed periodic tasks (`.mapt`).

use crate::lang;
use crate::report::{Report, RunContext, RunError};
use crate::timed::check::RunOptions;
use crate::timed::explore::progress::Measure;
use crate::timed::explore::{Heuristic, Memory, Options, Search};
use crate::timed::export::Target;
use crate::timed::front::query::parse_heuristic;
use crate::timed::semantics::SemanticsKind;
use crate::timed::verbs::check::{self, Horizon, QuerySelection};
use crate::timed::verbs::{self, convert, export, validate};
use clap::{Args, Subcommand, ValueEnum};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum TimedCmd {
    /// Check that a model is a MAPT (DAG, unique initial/final locality, a <= b <= E, liveness).
    #[command(after_help = "Examples:\n  mavis timed validate examples/cav/platoon2.mapt")]
    Validate {
        model: PathBuf,
        /// Constants: NAME=VALUE (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
        set: Vec<lang::Assignment>,
    },
    /// Answer EF/AG/nested/max/min queries (those of the file, or --query).
    #[command(
        after_help = "Examples:\n  mavis timed check examples/cav/platoon2.mapt --horizon 6p\n  mavis timed check examples/cav/platoon2.mapt --query 'EF x2 - x1 < 1' --search layered\n  mavis timed check examples/cav/platoon2.mapt --query 'min x2 - x1' --horizon 60\n  mavis timed check m.mapt --query 'AG(car1@brake => EF x2 - x1 >= 4)' --horizon 4p\n\nVerdicts: EF found = holds (exit 0), EF not found = violated (1); AG violated = violated (1, counterexample), AG never violated = holds (0); limit or time-out without an answer = unknown (3); max/min: no verdict (0)."
    )]
    Check {
        model: PathBuf,
        #[command(flatten)]
        opts: ExploreArgs,
        /// A query formula (instead of the file's queries).
        #[arg(long, conflicts_with = "name")]
        query: Option<String>,
        /// Answer only the file's queries with these names (repeatable).
        #[arg(long)]
        name: Vec<String>,
    },
    /// Convert between the text form (.mapt) and the JSON form (.json).
    #[command(
        after_help = "Examples:\n  mavis timed convert examples/cav/platoon2.mapt -o platoon2.mapt.json\n  mavis timed convert platoon2.mapt.json -o back.mapt"
    )]
    Convert {
        model: PathBuf,
        /// Output file (default: stdout).
        #[arg(short, long, value_parser = crate::report::output::writable)]
        output: Option<PathBuf>,
    },
    /// Export to Uppaal XML or TChecker, with V scaled to integers.
    #[command(
        after_help = "Examples:\n  mavis timed export examples/cav/platoon2.mapt --to uppaal -o platoon2.xml\n  mavis timed export examples/cav/platoon2.mapt --to tchecker"
    )]
    Export {
        model: PathBuf,
        #[arg(long, value_enum)]
        to: TargetArg,
        #[arg(short, long, value_parser = crate::report::output::writable)]
        output: Option<PathBuf>,
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
        set: Vec<lang::Assignment>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    Uppaal,
    Tchecker,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SemanticsArg {
    Plain,
    Accelerated,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SearchArg {
    Bfs,
    Dfs,
    Layered,
    BestFirst,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MemoryArg {
    /// Every border state, the current layer and --recent-states of recent layers.
    Border,
    /// The borders still to explore, the current layer and recent layers (needs --horizon).
    Layer,
    /// Sweep-line search (the default); progress: the time under --horizon, else the
    /// pacemaker's clock (default pacemaker: the longest period).
    Sweep,
    /// Sweep-line search; progress: the time under --horizon, else the
    /// phase of every clock in the hyperperiod.
    SweepHyperperiod,
}

/// Exploration options shared by the verbs that search.
#[derive(Args, Debug)]
pub struct ExploreArgs {
    #[arg(long, value_enum, default_value_t = SemanticsArg::Accelerated)]
    semantics: SemanticsArg,
    #[arg(long, value_enum, default_value_t = SearchArg::Bfs)]
    search: SearchArg,
    /// What the layered search remembers (with `--search layered`) [default: sweep].
    #[arg(long, value_enum)]
    memory: Option<MemoryArg>,
    /// Bound runs: time units (`100`) or pacemaker periods (`5p`).
    #[arg(long, value_parser = Horizon::parse)]
    horizon: Option<Horizon>,
    /// The agent whose resets delimit layers (default: shortest period; for
    /// `--memory sweep`, whose clock is the progress: the longest period).
    #[arg(long)]
    pacemaker: Option<String>,
    /// Explore states minimising this expression first.
    #[arg(long, value_name = "EXPR", conflicts_with_all = ["maximize", "random"], allow_hyphen_values = true)]
    minimize: Option<String>,
    /// Explore states maximising this expression first.
    #[arg(
        long,
        value_name = "EXPR",
        conflicts_with = "random",
        allow_hyphen_values = true
    )]
    maximize: Option<String>,
    /// Explore successors in a random order.
    #[arg(long)]
    random: bool,
    /// Seed of --random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stop (unknown, exit 3, with the partial report) after expanding this
    /// many states [default: half the available memory at 3.3 KiB a state].
    #[arg(long)]
    max_states: Option<usize>,
    /// Inside states of recent layers kept by the layered search (border
    /// and layer memory), so that states met again soon are expanded once.
    #[arg(long, default_value_t = 100_000)]
    recent_states: usize,
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
    set: Vec<lang::Assignment>,
}

fn overrides(
    set: &[lang::Assignment],
    ctx: &RunContext,
) -> Result<HashMap<String, lang::Value>, RunError> {
    Ok(super::set_constants(set, ctx)?.into_iter().collect())
}

fn write_out(output: Option<PathBuf>, text: &str, mut r: Report) -> Result<Report, RunError> {
    match output {
        Some(p) => {
            crate::report::output::write_file(&p, text.as_bytes())?;
            r.line(format!("wrote {}", p.display()));
        }
        None => r.output = Some(text.to_string()),
    }
    Ok(r)
}

/// The search options of `mavis timed check`, checked against the model.
fn run_options(
    m: &crate::timed::front::model::Model,
    opts: &ExploreArgs,
    ctx: &RunContext,
) -> Result<RunOptions, RunError> {
    if opts.memory.is_some() && opts.search != SearchArg::Layered {
        // Silently ignored before: a user asking for sweep memory got bfs.
        return Err(RunError::input(
            "--memory is the layered search's memory policy: add --search layered",
        ));
    }
    let memory = match opts.memory.unwrap_or(MemoryArg::Sweep) {
        MemoryArg::Border => Memory::Border,
        MemoryArg::Layer => Memory::Layer,
        MemoryArg::Sweep => Memory::Sweep(Measure::Pacemaker),
        MemoryArg::SweepHyperperiod => Memory::Sweep(Measure::Hyperperiod),
    };
    let pacemaker = match &opts.pacemaker {
        Some(n) => verbs::agent_named(m, n)?,
        None => check::default_pacemaker_for(m, memory),
    };
    let heuristic = match (&opts.minimize, &opts.maximize, opts.random) {
        (Some(e), _, _) => Heuristic::Minimize(parse_heuristic(m, e)?),
        (_, Some(e), _) => Heuristic::Maximize(parse_heuristic(m, e)?),
        (_, _, true) => Heuristic::Random(opts.seed),
        _ => Heuristic::None,
    };
    let horizon = opts.horizon.map(|h| h.units(m, pacemaker));
    if memory == Memory::Layer && horizon.is_none() {
        return Err(RunError::input(
            "--memory layer forgets border states: give a --horizon so that the search ends",
        ));
    }
    Ok(RunOptions {
        semantics: match opts.semantics {
            SemanticsArg::Plain => SemanticsKind::Plain,
            SemanticsArg::Accelerated => SemanticsKind::Accelerated,
        },
        horizon,
        explore: Options {
            search: match opts.search {
                SearchArg::Bfs => Search::Bfs,
                SearchArg::Dfs => Search::Dfs,
                SearchArg::Layered => Search::Layered,
                SearchArg::BestFirst => Search::BestFirst,
            },
            memory,
            heuristic,
            pacemaker,
            max_states: opts.max_states.unwrap_or_else(check::default_max_states),
            recent_states: opts.recent_states,
            deadline: ctx.deadline().at(),
            meter: Default::default(),
        },
    })
}

pub fn run(cmd: TimedCmd, ctx: &RunContext) -> Result<Report, RunError> {
    match cmd {
        TimedCmd::Validate { model, set } => validate::validate(&model, overrides(&set, ctx)?),
        TimedCmd::Check {
            model,
            opts,
            query,
            name,
        } => {
            let (_, m, mref) = verbs::load(&model, overrides(&opts.set, ctx)?)?;
            let run_opts = run_options(&m, &opts, ctx)?;
            let selection = match (query, name.is_empty()) {
                (Some(q), _) => QuerySelection::Text(q),
                (None, false) => QuerySelection::Named(name),
                (None, true) => QuerySelection::All,
            };
            check::check(&m, Some(mref), selection, &run_opts, ctx)
        }
        TimedCmd::Convert { model, output } => {
            let (text, r) = convert::convert(&model)?;
            write_out(output, &text, r)
        }
        TimedCmd::Export {
            model,
            to,
            output,
            set,
        } => {
            let (_, m, mref) = verbs::load(&model, overrides(&set, ctx)?)?;
            let target = match to {
                TargetArg::Uppaal => Target::Uppaal,
                TargetArg::Tchecker => Target::Tchecker,
            };
            let (text, r) = export::export(&m, Some(mref), target)?;
            write_out(output, &text, r)
        }
    }
}
