//! `mavis nis`: neural interpreted systems of unknown size (Kouvaros et al., IJCAI 2024).

use super::grid::TableFormatArg;
use super::Given;
use crate::lang;
use crate::milp::{EncodeOptions, SolveOptions};
use crate::nis::encode::{FalsifyOptions, MilpOptions, SplitOptions};
use crate::nis::procedures::{Procedure, VerifyOptions};
use crate::nis::verbs::table::{self, Decide, TableGrid, TableLook};
use crate::nis::verbs::{check, simulates, verify};
use crate::nis::{self, EngineChoice, LoadOptions};
use crate::report::meter::{Counting, MeterGuard};
use crate::report::several::run_each;
use crate::report::{Report, RunContext, RunError};
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// The `.nis` model file.
    pub model: PathBuf,
    /// Use this network file instead of the model's: NAME=PATH (repeatable).
    #[arg(long = "network", value_name = "NAME=PATH", value_parser = parse_network)]
    pub network: Vec<(String, PathBuf)>,
    /// Override a constant of the model: NAME=VALUE (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
    pub set: Vec<lang::Assignment>,
}

/// The sentences of `check`, `verify` and `emergence`: `--spec` (repeatable)
/// and `--specs FILE`; several give one report with an entry each.
#[derive(Args, Debug, Clone)]
pub struct SpecArgs {
    /// A bICTL or ATL sentence (repeatable; several are decided in turn, one
    /// report with an entry each and their conjunction as the verdict).
    #[arg(long, value_name = "SENTENCE", required_unless_present = "specs")]
    pub spec: Vec<String>,
    /// A file of sentences, one per line (blank lines and `#` comments
    /// skipped), decided after the `--spec` ones.
    #[arg(long, value_name = "FILE")]
    pub specs: Option<PathBuf>,
}

impl SpecArgs {
    /// Every sentence, parsed before any is decided (bad input is exit 2
    /// at once), with its text.
    fn sentences(&self) -> Result<Vec<(String, nis::Sentence)>, RunError> {
        nis::sentences(&self.spec, self.specs.as_deref())
    }
}

/// Options of the MILP decider.
#[derive(Args, Debug, Clone, Copy)]
pub struct MilpArgs {
    /// MILP decider: do not order the interchangeable agents m+1..n
    /// (symmetry breaking is on by default; verdicts are the same either way).
    #[arg(long = "no-symmetry-breaking")]
    pub no_symmetry_breaking: bool,
    /// MILP decider of M_ab(m): `slots` encodes the zero-one agent by slots
    /// (child slots per action and tied percept, each with its own network
    /// copy) even when the template is finite; `auto` tabulates finite
    /// templates (one-hot over their local states) and uses slots otherwise.
    #[arg(long = "zero-one", value_enum, default_value = "auto")]
    pub zero_one: ZeroOneArg,
    /// MILP decider: seconds per MILP for bound tightening of the network
    /// copies by LPs over the model built so far (0: off; docs/nis.md).
    #[arg(long = "obbt-budget", value_name = "SECONDS", default_value_t = 0.0,
          value_parser = parse_budget)]
    pub obbt_budget: f64,
    /// MILP decider, universal sentences over an interval of initial
    /// states: seconds for the MILP over one box of initial states before
    /// the box is halved (docs/nis.md, input splitting).
    #[arg(long = "split-budget", value_name = "SECONDS", default_value_t = 2.0,
          value_parser = parse_budget)]
    pub split_budget: f64,
    /// MILP decider: how many times a box of initial states may be halved
    /// (0: no splitting, one MILP over the whole initial set).
    #[arg(long = "split-depth", value_name = "N", default_value_t = 12)]
    pub split_depth: usize,
    /// MILP decider, universal sentences: the most rounds, from the first,
    /// whose environment action a part of the split may pin (one part per
    /// action, when a part's MILP stalls; 0: none; docs/nis.md).
    #[arg(long = "split-choices", value_name = "N", default_value_t = SplitOptions::default().choice_rounds)]
    pub split_choices: usize,
    /// MILP decider: initial states simulated per root before any MILP of
    /// a universal sentence on a real-valued model (falsify first), walks
    /// per initial state before each MILP of M(n) on a finite model (search
    /// first); 0: off.
    #[arg(long = "falsify-samples", value_name = "N", default_value_t = FalsifyOptions::default().samples)]
    pub falsify_samples: usize,
    /// MILP decider, universal sentences on real-valued models: the most
    /// box states the proof by boxes computes before any MILP (every
    /// choice followed with its own bounds; 0: off; docs/nis.md).
    #[arg(long = "box-states", value_name = "N", default_value_t = FalsifyOptions::default().box_states)]
    pub box_states: usize,
    /// The seed of the falsifier's sampled initial states and branches.
    #[arg(long = "falsify-seed", value_name = "N", default_value_t = 0)]
    pub falsify_seed: u64,
}

