//! The `mavis nis` verbs as functions from parsed arguments to a [`Report`].
//! JSON `results` keys are documented in docs/nis.md.

use super::encode::MilpOptions;
use super::engine::{
    abstract_state_counts, admissible, decide_lowered, state_counts, CheckRecord, EngineChoice,
    Target,
};
use super::explicit::checker::Graph;
use super::explicit::simulation::{default_cap, minimal_simulating_n, Simulation};
use super::front::core::Lowered;
use super::front::formula::{Kind, Sentence};
use super::front::model::Model;
use super::procedures::{verify_using, Procedure, SimulatingBound, VerifyOptions, VerifyOutcome};
use super::render::{check_json, check_stats, witness_json};
use super::semantics::{abstraction::Abstract, concrete::Concrete, Semantics};
use crate::report::{
    ModelRef, NetworkRef, Report, RunContext, RunError, Table, TableFormat, Verdict,
};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// The model file and every network it loaded, each with its sha256.
pub(super) fn model_ref(path: &Path, model: &Model) -> Option<ModelRef> {
    let mut r = ModelRef::from_path(path).ok()?;
    for n in &model.networks {
        if let Ok(net) = ModelRef::from_path(&n.path) {
            r.networks.push(NetworkRef {
                name: n.name.clone(),
                path: net.path,
                sha256: net.sha256,
            });
        }
    }
    Some(r)
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "holds"
    } else {
        "violated"
    }
}

/// What `check` reports of its sentence: `spec`, `kind` (`strategic` for
/// `<<G>>` / `[[G]]`, with the `coalition`), `depth`, `indexed`.
fn sentence_results(sentence: &Sentence) -> serde_json::Map<String, Value> {
    let mut results = serde_json::Map::new();
    results.insert("spec".into(), sentence.to_string().into());
    let kind = match &sentence.strategy {
        Some(_) => "strategic",
        None => sentence.kind().word(),
    };
    results.insert("kind".into(), kind.into());
    if let Some(st) = &sentence.strategy {
        let names: Vec<&str> = st.coalition.iter().map(|(n, _)| n.as_str()).collect();
        results.insert("coalition".into(), names.into());
    }
    results.insert("depth".into(), sentence.depth().into());
    results.insert("indexed".into(), sentence.agents().into());
    results
}

/// What `mavis nis check` is asked.
pub struct CheckRequest<'a> {
    /// The model file (the report names it, with its networks' files).
    pub path: &'a Path,
    pub model: &'a Model,
    pub sentence: &'a Sentence,
    /// N of M(N) (`None`: M(0) for a model of named agents only).
    pub agents: Option<usize>,
    /// M_ab(m) instead of M(N).
    pub abstract_system: bool,
    pub engine: EngineChoice,
    pub milp: &'a MilpOptions,
    /// Also count the states reachable at each depth up to the sentence's.
    pub counts: bool,
}

/// `mavis nis check`: phi[m] on M(N) (or on M_ab(m) with `abstract_system`).
pub fn check(req: &CheckRequest) -> Result<Report, RunError> {
    let (model, sentence) = (req.model, req.sentence);
    let m = sentence.agents();
    let target = check_target(model, req.agents, req.abstract_system)?;
    let mut r = Report::new("nis", "check");
    r.model = model_ref(req.path, model);
    admissible(req.engine, model, sentence, target)?;
    let phi = Lowered::new(sentence, model)?;
    let rec = match decide_lowered(req.engine, req.milp, model, &phi, target) {
        Ok(rec) => rec,
        Err(RunError::TimedOut(why)) => {
            r.results = json!({ "spec": sentence.to_string(), "system": target.describe(m), "reason": why });
            r.stopped_at_deadline(&why);
            return Ok(r);
        }
        Err(e) => return Err(e),
    };
    r.verdict = Some(Verdict::from_bool(rec.holds));
    check_lines(&mut r, sentence, &rec);
    let mut results = check_results(sentence, target, &rec);
    if req.counts {
        let k = sentence.depth();
        let table = counts_table(model, target, m, k, &mut results)?;
        r.line("");
        r.text.push_str(&table.render(TableFormat::Text));
    }
    r.results = Value::Object(results);
    r.witness = witness_json(&rec);
    r.line("");
    for (k, v) in check_stats(&rec) {
        r.line(format!("{k}: {v}"));
        r.stat(&k, v);
    }
    r.line(format!("time: {:.3} s", rec.time_s));
    r.stat("time_s", rec.time_s);
    Ok(r)
}

/// The system `nis check` decides: M_ab(m), M(N), or M(0) when the model
/// has no parameterised template (the fixed agents are the system).
fn check_target(
    model: &Model,
    agents: Option<usize>,
    abstract_system: bool,
) -> Result<Target, RunError> {
    if abstract_system {
        return Ok(Target::Abstract);
    }
    let n = match (agents, model.parameterised) {
        (Some(n), _) => n,
        (None, false) => 0,
        (None, true) => {
            return Err(RunError::input(
                "give the number of agents: --agents N (or --abstract)",
            ))
        }
    };
    Ok(Target::Concrete { agents: n })
}

