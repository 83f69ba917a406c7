//! `mavis swarm check`: concrete sizes, the abstraction (for all sizes) and
//! the cutoff, with verdicts, witnesses and the report.

use super::concrete::Concrete;
use super::counting::{check_deterministic, Counting};
use super::engine::{self, Phases, Sem, Values};
use super::mdp::{Mdp, Stop};
use super::model::GlobalVar;
use super::props::{Opt, Path, Properties, Property};
use super::syntax::ActionType;
use super::{load, load_props, Inputs, Loaded};
use crate::lang::{num, Rat};
use crate::report::{Expired, Report, RunContext, RunError, Table, TableFormat, Verdict};
use serde_json::{json, Value as Json};
use std::time::Instant;

/// How to check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Agents per template for a concrete check (one number applies to all).
    pub agents: Option<Vec<usize>>,
    /// For all sizes, by the counting abstraction at this threshold (1 = set abstraction).
    pub threshold: Option<u32>,
    pub exact: bool,
    pub witness: bool,
    pub max_states: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            agents: None,
            threshold: None,
            exact: false,
            witness: false,
            max_states: 30_000_000,
        }
    }
}

/// The most agents (over all templates) a concrete system may have: each is
/// a field of every state, so past this the states alone outgrow memory.
pub const MAX_AGENTS: usize = 100_000;

/// The largest `--threshold` (counts are fields of every abstract state).
pub const MAX_THRESHOLD: u32 = 1 << 16;

/// Number of initial abstract states: every count in `1..=t` per template.
pub fn initial_abstract_states(t: u32, templates: usize) -> u128 {
    (t as u128).saturating_pow(templates as u32)
}

/// Refuses a threshold of 0 or over [`MAX_THRESHOLD`] (exit 2) and one whose
/// initial states alone exceed `max_states` (exit 3, before allocating them).
pub fn check_threshold(t: u32, templates: usize, max_states: usize) -> Result<(), RunError> {
    if t == 0 {
        return Err(RunError::input(
            "--threshold must be at least 1 (1 is the set abstraction)",
        ));
    }
    if t > MAX_THRESHOLD {
        return Err(RunError::input(format!(
            "--threshold {t} is over the limit of {MAX_THRESHOLD}"
        )));
    }
    let init = initial_abstract_states(t, templates);
    if init > max_states as u128 {
        return Err(RunError::Limit(format!(
            "the abstraction at threshold {t} has {init} initial states, more than --max-states {max_states}"
        )));
    }
    Ok(())
}

/// Agents per template, from `--agents`.
pub fn counts_for(l: &Loaded, agents: &[usize]) -> Result<Vec<usize>, RunError> {
    let nt = l.model.templates.len();
    let counts = match agents.len() {
        1 => vec![agents[0]; nt],
        n if n == nt => agents.to_vec(),
        n => {
            return Err(RunError::input(format!(
                "--agents gives {n} numbers but the model has {nt} templates"
            )))
        }
    };
    if counts.contains(&0) {
        return Err(RunError::input("every template needs at least one agent"));
    }
    let total = counts.iter().fold(0usize, |a, &n| a.saturating_add(n));
    if total > MAX_AGENTS {
        return Err(RunError::input(format!(
            "--agents asks for {total} agents; the limit is {MAX_AGENTS} (every agent is a field of every state)"
        )));
    }
    Ok(counts)
}

/// Concrete agents a property needs per template (agents 1..j stay concrete when j is named).
pub fn named_agents(l: &Loaded, refs: &[GlobalVar]) -> Vec<usize> {
    let mut out = vec![0; l.model.templates.len()];
    for r in refs {
        if let GlobalVar::Agent {
            template, agent, ..
        } = r
        {
            out[*template] = out[*template].max(agent + 1);
        }
    }
    out
}

/// The refs with Definition 15's markers appended: (starting, env mode).
fn with_phase_refs(l: &Loaded, refs: &[GlobalVar]) -> Vec<GlobalVar> {
    let mut r = refs.to_vec();
    if l.model.faulty_fraction.is_some() {
        let mode = l
            .model
            .env
            .vars
            .iter()
            .position(|v| v.name == "mode")
            .expect("added with Definition 15");
        r.push(GlobalVar::Starting);
        r.push(GlobalVar::Env { var: mode });
    }
    r
}

