//! `mavis nis check`: one sentence phi[m] on M(N), M_ab(m) or M(0).

use super::json::{check_stats, witness_json};
use super::{model_ref, text, yes_no};
use crate::nis::encode::MilpOptions;
use crate::nis::engine::{
    abstract_state_counts, admissible, state_counts, CheckRecord, Deciding, EngineChoice, Target,
};
use crate::nis::front::core::Lowered;
use crate::nis::front::formula::Sentence;
use crate::nis::front::model::Model;
use crate::report::{Report, RunError, Table, TableFormat, Verdict};
use serde_json::{json, Value};
use std::path::Path;

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
    /// Called with the report before the decider runs (model, system,
    /// sentence), for the deadline's backstop to print if the decider
    /// cannot be stopped in time (HiGHS's presolve does not look at the
    /// clock): the run then still says what it was deciding.
    pub started: &'a dyn Fn(Report),
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
    let mut head = r.clone();
    head.results = json!({ "spec": sentence.to_string(), "system": target.describe(m) });
    (req.started)(head);
    let rec = match Deciding::new(req.engine, req.milp, model).lowered(&phi, target) {
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
        r.text.push_str(&text::witness(w));
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
