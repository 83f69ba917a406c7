//! `mavis timed check`: answers queries (the worst verdict is the run's),
//! with witnesses, search statistics and the options that decide the search.

use super::{acceleration_warning, trace};
use crate::lang::{Source, Span};
use crate::report::{
    free_in_background, stats_json, ModelRef, Report, RunContext, RunError, StatValue, Statistics,
    Table, TableFormat, Verdict,
};
use crate::timed::check::graph::GraphCache;
use crate::timed::check::{run_query_cached, QueryResult, RunOptions};
use crate::timed::explore::{Memory, Search};
use crate::timed::front::ast::Loc;
use crate::timed::front::model::Model;
use crate::timed::semantics::SemanticsKind;
use serde_json::json;
use std::time::Instant;

/// How long to explore: a number of time units, or of pacemaker periods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Horizon {
    Units(u64),
    Periods(u64),
}

impl Horizon {
    /// `100` (time units) or `5p` (periods of the pacemaker).
    pub fn parse(s: &str) -> Result<Horizon, String> {
        let bad = || format!("`{s}` is not a horizon: write time units (`100`) or periods (`5p`)");
        match s.strip_suffix('p') {
            Some(n) => n.trim().parse().map(Horizon::Periods).map_err(|_| bad()),
            None => s.trim().parse().map(Horizon::Units).map_err(|_| bad()),
        }
    }

    pub fn units(self, model: &Model, pacemaker: usize) -> u64 {
        match self {
            Horizon::Units(u) => u,
            Horizon::Periods(p) => p.saturating_mul(model.agents[pacemaker].period),
        }
    }
}

/// The default pacemaker: the agent with the shortest period (first on ties).
pub fn default_pacemaker(model: &Model) -> usize {
    (0..model.agents.len())
        .min_by_key(|&i| model.agents[i].period)
        .unwrap_or(0)
}

/// The default pacemaker of the sweep-line search (`--memory sweep`): the
/// agent with the longest period, whose clock's phase regresses least often
/// (measured against the shortest: fewer expansions and states held on the
/// held-out random models, docs/timed.md).
pub fn default_sweep_pacemaker(model: &Model) -> usize {
    (0..model.agents.len())
        .max_by_key(|&i| model.agents[i].period)
        .unwrap_or(0)
}

/// The default pacemaker of a search with `memory`: the sweep-line's
/// ([`default_sweep_pacemaker`]) for `--memory sweep`, else
/// [`default_pacemaker`].
pub fn default_pacemaker_for(model: &Model, memory: Memory) -> usize {
    match memory {
        Memory::Sweep(_) => default_sweep_pacemaker(model),
        _ => default_pacemaker(model),
    }
}

/// Measured cost of one stored state: 3.3 KiB (platoon6, 6 periods, bfs:
/// 560 MiB above the base for 177201 states, docs/timed.md).
pub const BYTES_PER_STATE: u64 = 3380;

/// The default `--max-states`: half the memory available now (MemAvailable
/// of /proc/meminfo) divided by [`BYTES_PER_STATE`], at least 10^5; 5*10^6
/// where /proc/meminfo cannot be read.
pub fn default_max_states() -> usize {
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        let line = t.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    });
    match available {
        Some(bytes) => ((bytes / 2 / BYTES_PER_STATE) as usize).max(100_000),
        None => 5_000_000,
    }
}

/// Which queries `check` answers.
pub enum QuerySelection {
    /// Every query of the file.
    All,
    /// The file's queries with these names.
    Named(Vec<String>),
    /// A formula given on the command line.
    Text(String),
}