/// One explored model with the truth of every formula.
struct Explored {
    mdp: Mdp,
    truth: Vec<Vec<Vec<bool>>>,
    phases: Option<Phases>,
    build_s: f64,
}

fn deadline(ctx: &RunContext) -> Option<Instant> {
    ctx.deadline().at()
}

fn explore_and_label(
    l: &Loaded,
    sem: &Sem,
    props: &Properties,
    exact: bool,
    max_states: usize,
    ctx: &RunContext,
) -> Result<Explored, Stop> {
    explore_and_label_to(l, sem, props, exact, max_states, ctx, None)
}

fn explore_and_label_to(
    l: &Loaded,
    sem: &Sem,
    props: &Properties,
    exact: bool,
    max_states: usize,
    ctx: &RunContext,
    depth: Option<usize>,
) -> Result<Explored, Stop> {
    let t0 = Instant::now();
    ctx.stage(match depth {
        None => "swarm: exploring the reachable states".to_string(),
        Some(d) => format!("swarm: exploring the states up to depth {d}"),
    });
    let mdp = match depth {
        None => engine::build(sem, exact, max_states, deadline(ctx))?,
        Some(d) => engine::build_to_depth(sem, exact, max_states, deadline(ctx), d)?,
    };
    let build_s = t0.elapsed().as_secs_f64();
    ctx.stage(format!(
        "swarm: {} states explored in {build_s:.3} s; labelling",
        mdp.num_states()
    ));
    let refs = with_phase_refs(l, &props.refs);
    let mut truth = Vec::new();
    for p in &props.props {
        truth.push(
            engine::evaluate_formulas(sem, &mdp, &l.model, &refs, &engine::path_formulas(&p.path))
                .truth,
        );
    }
    let phases = l.model.faulty_fraction.as_ref().map(|_| {
        let k = props.refs.len();
        let starting_f = crate::lang::TExpr {
            kind: crate::lang::TKind::Var(k),
            ty: crate::lang::Ty::Bool,
            span: Default::default(),
        };
        let mode0 = crate::lang::TExpr {
            kind: crate::lang::TKind::Binary(
                crate::lang::BinOp::Eq,
                Box::new(crate::lang::TExpr {
                    kind: crate::lang::TKind::Var(k + 1),
                    ty: crate::lang::Ty::Int,
                    span: Default::default(),
                }),
                Box::new(crate::lang::TExpr {
                    kind: crate::lang::TKind::Const(crate::lang::Value::Num(num::int(0))),
                    ty: crate::lang::Ty::Int,
                    span: Default::default(),
                }),
            ),
            ty: crate::lang::Ty::Bool,
            span: Default::default(),
        };
        let mut t =
            engine::evaluate_formulas(sem, &mdp, &l.model, &refs, &[&starting_f, &mode0]).truth;
        let before = t.pop().expect("two formulas");
        let starting = t.pop().expect("two formulas");
        Phases { starting, before }
    });
    Ok(Explored {
        mdp,
        truth,
        phases,
        build_s,
    })
}

pub fn stop_message(s: &Stop) -> String {
    match s {
        Stop::StateLimit(n) => format!("more than {n} states (raise --max-states)"),
        Stop::Memory(why) => format!("{why}; the system is too large to explore"),
        Stop::TimedOut(n) => format!("the time-out was reached after {n} states were explored"),
    }
}

/// A property left undecided, with the reason.
fn unknown_outcome(p: &Property, reason: &str) -> Outcome {
    Outcome {
        text: p.text.clone(),
        verdict: Some(Verdict::Unknown),
        result: format!("unknown: {reason}"),
        json: json!({"property": p.text, "verdict": "unknown", "reason": reason}),
    }
}

/// The properties from the `done`-th on, left undecided by the deadline.
fn unknown_from(report: &mut Report, props: &Properties, done: usize, e: Expired) -> Vec<Outcome> {
    let reason = format!("{e} before this property was computed");
    report.warnings.push(reason.clone());
    report.stat("timed_out", true);
    props.props[done..]
        .iter()
        .map(|p| unknown_outcome(p, &reason))
        .collect()
}