/// The verdict's lines of `nis check` and the witness's text.
fn check_lines(r: &mut Report, sentence: &Sentence, rec: &CheckRecord) {
    let m = sentence.agents();
    r.line(format!(
        "{}: {} {} phi[{m}] = {}",
        yes_no(rec.holds).to_uppercase(),
        rec.model,
        if rec.holds { "|=" } else { "|/=" },
        sentence
    ));
    r.line(format!(
        "{} sentence, temporal depth {}, {} agents indexed; engine {}",
        sentence_results(sentence)["kind"]
            .as_str()
            .unwrap_or_default(),
        sentence.depth(),
        m,
        rec.engine
    ));
    if let Some(w) = &rec.witness {
        r.line("");
        r.text.push_str(&w.text());
    }
}

/// The JSON `results` of `nis check` (without the state counts).
fn check_results(
    sentence: &Sentence,
    target: Target,
    rec: &CheckRecord,
) -> serde_json::Map<String, Value> {
    let mut results = sentence_results(sentence);
    results.insert("system".into(), rec.model.clone().into());
    if let Target::Concrete { agents } = target {
        results.insert("agents".into(), agents.into());
    } else {
        results.insert("agents".into(), Value::Null);
    }
    results.insert("holds".into(), rec.holds.into());
    results.insert("engine".into(), rec.engine.into());
    results
}

fn counts_table(
    model: &Model,
    target: Target,
    m: usize,
    k: u32,
    results: &mut serde_json::Map<String, Value>,
) -> Result<Table, RunError> {
    match target {
        Target::Concrete { agents } => {
            let c = state_counts(model, agents, m, k)?;
            let mut t = Table::new(["depth", "states (counter repr.)", "global states"]);
            for (j, (a, b)) in c.iter().enumerate() {
                t.row([j.to_string(), a.to_string(), b.to_string()]);
            }
            results.insert(
                "states_per_depth".into(),
                c.iter()
                    .map(|x| x.1.to_string().parse::<u64>().unwrap_or(u64::MAX))
                    .collect::<Vec<_>>()
                    .into(),
            );
            results.insert(
                "counter_states_per_depth".into(),
                c.iter().map(|x| x.0).collect::<Vec<_>>().into(),
            );
            Ok(t)
        }
        Target::Abstract => {
            let c = abstract_state_counts(model, m, k)?;
            let mut t = Table::new(["depth", "abstract states"]);
            for (j, a) in c.iter().enumerate() {
                t.row([j.to_string(), a.to_string()]);
            }
            results.insert("abstract_states_per_depth".into(), c.clone().into());
            Ok(t)
        }
    }
}

/// `{k}` in a spec template becomes k.
pub fn instantiate(spec: &str, k: u32) -> String {
    spec.replace("{k}", &k.to_string())
}

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
    r.stat("pairs_visited", sim.pairs_visited);
    r.stat("abstract_states", ga.states.len());
    r.stat("concrete_states", gc.states.len());
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

