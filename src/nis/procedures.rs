//! The parameterised verification and emergence procedures of seed
//! Corollaries 1 and 2: from checks of M_ab(m) and finitely many M(i) to a
//! verdict for every n >= m and an emergence threshold (Definition 11).

use super::engine::{decide_with, CheckRecord, EngineChoice, Target};
use super::formula::{Kind, Sentence};
use super::milp::MilpOptions;
use super::model::Model;
use super::simulation::{default_cap, minimal_simulating_n, MinimalN};
use crate::report::{RunContext, RunError};
use std::time::Instant;

/// What a `verify` run found.
#[derive(Clone, Debug)]
pub struct VerifyOutcome {
    pub spec: String,
    pub kind: Kind,
    /// m, the number of index variables.
    pub m: usize,
    /// b, the temporal depth.
    pub depth: u32,
    pub corollary: &'static str,
    /// Whether M(n) |= phi for every n >= m (None: undetermined).
    pub holds_for_all_n: Option<bool>,
    /// The least th >= m with M(n) |= phi for every n >= th (None: there is none, or undetermined).
    pub emergence_threshold: Option<usize>,
    pub abstract_holds: Option<bool>,
    /// The least n with M_ab(m) <=_b M(n), when searched.
    pub simulation: Option<MinimalN>,
    pub conclusion: String,
    /// Every sub-check that was run, in order.
    pub checks: Vec<CheckRecord>,
    pub undetermined_reason: Option<String>,
    pub time_s: f64,
}

pub struct VerifyOptions {
    pub engine: EngineChoice,
    /// Cap of the search for the simulating n (default m + |L_t| * |Act_t|).
    pub cap: Option<usize>,
    /// Options of the MILP decider (symmetry breaking, HiGHS).
    pub milp: MilpOptions,
}

fn timed_out(ctx: &RunContext) -> bool {
    ctx.timed_out()
}

/// Runs the corollary that fits the sentence's kind.
pub fn verify(
    model: &Model,
    sentence: &Sentence,
    opts: &VerifyOptions,
    ctx: &RunContext,
) -> Result<VerifyOutcome, RunError> {
    let start = Instant::now();
    let m = sentence.agents();
    if m == 0 {
        return Err(RunError::input(
            "the sentence names no agent: write `forall v1: ...` with atoms `(p, v1)`",
        ));
    }
    let depth = sentence.depth();
    let cap = match opts.cap {
        Some(c) => c,
        None => default_cap(model, m).map_err(|why| {
            RunError::input(format!("the simulation search needs a finite model: {why}"))
        })?,
    };
    let mut out = VerifyOutcome {
        spec: sentence.to_string(),
        kind: sentence.kind(),
        m,
        depth,
        corollary: "",
        holds_for_all_n: None,
        emergence_threshold: None,
        abstract_holds: None,
        simulation: None,
        conclusion: String::new(),
        checks: Vec::new(),
        undetermined_reason: None,
        time_s: 0.0,
    };
    let abs = decide_with(opts.engine, &opts.milp, model, sentence, Target::Abstract)?;
    out.abstract_holds = Some(abs.holds);
    out.checks.push(abs);
    match out.kind {
        Kind::Universal | Kind::Propositional => {
            universal(model, sentence, opts, ctx, cap, &mut out)?
        }
        Kind::Existential => existential(model, sentence, opts, ctx, cap, &mut out)?,
    }
    out.time_s = start.elapsed().as_secs_f64();
    Ok(out)
}

fn search_n(
    model: &Model,
    m: usize,
    b: u32,
    cap: usize,
    ctx: &RunContext,
) -> Result<MinimalN, RunError> {
    match minimal_simulating_n(model, m, b, cap, || timed_out(ctx))? {
        Ok(r) => Ok(r),
        Err(why) => Err(RunError::input(format!(
            "the simulation search needs a finite model: {why}"
        ))),
    }
}

fn check_n(
    model: &Model,
    sentence: &Sentence,
    opts: &VerifyOptions,
    n: usize,
) -> Result<CheckRecord, RunError> {
    decide_with(
        opts.engine,
        &opts.milp,
        model,
        sentence,
        Target::Concrete { agents: n },
    )
}