fn show(f: f64, e: Option<&Rat>) -> String {
    match e {
        Some(e) => format!("{} ({f})", num::display(e)),
        None => format!("{f}"),
    }
}

/// Runs `check`.
pub fn check(inputs: &Inputs, opts: &CheckOptions, ctx: &RunContext) -> Result<Report, RunError> {
    let mut l = load(inputs)?;
    let props = load_props(inputs, &mut l)?;
    let mut report = Report::new("swarm", "check");
    report.model = crate::report::ModelRef::from_path(&inputs.model).ok();
    if l.model.faulty {
        let flags = if l.model.track_flags {
            "tracked"
        } else {
            "projected away (nothing reads them; --fault-flags keeps them)"
        };
        report.stat("fault_flags", flags);
    }
    if opts.exact && opts.threshold.is_some() && l.model.faulty_fraction.is_some() {
        return Err(RunError::input("--exact with --faulty-fraction needs a concrete size (--agents n): the abstract initialisation phase has cycles"));
    }
    let results = match (&opts.agents, opts.threshold) {
        (Some(a), None) => check_concrete(&l, &props, &counts_for(&l, a)?, opts, ctx, &mut report)?,
        (None, Some(t)) => check_abstract(&l, &props, t, opts, ctx, &mut report)?,
        (Some(_), Some(_)) => {
            return Err(RunError::input(
                "give either --agents n or --abstract, not both",
            ))
        }
        (None, None) => {
            return Err(RunError::input(
                "give --agents n (a concrete size) or --abstract (all sizes)",
            ))
        }
    };
    finish(&mut report, results);
    if ctx.timed_out() && !report.stats.contains_key("timed_out") {
        // The cutoff and the concrete sizes of an undecided abstract bound
        // stop quietly at the deadline: say so.
        report.stat("timed_out", true);
        report.warnings.push("the time-out was reached".into());
    }
    Ok(report)
}

/// Per-property outcome for the report.
struct Outcome {
    text: String,
    verdict: Option<Verdict>,
    result: String,
    json: Json,
}

fn finish(report: &mut Report, outcomes: Vec<Outcome>) {
    let verdicts: Vec<Verdict> = outcomes.iter().filter_map(|o| o.verdict).collect();
    report.verdict = if verdicts.contains(&Verdict::Violated) {
        Some(Verdict::Violated)
    } else if verdicts.contains(&Verdict::Unknown) {
        Some(Verdict::Unknown)
    } else if verdicts.is_empty() {
        None
    } else {
        Some(Verdict::Holds)
    };
    let first = match (&report.verdict, outcomes.len()) {
        (_, 1) => format!("{}: {}", outcomes[0].text, outcomes[0].result),
        (Some(v), n) => format!("{} ({n} properties)", v.word()),
        (None, n) => format!("{n} properties computed"),
    };
    let mut text = first + "\n";
    let mut t = Table::new(["property", "result"]);
    for o in &outcomes {
        t.row([o.text.clone(), o.result.clone()]);
    }
    text.push('\n');
    text.push_str(&t.render(TableFormat::Text));
    report.text = text + &std::mem::take(&mut report.text);
    report.results =
        json!({ "properties": outcomes.into_iter().map(|o| o.json).collect::<Vec<_>>() });
}

fn verdict_of(prop: &Property, f: f64, e: Option<&Rat>) -> Option<Verdict> {
    engine::meets(prop, f, e).map(Verdict::from_bool)
}