/// A budget in seconds: finite and not negative.
fn parse_budget(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a number of seconds (finite, >= 0)")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ZeroOneArg {
    Auto,
    Slots,
}

/// The meters of a verb's MILP decider, in lines under `-v` (none while
/// the explicit decider runs alone; a terminal keeps the stages' spinner):
/// HiGHS's solves (level: branch-and-bound nodes), OBBT's LPs (level: the
/// network copies tightened), the falsifier's and search first's walks
/// (count: successor states, level: walks) and the proof by boxes (count:
/// box states, level: boxes).
struct MilpMeters {
    solves: MeterGuard,
    obbt: MeterGuard,
    walks: MeterGuard,
    boxes: MeterGuard,
}

fn milp_meters(ctx: &RunContext, verb: &str) -> MilpMeters {
    let lines = |what: &str, unit, level| {
        ctx.meter_lines(Counting {
            label: format!("{verb}: {what}"),
            unit,
            level: Some(level),
            total: None,
        })
    };
    MilpMeters {
        solves: lines("HiGHS", "solves", "branch-and-bound nodes"),
        obbt: lines("OBBT", "LPs", "network copies"),
        walks: lines("falsifier", "states", "walks"),
        boxes: lines("box proof", "box states", "boxes"),
    }
}

impl MilpMeters {
    /// Meters no one reads (a table's meter counts its cells).
    fn none() -> MilpMeters {
        let none = || {
            MeterGuard::start(
                Counting {
                    label: String::new(),
                    unit: "",
                    level: None,
                    total: None,
                },
                None,
            )
        };
        MilpMeters {
            solves: none(),
            obbt: none(),
            walks: none(),
            boxes: none(),
        }
    }
}

