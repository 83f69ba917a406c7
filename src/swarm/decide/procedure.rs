//! What every procedure of the swarm engine shares: the options and size
//! limits, the agents a property names, and exploring a model with the
//! truth of its formulas.

use super::mdp::{explore_settled, Mdp, Stop};
use super::property::{self, Phases, Sem, Values};
use super::reward::RewardVectors;
use super::reward_eval::evaluate_rewards;
use super::settle::Settle;
use crate::report::{Expired, RunContext, RunError};
use crate::swarm::front::load::Loaded;
use crate::swarm::front::model::GlobalVar;
use crate::swarm::front::props::Properties;
use crate::swarm::front::syntax::ActionType;
use crate::swarm::semantics::concrete::Concrete;
use crate::swarm::semantics::counting::{check_deterministic, Counting};
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
    /// The largest width of the certified interval of an unbounded property.
    pub precision: f64,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            agents: None,
            threshold: None,
            exact: false,
            witness: false,
            max_states: 30_000_000,
            precision: 1e-6,
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

/// One explored model with the truth of every formula.
pub struct Explored {
    pub mdp: Mdp,
    pub truth: Vec<Vec<Vec<bool>>>,
    pub phases: Option<Phases>,
    /// Per property, its reward structure's values (reward properties), or
    /// why they are refused (a negative reward).
    pub rewards: Vec<Option<Result<RewardVectors, String>>>,
    pub build_s: f64,
}

impl Explored {
    /// The values of property `i` of `props` on this model, with the
    /// options of the check; `rounds` bounds the exact initialisation phase
    /// (Definition 16, with a faulty fraction; `property::compute`); the
    /// states the iterations update go to `meter`.
    pub fn compute(
        &self,
        props: &Properties,
        i: usize,
        opts: &CheckOptions,
        (ctx, meter): (&RunContext, &crate::report::meter::Meter),
        rounds: usize,
    ) -> Result<Values, Expired> {
        let asked = property::Asked {
            mdp: &self.mdp,
            prop: &props.props[i],
            truth: &self.truth[i],
            rewards: self.reward(i),
            phases: self.phases.as_ref().map(|ph| (ph, rounds)),
        };
        let how = property::Numerics {
            exact: opts.exact,
            witness: opts.witness,
            threads: ctx.threads,
            precision: opts.precision,
        };
        property::compute(&asked, how, (ctx.deadline(), meter))
    }

    /// Property `i`'s reward values, when it is a reward property.
    pub fn reward(&self, i: usize) -> Option<&RewardVectors> {
        self.rewards.get(i)?.as_ref()?.as_ref().ok()
    }

    /// A refused reward structure: the first reason.
    pub fn reward_error(&self) -> Option<String> {
        self.rewards
            .iter()
            .flatten()
            .find_map(|r| r.as_ref().err().cloned())
    }
}

pub fn deadline(ctx: &RunContext) -> Option<Instant> {
    ctx.deadline().at()
}

pub fn explore_and_label(
    l: &Loaded,
    sem: &Sem,
    props: &Properties,
    exact: bool,
    max_states: usize,
    ctx: &RunContext,
) -> Result<Explored, Stop> {
    explore_and_label_to(l, sem, props, exact, max_states, ctx, None)
}

pub fn explore_and_label_to(
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
    let guard = ctx.meter(crate::report::meter::Counting {
        label: "swarm: exploring".into(),
        unit: "states",
        level: None,
        total: None,
    });
    let meter = guard.meter();
    let mdp = build_for_metered(
        l,
        sem,
        props,
        exact,
        max_states,
        (deadline(ctx), &meter),
        depth,
    )
    .inspect_err(|stop| {
        if matches!(stop, Stop::TimedOut(_)) {
            meter.timed_out();
        }
    })?;
    drop(guard);
    let build_s = t0.elapsed().as_secs_f64();
    ctx.stage(format!(
        "swarm: {} states explored in {build_s:.3} s; labelling",
        mdp.num_states()
    ));
    let refs = &props.refs;
    let mut truth = Vec::new();
    for p in &props.props {
        truth.push(
            property::evaluate_formulas(
                sem,
                &mdp,
                &l.model,
                refs,
                &property::path_formulas(&p.path),
            )
            .truth,
        );
    }
    let phases = props.phases.as_ref().map(|[starting, before]| {
        let mut t =
            property::evaluate_formulas(sem, &mdp, &l.model, refs, &[starting, before]).truth;
        let before = t.pop().expect("two formulas");
        let starting = t.pop().expect("two formulas");
        Phases { starting, before }
    });
    let rewards = reward_vectors(l, sem, &mdp, props, exact);
    Ok(Explored {
        mdp,
        truth,
        phases,
        rewards,
        build_s,
    })
}