fn check_concrete(
    l: &Loaded,
    props: &Properties,
    counts: &[usize],
    opts: &CheckOptions,
    ctx: &RunContext,
    report: &mut Report,
) -> Result<Vec<Outcome>, RunError> {
    let sem = Sem::Concrete(Concrete::new(&l.model, &l.sys, counts));
    if let Sem::Concrete(c) = &sem {
        for r in &props.refs {
            if let GlobalVar::Agent {
                template, agent, ..
            } = r
            {
                if c.agent_index(*template, *agent).is_none() {
                    return Err(RunError::input(format!(
                        "a label or property names agent {} of template {} but --agents gives {}",
                        agent + 1,
                        template + 1,
                        counts[*template]
                    )));
                }
            }
        }
    }
    let ex = match explore_and_label(l, &sem, props, opts.exact, opts.max_states, ctx) {
        Ok(ex) => ex,
        Err(stop) => return Ok(stopped_exploring(report, props, &stop, "the system")),
    };
    let t1 = Instant::now();
    let rounds = counts.iter().sum::<usize>() + 2;
    let mut out = Vec::new();
    for (i, p) in props.props.iter().enumerate() {
        let v = match engine::compute(
            &ex.mdp,
            p,
            &ex.truth[i],
            opts.exact,
            opts.witness,
            ex.phases.as_ref(),
            rounds,
            ctx.deadline(),
            ctx.threads,
        ) {
            Ok(v) => v,
            Err(e) => {
                out.extend(unknown_from(report, props, i, e));
                break;
            }
        };
        let (f, e) = (v.f64s[0], v.exact.as_ref().map(|e| e[0].clone()));
        let verdict = verdict_of(p, f, e.as_ref());
        if opts.witness {
            witness(l, &sem, &ex.mdp, p, &ex.truth[i], &v, report)?;
        }
        let result = match verdict {
            Some(vd) => format!("{} ({} = {})", vd.word(), p.opt.word(), show(f, e.as_ref())),
            None => show(f, e.as_ref()),
        };
        out.push(Outcome {
            text: p.text.clone(),
            verdict,
            result,
            json: json!({"property": p.text, "mode": "concrete", "agents": counts, "value": f, "exact": e.as_ref().map(num::display), "verdict": verdict}),
        });
    }
    sizes(report, &ex, t1.elapsed().as_secs_f64(), ctx.quiet());
    Ok(out)
}

/// Every property undecided because exploring `what` stopped; the states
/// explored so far go into the statistics.
fn stopped_exploring(
    report: &mut Report,
    props: &Properties,
    stop: &Stop,
    what: &str,
) -> Vec<Outcome> {
    let reason = format!("{what}: {}", stop_message(stop));
    if let Stop::TimedOut(n) = stop {
        report.stat("states_explored", *n as u64);
        report.stat("timed_out", true);
    }
    report.warnings.push(reason.clone());
    props
        .props
        .iter()
        .map(|p| unknown_outcome(p, &reason))
        .collect()
}

/// Records the sizes and timings; the human line too unless `-q` (a note,
/// not the answer: `-q` keeps the answer only).
fn sizes(report: &mut Report, ex: &Explored, check_s: f64, quiet: bool) {
    report.stat("states", ex.mdp.num_states());
    report.stat("choices", ex.mdp.num_choices());
    report.stat("transitions", ex.mdp.num_transitions());
    report.stat("build_s", ex.build_s);
    report.stat("check_s", check_s);
    if quiet {
        return;
    }
    report.text.push_str(&format!(
        "\n{} states, {} choices, {} transitions; built in {:.3} s, checked in {:.3} s\n",
        ex.mdp.num_states(),
        ex.mdp.num_choices(),
        ex.mdp.num_transitions(),
        ex.build_s,
        check_s
    ));
}