/// Corollary 1: M_ab(m) |= phi[m] and M(m) |= phi[m] iff S |= forall phi;
/// M_ab(m) |= phi[m] makes m+1 an emergence threshold, otherwise there is none.
fn universal(
    model: &Model,
    s: &Sentence,
    opts: &VerifyOptions,
    ctx: &RunContext,
    cap: usize,
    out: &mut VerifyOutcome,
) -> Result<(), RunError> {
    out.corollary = "Corollary 1 (universal)";
    let m = out.m;
    let abstract_holds = out.checks[0].holds;
    let base = check_n(model, s, opts, m)?;
    let base_holds = base.holds;
    out.checks.push(base);
    if abstract_holds {
        out.holds_for_all_n = Some(base_holds);
        out.emergence_threshold = Some(if base_holds { m } else { m + 1 });
        out.conclusion = if base_holds {
            format!("M_ab({m}) and M({m}) satisfy phi[{m}]: holds for every n >= {m}")
        } else {
            format!("M_ab({m}) satisfies phi[{m}], M({m}) does not: fails at n = {m}, holds for every n >= {}", m + 1)
        };
        return Ok(());
    }
    out.holds_for_all_n = Some(false);
    out.emergence_threshold = None;
    // Where the abstract counterexample becomes concrete: the least n that b-simulates M_ab(m).
    if timed_out(ctx) {
        out.conclusion = format!(
            "M_ab({m}) has a counterexample: fails for some n >= {m}; no emergence threshold"
        );
        return Ok(());
    }
    let sim = search_n(model, m, out.depth, cap, ctx)?;
    if let Some(n0) = sim.n {
        for i in m + 1..n0 {
            let r = check_n(model, s, opts, i)?;
            out.checks.push(r);
        }
        out.conclusion = format!(
            "M_ab({m}) has a counterexample and M({n0}) {}-simulates M_ab({m}): fails for every n >= {n0}; no emergence threshold",
            out.depth
        );
    } else {
        out.conclusion = format!(
            "M_ab({m}) has a counterexample: fails for some n >= {m}; no emergence threshold"
        );
    }
    out.simulation = Some(sim);
    Ok(())
}

/// Corollary 2: with n = min{ i : M_ab(m) <=_b M(i) }, S |= forall phi iff
/// M(i) |= phi[m] for all i in m..n; M(n) |= phi[m] makes n an emergence
/// threshold (the least one is the start of the final run of holding i's),
/// otherwise there is none.
fn existential(
    model: &Model,
    s: &Sentence,
    opts: &VerifyOptions,
    ctx: &RunContext,
    cap: usize,
    out: &mut VerifyOutcome,
) -> Result<(), RunError> {
    out.corollary = "Corollary 2 (existential)";
    let m = out.m;
    let abstract_holds = out.checks[0].holds;
    let sim = search_n(model, m, out.depth, cap, ctx)?;
    let Some(n0) = sim.n else {
        if !abstract_holds {
            // M_ab(m) simulates every M(n), n >= m+1 (Theorem 2): existential phi fails there.
            let base = check_n(model, s, opts, m)?;
            out.checks.push(base);
            out.holds_for_all_n = Some(false);
            out.conclusion = format!("M_ab({m}) does not satisfy phi[{m}]: fails for every n >= {}; no emergence threshold", m + 1);
        } else {
            let reason = format!(
                "no M(i) with i <= {} simulates M_ab({m}) up to depth {}",
                sim.cap, out.depth
            );
            out.conclusion = format!("undetermined: {reason}");
            out.undetermined_reason = Some(reason);
        }
        out.simulation = Some(sim);
        return Ok(());
    };
    out.simulation = Some(sim);
    let mut verdicts = Vec::new();
    for i in m..=n0 {
        if timed_out(ctx) {
            let reason = "time-out before every M(i) was checked".to_string();
            out.conclusion = format!("undetermined: {reason}");
            out.undetermined_reason = Some(reason);
            return Ok(());
        }
        let r = check_n(model, s, opts, i)?;
        verdicts.push((i, r.holds));
        out.checks.push(r);
    }
    let top = verdicts.last().map(|v| v.1).unwrap_or(false);
    if abstract_holds && !top {
        return Err(RunError::Internal(format!(
            "M({n0}) simulates M_ab({m}) and M_ab({m}) satisfies the existential phi[{m}], yet M({n0}) does not (Theorem 1 is violated: a bug)"
        )));
    }
    out.holds_for_all_n = Some(verdicts.iter().all(|v| v.1));
    if top {
        let mut th = n0;
        while th > m && verdicts[th - 1 - m].1 {
            th -= 1;
        }
        out.emergence_threshold = Some(th);
        out.conclusion = format!(
            "M({n0}) {}-simulates M_ab({m}) and satisfies phi[{m}]: holds for every n >= {n0}; M(i) holds for i in {th}..{n0}",
            out.depth
        );
    } else {
        out.emergence_threshold = None;
        out.conclusion = format!(
            "M({n0}) {}-simulates M_ab({m}) and does not satisfy phi[{m}]: no emergence threshold",
            out.depth
        );
    }
    Ok(())
}