impl MilpArgs {
    /// The options of the MILP decider, counting on `meters`.
    fn options(self, ctx: &RunContext, meters: &MilpMeters) -> MilpOptions {
        let solve = SolveOptions {
            meter: meters.solves.meter(),
            ..SolveOptions::new(ctx.threads, ctx.deadline(), ctx.verbosity >= 2)
        };
        MilpOptions {
            symmetry_breaking: !self.no_symmetry_breaking,
            zero_one_slots: self.zero_one == ZeroOneArg::Slots,
            encode: EncodeOptions {
                lp: solve.clone(),
                obbt_budget: Duration::from_secs_f64(self.obbt_budget),
                obbt_meter: meters.obbt.meter(),
                ..EncodeOptions::default()
            },
            solve,
            split: SplitOptions {
                budget: Duration::from_secs_f64(self.split_budget),
                max_depth: self.split_depth,
                choice_rounds: self.split_choices,
                threads: ctx.threads,
                ..SplitOptions::default()
            },
            falsify: FalsifyOptions {
                samples: self.falsify_samples,
                seed: self.falsify_seed,
                box_states: self.box_states,
                meter: meters.walks.meter(),
                box_meter: meters.boxes.meter(),
                ..FalsifyOptions::default()
            },
            ..MilpOptions::default()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    Explicit,
    Milp,
    Both,
}

/// `--simulation`: how verify/emergence obtain the simulating M(n).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimulationArg {
    /// Search the least n with M_ab(m) <=_b M(n) explicitly (finite models).
    Search,
    /// No search: M(m + B^b) b-simulates M_ab(m), with the monotonicity lemma.
    Bound,
}

impl SimulationArg {
    fn procedure(self) -> Procedure {
        match self {
            SimulationArg::Search => Procedure::Search,
            SimulationArg::Bound => Procedure::Bound,
        }
    }
}

fn parse_network(s: &str) -> Result<(String, PathBuf), String> {
    let (name, path) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=PATH, found `{s}`"))?;
    if name.trim().is_empty() || path.trim().is_empty() {
        return Err(format!("expected NAME=PATH, found `{s}`"));
    }
    Ok((name.trim().to_string(), PathBuf::from(path.trim())))
}

/// A list of numbers given as `3`, `1..6` or `2,3,5`.
#[derive(Clone, Debug)]
pub struct Ints(pub Vec<usize>);

fn parse_range(s: &str) -> Result<Ints, String> {
    parse_list(s).map(Ints)
}

fn parse_list(s: &str) -> Result<Vec<usize>, String> {
    let bad = || format!("expected N, LO..HI or a list N,M,..., found `{s}`");
    if let Some((lo, hi)) = s.split_once("..") {
        let lo: usize = lo.trim().parse().map_err(|_| bad())?;
        let hi: usize = hi.trim().parse().map_err(|_| bad())?;
        if lo > hi || hi - lo > 10_000 {
            return Err(bad());
        }
        return Ok((lo..=hi).collect());
    }
    s.split(',')
        .map(|x| x.trim().parse::<usize>().map_err(|_| bad()))
        .collect()
}

const CHECK_HELP: &str = "Example:\n  mavis nis check examples/guarding/guarding.nis --agents 3 --spec 'forall v1, v2: EX^3 (alive, v1) & (alive, v2)'";
const TABLE_HELP: &str = "Examples:\n  mavis nis table examples/guarding/guarding.nis --spec 'forall v1, v2: EX^{k} (alive, v1) & (alive, v2)' --k 1..6 --agents 2..6\n  mavis nis table examples/guarding/guarding.nis --abstract --k 1..6 --spec 'forall v1, v2: AX^{k} (alive, v1) & (alive, v2)' --spec 'forall v1, v2, v3: AX^{k} (alive, v1) & (alive, v2) & (alive, v3)'";
const SIM_HELP: &str = "Examples:\n  mavis nis simulates examples/guarding/guarding.nis --indexed 2 --depth 3            # least n with M_ab(2) <=_3 M(n)\n  mavis nis simulates examples/guarding/guarding.nis --indexed 2 --depth 3 --agents 4 # does M(4) 3-simulate M_ab(2)?";
const VERIFY_HELP: &str = "Examples:\n  mavis nis verify examples/guarding/guarding.nis --spec 'forall v1, v2: EX^3 (alive, v1) & (alive, v2)'\n  mavis nis verify examples/guarding/guarding.nis --simulation bound --spec 'forall v1, v2: EX^3 (alive, v1) & (alive, v2)'\n\nExit status: 0 holds for every n, 1 fails for some n, 2 bad input, 3 undetermined.";
const EMERGENCE_HELP: &str = "Example:\n  mavis nis emergence examples/guarding/guarding.nis --spec 'forall v1, v2: EX^3 (alive, v1) & (alive, v2)'\n\nExit status: 0 a threshold exists, 1 there is none, 3 undetermined.";

/// The arguments of `mavis nis table`.
#[derive(Args, Debug)]
pub struct TableArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// A sentence; `{k}` stands for the depth (repeatable).
    #[arg(long, required = true)]
    pub spec: Vec<String>,
    /// Depths: N, LO..HI or N,M,...
    #[arg(long, value_parser = parse_range, default_value = "1..6")]
    pub k: Ints,
    /// Agent counts: N, LO..HI or N,M,... (not with --abstract).
    #[arg(long, value_parser = parse_range, default_value = "2..6", conflicts_with = "abstract_system")]
    pub agents: Ints,
    /// The abstract systems M_ab(m) instead (one row per spec).
    #[arg(long = "abstract")]
    pub abstract_system: bool,
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    #[command(flatten)]
    pub milp: MilpArgs,
    /// How the table is drawn in the text output.
    #[arg(long = "table-format", value_enum, default_value_t = TableFormatArg::Text)]
    pub table_format: TableFormatArg,
    #[command(flatten)]
    pub grid: super::grid::GridArgs,
}

// The arguments of `mavis nis simulates` (its help is the variant's).
#[derive(Args, Debug)]
pub struct SimulatesArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// m, the number of indexed agents.
    #[arg(long, value_name = "M")]
    pub indexed: usize,
    /// b, the depth of the simulation.
    #[arg(long, value_name = "B")]
    pub depth: u32,
    /// N; without it, the least N >= m with M_ab(m) <=_b M(N).
    #[arg(long, value_name = "N")]
    pub agents: Option<usize>,
    /// Decide M(N) <=_b M_ab(m) instead (Theorem 2).
    #[arg(long)]
    pub reverse: bool,
    /// Largest N tried (default m + |L_t| * |Act_t|).
    #[arg(long)]
    pub cap: Option<usize>,
}