/// Explores `sem` for `props` (`depth` steps deep, if given); when every
/// property is unbounded, nothing past the states that settle them
/// ([`Settle`]). `check` and `sweep` explore alike, so their values agree.
pub fn build_for(
    l: &Loaded,
    sem: &Sem,
    props: &Properties,
    exact: bool,
    max_states: usize,
    deadline: Option<Instant>,
    depth: Option<usize>,
) -> Result<Mdp, Stop> {
    let meter = crate::report::meter::Meter::none();
    build_for_metered(l, sem, props, exact, max_states, (deadline, &meter), depth)
}

/// [`build_for`], counting the states expanded on `meter` (the closure that
/// says which states are settled sees each expanded state once).
fn build_for_metered(
    l: &Loaded,
    sem: &Sem,
    props: &Properties,
    exact: bool,
    max_states: usize,
    (deadline, meter): (Option<Instant>, &crate::report::meter::Meter),
    depth: Option<usize>,
) -> Result<Mdp, Stop> {
    let mut settle = Settle::new(sem, &l.model, props);
    let mut settled = |s: &[u64]| {
        meter.add(1);
        settle.as_mut().is_some_and(|t| t.holds(s))
    };
    explore_settled(
        sem.semantics(),
        exact,
        max_states,
        deadline,
        depth,
        &mut settled,
    )
}

/// The meter of the checking phase: the states the value and interval
/// iterations update (a state's value recomputed, per bound), and as its
/// level the properties done of those given.
pub fn checking_meter(props: &Properties, ctx: &RunContext) -> crate::report::meter::MeterGuard {
    ctx.meter(crate::report::meter::Counting {
        label: match props.props.len() {
            1 => "swarm: checking 1 property".to_string(),
            n => format!("swarm: checking {n} properties"),
        },
        unit: "state updates",
        level: Some("properties done"),
        total: None,
    })
}

/// Per property, its reward structure's values (reward properties).
fn reward_vectors(
    l: &Loaded,
    sem: &Sem,
    mdp: &Mdp,
    props: &Properties,
    exact: bool,
) -> Vec<Option<Result<RewardVectors, String>>> {
    props
        .props
        .iter()
        .map(|p| {
            let r = &l.model.rewards[p.reward?];
            Some(evaluate_rewards(
                sem,
                mdp,
                &l.model,
                &l.model.label_refs,
                r,
                exact,
            ))
        })
        .collect()
}

pub fn stop_message(s: &Stop) -> String {
    match s {
        Stop::StateLimit(n) => format!("more than {n} states (raise --max-states)"),
        Stop::Memory(why) => format!("{why}; the system is too large to explore"),
        Stop::TimedOut(n) => format!("the time-out was reached after {n} states were explored"),
    }
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

/// A label's name and its truth at every state.
pub type LabelTruth = (String, Vec<bool>);

/// An explored model with its labels' truth and its reward structures'
/// values (for `export`, tests and benches).
pub struct ExploredModel {
    pub mdp: Mdp,
    pub labels: Vec<LabelTruth>,
    pub rewards: Vec<(String, RewardVectors)>,
}

/// Explores a concrete (`counts`) or abstract model with its labels and
/// reward structures; a reward refused (negative) is an input error.
pub fn explore_model(
    l: &Loaded,
    counts: Option<&[usize]>,
    threshold: u32,
    exact: bool,
    max_states: usize,
    deadline: crate::report::Deadline,
) -> Result<ExploredModel, RunError> {
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
    let mdp = match property::build(&sem, exact, max_states, deadline.at()) {
        Ok(mdp) => mdp,
        Err(stop @ Stop::TimedOut(_)) => return Err(RunError::TimedOut(stop_message(&stop))),
        Err(stop) => return Err(RunError::Limit(stop_message(&stop))),
    };
    let formulas: Vec<&crate::lang::TExpr> = l.model.labels.iter().map(|(_, t)| t).collect();
    let truth =
        property::evaluate_formulas(&sem, &mdp, &l.model, &l.model.label_refs, &formulas).truth;
    let labels = l
        .model
        .labels
        .iter()
        .map(|(n, _)| n.clone())
        .zip(truth)
        .collect();
    let mut rewards = Vec::new();
    for r in &l.model.rewards {
        let v = evaluate_rewards(&sem, &mdp, &l.model, &l.model.label_refs, r, exact)
            .map_err(RunError::input)?;
        rewards.push((r.name.clone(), v));
    }
    Ok(ExploredModel {
        mdp,
        labels,
        rewards,
    })
}