fn witness(
    l: &Loaded,
    sem: &Sem,
    mdp: &Mdp,
    p: &Property,
    truth: &[Vec<bool>],
    v: &Values,
    report: &mut Report,
) -> Result<(), RunError> {
    let Path::Until { phi, steps, .. } = &p.path else {
        report.warnings.push(format!(
            "{}: witnesses are given for F and U properties",
            p.text
        ));
        return Ok(());
    };
    let Some(path) = &v.witness else {
        report.text.push_str(&format!(
            "\nno witness for {}: the target is unreachable within {steps} steps\n",
            p.text
        ));
        return Ok(());
    };
    let all = vec![true; mdp.num_states()];
    let allowed = if phi.is_some() { &truth[1] } else { &all };
    let prob = engine::replay(sem, mdp, path, &truth[0], allowed, *steps)
        .map_err(|e| RunError::Internal(format!("the witness does not replay: {e}")))?;
    let mut cols = vec!["step".to_string(), "action".into(), "p".into()];
    cols.extend(sem.columns());
    let mut t = Table::new(cols);
    let mut first = vec!["0".to_string(), "(initial)".into(), "".into()];
    first.extend(sem.describe_state(mdp.states.get(mdp.initial[0])));
    t.row(first);
    let mut steps_json = Vec::new();
    for (i, s) in path.iter().enumerate() {
        let action = sem.describe_label(mdp.choice_label[s.choice]);
        let state = sem.describe_state(mdp.states.get(s.state));
        let mut row = vec![(i + 1).to_string(), action.clone(), format!("{}", s.prob)];
        row.extend(state.clone());
        t.row(row);
        steps_json
            .push(json!({"step": i + 1, "action": action, "probability": s.prob, "state": state}));
    }
    // The step-dependent scheduler: the optimal choice at each step along the path.
    report.text.push_str(&format!(
        "\nmost likely witness of {} under the optimal step-dependent scheduler (probability {prob:e}, {} steps, replayed):\n",
        p.text,
        path.len()
    ));
    report.text.push_str(&t.render(TableFormat::Text));
    let _ = l;
    report.witness = Some(
        json!({"property": p.text, "probability": prob, "columns": sem.columns(), "steps": steps_json}),
    );
    Ok(())
}

/// Whether the cutoff argument applies: no global-synchronous actions.
pub fn cutoff_applies(l: &Loaded) -> bool {
    !l.model
        .actions
        .iter()
        .any(|a| a.ty == ActionType::GlobalSynchronous)
}

/// Initial counts per template: `1..=top` (and 0 when agents stay concrete).
pub fn init_counts(named: &[usize], top: u32) -> Vec<Vec<u32>> {
    named
        .iter()
        .map(|&m| ((if m > 0 { 0 } else { 1 })..=top).collect())
        .collect()
}

fn check_abstract(
    l: &Loaded,
    props: &Properties,
    t: u32,
    opts: &CheckOptions,
    ctx: &RunContext,
    report: &mut Report,
) -> Result<Vec<Outcome>, RunError> {
    check_threshold(t, l.model.templates.len(), opts.max_states)?;
    check_deterministic(&l.model, &l.sys).map_err(RunError::input)?;
    let named = named_agents(l, &props.refs);
    let sem = Sem::Counting(Counting::new(
        &l.model,
        &l.sys,
        &named,
        t,
        init_counts(&named, t),
    ));
    let ex = match explore_and_label(l, &sem, props, opts.exact, opts.max_states, ctx) {
        Ok(ex) => ex,
        Err(stop) => {
            return Ok(abstraction_stopped(
                l, props, &stop, opts, ctx, &named, report,
            ))
        }
    };
    let answers = AbstractAnswers {
        l,
        props,
        opts,
        ctx,
        named: &named,
        t,
    };
    let t1 = Instant::now();
    let mut out = Vec::new();
    for (i, p) in props.props.iter().enumerate() {
        let v = match engine::compute(
            &ex.mdp,
            p,
            &ex.truth[i],
            opts.exact,
            opts.witness,
            ex.phases.as_ref(),
            0,
            ctx.deadline(),
            ctx.threads,
        ) {
            Ok(v) => v,
            Err(e) => {
                out.extend(unknown_from(report, props, i, e));
                break;
            }
        };
        if opts.witness && ex.mdp.initial.len() == 1 {
            witness(l, &sem, &ex.mdp, p, &ex.truth[i], &v, report)?;
        }
        out.push(answers.outcome(p, &v));
    }
    sizes(report, &ex, t1.elapsed().as_secs_f64(), ctx.quiet());
    Ok(out)
}

/// What the answers of one abstract check read: the model, the
/// properties, the options, the named agents and the threshold.
struct AbstractAnswers<'a> {
    l: &'a Loaded,
    props: &'a Properties,
    opts: &'a CheckOptions,
    ctx: &'a RunContext,
    named: &'a [usize],
    t: u32,
}

