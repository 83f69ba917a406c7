//! `mavis robust check`: the robustness bound of a given memoryless
//! reachability strategy on A restricted to it.

use super::{jnum, load_model, num, outcome_table};
use crate::lang::{Source, Value};
use crate::report::TableFormat;
use crate::report::{Report, RunContext, RunError, Verdict};
use crate::robust::model::Objective;
use crate::robust::{read::strategy, synth::reach};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// `mavis robust check`: the robustness bound of a given memoryless strategy on A|_S.
pub fn check_report(
    path: &Path,
    set: Vec<(String, Value)>,
    strategy_file: &Path,
    max_sigma: Option<f64>,
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let mut r = Report::new("robust", "check");
    let a = load_model(path, set, &mut r)?;
    let Objective::Reach(f) = &a.objective else {
        return Err(RunError::input(
            "`check` computes reachability bounds; the model's objective is not `reach`",
        ));
    };
    let src = Source::read(strategy_file).map_err(|e| RunError::reading(strategy_file, e))?;
    let s = strategy::parse(&src, &a)?;
    ctx.stage(format!(
        "robust check: the strategy's bounds on {} states",
        a.len()
    ));
    let t = Instant::now();
    let in_f = reach::membership(a.len(), f);
    // Every state S can reach must have an input unless it is in F or a dead end.
    let reach_s = reach::reachable_under(&a, &s);
    if let Some(q) =
        (0..a.len()).find(|&q| reach_s[q] && s[q].is_empty() && !in_f[q] && !a.moves[q].is_empty())
    {
        r.warnings.push(format!(
            "the strategy allows no input at reachable state `{}`: outcomes stop there",
            &a.states[q]
        ));
    }
    let values = reach::strategy_values(&a, f, &s);
    let bound = values[a.init as usize];
    let sigma = reach::sigma_of(bound, a.gamma_bar());
    let nominal = reach::nominally_winning(&a, f, &s);
    let trace = reach::worst_trace(&a, &s, &values);
    let closest = reach::replay_trace(&a, f, &s, &trace).map_err(RunError::Internal)?;
    if closest + 1e-9 < bound {
        return Err(RunError::Internal(
            "worst-case trace gets closer than the bound".into(),
        ));
    }
    r.stat("check_s", t.elapsed().as_secs_f64());
    let opt = reach::solve(&a, f).opt[a.init as usize];
    let ok = nominal && max_sigma.is_none_or(|m| sigma <= m);
    r.verdict = Some(Verdict::from_bool(ok));
    r.line(format!(
        "{}: the strategy's sigma = {} (bound {}, gamma-bar = {}); {}nominally winning; the optimum is {}",
        if ok { "holds" } else { "violated" },
        num(sigma),
        num(bound),
        num(a.gamma_bar()),
        if nominal { "" } else { "NOT " },
        num(opt)
    ));
    let (w, wj) = outcome_table(&a, &a.dist_to_set(f), &trace);
    r.line(format!(
        "\nworst-case outcome (closest approach {}):",
        num(closest)
    ));
    r.text.push_str(&w.render(TableFormat::Text));
    r.witness = Some(json!({"kind": "worst-case outcome", "closest": closest, "steps": wj}));
    r.results = json!({"sigma": jnum(sigma), "bound": jnum(bound), "optimal_bound": jnum(opt), "gamma_bar": jnum(a.gamma_bar()), "nominally_winning": nominal});
    Ok(r)
}
