//! What the concrete and the abstract checks of `mavis swarm check` share:
//! the options and size limits, exploring a model with the truth of its
//! formulas, the per-property outcomes and the witnesses.

use crate::lang::{num, Rat};
use crate::report::{Expired, Report, RunContext, RunError, Table, TableFormat, Verdict};
use crate::swarm::decide::mdp::{Mdp, Stop};
use crate::swarm::decide::property::{self, Phases, Sem, Values};
use crate::swarm::front::model::GlobalVar;
use crate::swarm::front::props::{Path, Properties, Property};
use crate::swarm::front::syntax::ActionType;
use crate::swarm::Loaded;
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
pub(super) fn with_phase_refs(l: &Loaded, refs: &[GlobalVar]) -> Vec<GlobalVar> {
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
pub(super) struct Explored {
    pub(super) mdp: Mdp,
    pub(super) truth: Vec<Vec<Vec<bool>>>,
    pub(super) phases: Option<Phases>,
    pub(super) build_s: f64,
}

impl Explored {
    /// The values of property `i` of `props` on this model, with the
    /// options of the check; `rounds` bounds the exact initialisation phase
    /// (Definition 16, with a faulty fraction; `property::compute`).
    pub(super) fn compute(
        &self,
        props: &Properties,
        i: usize,
        opts: &CheckOptions,
        ctx: &RunContext,
        rounds: usize,
    ) -> Result<Values, Expired> {
        property::compute(
            &self.mdp,
            &props.props[i],
            &self.truth[i],
            opts.exact,
            opts.witness,
            self.phases.as_ref(),
            rounds,
            ctx.deadline(),
            ctx.threads,
        )
    }
}

pub(super) fn deadline(ctx: &RunContext) -> Option<Instant> {
    ctx.deadline().at()
}

pub(super) fn explore_and_label(
    l: &Loaded,
    sem: &Sem,
    props: &Properties,
    exact: bool,
    max_states: usize,
    ctx: &RunContext,
) -> Result<Explored, Stop> {
    explore_and_label_to(l, sem, props, exact, max_states, ctx, None)
}

pub(super) fn explore_and_label_to(
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
        None => property::build(sem, exact, max_states, deadline(ctx))?,
        Some(d) => property::build_to_depth(sem, exact, max_states, deadline(ctx), d)?,
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
            property::evaluate_formulas(
                sem,
                &mdp,
                &l.model,
                &refs,
                &property::path_formulas(&p.path),
            )
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
            property::evaluate_formulas(sem, &mdp, &l.model, &refs, &[&starting_f, &mode0]).truth;
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
pub(super) fn unknown_outcome(p: &Property, reason: &str) -> Outcome {
    Outcome {
        text: p.text.clone(),
        verdict: Some(Verdict::Unknown),
        result: format!("unknown: {reason}"),
        json: json!({"property": p.text, "verdict": "unknown", "reason": reason}),
    }
}

/// The properties from the `done`-th on, left undecided by the deadline.
pub(super) fn unknown_from(
    report: &mut Report,
    props: &Properties,
    done: usize,
    e: Expired,
) -> Vec<Outcome> {
    let reason = format!("{e} before this property was computed");
    report.warnings.push(reason.clone());
    report.stat("timed_out", true);
    props.props[done..]
        .iter()
        .map(|p| unknown_outcome(p, &reason))
        .collect()
}

pub(super) fn show(f: f64, e: Option<&Rat>) -> String {
    match e {
        Some(e) => format!("{} ({f})", num::display(e)),
        None => format!("{f}"),
    }
}

/// Per-property outcome for the report.
pub(super) struct Outcome {
    pub(super) text: String,
    pub(super) verdict: Option<Verdict>,
    pub(super) result: String,
    pub(super) json: Json,
}

pub(super) fn verdict_of(prop: &Property, f: f64, e: Option<&Rat>) -> Option<Verdict> {
    property::meets(prop, f, e).map(Verdict::from_bool)
}

/// Every property undecided because exploring `what` stopped; the states
/// explored so far go into the statistics.
pub(super) fn stopped_exploring(
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
pub(super) fn sizes(report: &mut Report, ex: &Explored, check_s: f64, quiet: bool) {
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

pub(super) fn witness(
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
    let prob = property::replay(sem, mdp, path, &truth[0], allowed, *steps)
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