impl AbstractAnswers<'_> {
    /// The answer for property `p` from its values `v` on the abstraction:
    /// proven by the abstract bound, else by the cutoff where it applies,
    /// else unknown with the concrete values.
    fn outcome(&self, p: &Property, v: &Values) -> Outcome {
        let AbstractAnswers {
            l,
            props,
            opts,
            ctx,
            t,
            ..
        } = *self;
        let (f, e, _) = engine::over_initials(v, p.opt);
        let side = if p.opt == Opt::Max {
            "sup over n <="
        } else {
            "inf over n >="
        };
        let mut j = json!({"property": p.text, "mode": "abstract", "threshold": t, "abstract_bound": f, "abstract_bound_exact": e.as_ref().map(num::display)});
        let proven = engine::meets(p, f, e.as_ref());
        let (verdict, result) = match proven {
            None => (
                None,
                format!("{} {side} {}", p.opt.word(), show(f, e.as_ref())),
            ),
            Some(true) => (
                Some(Verdict::Holds),
                format!(
                    "HOLDS for every size ({} {side} {})",
                    p.opt.word(),
                    show(f, e.as_ref())
                ),
            ),
            Some(false) => match cutoff(l, props, p, opts, ctx, self.named) {
                Some((cf, ce, per_n)) => {
                    j["cutoff"] = json!({"value": cf, "exact": ce.as_ref().map(num::display), "per_n": per_n});
                    let v = verdict_of(p, cf, ce.as_ref()).expect("bounded");
                    (Some(v), format!("{} for every size by the cutoff (exact {} over n = {}; abstract bound {})", v.word(), p.opt.word(), show(cf, ce.as_ref()), show(f, e.as_ref())))
                }
                None => {
                    let conc = concrete_values(l, props, p, opts, ctx);
                    j["concrete"] = json!(conc
                        .iter()
                        .map(|(n, v)| json!({"agents": n, "value": v}))
                        .collect::<Vec<_>>());
                    let shown: Vec<String> =
                        conc.iter().map(|(n, v)| format!("n={n}: {v}")).collect();
                    (
                        Some(Verdict::Unknown),
                        format!(
                            "UNKNOWN: abstract {} {side} {} does not prove it; concrete {}",
                            p.opt.word(),
                            show(f, e.as_ref()),
                            shown.join(", ")
                        ),
                    )
                }
            },
        };
        j["verdict"] = json!(verdict);
        Outcome {
            text: p.text.clone(),
            verdict,
            result,
            json: j,
        }
    }
}

/// The abstraction could not be built: each property is answered by the
/// cutoff where it applies, else left unknown with the reason.
fn abstraction_stopped(
    l: &Loaded,
    props: &Properties,
    stop: &Stop,
    opts: &CheckOptions,
    ctx: &RunContext,
    named: &[usize],
    report: &mut Report,
) -> Vec<Outcome> {
    let mut out = stopped_exploring(report, props, stop, "the abstraction");
    if matches!(stop, Stop::TimedOut(_)) {
        return out;
    }
    for (i, p) in props.props.iter().enumerate() {
        let Some((cf, ce, per_n)) = cutoff(l, props, p, opts, ctx, named) else {
            continue;
        };
        let verdict = verdict_of(p, cf, ce.as_ref());
        let head = verdict.map_or(String::new(), |v| format!("{} for every size: ", v.word()));
        out[i] = Outcome {
            text: p.text.clone(),
            verdict,
            result: format!(
                "{head}{} over every n = {} by the cutoff (the abstraction: {})",
                p.opt.word(),
                show(cf, ce.as_ref()),
                stop_message(stop)
            ),
            json: json!({"property": p.text, "mode": "abstract", "abstraction": stop_message(stop), "cutoff": {"value": cf, "exact": ce.as_ref().map(num::display), "per_n": per_n}, "verdict": verdict}),
        };
    }
    out
}

