//! `mavis robust solve`: sigma, the strategy and the bounds of an optimally
//! robust strategy (reachability), or the inflation radius with the two-mode
//! strategy (Buchi, generalised Buchi, parity).

use super::{bounds_json, jnum, load_model, num, worst_case_witness};
use crate::lang::Value;
use crate::report::TableFormat;
use crate::report::{Report, RunContext, RunError, Table, Verdict};
use crate::robust::front::{Automaton, Objective};
use crate::robust::outcome::{Bounds, SolveStats, WorstCase};
use crate::robust::parity::game::Game;
use crate::robust::read::pgsolver;
use crate::robust::{read::strategy, synth::clf, synth::omega, synth::reach};
use serde_json::{json, Map};
use std::path::Path;
use std::time::Instant;

/// Rows shown in text tables unless -v.
const SHOWN: usize = 60;

/// The states in the order of their names. A JSON object keeps its keys
/// sorted, and one built from keys already in order takes linear time, where
/// 10^6 inserts in state order would cost a search (and string comparisons)
/// each.
fn name_order(a: &Automaton) -> Vec<usize> {
    let mut order: Vec<usize> = (0..a.len()).collect();
    order.sort_unstable_by(|&p, &q| a.states[p].cmp(&a.states[q]));
    order
}

fn objective_word(a: &Automaton) -> &'static str {
    match a.objective {
        Objective::Reach(_) => "reach",
        Objective::Buchi(_) => "buchi",
        Objective::GenBuchi(_) => "gen-buchi",
        Objective::Parity(_) => "parity",
    }
}

fn push_table(r: &mut Report, title: &str, t: &Table, total: usize, ctx: &RunContext) {
    r.line(format!("\n{title}:"));
    r.text.push_str(&t.render(TableFormat::Text));
    if total > SHOWN && !ctx.verbose() {
        r.line(format!(
            "({} more rows; -v shows all, --format json has everything)",
            total - SHOWN
        ));
    }
}

/// What `solve` finds for the model's objective.
enum Solved {
    /// Reachability: the optimally robust strategy, its bounds, its
    /// worst-case outcome (replayed) and the control-Lyapunov check of the
    /// nominal cost-to-go.
    Reach {
        sol: reach::ReachSolution,
        bounds: Bounds,
        worst: WorstCase,
        lyapunov: clf::ClfCheck,
    },
    /// Buchi, generalised Buchi, parity: the least inflation radius with the
    /// two-mode strategy.
    Omega(omega::OmegaSolution),
    /// No inflation radius works: the objective cannot be won nominally.
    Unwinnable,
    /// The deadline stopped the solver (why).
    Stopped(String),
}

/// `mavis robust solve`: sigma, the strategy, opt*(q) per state (reachability), or the
/// inflation radius with the two-mode strategy (Buchi, generalised Buchi, parity).
/// `outputs`: where the reachability strategy goes, and the prefix of the
/// parity games' files (`--write-games`).
pub fn solve_report(
    path: &Path,
    set: Vec<(String, Value)>,
    max_sigma: Option<f64>,
    outputs: (Option<&Path>, Option<&Path>),
    ctx: &RunContext,
) -> Result<Report, RunError> {
    let (strategy_out, write_games) = outputs;
    let mut r = Report::new("robust", "solve");
    let t0 = Instant::now();
    let a = load_model(path, set, &mut r)?;
    let mut stats = SolveStats {
        parse_s: t0.elapsed().as_secs_f64(),
        states: a.len(),
        transitions: a.moves.total(),
        ..SolveStats::default()
    };
    ctx.stage(format!(
        "robust solve: {} states, {} objective",
        a.len(),
        objective_word(&a)
    ));
    if write_games.is_some() && !matches!(a.objective, Objective::Parity(_)) {
        return Err(RunError::input(format!(
            "--write-games: the objective is {}, and only a parity objective is solved by parity games",
            objective_word(&a)
        )));
    }
    let solved = decide(&a, ctx, write_games, &mut stats)?;
    if let (Solved::Reach { sol, .. }, Some(out)) = (&solved, strategy_out) {
        let text = strategy::write(&a, &sol.strategy);
        crate::report::output::write_file(out, text.as_bytes())?;
    }
    r.put_stats(&stats);
    render(&mut r, &a, &solved, max_sigma, ctx);
    Ok(r)
}

