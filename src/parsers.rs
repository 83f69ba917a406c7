//! Every input format's reader behind one entry point, [`read`], so that the
//! fuzz targets (`fuzz/`) and the mutated-corpus test (`tests/mutated_corpus.rs`)
//! drive exactly what the command line reads: text to checked model, without
//! exploring or solving anything.
//!
//! Like `cli`, this module sees every engine; engines never see it.

use crate::lang::{Constants, Source, SourceError};
use crate::report::RunError;
use std::path::Path;

/// An input format mavis reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// A closed expression (`mavis lang eval`).
    Expression,
    /// A `.nis` model (networks resolved from the model's directory).
    Nis,
    /// A bICTL sentence (`--spec`).
    NisSpec,
    /// A swarm file (PSV-style modules).
    Swarm,
    /// A faults file, read against the foraging swarm.
    SwarmFaults,
    /// A PRISM-style properties file, read against the foraging swarm.
    SwarmProperties,
    /// A `.mapt` model.
    Mapt,
    /// The JSON form of a `.mapt` model.
    MaptJson,
    /// A timed query (`--query`), read against the two-car platoon.
    TimedQuery,
    /// A metric automaton, `.ma` text.
    Ma,
    /// A metric automaton, JSON form.
    MaJson,
    /// A strategy file, read against `examples/robust/grid_reach.ma`.
    Strategy,
    /// A parity game in PGSolver format.
    PgGame,
    /// A PGSolver solution, read against `examples/robust/game.pg`.
    PgSolution,
    /// An ONNX network.
    Onnx,
    /// A VNN-LIB property (`mavis nn verify`).
    Vnnlib,
}

impl Format {
    pub const ALL: [Format; 16] = [
        Format::Expression,
        Format::Nis,
        Format::NisSpec,
        Format::Swarm,
        Format::SwarmFaults,
        Format::SwarmProperties,
        Format::Mapt,
        Format::MaptJson,
        Format::TimedQuery,
        Format::Ma,
        Format::MaJson,
        Format::Strategy,
        Format::PgGame,
        Format::PgSolution,
        Format::Onnx,
        Format::Vnnlib,
    ];

    /// Whether the format is text with lines, so that a refusal must say where.
    pub fn has_lines(self) -> bool {
        self != Format::Onnx
    }

    /// The file name the reader is given (some readers choose by extension).
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Expression => "<expression>",
            Format::Nis => "input.nis",
            Format::NisSpec => "<spec>",
            Format::Swarm => "input.swarm",
            Format::SwarmFaults => "input.faults",
            Format::SwarmProperties => "input.props",
            Format::Mapt => "input.mapt",
            Format::MaptJson => "input.json",
            Format::TimedQuery => "<query>",
            Format::Ma => "input.ma",
            Format::MaJson => "input.ma.json",
            Format::Strategy => "input.strat",
            Format::PgGame => "input.pg",
            Format::PgSolution => "input.sol",
            Format::Onnx => "input.onnx",
            Format::Vnnlib => "input.vnnlib",
        }
    }
}

/// Why an input was refused, and where, when the reader said.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub message: String,
    /// 1-based line and column.
    pub location: Option<(usize, usize)>,
    /// A JSON path such as `states[2]` (JSON forms name the field at fault
    /// once the text has parsed).
    pub json_path: Option<String>,
}

impl Refusal {
    /// Whether the refusal says where the problem is.
    pub fn is_located(&self) -> bool {
        self.location.is_some() || self.json_path.is_some()
    }
}

impl Refusal {
    fn located(e: &SourceError) -> Self {
        Refusal {
            message: e.to_string(),
            location: Some((e.line, e.column)),
            json_path: None,
        }
    }

    fn of_run_error(e: RunError) -> Self {
        match e {
            RunError::Input(report) => match report.downcast_ref::<SourceError>() {
                Some(located) => Refusal::located(located),
                None => Refusal::of_message(report.to_string()),
            },
            RunError::Internal(m) => Refusal::of_message(format!("internal error: {m}")),
            RunError::TimedOut(m) => Refusal::of_message(format!("timed out: {m}")),
            RunError::Undetermined(m) => Refusal::of_message(format!("undetermined: {m}")),
            RunError::Limit(m) => Refusal::of_message(format!("size limit: {m}")),
        }
    }

    /// A message that names its place in words (serde's "line L column C").
    fn of_message(message: String) -> Self {
        let location = words_location(&message);
        let json_path = json_path(&message);
        Refusal {
            message,
            location,
            json_path,
        }
    }
}

/// `FILE: PATH: message` with PATH a field path (`states[0]`, `objective.target`).
fn json_path(message: &str) -> Option<String> {
    let mut parts = message.splitn(3, ": ");
    let file = parts.next()?;
    let path = parts.next()?;
    parts.next()?;
    let field = |c: char| c.is_ascii_alphanumeric() || "_[].".contains(c);
    let looks_like_path = file.ends_with(".json")
        && !path.is_empty()
        && path.chars().all(field)
        && path.starts_with(|c: char| c.is_ascii_alphabetic());
    looks_like_path.then(|| path.to_string())
}

/// `line L column C` inside a message.
fn words_location(message: &str) -> Option<(usize, usize)> {
    let at = message.find("line ")?;
    let mut words = message[at..].split_whitespace();
    words.next();
    let line = words.next()?.trim_end_matches(',').parse().ok()?;
    if words.next()? != "column" {
        return None;
    }
    let column = words
        .next()?
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    Some((line, column))
}

/// The files some readers are read against, from the repository.
pub struct Context {
    root: std::path::PathBuf,
    foraging: Source,
    platoon: crate::timed::front::model::Model,
    grid: crate::robust::front::Automaton,
    game_nodes: usize,
}