/// The refusal of a verb that needs the parameterised template.
fn no_template(why: &str) -> RunError {
    RunError::input(format!(
        "the model declares no parameterised `agent` template (only named agents), so it {why}: check its fixed agents with `nis check MODEL --spec SPEC` without --agents"
    ))
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

fn verify_results(o: &VerifyOutcome) -> Value {
    json!({
        "spec": o.spec,
        "kind": o.kind.word(),
        "indexed": o.m,
        "depth": o.depth,
        "corollary": o.corollary,
        "holds_for_all_n": o.holds_for_all_n,
        "emergence_threshold": o.emergence_threshold,
        "abstract_holds": o.abstract_holds,
        "procedure": o.procedure.word(),
        "min_simulating_n": o.simulation.as_ref().and_then(|s| s.n),
        "simulation_cap": o.simulation.as_ref().map(|s| s.cap),
        "simulating_bound": o.bound.and_then(|b| (b.n != usize::MAX).then_some(b.n)),
        "branching": o.bound.map(|b| b.branching),
        "fails_from": o.fails_from,
        "conclusion": o.conclusion,
        "undetermined_reason": o.undetermined_reason,
        "checks": o.checks.iter().map(check_json).collect::<Vec<_>>(),
    })
}

fn checks_table(o: &VerifyOutcome) -> Table {
    let mut t = Table::new(["check", "engine", "verdict", "time"]);
    for c in &o.checks {
        t.row([
            c.model.clone(),
            c.engine.to_string(),
            yes_no(c.holds).to_string(),
            format!("{:.3} s", c.time_s),
        ]);
    }
    t
}

/// The verdict of `verify` (or the threshold of `emergence`) and how the
/// procedure reached it: corollary, kind, depth, simulation or bound.
fn verdict_lines(r: &mut Report, o: &VerifyOutcome, threshold_only: bool) {
    let verdict = match o.holds_for_all_n {
        Some(b) => Verdict::from_bool(b),
        None => Verdict::Unknown,
    };
    let threshold = match o.emergence_threshold {
        Some(t) => format!("{t}"),
        None if o.holds_for_all_n.is_none() || o.threshold_undetermined => "undetermined".into(),
        None => "none".into(),
    };
    if threshold_only {
        r.verdict = Some(if o.holds_for_all_n.is_none() || o.threshold_undetermined {
            Verdict::Unknown
        } else {
            Verdict::from_bool(o.emergence_threshold.is_some())
        });
        r.line(format!("emergence threshold: {threshold}  ({})", o.spec));
    } else {
        r.verdict = Some(verdict);
        let head = match o.holds_for_all_n {
            Some(true) => format!("HOLDS for every n >= {}", o.m),
            Some(false) => "VIOLATED for some n".to_string(),
            None => "UNKNOWN".to_string(),
        };
        r.line(format!(
            "{head}: {}; emergence threshold: {threshold}",
            o.spec
        ));
    }
    r.line(format!(
        "{}, {} sentence, m = {}, temporal depth b = {}",
        o.corollary,
        o.kind.word(),
        o.m,
        o.depth
    ));
    if let Some(s) = &o.simulation {
        match s.n {
            Some(n) => r.line(format!(
                "least n with M_ab({}) <=_{} M(n): {n}",
                o.m, o.depth
            )),
            None => r.line(format!(
                "no n <= {} with M_ab({}) <=_{} M(n)",
                s.cap, o.m, o.depth
            )),
        }
    }
    if let Some(b) = &o.bound {
        r.line(format!(
            "no simulation search: M_ab({m}) <=_{d} M(n) for every n >= n' = {} (B = {}, the zero-one agent's branching)",
            b.describe(o.m, o.depth),
            b.branching,
            m = o.m,
            d = o.depth
        ));
    }
}

/// The first sub-check's witness, shown with whose it is. A check's witness
/// shows that check's verdict (existential: a witness that it holds;
/// universal: a counterexample); when it does not show the run's verdict
/// (the abstraction's witness of a violated existential sentence), it says so.
fn witness_section(r: &mut Report, o: &VerifyOutcome, results: &mut Value) {
    let witnessed = o.checks.iter().find(|c| c.witness.is_some());
    let Some(c) = witnessed else {
        return;
    };
    let kind = if c.holds { "witness" } else { "counterexample" };
    let shows_verdict = o.holds_for_all_n == Some(c.holds);
    let about = if shows_verdict {
        String::new()
    } else {
        format!(
            "; it shows that {} {} phi[{}], not the verdict",
            c.model,
            if c.holds { "satisfies" } else { "violates" },
            o.m
        )
    };
    if let Some(w) = &c.witness {
        r.line("");
        r.line(format!("{} ({kind} of phi[{}]{about}):", c.model, o.m));
        r.text.push_str(&w.text());
    }
    r.witness = witness_json(c);
    results["witness_system"] = c.model.clone().into();
    results["witness_kind"] = kind.into();
    results["witness_shows_verdict"] = shows_verdict.into();
}

/// `mavis nis verify` (Corollaries 1 and 2).
pub fn verify_report(
    path: &Path,
    model: &Model,
    sentence: &Sentence,
    opts: &VerifyOptions,
    procedure: Option<Procedure>,
    ctx: &RunContext,
    threshold_only: bool,
) -> Result<Report, RunError> {
    if !model.parameterised {
        return Err(no_template("has no number of agents n to verify over"));
    }
    if sentence.kind() == Kind::Propositional && sentence.agents() == 0 {
        return Err(RunError::input("the sentence names no agent"));
    }
    let o = verify_using(model, sentence, opts, procedure, ctx)?;
    let mut r = Report::new(
        "nis",
        if threshold_only {
            "emergence"
        } else {
            "verify"
        },
    );
    r.model = model_ref(path, model);
    verdict_lines(&mut r, &o, threshold_only);
    r.line(o.conclusion.clone());
    if ctx.timed_out() {
        r.stat("timed_out", true);
        r.warnings
            .push("the time-out was reached: the sub-checks below are those completed".into());
    }
    r.line("");
    r.text.push_str(&checks_table(&o).render(TableFormat::Text));
    let mut results = verify_results(&o);
    witness_section(&mut r, &o, &mut results);
    r.results = results;
    effort_stats(&mut r, &o.checks);
    r.line(format!("time: {:.3} s", o.time_s));
    r.stat("time_s", o.time_s);
    r.stat("checks", o.checks.len());
    Ok(r)
}

/// HiGHS's work (`milp_nodes`, `milp_lp_iterations`) summed over the
/// sub-checks a MILP decider ran (first or second with `--engine both`), as
/// stats and text lines; absent when no MILP decider ran.
fn effort_stats(r: &mut Report, checks: &[CheckRecord]) {
    let efforts: Vec<_> = checks
        .iter()
        .filter_map(CheckRecord::milp_stats)
        .map(|s| s.sizes.solving.effort)
        .collect();
    if efforts.is_empty() {
        return;
    }
    let nodes: u64 = efforts.iter().map(|e| e.nodes).sum();
    let iterations: u64 = efforts.iter().map(|e| e.lp_iterations).sum();
    for (key, sum) in [("milp_nodes", nodes), ("milp_lp_iterations", iterations)] {
        r.line(format!("{key}: {sum}"));
        r.stat(key, sum);
    }
}