/// Solves the model's objective; the solver's time goes into `stats`.
/// With `write_games`, the k-th parity game solved goes to `PREFIX.k.pg`.
fn decide(
    a: &Automaton,
    ctx: &RunContext,
    write_games: Option<&Path>,
    stats: &mut SolveStats,
) -> Result<Solved, RunError> {
    let t1 = Instant::now();
    let Objective::Reach(f) = &a.objective else {
        let mut written = 0;
        let mut write = |g: &Game| match write_games {
            Some(prefix) => {
                written += 1;
                let mut name = prefix.as_os_str().to_owned();
                name.push(format!(".{written}.pg"));
                let text = pgsolver::write_game(g);
                crate::report::output::write_file(Path::new(&name), text.as_bytes())?;
                Ok(())
            }
            None => Ok(()),
        };
        // Counts the radii whose inflated game is solved (a binary search
        // for Buchi objectives, a scan upwards for parity).
        let radii = ctx.meter(crate::report::meter::Counting {
            label: "robust solve".into(),
            unit: "radii solved",
            level: None,
            total: None,
        });
        let solved = omega::solve_metered(a, (ctx.deadline(), &radii.meter()), &mut write);
        drop(radii);
        let solved = match solved {
            Err(RunError::TimedOut(why)) => Solved::Stopped(why),
            other => other?.map_or(Solved::Unwinnable, Solved::Omega),
        };
        stats.solve_s = Some(t1.elapsed().as_secs_f64());
        if let Solved::Omega(sol) = &solved {
            stats.radii = Some((sol.candidates, sol.solved));
        }
        return Ok(solved);
    };
    let sol = reach::solve(a, f);
    stats.solve_s = Some(t1.elapsed().as_secs_f64());
    let values = reach::strategy_values(a, f, &sol.strategy);
    let bound = sol.opt[a.init as usize];
    let achieved = values[a.init as usize];
    if (achieved - bound).abs() > 1e-9 * (1.0 + bound.abs()) {
        return Err(RunError::Internal(format!(
            "recovered strategy achieves {achieved}, not opt*(q0) = {bound}"
        )));
    }
    let worst = WorstCase::of(a, f, &sol.strategy, &values, bound)?;
    let bounds = Bounds {
        sigma: sol.sigma,
        bound,
        gamma_bar: sol.gamma_bar,
        nominal: reach::nominally_winning(a, f, &sol.strategy),
    };
    let lyapunov = clf::check(a, f, &clf::cost_to_go(a, f));
    Ok(Solved::Reach {
        sol,
        bounds,
        worst,
        lyapunov,
    })
}

/// The report of what `solve` found: the verdict (sigma within
/// `max_sigma`, and nominally winning for reachability) and the tables.
fn render(
    r: &mut Report,
    a: &Automaton,
    solved: &Solved,
    max_sigma: Option<f64>,
    ctx: &RunContext,
) {
    let mut results = Map::new();
    results.insert("objective".into(), objective_word(a).into());
    let limit = if ctx.verbose() { usize::MAX } else { SHOWN };
    let mut o = Out {
        r: &mut *r,
        results: &mut results,
        limit,
        ctx,
    };
    match solved {
        Solved::Stopped(why) => {
            o.r.stopped_at_deadline(&format!("{why} while solving the inflated games"));
            return;
        }
        Solved::Unwinnable => {
            o.r.verdict = Some(Verdict::Violated);
            o.r.line("violated: the objective cannot be won nominally at any inflation radius");
            results.insert("sigma".into(), serde_json::Value::Null);
            r.results = results.into();
            return;
        }
        Solved::Reach {
            sol,
            bounds,
            worst,
            lyapunov,
        } => {
            let ok = bounds.nominal && max_sigma.is_none_or(|m| sol.sigma <= m);
            reach_results(a, sol, bounds, ok, &mut o);
            worst_case_witness(
                o.r,
                a,
                &sol.dist,
                worst,
                "worst-case outcome of the strategy",
            );
            lyapunov_results(lyapunov, &mut o);
        }
        Solved::Omega(sol) => omega_results(a, sol, max_sigma, &mut o),
    }
    r.results = results.into();
    r.line(format!(
        "\n{} states, {} inputs, {} disturbances",
        a.len(),
        a.inputs.len(),
        a.disturbances.len() - 1
    ));
}

/// Where the parts of a `solve` report go.
struct Out<'a> {
    r: &'a mut Report,
    results: &'a mut Map<String, serde_json::Value>,
    /// Rows shown per table.
    limit: usize,
    ctx: &'a RunContext,
}

/// Reachability: the verdict, the bounds and the strategy's table.
fn reach_results(a: &Automaton, sol: &reach::ReachSolution, b: &Bounds, ok: bool, o: &mut Out) {
    o.r.verdict = Some(Verdict::from_bool(ok));
    o.r.line(format!(
        "{}: sigma = {} (opt*(q0) = {}, gamma-bar = {}); the strategy is {}nominally winning",
        if ok { "holds" } else { "violated" },
        num(b.sigma),
        num(b.bound),
        num(b.gamma_bar),
        if b.nominal { "" } else { "NOT " }
    ));
    if !b.nominal {
        o.r.warnings.push("the optimally robust strategy does not reach F nominally (robustness and nominal winning conflict here)".into());
    }
    o.results.extend(bounds_json(b));
    strategy_table(a, sol, o);
}