/// `mavis timed check`: answers queries; the verdict is the worst of theirs.
pub fn check(
    model: &Model,
    mref: Option<ModelRef>,
    selection: QuerySelection,
    opts: &RunOptions,
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let mut targets: Vec<(String, Loc)> = Vec::new();
    match selection {
        QuerySelection::All => targets.extend(
            model
                .queries
                .iter()
                .map(|q| (q.name.clone(), q.formula.clone())),
        ),
        QuerySelection::Named(names) => {
            for n in names {
                let q = model.queries.iter().find(|q| q.name == n).ok_or_else(|| {
                    let known: Vec<&str> = model.queries.iter().map(|q| q.name.as_str()).collect();
                    RunError::input(format!(
                        "no query `{n}` in the model (queries: {})",
                        known.join(", ")
                    ))
                })?;
                targets.push((q.name.clone(), q.formula.clone()));
            }
        }
        QuerySelection::Text(text) => {
            let src = Source::new("<query>", text.clone());
            targets.push(("query".into(), Loc::new(&src, Span::new(0, text.len()))));
        }
    }
    if targets.is_empty() {
        return Err(RunError::input(
            "no query: give --query FORMULA or declare `query NAME: ...;` in the model",
        ));
    }
    let mut results = Vec::new();
    // Queries answered on the state graph share one graph.
    let mut graphs = GraphCache::default();
    for (i, (name, loc)) in targets.iter().enumerate() {
        ctx.stage(format!(
            "timed check: query `{name}` ({} of {})",
            i + 1,
            targets.len()
        ));
        // Every query decided so far, the others unknown, for the run to
        // report if this query outlasts the deadline (issue 33: all were
        // lost).
        if ctx.timeout().is_some() {
            let mut partial = results.clone();
            partial.extend(targets[i..].iter().map(|(n, l)| not_run(n, l)));
            ctx.publish(render(model, mref.clone(), &partial, opts, true));
        }
        let guard = ctx.meter(query_counting(name, i, targets.len(), &opts.explore));
        let mut metered = opts.clone();
        metered.explore.meter = guard.meter();
        let result = run_query_cached(model, name, loc, &metered, &mut graphs)?;
        drop(guard);
        ctx.note(format!(
            "timed check: `{name}` answered in {:.3} s ({} states expanded)",
            result.seconds, result.stats.expanded
        ));
        results.push(result);
    }
    if opts.explore.deadline.is_some_and(|d| Instant::now() >= d) {
        // A graph cut by the deadline is freed while the report goes out.
        free_in_background(graphs);
    }
    Ok(render(model, mref, &results, opts, false))
}

/// What a query's meter shows: states expanded, and the layers or sweeps
/// of the searches that have them.
fn query_counting(
    name: &str,
    i: usize,
    of: usize,
    explore: &crate::timed::explore::Options,
) -> crate::report::meter::Counting {
    let level = match (explore.search, explore.memory) {
        (Search::Layered, Memory::Sweep(_)) => Some("sweeps"),
        (Search::Layered, _) => Some("layers"),
        _ => None,
    };
    crate::report::meter::Counting {
        label: format!("timed check: query `{name}` ({} of {of})", i + 1),
        unit: "states",
        level,
        total: None,
    }
}

/// A query the run had not answered when it was stopped: unknown, nothing
/// explored.
fn not_run(name: &str, loc: &Loc) -> QueryResult {
    QueryResult {
        name: name.to_string(),
        text: loc.text().trim().to_string(),
        verdict: Some(Verdict::Unknown),
        value: None,
        witness: None,
        witness_kind: "witness",
        mode: "not run",
        stats: Default::default(),
        seconds: 0.0,
    }
}

fn verdict_word(r: &QueryResult) -> String {
    match (r.verdict, &r.value) {
        (Some(Verdict::Unknown), Some(v)) => format!("unknown (incomplete; best so far {v})"),
        (Some(v), _) => v.word().to_string(),
        (None, Some(v)) => format!("{v}"),
        (None, None) => "no reachable state".into(),
    }
}

fn render(
    model: &Model,
    mref: Option<ModelRef>,
    results: &[QueryResult],
    opts: &RunOptions,
    at_deadline: bool,
) -> Report {
    let mut r = Report::new("timed", "check");
    r.model = mref;
    r.verdict = results
        .iter()
        .filter_map(|q| q.verdict)
        .max_by_key(|v| match v {
            Verdict::Holds => 0,
            Verdict::Unknown => 1,
            Verdict::Violated => 2,
        });
    if opts.semantics == SemanticsKind::Accelerated {
        r.warnings.extend(acceleration_warning(model));
    }
    for q in results {
        r.line(format!("{}: {}  ({})", q.name, verdict_word(q), q.text));
    }
    let (json_results, witnesses) = render_queries(&mut r, model, results);
    r.line("");
    render_stats_table(&mut r, results);
    // The memory policy is the layered search's; the other searches keep
    // every state, so naming a policy there would say what does not apply.
    let memory = if opts.explore.search == Search::Layered {
        format!(", memory {}", opts.explore.memory.name())
    } else {
        String::new()
    };
    r.line(format!(
        "semantics {}, search {}{memory}, horizon {}",
        format!("{:?}", opts.semantics).to_lowercase(),
        format!("{:?}", opts.explore.search).to_lowercase(),
        opts.horizon.map_or("none".to_string(), |h| h.to_string())
    ));
    warn_incomplete(&mut r, results, opts, at_deadline);
    r.results = json!({"queries": json_results});
    if !witnesses.is_empty() {
        r.witness = Some(serde_json::Value::Object(witnesses));
    }
    r.put_stats(&Totals(results));
    r
}