/// The cutoff (docs/swarm.md): with only asynchronous and agent-environment
/// actions, h steps move at most h counted agents, so S(m + h) and every
/// larger size agree on an h-step property, and the exact symmetric
/// quotients of S(m+1..m+h) give the supremum and infimum over all n.
fn cutoff(
    l: &Loaded,
    props: &Properties,
    p: &Property,
    opts: &CheckOptions,
    ctx: &RunContext,
    named: &[usize],
) -> Option<(f64, Option<Rat>, Vec<Json>)> {
    if !cutoff_applies(l) || l.model.faulty_fraction.is_some() {
        return None;
    }
    let h = u32::try_from(p.path.steps()).ok()?;
    if initial_abstract_states(h.max(1), named.len()) > (opts.max_states / 4) as u128 {
        return None;
    }
    let one = Properties {
        props: vec![p.clone()],
        refs: props.refs.clone(),
    };
    let counts: Vec<Vec<u32>> = init_counts(named, h.max(1));
    let sem = Sem::Counting(Counting::new(&l.model, &l.sys, named, h.max(1) + 1, counts));
    let ex = explore_and_label_to(
        l,
        &sem,
        &one,
        opts.exact,
        opts.max_states / 4,
        ctx,
        Some(h as usize),
    )
    .ok()?;
    let v = engine::compute(
        &ex.mdp,
        p,
        &ex.truth[0],
        opts.exact,
        false,
        None,
        0,
        ctx.deadline(),
        ctx.threads,
    )
    .ok()?;
    let (f, e, _) = engine::over_initials(&v, p.opt);
    let per_n: Vec<Json> = v.f64s.iter().map(|x| json!(x)).collect();
    Some((f, e, per_n))
}

/// Pmax/Pmin on S(n) for n = 1, 2, 3 agents per template, as far as they fit.
fn concrete_values(
    l: &Loaded,
    props: &Properties,
    p: &Property,
    opts: &CheckOptions,
    ctx: &RunContext,
) -> Vec<(usize, f64)> {
    let named = named_agents(l, &props.refs);
    let mut out = Vec::new();
    for n in 1..=3usize {
        if named.iter().any(|&m| m > n) {
            continue;
        }
        let counts = vec![n; l.model.templates.len()];
        let sem = Sem::Concrete(Concrete::new(&l.model, &l.sys, &counts));
        let one = Properties {
            props: vec![p.clone()],
            refs: props.refs.clone(),
        };
        let Ok(ex) = explore_and_label(l, &sem, &one, false, opts.max_states / 10, ctx) else {
            break;
        };
        let Ok(v) = engine::compute(
            &ex.mdp,
            p,
            &ex.truth[0],
            false,
            false,
            ex.phases.as_ref(),
            n * counts.len() + 2,
            ctx.deadline(),
            ctx.threads,
        ) else {
            break;
        };
        out.push((n, v.f64s[0]));
    }
    out
}

/// A label's name and its truth at every state.
pub type LabelTruth = (String, Vec<bool>);

/// Explores a concrete (`counts`) or abstract model with its labels (for `export`, tests and benches).
pub fn explore_model(
    l: &Loaded,
    counts: Option<&[usize]>,
    threshold: u32,
    exact: bool,
    max_states: usize,
    deadline: crate::report::Deadline,
) -> Result<(Mdp, Vec<LabelTruth>), RunError> {
    let sem = match counts {
        Some(c) => Sem::Concrete(Concrete::new(&l.model, &l.sys, c)),
        None => {
            check_threshold(threshold, l.model.templates.len(), max_states)?;
            check_deterministic(&l.model, &l.sys).map_err(RunError::input)?;
            let named = named_agents(l, &l.model.label_refs);
            Sem::Counting(Counting::new(
                &l.model,
                &l.sys,
                &named,
                threshold,
                init_counts(&named, threshold),
            ))
        }
    };
    let mdp = match engine::build(&sem, exact, max_states, deadline.at()) {
        Ok(mdp) => mdp,
        Err(stop @ Stop::TimedOut(_)) => return Err(RunError::TimedOut(stop_message(&stop))),
        Err(stop) => return Err(RunError::Limit(stop_message(&stop))),
    };
    let formulas: Vec<&crate::lang::TExpr> = l.model.labels.iter().map(|(_, t)| t).collect();
    let truth =
        engine::evaluate_formulas(&sem, &mdp, &l.model, &l.model.label_refs, &formulas).truth;
    Ok((
        mdp,
        l.model
            .labels
            .iter()
            .map(|(n, _)| n.clone())
            .zip(truth)
            .collect(),
    ))
}