/// The strategy and bounds table, and their JSON (in name order).
fn strategy_table(a: &Automaton, sol: &reach::ReachSolution, o: &mut Out) {
    let mut t = Table::new(["state", "input", "opt*", "d(q,F)"]);
    let inputs_of = |q: usize| -> Vec<&str> {
        sol.strategy[q]
            .iter()
            .map(|&i| a.input_name(&a.moves[q][i]))
            .collect()
    };
    let order = name_order(a);
    let strat: Map<_, _> = order
        .iter()
        .map(|&q| (a.states[q].to_string(), json!(inputs_of(q))))
        .collect();
    let opt: Map<_, _> = order
        .iter()
        .map(|&q| (a.states[q].to_string(), jnum(sol.opt[q])))
        .collect();
    for q in 0..a.len().min(o.limit) {
        let inputs = inputs_of(q);
        t.row([
            a.states[q].to_string(),
            if inputs.is_empty() {
                "-".into()
            } else {
                inputs.join(",")
            },
            num(sol.opt[q]),
            num(sol.dist[q]),
        ]);
    }
    push_table(o.r, "strategy and bounds", &t, a.len(), o.ctx);
    o.results.insert("strategy".into(), strat.into());
    o.results.insert("opt".into(), opt.into());
}

/// The control-Lyapunov check of the nominal cost-to-go.
fn lyapunov_results(chk: &clf::ClfCheck, o: &mut Out) {
    o.r.line(format!(
        "\ncontrol Lyapunov function (nominal cost-to-go): c = {}, K = {}{}, sigma = K/c = {}{}",
        num(chk.c),
        num(chk.lipschitz),
        if chk.lipschitz_all_pairs {
            ""
        } else {
            " (over disturbance pairs)"
        },
        num(chk.sigma),
        chk.failure
            .as_ref()
            .map(|f| format!(" -- not a CLF: {f}"))
            .unwrap_or_default()
    ));
    o.results.insert("lyapunov".into(), json!({"c": jnum(chk.c), "K": jnum(chk.lipschitz), "sigma": jnum(chk.sigma), "all_pairs": chk.lipschitz_all_pairs, "failure": chk.failure}));
}

/// Omega-regular objectives: the verdict, the nominal plan and the recovery strategy.
fn omega_results(a: &Automaton, sol: &omega::OmegaSolution, max_sigma: Option<f64>, o: &mut Out) {
    let ok = max_sigma.is_none_or(|m| sol.sigma <= m);
    o.r.verdict = Some(Verdict::from_bool(ok));
    o.r.line(format!(
        "{}: sigma = {} (inflation radius r = {}, gamma-bar = {})",
        if ok { "holds" } else { "violated" },
        num(sol.sigma),
        num(sol.radius),
        num(sol.gamma_bar)
    ));
    let mut t = Table::new(["step", "state", "input", "part"]);
    let mut plan = Vec::new();
    for (i, &(q, j)) in sol.plan.iter().enumerate() {
        let part = if i < sol.cycle_start {
            "prefix"
        } else {
            "cycle"
        };
        let input = a.input_name(&a.moves[q as usize][j]);
        t.row([
            i.to_string(),
            a.states[q as usize].to_string(),
            input.to_string(),
            part.to_string(),
        ]);
        plan.push(json!({"state": a.states[q as usize], "input": input, "part": part}));
    }
    o.r.line("\nnominal mode (followed until a disturbance is observed):");
    o.r.text.push_str(&t.render(TableFormat::Text));
    let mut rec = Table::new(if sol.counters > 1 {
        vec!["state", "waiting for", "input"]
    } else {
        vec!["state", "input"]
    });
    let mut recj = Vec::new();
    let mut rows = 0;
    for (v, choice) in sol.recovery.iter().enumerate() {
        let Some(j) = choice else { continue };
        let (q, c) = (v / sol.counters, v % sol.counters);
        let input = a.input_name(&a.moves[q][*j]).to_string();
        if rows < o.limit {
            if sol.counters > 1 {
                rec.row([
                    a.states[q].to_string(),
                    format!("F{}", c + 1),
                    input.clone(),
                ]);
            } else {
                rec.row([a.states[q].to_string(), input.clone()]);
            }
        }
        rows += 1;
        recj.push(json!({"state": a.states[q], "counter": c, "input": input}));
    }
    push_table(
        o.r,
        "recovery mode (after a disturbance; wins the inflated objective)",
        &rec,
        rows,
        o.ctx,
    );
    o.results.insert("sigma".into(), jnum(sol.sigma));
    o.results.insert("radius".into(), jnum(sol.radius));
    o.results.insert("gamma_bar".into(), jnum(sol.gamma_bar));
    o.results.insert("plan".into(), plan.into());
    o.results
        .insert("cycle_start".into(), sol.cycle_start.into());
    o.results.insert("recovery".into(), recj.into());
    o.results.insert(
        "region_size".into(),
        sol.region.iter().filter(|&&b| b).count().into(),
    );
}