impl Context {
    /// Loads the fixed models from the repository at `root`.
    pub fn new(root: &Path) -> Result<Self, String> {
        let read = |p: &str| Source::read(&root.join(p)).map_err(|e| format!("{p}: {e}"));
        let foraging = read("examples/foraging/foraging.swarm")?;
        let platoon_src = read("examples/cav/platoon2.mapt")?;
        let platoon = crate::timed::parse_source(&platoon_src, false)
            .and_then(|ast| crate::timed::front::build::build_model(&ast, Default::default()))
            .map_err(|e| e.to_string())?;
        let grid_src = read("examples/robust/grid_reach.ma")?;
        let grid = crate::robust::load_source(&grid_src, &mut Constants::default())
            .map_err(|e| format!("{e:?}"))?
            .0;
        let game = crate::robust::read::pgsolver::read_game(&read("examples/robust/game.pg")?)
            .map_err(|e| e.to_string())?;
        Ok(Context {
            root: root.to_path_buf(),
            foraging,
            platoon,
            grid,
            game_nodes: game.len(),
        })
    }
}

/// Reads `bytes` as `format`: `Ok` if accepted, the refusal otherwise.
/// Never panics on any input (that is what the fuzz targets check).
pub fn read(ctx: &Context, format: Format, bytes: &[u8]) -> Result<(), Refusal> {
    if format == Format::Onnx {
        return crate::nn::load_bytes(bytes)
            .map(drop)
            .map_err(|e| Refusal::of_message(e.to_string()));
    }
    let source = Source::from_bytes(format.file_name(), bytes.to_vec()).map_err(|e| {
        match e.get_ref().and_then(|i| i.downcast_ref::<SourceError>()) {
            Some(located) => Refusal::located(located),
            None => Refusal::of_message(e.to_string()),
        }
    })?;
    read_text(ctx, format, &source)
}

fn read_text(ctx: &Context, format: Format, source: &Source) -> Result<(), Refusal> {
    let lang = |e: Box<SourceError>| Refusal::located(&e);
    match format {
        Format::Expression => crate::lang::eval_expression(source, &Constants::default())
            .map(drop)
            .map_err(lang),
        Format::Nis => {
            let dir = ctx.root.join("examples/guarding");
            crate::nis::parse_model(source, &dir, &Default::default())
                .map(drop)
                .map_err(lang)
        }
        Format::NisSpec => crate::nis::parse_sentence(source.text())
            .map(drop)
            .map_err(lang),
        Format::Swarm | Format::SwarmFaults | Format::SwarmProperties => {
            read_swarm(ctx, format, source)
        }
        Format::Mapt | Format::MaptJson => {
            let ast =
                crate::timed::parse_source(source, format == Format::MaptJson).map_err(lang)?;
            crate::timed::front::build::build_model(&ast, Default::default())
                .map(drop)
                .map_err(lang)
        }
        Format::TimedQuery => {
            let loc = crate::timed::front::ast::Loc::new(
                source,
                crate::lang::Span::new(0, source.text().len()),
            );
            crate::timed::front::query::parse_query(&ctx.platoon, &loc)
                .map(drop)
                .map_err(lang)
        }
        Format::Ma | Format::MaJson => {
            crate::robust::load_source(source, &mut Constants::default())
                .map(drop)
                .map_err(Refusal::of_run_error)
        }
        Format::Strategy => crate::robust::read::strategy::parse(source, &ctx.grid)
            .map(drop)
            .map_err(lang),
        Format::PgGame => crate::robust::read::pgsolver::read_game(source)
            .map(drop)
            .map_err(lang),
        Format::PgSolution => crate::robust::read::pgsolver::read_solution(source, ctx.game_nodes)
            .map(drop)
            .map_err(lang),
        Format::Vnnlib => crate::nn::vnnlib::parse(source.name(), source.text())
            .map(drop)
            .map_err(|e| Refusal {
                message: e.message.clone(),
                location: Some((e.line, e.column)),
                json_path: None,
            }),
        // `read` takes ONNX before decoding text; the same reader here.
        Format::Onnx => crate::nn::load_bytes(source.text().as_bytes())
            .map(drop)
            .map_err(|e| Refusal::of_message(e.to_string())),
    }
}

/// The swarm formats: a swarm file, or faults or properties over the
/// bundled foraging swarm.
fn read_swarm(ctx: &Context, format: Format, source: &Source) -> Result<(), Refusal> {
    let lang = |e: Box<SourceError>| Refusal::located(&e);
    let mut consts = Constants::default();
    let opts = crate::swarm::front::build::BuildOptions {
        faulty_fraction: None,
        keep_fault_flags: false,
    };
    let swarm = if format == Format::Swarm {
        source
    } else {
        &ctx.foraging
    };
    let syntax = crate::swarm::front::syntax::parse_swarm(swarm, &mut consts).map_err(lang)?;
    match format {
        Format::SwarmFaults => {
            let blocks =
                crate::swarm::front::syntax::parse_faults(source, &mut consts).map_err(lang)?;
            let faults = Some((source, blocks.as_slice()));
            crate::swarm::front::build::build_model(swarm, &syntax, faults, consts, &opts)
                .map(drop)
                .map_err(lang)
        }
        Format::SwarmProperties => {
            let model =
                crate::swarm::front::build::build_model(swarm, &syntax, None, consts, &opts)
                    .map_err(lang)?;
            crate::swarm::front::props::parse_properties(source, &model)
                .map(drop)
                .map_err(lang)
        }
        _ => crate::swarm::front::build::build_model(swarm, &syntax, None, consts, &opts)
            .map(drop)
            .map_err(lang),
    }
}