#[derive(Subcommand, Debug)]
pub enum NisCmd {
    /// Decide phi[m] on the concrete system M(N) (or on the abstract M_ab(m)).
    #[command(after_help = CHECK_HELP)]
    Check {
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        spec: SpecArgs,
        /// Number of agents N (not for a model with named agents only: its
        /// fixed agents are the system).
        #[arg(long, value_name = "N", conflicts_with = "abstract_system")]
        agents: Option<usize>,
        /// Check the zero-one abstraction M_ab(m) instead.
        #[arg(long = "abstract")]
        abstract_system: bool,
        #[arg(long, value_enum)]
        engine: Option<EngineArg>,
        #[command(flatten)]
        milp: MilpArgs,
        /// Also count the states reachable at each depth up to the formula's.
        #[arg(long)]
        counts: bool,
    },
    /// Verdicts and times over a grid of k and n (the NIS paper's Tables 1 and 2).
    #[command(after_help = TABLE_HELP)]
    Table(TableArgs),
    /// Bounded simulation (Definition 14) between M_ab(m) and M(N); without N, the least N.
    #[command(after_help = SIM_HELP)]
    Simulates(SimulatesArgs),
    /// Verify a sentence for every number of agents (Corollaries 1 and 2).
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
    /// The emergence threshold of a sentence alone.
    #[command(after_help = EMERGENCE_HELP)]
    Emergence(VerifyArgs),
}

/// The arguments of `mavis nis verify` and `mavis nis emergence`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    spec: SpecArgs,
    #[arg(long, value_enum)]
    engine: Option<EngineArg>,
    #[command(flatten)]
    milp: MilpArgs,
    /// Largest N tried: in the search for the simulating system, or
    /// among the M(N) checked by `--simulation bound`.
    #[arg(long)]
    cap: Option<usize>,
    /// How the simulating M(n) is found: `search` (explicit, finite
    /// models; their default) or `bound` (n = m + B^b, no search; the
    /// default for models with real variables or an initial interval).
    #[arg(long, value_enum, value_name = "HOW")]
    simulation: Option<SimulationArg>,
}

fn engine(e: Option<EngineArg>) -> EngineChoice {
    match e {
        None => EngineChoice::Auto,
        Some(EngineArg::Explicit) => EngineChoice::Explicit,
        Some(EngineArg::Milp) => EngineChoice::Milp,
        Some(EngineArg::Both) => EngineChoice::Both,
    }
}

/// The model of the command line: the one the caller loaded already, or the
/// file read with the caller's in-memory networks winning over `--network`
/// (`--set` constants are evaluated here, on the verb's thread, under the deadline).
fn load(args: &ModelArgs, given: &Given, ctx: &RunContext) -> Result<Arc<nis::Model>, RunError> {
    if let Some(model) = &given.nis_model {
        return Ok(Arc::clone(model));
    }
    let opts = LoadOptions {
        networks: args.network.iter().cloned().collect(),
        constants: super::set_constants(&args.set, ctx)?.into_iter().collect(),
        in_memory: given.networks.clone(),
    };
    nis::load_model(&args.model, &opts).map(Arc::new)
}

/// `nis table`'s depths and agent counts, checked: every depth fits u32
/// (no clamping), and both lists have a value (no agents with --abstract).
fn table_grid(
    k: &Ints,
    agents: Ints,
    abstract_system: bool,
) -> Result<(Vec<u32>, Vec<usize>), RunError> {
    let ks = k
        .0
        .iter()
        .map(|&x| {
            u32::try_from(x)
                .map_err(|_| RunError::input(format!("--k {x}: a depth is at most {}", u32::MAX)))
        })
        .collect::<Result<Vec<u32>, _>>()?;
    let ns: Vec<usize> = agents.0;
    if ks.is_empty() || (ns.is_empty() && !abstract_system) {
        return Err(RunError::input("--k and --agents need at least one value"));
    }
    if !abstract_system && ns.contains(&0) {
        return Err(RunError::input("--agents: a system has at least 1 agent"));
    }
    Ok((ks, ns))
}

