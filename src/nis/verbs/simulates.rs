//! `mavis nis simulates`: whether M(N) b-simulates M_ab(m) (Definition 14),
//! or the least such N.

use super::{model_ref, no_template};
use crate::nis::explicit::checker::Graph;
use crate::nis::explicit::simulation::{default_cap, minimal_simulating_n, Simulation};
use crate::nis::front::model::Model;
use crate::nis::outcome::SimulationStats;
use crate::nis::procedures::SimulatingBound;
use crate::nis::semantics::{abstraction::Abstract, concrete::Concrete, Semantics};
use crate::report::{Report, RunContext, RunError, Table, TableFormat, Verdict};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// `simulates` on a model that is not finite: the explicit simulation cannot
/// run; the bound m + B^b and `verify --simulation bound` can.
fn not_finite(model: &Model, m: usize, b: u32, why: &str) -> RunError {
    RunError::input(format!(
        "the explicit simulation needs a finite model: {why}. Without a search, M(n) {b}-simulates M_ab({m}) \
         for every n >= {} (m + B^b with B the zero-one agent's branching); `mavis nis verify --simulation bound` \
         (the default for such models) uses that bound",
        SimulatingBound::new(model, m, b).describe(m, b)
    ))
}

/// Whether M(n) b-simulates M_ab(m) (with `reverse`, M_ab(m) M(n)), into
/// `r`; false when the deadline cut the explorations (`r` then says so and
/// holds only the sizes).
fn simulates_at(
    r: &mut Report,
    model: &Model,
    (m, b, n): (usize, u32, usize),
    reverse: bool,
    ctx: &RunContext,
) -> Result<bool, RunError> {
    let sem = || Semantics::new(model).map_err(|why| not_finite(model, m, b, &why));
    let mut ga = Graph::new(Abstract::new(sem()?, m))?.with_deadline(ctx.deadline());
    let mut gc = Graph::new(Concrete::new(sem()?, n, m))?.with_deadline(ctx.deadline());
    let mut sim = Simulation::new();
    // `simulator` b-simulates `simulated`.
    let (ok, simulator, simulated) = if reverse {
        (
            sim.holds(&mut gc, &mut ga, b)?,
            format!("M_ab({m})"),
            format!("M({n})"),
        )
    } else {
        (
            sim.holds(&mut ga, &mut gc, b)?,
            format!("M({n})"),
            format!("M_ab({m})"),
        )
    };
    r.put_stats(&SimulationStats {
        pairs_visited: sim.pairs_visited,
        abstract_states: ga.states.len(),
        concrete_states: gc.states.len(),
    });
    if ga.expired() || gc.expired() {
        // The answer of a cut exploration means nothing: only the sizes stay.
        r.results =
            json!({ "indexed": m, "depth": b, "agents": n, "reverse": reverse, "simulates": null });
        r.stopped_at_deadline(&format!(
            "{} before deciding whether {simulator} {b}-simulates {simulated}",
            ctx.deadline()
                .expiry()
                .map_or("the time-out was reached".into(), |e| e.to_string())
        ));
        return Ok(false);
    }
    r.verdict = Some(Verdict::from_bool(ok));
    r.line(if ok {
        format!("HOLDS: {simulator} {b}-simulates {simulated}")
    } else {
        format!("VIOLATED: {simulator} does not {b}-simulate {simulated}")
    });
    r.results =
        json!({ "indexed": m, "depth": b, "agents": n, "reverse": reverse, "simulates": ok });
    Ok(true)
}

/// The least n (up to `cap`) with M(n) b-simulating M_ab(m), into `r`.
fn least_simulating(
    r: &mut Report,
    model: &Model,
    (m, b): (usize, u32),
    cap: Option<usize>,
    ctx: &RunContext,
) -> Result<(), RunError> {
    let cap = match cap {
        Some(c) => c,
        None => default_cap(model, m).map_err(|why| not_finite(model, m, b, &why))?,
    };
    let found = minimal_simulating_n(model, m, b, cap, ctx.deadline())?
        .map_err(|why| not_finite(model, m, b, &why))?;
    match found.n {
        Some(n) => {
            r.verdict = Some(Verdict::Holds);
            r.line(format!(
                "n = {n}: the least n >= {m} such that M(n) {b}-simulates M_ab({m})"
            ));
        }
        None if ctx.timed_out() => {
            r.verdict = Some(Verdict::Unknown);
            r.line(format!("UNKNOWN: no M(n) with {m} <= n <= {} {b}-simulates M_ab({m}), and the time-out was reached before n = {} was decided", found.cap, found.cap + 1));
            r.stat("timed_out", true);
            r.warnings.push("the time-out was reached".into());
        }
        None => {
            r.verdict = Some(Verdict::Unknown);
            r.line(format!(
                "UNKNOWN: no M(n) with {m} <= n <= {} {b}-simulates M_ab({m}) (cap reached)",
                found.cap
            ));
        }
    }
    let mut t = Table::new(["n", "simulates"]);
    for (i, ok) in &found.tried {
        t.row([i.to_string(), ok.to_string()]);
    }
    r.line("");
    r.text.push_str(&t.render(TableFormat::Text));
    r.results = json!({
        "indexed": m, "depth": b, "min_n": found.n, "cap": found.cap,
        "tried": found.tried.iter().map(|(i, ok)| json!({"agents": i, "simulates": ok})).collect::<Vec<_>>(),
    });
    Ok(())
}

/// What `mavis nis simulates` is asked.
pub struct SimulatesRequest<'a> {
    /// The model file (the report names it).
    pub path: &'a Path,
    pub model: &'a Model,
    /// m, the indexed agents of M_ab(m).
    pub indexed: usize,
    /// b, the depth of the simulation.
    pub depth: u32,
    /// N of M(N); `None`: the least N that b-simulates M_ab(m).
    pub agents: Option<usize>,
    /// Decide M(N) <=_b M_ab(m) instead (Theorem 2).
    pub reverse: bool,
    /// The largest N tried by the search for the least N.
    pub cap: Option<usize>,
}

/// `mavis nis simulates`: does M(N) b-simulate M_ab(m) (or, reversed, M_ab(m) simulate M(N));
/// without N, the least such N.
pub fn simulates(req: &SimulatesRequest, ctx: &RunContext) -> Result<Report, RunError> {
    let SimulatesRequest {
        path,
        model,
        indexed: m,
        depth: b,
        agents,
        reverse,
        cap,
    } = *req;
    if !model.parameterised {
        return Err(no_template("has no zero-one abstraction to simulate"));
    }
    let start = Instant::now();
    let mut r = Report::new("nis", "simulates");
    r.model = model_ref(path, model);
    match agents {
        Some(n) => {
            if n < m {
                return Err(RunError::input(format!(
                    "--agents {n} is smaller than --indexed {m}"
                )));
            }
            if !simulates_at(&mut r, model, (m, b, n), reverse, ctx)? {
                r.stat("time_s", start.elapsed().as_secs_f64());
                return Ok(r);
            }
        }
        None => {
            if reverse {
                return Err(RunError::input("--reverse needs --agents N"));
            }
            least_simulating(&mut r, model, (m, b), cap, ctx)?;
        }
    }
    let t = start.elapsed().as_secs_f64();
    r.line(format!("time: {t:.3} s"));
    r.stat("time_s", t);
    Ok(r)
}
