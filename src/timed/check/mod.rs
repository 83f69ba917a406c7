//! Answering one query: on the fly for `EF phi`, `AG phi`, `max`/`min`
//! (the search stops at the first witness), over the explored state graph for
//! nested formulas. Every witness is replayed before it is returned.
//!
//! Verdicts (and exit statuses): `EF` found = holds (0), `EF` not found in a
//! complete exploration = violated (1); `AG` violated = violated (1) with a
//! counterexample, `AG` never violated = holds (0); a search stopped by a
//! limit or the time-out without an answer = unknown (3). `max`/`min` have no
//! verdict (0) unless incomplete (unknown, 3, with the best value so far).

mod bits;
pub mod bulk;
mod columns;
pub mod graph;

use super::explore::{Control, Options, Stats};
use super::semantics::{Semantics, SemanticsKind, State, StateEnv};
use crate::lang::{eval, Value};
use crate::report::{RunError, StatValue, Statistics, Verdict};
use crate::timed::explore::search::explore;
use crate::timed::front::ast::Loc;
use crate::timed::front::model::Model;
use crate::timed::front::query::{parse_query, Formula, Query};
use crate::timed::semantics::trace::Trace;
use bits::Bits;
use bulk::{reach, Bulk};
use graph::{holds, Graph, GraphCache};
use std::time::Instant;

/// Everything that fixes how a model is explored.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub semantics: SemanticsKind,
    pub horizon: Option<u64>,
    pub explore: Options,
}

/// The answer to one query.
#[derive(Clone, Debug)]
pub struct QueryResult {
    pub name: String,
    pub text: String,
    pub verdict: Option<Verdict>,
    /// The extremum of a numerical query.
    pub value: Option<Value>,
    pub witness: Option<Trace>,
    /// "witness" or "counterexample".
    pub witness_kind: &'static str,
    /// "on-the-fly" or "graph".
    pub mode: &'static str,
    pub stats: Stats,
    pub seconds: f64,
}

/// A query's search statistics and its time, under the keys of its JSON result.
impl Statistics for QueryResult {
    fn attributes(&self) -> Vec<(&'static str, StatValue)> {
        let s = &self.stats;
        vec![
            ("states", s.expanded.into()),
            ("distinct", s.distinct_states().into()),
            ("transitions", s.transitions.into()),
            ("peak_stored", s.peak_stored.into()),
            ("layers", s.layers.into()),
            ("sweeps", s.sweeps.into()),
            ("peak_links", s.peak_links.into()),
            ("deadlocks", s.deadlocks.into()),
            ("complete", s.complete.into()),
            ("time_s", self.seconds.into()),
        ]
    }
}

/// Parses and answers the query written at `loc`.
pub fn run_query(
    model: &Model,
    name: &str,
    loc: &Loc,
    opts: &RunOptions,
) -> Result<QueryResult, RunError> {
    run_query_cached(model, name, loc, opts, &mut GraphCache::default())
}

/// [`run_query`] reusing the state graph of an earlier query answered with
/// the same model and options (`cache`), or leaving its own there.
pub fn run_query_cached(
    model: &Model,
    name: &str,
    loc: &Loc,
    opts: &RunOptions,
    cache: &mut GraphCache,
) -> Result<QueryResult, RunError> {
    let query = parse_query(model, loc)?;
    let sem = Semantics::new(model, opts.semantics, opts.horizon);
    let started = Instant::now();
    let mut r = QueryResult {
        name: name.to_string(),
        text: loc.text().trim().to_string(),
        verdict: None,
        value: None,
        witness: None,
        witness_kind: "witness",
        mode: "on-the-fly",
        stats: Stats::default(),
        seconds: 0.0,
    };
    match &query {
        Query::Check(Formula::EF(inner)) if inner.is_state() => {
            let (stats, found) = first_state_where(&sem, &opts.explore, inner, true)?;
            r.verdict = Some(match (&found, stats.complete) {
                (Some(_), _) => Verdict::Holds,
                (None, true) => Verdict::Violated,
                (None, false) => Verdict::Unknown,
            });
            (r.stats, r.witness) = (stats, found);
        }
        Query::Check(Formula::AG(inner)) if inner.is_state() => {
            r.witness_kind = "counterexample";
            let (stats, found) = first_state_where(&sem, &opts.explore, inner, false)?;
            r.verdict = Some(match (&found, stats.complete) {
                (Some(_), _) => Verdict::Violated,
                (None, true) => Verdict::Holds,
                (None, false) => Verdict::Unknown,
            });
            (r.stats, r.witness) = (stats, found);
        }
        Query::Extremum {
            maximize,
            expr,
            subject: None,
        } => extremum_on_the_fly(&sem, &opts.explore, *maximize, expr, &mut r)?,
        _ => {
            r.mode = "graph";
            if cache.graph.is_none() {
                let built = Graph::build_metered(
                    &sem,
                    opts.explore.max_states,
                    opts.explore.deadline,
                    &opts.explore.meter,
                )?;
                cache.graph = Some(built);
            }
            let g = cache.graph.as_ref().expect("the graph was just built");
            r.stats = graph_stats(&sem, g);
            if !g.complete {
                r.verdict = Some(Verdict::Unknown);
            } else {
                answer_on_graph(&sem, g, &query, &mut r)?;
            }
        }
    }
    if let Some(t) = &r.witness {
        t.replay(&sem)?;
        recheck_end(&sem, &query, t, &r)?;
    }
    r.seconds = started.elapsed().as_secs_f64();
    Ok(r)
}

