//! `mavis swarm`: probabilistic swarms with faults (argument mapping only).

use crate::lang::{self, Rat, Value};
use crate::report::{Report, RunContext, RunError};
use crate::swarm::{self, CheckOptions, Inputs, SweepLook, SweepOptions};
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ModelArgs {
    /// The swarm file.
    pub model: PathBuf,
    /// The faults file (fault profile, Definition 12).
    #[arg(long, value_name = "FILE")]
    pub faults: Option<PathBuf>,
    /// Constants: NAME=VALUE (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
    pub set: Vec<lang::Assignment>,
    /// Definition 15: each agent is faulty-prone with this probability; properties become P[G(starting -> X psi)].
    /// (An expression, evaluated with the `--set` constants on the verb's thread.)
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    pub faulty_fraction: Option<String>,
    /// Keep Definition 13's faulty/injected flags in every agent's state even
    /// when no label or property reads them (by default they are projected away).
    #[arg(long)]
    pub fault_flags: bool,
}

/// `--faulty-fraction`'s value: an exact probability.
fn probability(s: &str) -> Result<Rat, RunError> {
    match lang::parse_value_text(s) {
        Ok(Value::Num(r)) if r >= Rat::default() && r <= Rat::from_integer(1.into()) => Ok(r),
        Err(e) => Err(RunError::input(format!("--faulty-fraction `{s}`: {e}"))),
        _ => Err(RunError::input(format!(
            "--faulty-fraction: `{s}` is not a probability in [0, 1]"
        ))),
    }
}

/// `--precision`: a width in (0, 1).
fn precision(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        _ => Err(format!("`{s}` is not a precision in (0, 1)")),
    }
}

fn parse_agents(s: &str) -> Result<Vec<usize>, String> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| format!("`{x}` is not a number of agents"))
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// The PRISM language (PRISM, Storm).
    Prism,
    /// JANI, JSON (Storm, the Modest toolset).
    Jani,
}

#[derive(Subcommand, Debug)]
pub enum SwarmCmd {
    /// Check properties on S(n) or, with --abstract, for every number of agents.
    #[command(
        after_help = "Examples:\n  mavis swarm check examples/foraging/foraging.swarm --faults examples/foraging/foraging.faults \\\n      --prop 'Pmax=? [ F<13 \"deposited2\" ]' --agents 2 --exact --witness\n  mavis swarm check examples/foraging/foraging.swarm --faults examples/foraging/foraging.faults \\\n      --props examples/foraging/foraging.props --abstract"
    )]
    Check {
        #[command(flatten)]
        model: ModelArgs,
        /// A properties file (PRISM syntax).
        #[arg(long, value_name = "FILE")]
        props: Option<PathBuf>,
        /// A property on the command line (repeatable).
        #[arg(long = "prop", value_name = "PROPERTY")]
        prop: Vec<String>,
        /// Agents per template (`3`, or `2,1` for two templates).
        #[arg(long, value_name = "N[,N...]", conflicts_with = "abstract_")]
        agents: Option<String>,
        /// For every number of agents (set abstraction; cutoff where it applies).
        #[arg(long = "abstract")]
        abstract_: bool,
        /// Count agents per local state exactly below T (1 = the set abstraction).
        #[arg(long, value_name = "T", requires = "abstract_")]
        threshold: Option<u32>,
        /// Exact rational arithmetic; prints fractions.
        #[arg(long)]
        exact: bool,
        /// The optimal step-dependent scheduler's most likely witness path.
        #[arg(long)]
        witness: bool,
        /// Give up (unknown) beyond this many states.
        #[arg(long, value_name = "N", default_value_t = 30_000_000)]
        max_states: usize,
        /// Unbounded properties: the largest width of the certified interval.
        #[arg(long, value_name = "EPS", default_value_t = 1e-6, value_parser = precision)]
        precision: f64,
    },
    /// A property's optimum against k and a swept constant (the swarm paper's Figure 2): table, CSV, SVG and PNG.
    #[command(
        after_help = "Example:\n  mavis swarm sweep examples/foraging/foraging.swarm --faults examples/foraging/foraging.faults \\\n      --prop 'Pmax=? [ F<k \"deposited2\" ]' --sweep pf=0:0.1:1 --k 18..30 --agents 2 --out sweep"
    )]
    Sweep {
        #[command(flatten)]
        model: ModelArgs,
        /// The property (any `check` takes); a step bound may use the constant `k`.
        #[arg(long = "prop", value_name = "PROPERTY")]
        prop: String,
        /// The swept constant: NAME=START:STEP:END.
        #[arg(long, value_name = "NAME=START:STEP:END", allow_hyphen_values = true)]
        sweep: String,
        /// The step bounds: LO..HI.
        #[arg(long, value_name = "LO..HI", value_parser = swarm::parse_k)]
        k: (usize, usize),
        /// Agents per template (default: every size, by the abstraction).
        #[arg(long, value_name = "N[,N...]")]
        agents: Option<String>,
        /// Threshold of the abstraction.
        #[arg(long, value_name = "T", default_value_t = 1)]
        threshold: u32,
        /// Write PREFIX.csv, PREFIX.svg and PREFIX.png.
        #[arg(long, value_name = "PREFIX", value_parser = crate::report::output::writable_prefix)]
        out: Option<PathBuf>,
        #[arg(long, value_name = "N", default_value_t = 30_000_000)]
        max_states: usize,
        #[command(flatten)]
        grid: super::grid::GridArgs,
    },
    /// Export S(n) (or the abstract model) to PRISM or JANI, for PRISM and Storm.
    #[command(
        after_help = "Example:\n  mavis swarm export examples/foraging/foraging.swarm --faults examples/foraging/foraging.faults --agents 3 --to prism -o foraging3.prism \\\n      --props examples/foraging/foraging.props   # and foraging3.props\n  mavis swarm export examples/foraging/foraging.swarm --faults examples/foraging/foraging.faults --agents 3 --to jani -o foraging3.jani"
    )]
    Export(ExportArgs),
}

