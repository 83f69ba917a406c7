//! `mavis robust check`: the robustness bound of a given memoryless
//! reachability strategy on A restricted to it.

use super::{bounds_json, jnum, load_model, num, worst_case_witness};
use crate::lang::{Source, Value};
use crate::report::{Outcome, Report, RunContext, RunError, Verdict};
use crate::robust::front::{Automaton, Objective};
use crate::robust::outcome::{Bounds, CheckStats, WorstCase};
use crate::robust::{read::strategy, synth::reach};
use std::path::Path;
use std::time::Instant;

/// What `check` finds about a strategy, beside its verdict, worst-case
/// outcome and statistics.
struct StrategyCheck {
    bounds: Bounds,
    /// The optimum over all strategies.
    optimal_bound: f64,
    /// A reachable state where the strategy allows no input although the
    /// state has moves and is not a target (outcomes stop there).
    stranded: Option<usize>,
}

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
    let (found, outcome) = decide(&a, f, &s, max_sigma)?;
    render(&mut r, &a, f, &found, &outcome);
    Ok(r)
}

/// The strategy's bounds, checked: its verdict (nominally winning, and
/// sigma within `max_sigma`) and its worst-case outcome, replayed.
fn decide(
    a: &Automaton,
    f: &[u32],
    s: &reach::Strategy,
    max_sigma: Option<f64>,
) -> Result<(StrategyCheck, Outcome<WorstCase, CheckStats>), RunError> {
    let t = Instant::now();
    let in_f = reach::membership(a.len(), f);
    let reach_s = reach::reachable_under(a, s);
    let stranded =
        (0..a.len()).find(|&q| reach_s[q] && s[q].is_empty() && !in_f[q] && !a.moves[q].is_empty());
    let values = reach::strategy_values(a, f, s);
    let bound = values[a.init as usize];
    let bounds = Bounds {
        sigma: reach::sigma_of(bound, a.gamma_bar()),
        bound,
        gamma_bar: a.gamma_bar(),
        nominal: reach::nominally_winning(a, f, s),
    };
    let worst = WorstCase::of(a, f, s, &values, bound)?;
    let stats = CheckStats {
        check_s: t.elapsed().as_secs_f64(),
    };
    let optimal_bound = reach::solve(a, f).opt[a.init as usize];
    let holds = bounds.nominal && max_sigma.is_none_or(|m| bounds.sigma <= m);
    let found = StrategyCheck {
        bounds,
        optimal_bound,
        stranded,
    };
    Ok((found, Outcome::decided(holds, Some(worst), stats)))
}

fn render(
    r: &mut Report,
    a: &Automaton,
    f: &[u32],
    c: &StrategyCheck,
    outcome: &Outcome<WorstCase, CheckStats>,
) {
    if let Some(q) = c.stranded {
        r.warnings.push(format!(
            "the strategy allows no input at reachable state `{}`: outcomes stop there",
            &a.states[q]
        ));
    }
    r.put_stats(&outcome.stats);
    r.verdict = Some(outcome.verdict);
    let b = &c.bounds;
    r.line(format!(
        "{}: the strategy's sigma = {} (bound {}, gamma-bar = {}); {}nominally winning; the optimum is {}",
        if outcome.verdict == Verdict::Holds { "holds" } else { "violated" },
        num(b.sigma),
        num(b.bound),
        num(b.gamma_bar),
        if b.nominal { "" } else { "NOT " },
        num(c.optimal_bound)
    ));
    if let Some(worst) = &outcome.witness {
        worst_case_witness(r, a, &a.dist_to_set(f), worst, "worst-case outcome");
    }
    let mut results = bounds_json(b);
    results.insert("optimal_bound".into(), jnum(c.optimal_bound));
    r.results = results.into();
}