/// Each query's witness (text and JSON) and its JSON result.
fn render_queries(
    r: &mut Report,
    model: &Model,
    results: &[QueryResult],
) -> (
    Vec<serde_json::Value>,
    serde_json::Map<String, serde_json::Value>,
) {
    let mut json_results = Vec::new();
    let mut witnesses = serde_json::Map::new();
    for q in results {
        if let Some(t) = &q.witness {
            r.line(format!("\n{} of {}:", q.witness_kind, q.name));
            r.line(trace::table(t, model).render(TableFormat::Text).trim_end());
            witnesses.insert(
                q.name.clone(),
                json!({"kind": q.witness_kind, "trace": trace::to_json(t, model)}),
            );
        }
        let mut result = stats_json(q);
        result.insert("name".into(), q.name.clone().into());
        result.insert("formula".into(), q.text.clone().into());
        // The serialised form (lower case), as the top-level verdict and the README.
        result.insert("verdict".into(), json!(q.verdict));
        result.insert(
            "value".into(),
            json!(q.value.as_ref().map(|v| v.to_string())),
        );
        result.insert("mode".into(), q.mode.into());
        json_results.push(result.into());
    }
    (json_results, witnesses)
}

/// The table of the queries' search statistics (expansions beside the
/// distinct states they reached, which differ when a layered or sweep-line
/// search expands a state again), and a warning per query that met deadlocks.
fn render_stats_table(r: &mut Report, results: &[QueryResult]) {
    let mut t = Table::new([
        "query",
        "mode",
        "states",
        "distinct",
        "transitions",
        "peak stored",
        "layers",
        "sweeps",
        "deadlocks",
        "time (s)",
    ]);
    for q in results {
        t.row([
            q.name.clone(),
            q.mode.to_string(),
            q.stats.expanded.to_string(),
            q.stats.distinct_states().to_string(),
            q.stats.transitions.to_string(),
            q.stats.peak_stored.to_string(),
            q.stats.layers.to_string(),
            q.stats.sweeps.to_string(),
            q.stats.deadlocks.to_string(),
            format!("{:.3}", q.seconds),
        ]);
        if q.stats.deadlocks > 0 {
            r.warnings.push(format!(
                "{}: {} reachable states where time cannot pass and no transition is enabled (guards false at a deadline)",
                q.name, q.stats.deadlocks
            ));
        }
    }
    r.line(t.render(TableFormat::Text).trim_end());
}

/// Why incomplete queries are unknown: the time-out (reached, or
/// `at_deadline`: the report the run gives if it is stopped there) or the
/// state cap.
fn warn_incomplete(r: &mut Report, results: &[QueryResult], opts: &RunOptions, at_deadline: bool) {
    let incomplete = results.iter().any(|q| !q.stats.complete);
    let timed_out = at_deadline || opts.explore.deadline.is_some_and(|d| Instant::now() >= d);
    if timed_out && incomplete {
        r.stat("timed_out", true);
        r.warnings.push(
            "the time-out was reached: incomplete queries are unknown, with the states explored so far"
                .into(),
        );
    } else if incomplete {
        // Without this an unknown at the state cap came with no reason.
        r.warnings.push(format!(
            "the state cap of {} expansions (--max-states) was reached: incomplete queries are unknown, with the states explored so far",
            opts.explore.max_states
        ));
    }
}

/// The run's statistics: the work summed over the queries; the distinct
/// states of the one state space they all explore.
struct Totals<'a>(&'a [QueryResult]);

impl Statistics for Totals<'_> {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let sum = |f: fn(&QueryResult) -> usize| self.0.iter().map(f).sum::<usize>();
        let most = |f: fn(&QueryResult) -> usize| self.0.iter().map(f).max().unwrap_or(0);
        vec![
            ("states", sum(|q| q.stats.expanded).into()),
            // Not a sum (issue 33: two queries over 226 states said 452):
            // every query explores the same model with the same search, so
            // one that searched to the end reached them all, one stopped
            // early (a witness, a limit) a part of them.
            (
                "distinct_states",
                most(|q| q.stats.distinct_states()).into(),
            ),
            (
                "peak_stored",
                self.0
                    .iter()
                    .map(|q| q.stats.peak_stored)
                    .max()
                    .unwrap_or(0)
                    .into(),
            ),
            (
                "time_s",
                self.0.iter().map(|q| q.seconds).sum::<f64>().into(),
            ),
        ]
    }
}