/// The arguments of `swarm export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    model: ModelArgs,
    #[arg(long, value_name = "N[,N...]", required_unless_present = "abstract_")]
    agents: Option<String>,
    /// Export the explicit abstract model instead.
    #[arg(long = "abstract", conflicts_with = "agents")]
    abstract_: bool,
    #[arg(long, value_name = "T", default_value_t = 1)]
    threshold: u32,
    #[arg(long, value_enum, default_value_t = ExportFormat::Prism)]
    to: ExportFormat,
    /// Output file (default: standard output).
    #[arg(short, long, value_name = "FILE", value_parser = crate::report::output::writable)]
    output: Option<PathBuf>,
    /// Properties to carry (PRISM syntax): a PRISM export writes them to a
    /// properties file, a JANI export into its `properties`.
    #[arg(long, value_name = "FILE")]
    props: Option<PathBuf>,
    /// A property to carry (repeatable).
    #[arg(long = "prop", value_name = "PROPERTY")]
    prop: Vec<String>,
    /// The PRISM properties file (default: -o's name with the extension .props).
    #[arg(long, value_name = "FILE", value_parser = crate::report::output::writable)]
    props_output: Option<PathBuf>,
}

/// The engine's inputs; the option values that are expressions are
/// evaluated here, on the verb's thread, under the deadline.
fn inputs(
    m: ModelArgs,
    props: Option<PathBuf>,
    prop: Vec<String>,
    ctx: &RunContext,
) -> Result<Inputs, RunError> {
    Ok(Inputs {
        model: m.model,
        faults: m.faults,
        props,
        prop_texts: prop,
        sets: super::set_constants(&m.set, ctx)?,
        faulty_fraction: m.faulty_fraction.as_deref().map(probability).transpose()?,
        keep_fault_flags: m.fault_flags,
    })
}

fn agents_of(a: Option<String>) -> Result<Option<Vec<usize>>, RunError> {
    a.map(|t| parse_agents(&t).map_err(RunError::input))
        .transpose()
}

/// The options of `swarm sweep`: agents, the swept constant's values, the
/// step bounds, and the abstraction's threshold and state limit.
fn sweep_options(
    agents: Option<String>,
    sweep: &str,
    ks: (usize, usize),
    threshold: u32,
    max_states: usize,
    ctx: &RunContext,
) -> Result<SweepOptions, RunError> {
    let agents = agents_of(agents)?;
    let swept = swarm::parse_range(sweep)
        .map_err(|e| RunError::input(format!("--sweep `{sweep}`: {e}")))?;
    Ok(SweepOptions {
        swept,
        ks,
        agents,
        threshold,
        max_states,
        threads: ctx.threads,
    })
}

pub fn run(cmd: SwarmCmd, ctx: &RunContext) -> Result<Report, RunError> {
    match cmd {
        SwarmCmd::Check {
            model,
            props,
            prop,
            agents,
            abstract_,
            threshold,
            exact,
            witness,
            max_states,
            precision,
        } => {
            let threshold = if abstract_ {
                Some(threshold.unwrap_or(1))
            } else {
                None
            };
            let agents = agents_of(agents)?;
            let opts = CheckOptions {
                agents,
                threshold,
                exact,
                witness,
                max_states,
                precision,
            };
            swarm::check(&inputs(model, props, prop, ctx)?, &opts, ctx)
        }
        SwarmCmd::Sweep {
            model,
            prop,
            sweep,
            k,
            agents,
            threshold,
            out,
            max_states,
            grid,
        } => {
            let o = sweep_options(agents, &sweep, k, threshold, max_states, ctx)?;
            let look = SweepLook {
                out,
                no_times: grid.no_times,
                quiet: ctx.quiet(),
            };
            let inputs = inputs(model, None, vec![prop], ctx)?;
            let r = swarm::sweep(&inputs, &o, &look, grid.shard, ctx)?;
            Ok(grid.written(r))
        }
        SwarmCmd::Export(a) => export(a, ctx),
    }
}

/// `swarm export`: the model, with the properties given, to its files.
fn export(a: ExportArgs, ctx: &RunContext) -> Result<Report, RunError> {
    // `--abstract` and `--agents` exclude each other; one is required.
    let agents = if a.abstract_ {
        None
    } else {
        agents_of(a.agents)?
    };
    let format = match a.to {
        ExportFormat::Prism => swarm::ExportFormat::Prism,
        ExportFormat::Jani => swarm::ExportFormat::Jani,
    };
    let to_files = swarm::ExportDestination {
        output: a.output.as_deref(),
        props_output: a.props_output.as_deref(),
        quiet: ctx.quiet(),
    };
    swarm::export(
        &inputs(a.model, a.props, a.prop, ctx)?,
        agents.as_deref(),
        a.threshold,
        format,
        &to_files,
        ctx.deadline(),
    )
}