/// Explores on the fly until a state where the state formula `inner` is
/// `wanted` (EF: true, AG: false); the search's statistics and the path to it.
fn first_state_where(
    sem: &Semantics,
    explore_opts: &Options,
    inner: &Formula,
    wanted: bool,
) -> Result<(Stats, Option<Trace>), RunError> {
    let mut found = None;
    let stats = explore(sem, explore_opts, &mut |s, trace| {
        if sat_state(sem, inner, s)? == wanted {
            found = Some(trace());
            return Ok(Control::Stop);
        }
        Ok(Control::Continue)
    })?;
    Ok((stats, found))
}

/// `max expr` / `min expr` on the fly: the best value met and the path to it.
fn extremum_on_the_fly(
    sem: &Semantics,
    explore_opts: &Options,
    maximize: bool,
    expr: &crate::lang::TExpr,
    r: &mut QueryResult,
) -> Result<(), RunError> {
    let mut best: Option<(Value, Trace)> = None;
    r.stats = explore(sem, explore_opts, &mut |s, trace| {
        let v = number(sem, expr, s)?;
        if best.as_ref().is_none_or(|(b, _)| better(maximize, &v, b)) {
            best = Some((v, trace()));
        }
        Ok(Control::Continue)
    })?;
    if !r.stats.complete {
        r.verdict = Some(Verdict::Unknown);
    }
    if let Some((v, t)) = best {
        r.value = Some(v);
        r.witness = Some(t);
    }
    Ok(())
}

/// The statistics of a query answered on the shared graph: its size.
fn graph_stats(sem: &Semantics, g: &Graph) -> Stats {
    let mut stats = Stats {
        expanded: g.succ.len(),
        transitions: g.transitions,
        peak_stored: g.states.len(),
        complete: g.complete,
        ..Stats::default()
    };
    for (state, succ) in g.states.iter().zip(&g.succ) {
        stats.note_deadlock(sem, state, succ.len());
    }
    stats
}

fn answer_on_graph(
    sem: &Semantics,
    g: &Graph,
    query: &Query,
    r: &mut QueryResult,
) -> Result<(), RunError> {
    let mut bulk = Bulk::new(g, sem);
    match query {
        // A witness for a top-level EF, a counterexample for a top-level AG:
        // the first state (by BFS, so a shortest path) of the target set.
        Query::Check(Formula::EF(inner)) => {
            let target = bulk.sat(inner)?;
            r.verdict = Some(Verdict::from_bool(reach(g, &target).get(0)));
            r.witness = target.ones().next().map(|id| g.trace_to(id));
        }
        Query::Check(Formula::AG(inner)) => {
            let bad = bulk.sat(inner)?.not();
            let holds_init = !reach(g, &bad).get(0);
            r.verdict = Some(Verdict::from_bool(holds_init));
            if !holds_init {
                r.witness_kind = "counterexample";
                r.witness = bad.ones().next().map(|id| g.trace_to(id));
            }
        }
        Query::Check(f) => r.verdict = Some(Verdict::from_bool(bulk.sat(f)?.get(0))),
        Query::Extremum {
            maximize,
            expr,
            subject,
        } => {
            let allowed = match subject {
                Some(f) => bulk.sat(f)?,
                None => Bits::zeros(g.states.len()).not(),
            };
            let mut best: Option<(Value, usize)> = None;
            for id in allowed.ones() {
                let v = number(sem, expr, &g.states[id])?;
                if best.as_ref().is_none_or(|(b, _)| better(*maximize, &v, b)) {
                    best = Some((v, id));
                }
            }
            if let Some((v, id)) = best {
                r.value = Some(v);
                r.witness = Some(g.trace_to(id));
            }
        }
    }
    Ok(())
}

/// The last state of a witness must show what it claims.
fn recheck_end(sem: &Semantics, query: &Query, t: &Trace, r: &QueryResult) -> Result<(), RunError> {
    let last = t.last();
    let ok = match query {
        Query::Check(Formula::EF(inner)) if inner.is_state() => sat_state(sem, inner, last)?,
        Query::Check(Formula::AG(inner)) if inner.is_state() => !sat_state(sem, inner, last)?,
        Query::Extremum { expr, .. } => Some(number(sem, expr, last)?) == r.value,
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(RunError::Internal(
            "the witness does not end in a state with the claimed property".into(),
        ))
    }
}

/// Evaluates a formula without temporal operators in one state.
fn sat_state(sem: &Semantics, f: &Formula, s: &State) -> Result<bool, RunError> {
    Ok(match f {
        Formula::Atom(e) => holds(sem, e, s)?,
        Formula::Not(a) => !sat_state(sem, a, s)?,
        Formula::And(a, b) => sat_state(sem, a, s)? && sat_state(sem, b, s)?,
        Formula::Or(a, b) => sat_state(sem, a, s)? || sat_state(sem, b, s)?,
        Formula::Implies(a, b) => !sat_state(sem, a, s)? || sat_state(sem, b, s)?,
        Formula::EF(_) | Formula::AG(_) => {
            return Err(RunError::Internal(
                "a temporal formula was evaluated in one state".into(),
            ))
        }
    })
}

fn number(sem: &Semantics, e: &crate::lang::TExpr, s: &State) -> Result<Value, RunError> {
    eval(
        e,
        &StateEnv {
            model: sem.model,
            state: s,
        },
    )
    .map_err(|err| RunError::input(format!("the query expression cannot be evaluated: {err}")))
}

fn better(maximize: bool, v: &Value, best: &Value) -> bool {
    match (v.as_num(), best.as_num()) {
        (Some(a), Some(b)) => {
            if maximize {
                a > b
            } else {
                a < b
            }
        }
        _ => false,
    }
}