/// `nis simulates`' agent counts: at least one indexed agent, none beyond
/// [`crate::nis::engine::MAX_AGENTS`].
fn simulates_limits(
    indexed: usize,
    agents: Option<usize>,
    cap: Option<usize>,
) -> Result<(), RunError> {
    if indexed == 0 {
        return Err(RunError::input("--indexed must be at least 1"));
    }
    let limit = crate::nis::engine::MAX_AGENTS;
    if let Some((what, n)) = [
        ("--indexed", Some(indexed)),
        ("--agents", agents),
        ("--cap", cap),
    ]
    .into_iter()
    .find_map(|(what, n)| n.filter(|&n| n > limit).map(|n| (what, n)))
    {
        return Err(RunError::input(format!(
            "{what} {n} is beyond the limit of {limit} agents"
        )));
    }
    Ok(())
}

/// `mavis nis table`.
fn table_verb(args: TableArgs, given: &Given, ctx: &RunContext) -> Result<Report, RunError> {
    let TableArgs {
        model,
        spec,
        k,
        agents,
        abstract_system,
        engine: e,
        milp,
        table_format,
        grid,
    } = args;
    let m = load(&model, given, ctx)?;
    let (ks, ns) = table_grid(&k, agents, abstract_system)?;
    let decide = Decide {
        model: &m,
        engine: engine(e),
        // The table's meter counts its cells.
        milp: &milp.options(ctx, &MilpMeters::none()),
        set: model
            .set
            .iter()
            .map(|a| format!("{}={}", a.name, a.value))
            .collect(),
    };
    let shape = TableGrid {
        specs: spec,
        ks,
        agents: ns,
        abstract_system,
    };
    let look = TableLook {
        format: table_format.format(),
        no_times: grid.no_times,
    };
    let r = table::table(&model.model, &decide, &shape, look, grid.shard, ctx)?;
    Ok(grid.written(r))
}

/// `mavis nis simulates`.
fn simulates_verb(
    args: &SimulatesArgs,
    given: &Given,
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let m = load(&args.model, given, ctx)?;
    simulates_limits(args.indexed, args.agents, args.cap)?;
    let request = simulates::SimulatesRequest {
        path: &args.model.model,
        model: &m,
        indexed: args.indexed,
        depth: args.depth,
        agents: args.agents,
        reverse: args.reverse,
        cap: args.cap,
    };
    simulates::simulates(&request, ctx)
}

pub fn run(cmd: NisCmd, given: &Given, ctx: &RunContext) -> Result<Report, RunError> {
    // `emergence` is `verify` reporting the threshold alone.
    match cmd {
        NisCmd::Check {
            model,
            spec,
            agents,
            abstract_system,
            engine: e,
            milp,
            counts,
        } => {
            let m = load(&model, given, ctx)?;
            let meters = milp_meters(ctx, "nis check");
            let milp = milp.options(ctx, &meters);
            run_each(("nis", "check"), spec.sentences()?, ctx, |s, started| {
                check::check(&check::CheckRequest {
                    path: &model.model,
                    model: &m,
                    sentence: s,
                    agents,
                    abstract_system,
                    engine: engine(e),
                    milp: &milp,
                    counts,
                    started,
                })
            })
        }
        NisCmd::Table(args) => table_verb(args, given, ctx),
        NisCmd::Simulates(args) => simulates_verb(&args, given, ctx),
        NisCmd::Verify(args) => verify_verb(args, false, given, ctx),
        NisCmd::Emergence(args) => verify_verb(args, true, given, ctx),
    }
}

/// `verify`, or with `threshold_only` `emergence`, of every sentence.
fn verify_verb(
    args: VerifyArgs,
    threshold_only: bool,
    given: &Given,
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let meters = milp_meters(
        ctx,
        if threshold_only {
            "nis emergence"
        } else {
            "nis verify"
        },
    );
    let options = VerifyOptions {
        engine: engine(args.engine),
        cap: args.cap,
        milp: args.milp.options(ctx, &meters),
    };
    let procedure = args.simulation.map(SimulationArg::procedure);
    let m = load(&args.model, given, ctx)?;
    let verb = if threshold_only {
        "emergence"
    } else {
        "verify"
    };
    run_each(("nis", verb), args.spec.sentences()?, ctx, |s, _| {
        let req = verify::VerifyRequest {
            path: &args.model.model,
            model: &m,
            sentence: s,
            opts: &options,
            procedure,
            threshold_only,
        };
        verify::verify_report(&req, ctx)
    })
}
