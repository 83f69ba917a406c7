//! Deciders behind one interface: `--engine explicit|milp|both`. The explicit
//! decider is here; the MILP decider ([`super::encode`]) decides M(n) and, for
//! finite templates, the zero-one abstraction M_ab(m).

use super::encode::MilpOptions;
use super::explicit::checker::{check_system, Graph, Outcome as Checked};
use super::front::core::Lowered;
use super::front::formula::Sentence;
use super::front::model::Model;
use super::outcome::{Decided, DeciderStats, ExplicitOutcome, ExplicitStats, Explored};
use super::semantics::abstraction::{AMove, AState, Abstract};
use super::semantics::concrete::{CMove, CState, Concrete};
use super::semantics::system::System;
use super::semantics::Semantics;
use super::witness::internal;
use super::witness::replay::exact::{replay_abstract, replay_concrete, ConcreteTrace};
use super::witness::shown::Witness;
use super::witness::trace;
use crate::report::{Deadline, Outcome, RunError};
use std::time::Instant;

/// Which system a check runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// M(n): n agents.
    Concrete { agents: usize },
    /// M_ab(m): m concrete agents and the zero-one agent.
    Abstract,
}

impl Target {
    pub fn describe(&self, m: usize) -> String {
        match self {
            Target::Concrete { agents } => format!("M({agents})"),
            Target::Abstract => format!("M_ab({m})"),
        }
    }
}

/// `--engine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    /// Explicit when the model is finite, else MILP.
    Auto,
    Explicit,
    Milp,
    Both,
}

/// One decided check: which system, which engine, the verdict, the
/// replayed witness, the decider's statistics.
#[derive(Clone, Debug)]
pub struct CheckRecord {
    /// The system, as `M(n)` or `M_ab(m)`.
    pub model: String,
    /// The decider's name; `explicit+milp` when both ran and agreed.
    pub engine: &'static str,
    pub holds: bool,
    /// Replayed witness (existential, holds) or counterexample (universal, violated).
    pub witness: Option<Witness>,
    /// Seconds; with both deciders, their sum.
    pub time_s: f64,
    /// Sizes: states explored, network evaluations, MILP sizes, ...
    pub stats: DeciderStats,
    /// `--engine both`: the second decider, which agreed with the first.
    pub both: Option<Both>,
}

/// What `--engine both` adds to the first decider's record.
#[derive(Clone, Debug)]
pub struct Both {
    /// The first decider's own name and seconds.
    pub first: (&'static str, f64),
    /// The second decider's name and seconds.
    pub second: (&'static str, f64),
    pub second_stats: DeciderStats,
}

impl CheckRecord {
    /// The record of a decided outcome on `target` (naming `m` indexed
    /// agents) by `engine`, timed from `start`.
    fn decided(
        (target, m): (Target, usize),
        engine: &'static str,
        outcome: Decided,
        start: Instant,
    ) -> Self {
        CheckRecord {
            model: target.describe(m),
            engine,
            holds: outcome.holds(),
            witness: outcome.witness,
            time_s: start.elapsed().as_secs_f64(),
            stats: outcome.stats,
            both: None,
        }
    }

    /// The statistics of the MILP decider, when it ran (first or second).
    pub fn milp_stats(&self) -> Option<&super::encode::MilpStats> {
        let second = self.both.as_ref().map(|b| &b.second_stats);
        self.stats
            .milp()
            .or_else(|| second.and_then(DeciderStats::milp))
    }
}

/// A decider of phi[m] on M(n) or M_ab(m).
pub trait Decider {
    fn name(&self) -> &'static str;

    /// phi\[m\] (`phi` names m agents, lowered once by the caller) decided on `on`.
    fn decide(&self, model: &Model, phi: &Lowered, on: Target) -> Result<Decided, RunError>;

    /// [`Decider::decide`], timed and recorded.
    fn check(&self, model: &Model, phi: &Lowered, target: Target) -> Result<CheckRecord, RunError> {
        let start = Instant::now();
        let outcome = self.decide(model, phi, target)?;
        let on = (target, phi.agents());
        Ok(CheckRecord::decided(on, self.name(), outcome, start))
    }
}

/// Explicit-state search with the counter representation (finite models),
/// stopping at the run's deadline.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExplicitDecider {
    pub deadline: Deadline,
}

/// The deadline cut an exploration of `what` after `states` states.
fn stopped(deadline: Deadline, what: &str, states: usize) -> RunError {
    let why = deadline
        .expiry()
        .map_or("the time-out was reached".to_string(), |e| e.to_string());
    RunError::TimedOut(format!("{why} while exploring {what} ({states} states)"))
}

/// The most agent-steps (agents x temporal depth) one MILP unrolls. Each
/// costs a network copy and its rows, tens of KB in our model and in HiGHS
/// (10,000 agents over one step held 0.5 GB), and HiGHS's time grows much
/// faster; beyond it the check is refused (exit 2).
pub const MAX_MILP_AGENT_STEPS: usize = 2_000;

/// The most agents of M(N) any decider is given: counts of interchangeable
/// agents are 32-bit, and every decider's cost grows with N.
pub const MAX_AGENTS: usize = 1_000_000;

/// The MILP decider of M(n) and M_ab(m) ([`super::encode`]).
#[derive(Clone, Debug, Default)]
pub struct MilpDecider {
    pub options: MilpOptions,
}

impl Decider for MilpDecider {
    fn name(&self) -> &'static str {
        "milp"
    }

    fn decide(&self, model: &Model, phi: &Lowered, on: Target) -> Result<Decided, RunError> {
        let milp = |o: super::encode::MilpOutcome| Outcome {
            verdict: o.verdict,
            witness: o.witness,
            stats: DeciderStats::Milp(Box::new(o.stats)),
        };
        if phi.strategy.is_some() {
            return Ok(milp(super::encode::check_strategic(
                model,
                phi,
                &self.options,
            )?));
        }
        let agents = match on {
            Target::Concrete { agents } => agents,
            Target::Abstract => phi.agents() + 1,
        };
        let steps = agents.saturating_mul(phi.depth().max(1) as usize);
        if steps > MAX_MILP_AGENT_STEPS {
            return Err(RunError::input(format!(
                "the MILP of {} unrolls {agents} agents over {} steps ({steps} agent-steps); the limit is {MAX_MILP_AGENT_STEPS}",
                on.describe(phi.agents()),
                phi.depth().max(1)
            )));
        }
        let out = match on {
            Target::Concrete { agents } => {
                super::encode::check_concrete(model, phi, agents, &self.options)?
            }
            Target::Abstract => super::encode::check_abstract(model, phi, &self.options)?,
        };
        Ok(milp(out))
    }
}

fn semantics(model: &Model) -> Result<Semantics<'_>, RunError> {
    Semantics::new(model).map_err(|why| {
        RunError::input(format!(
            "the explicit decider cannot take this model: {why}"
        ))
    })
}

impl Decider for ExplicitDecider {
    fn name(&self) -> &'static str {
        "explicit"
    }

    fn decide(&self, model: &Model, phi: &Lowered, on: Target) -> Result<Decided, RunError> {
        let explicit = |o: ExplicitOutcome| Outcome {
            verdict: o.verdict,
            witness: o.witness,
            stats: DeciderStats::Explicit(o.stats),
        };
        if phi.strategy.is_some() {
            return Ok(explicit(super::atl::check_explicit(
                model,
                phi,
                self.deadline,
            )?));
        }
        let m = phi.agents();
        let outcome = match on {
            Target::Concrete { agents } => {
                if agents < m {
                    return Err(RunError::input(format!(
                        "the formula names {m} agents but the system has {agents}"
                    )));
                }
                self.on_concrete(model, phi, agents)?
            }
            Target::Abstract => self.on_abstract(model, phi)?,
        };
        Ok(explicit(outcome))
    }
}

impl ExplicitDecider {
    /// phi[m] on M(n), every state within the horizon expanded first.
    fn on_concrete(
        &self,
        model: &Model,
        sentence: &Lowered,
        agents: usize,
    ) -> Result<ExplicitOutcome, RunError> {
        let m = sentence.agents();
        let mut g =
            Graph::new(Concrete::new(semantics(model)?, agents, m))?.with_deadline(self.deadline);
        explore_horizon(&mut g, sentence)?;
        // Checked before the formula too: checking it over a graph cut by
        // the deadline would only delay the report.
        let cut = |states: usize| {
            let target = Target::Concrete { agents };
            stopped(self.deadline, &target.describe(m), states)
        };
        if g.expired() {
            return Err(cut(g.states.len()));
        }
        let outcome = check_system(&mut g, &sentence.core)?;
        if g.expired() {
            return Err(cut(g.states.len()));
        }
        let traces = replay_concrete_all(&mut g, &outcome)?;
        let stats = ExplicitStats {
            explored: Explored::States(outcome.states_explored),
            network_evaluations: g.sys.sem.cache_sizes(),
            strategy_not_shown_over: None,
        };
        let counterexample = sentence.kind() == super::front::formula::Kind::Universal;
        let witness = trace::concrete_trace(&g.sys.sem, &traces, counterexample);
        Ok(Outcome::decided(
            outcome.holds,
            witness.map(Witness::Trace),
            stats,
        ))
    }

    /// phi[m] on M_ab(m), every abstract state within the horizon expanded
    /// first as on M(n): an update that leaves its declared range on a run
    /// within the sentence's depth is a model error (exit 2) whether or not
    /// the formula's search would visit it, as in the MILP decider of
    /// M_ab(m) (issue 33: a lazy search answered universal sentences over
    /// a system whose out-of-range runs it had not looked at).
    fn on_abstract(&self, model: &Model, phi: &Lowered) -> Result<ExplicitOutcome, RunError> {
        let m = phi.agents();
        let mut g = Graph::new(Abstract::new(semantics(model)?, m))?.with_deadline(self.deadline);
        explore_horizon(&mut g, phi)?;
        let cut = |states: usize| stopped(self.deadline, &Target::Abstract.describe(m), states);
        if g.expired() {
            return Err(cut(g.states.len()));
        }
        let outcome = check_system(&mut g, &phi.core)?;
        if g.expired() {
            return Err(cut(g.states.len()));
        }
        replay_abstract_all(&mut g, &outcome)?;
        let stats = ExplicitStats {
            explored: Explored::AbstractStates(outcome.states_explored),
            network_evaluations: g.sys.sem.cache_sizes(),
            strategy_not_shown_over: None,
        };
        let witness = trace::abstract_trace(&g.sys.sem, &outcome.witnesses);
        Ok(Outcome::decided(
            outcome.holds,
            witness.map(Witness::Trace),
            stats,
        ))
    }
}

/// Expands every state of M(n) within the sentence's temporal depth before
/// the check: an update that leaves its declared range at any of them is a
/// model error (exit 2) whether or not the formula's search would visit it,
/// as in the MILP decider, whose range check covers every run of the
/// unrolling; so the two deciders fail on the same models (on M(n) and on
/// M_ab(m) alike).
fn explore_horizon<'m, S: System<'m>>(
    g: &mut Graph<'m, S>,
    sentence: &Sentence,
) -> Result<(), RunError> {
    g.layers(sentence.depth())?;
    Ok(())
}

fn replay_concrete_all<'m>(
    g: &mut Graph<'m, Concrete<'m>>,
    o: &Checked<CState, CMove>,
) -> Result<Vec<ConcreteTrace>, RunError> {
    let mut out = Vec::new();
    for w in &o.witnesses {
        match replay_concrete(&mut g.sys.sem, w)? {
            Ok(t) => out.push(t),
            Err(why) => return Err(internal("trace", why)),
        }
    }
    Ok(out)
}

fn replay_abstract_all<'m>(
    g: &mut Graph<'m, Abstract<'m>>,
    o: &Checked<AState, AMove>,
) -> Result<(), RunError> {
    for w in &o.witnesses {
        if let Err(why) = replay_abstract(&mut g.sys.sem, w)? {
            return Err(internal("abstract trace", why));
        }
    }
    Ok(())
}

/// The deciders an `--engine` choice runs.
pub fn deciders(choice: EngineChoice, model: &Model, milp: &MilpOptions) -> Vec<Box<dyn Decider>> {
    // The run's one deadline travels in the solve options every check gets.
    let explicit = ExplicitDecider {
        deadline: milp.solve.deadline,
    };
    let milp = || -> Box<dyn Decider> {
        Box::new(MilpDecider {
            options: milp.clone(),
        })
    };
    match choice {
        EngineChoice::Explicit => vec![Box::new(explicit)],
        EngineChoice::Milp => vec![milp()],
        EngineChoice::Both => vec![Box::new(explicit), milp()],
        EngineChoice::Auto => {
            if model.explicit_obstacle().is_none() {
                vec![Box::new(explicit)]
            } else {
                vec![milp()]
            }
        }
    }
}

/// Decides one check with the chosen engine(s) and default MILP options.
pub fn decide(
    choice: EngineChoice,
    model: &Model,
    sentence: &Sentence,
    target: Target,
) -> Result<CheckRecord, RunError> {
    decide_with(choice, &MilpOptions::default(), model, sentence, target)
}

/// [`Deciding::sentence`] with the MILP options `milp`.
pub fn decide_with(
    choice: EngineChoice,
    milp: &MilpOptions,
    model: &Model,
    sentence: &Sentence,
    target: Target,
) -> Result<CheckRecord, RunError> {
    Deciding::new(choice, milp, model).sentence(sentence, target)
}

/// The deciders of a check: the `--engine` choice, their MILP options
/// and the model. With `both`, a disagreement is an internal error; the
/// record of `both` keeps the MILP decider's statistics and each
/// decider's time ([`Both`]), and its time is their sum.
#[derive(Clone, Copy)]
pub struct Deciding<'a> {
    pub choice: EngineChoice,
    pub milp: &'a MilpOptions,
    pub model: &'a Model,
}

impl<'a> Deciding<'a> {
    pub fn new(choice: EngineChoice, milp: &'a MilpOptions, model: &'a Model) -> Self {
        Deciding {
            choice,
            milp,
            model,
        }
    }

    /// A sentence not yet lowered (tests, tables, single checks): the
    /// check's limits first, then the lowering, then the deciders.
    pub fn sentence(&self, sentence: &Sentence, target: Target) -> Result<CheckRecord, RunError> {
        admissible(self.choice, self.model, sentence, target)?;
        self.run(&Lowered::new(sentence, self.model)?, target)
    }

    /// A sentence lowered once by the caller.
    pub fn lowered(&self, phi: &Lowered, target: Target) -> Result<CheckRecord, RunError> {
        admissible(self.choice, self.model, phi, target)?;
        self.run(phi, target)
    }
}

/// The limits of one check: the number of agents, and what models with
/// named agents allow.
pub fn admissible(
    choice: EngineChoice,
    model: &Model,
    sentence: &Sentence,
    target: Target,
) -> Result<(), RunError> {
    if let Target::Concrete { agents } = target {
        if agents > MAX_AGENTS {
            return Err(RunError::input(format!(
                "M({agents}) has more agents than the limit of {MAX_AGENTS}"
            )));
        }
    }
    roles_allow(choice, model, sentence, target)
}

impl Deciding<'_> {
    /// The deciders of `choice` on phi[m], in turn.
    fn run(&self, phi: &Lowered, target: Target) -> Result<CheckRecord, RunError> {
        let (choice, milp, model) = (self.choice, self.milp, self.model);
        let mut first: Option<CheckRecord> = None;
        for d in deciders(choice, model, milp) {
            let r = d.check(model, phi, target)?;
            match &mut first {
                Some(f) => confirm(f, r)?,
                None => first = Some(r),
            }
        }
        first.ok_or_else(|| RunError::Internal("no decider ran".into()))
    }
}

/// The second decider's record `r` joins the first's, `f`: they must agree.
fn confirm(f: &mut CheckRecord, r: CheckRecord) -> Result<(), RunError> {
    if f.holds != r.holds {
        return Err(RunError::Internal(format!(
            "the deciders disagree on {}: {} says {}, {} says {}",
            r.model, f.engine, f.holds, r.engine, r.holds
        )));
    }
    f.both = Some(Both {
        first: (f.engine, f.time_s),
        second: (r.engine, r.time_s),
        second_stats: r.stats,
    });
    f.time_s += r.time_s;
    // Both deciders answered and agree: the record says so.
    if (f.engine, r.engine) == ("explicit", "milp") {
        f.engine = "explicit+milp";
    }
    Ok(())
}

/// What models with named agents allow: without a parameterised template
/// the system is M(0), the named agents and the environment (formulas name
/// no indexed agent; there is no zero-one abstraction); the MILP decider
/// encodes named agents in M(n) (strategic sentences: finite models only).
fn roles_allow(
    choice: EngineChoice,
    model: &Model,
    sentence: &Sentence,
    target: Target,
) -> Result<(), RunError> {
    if sentence.strategy.is_some() && model.parameterised {
        return Err(RunError::input(
            "strategic sentences (`<<G>> X^k phi`, `[[G]] X^k phi`) are decided on models of named agents only (no parameterised `agent` template), checked without --agents",
        ));
    }
    if !model.parameterised {
        let why = match target {
            Target::Abstract => Some("has no zero-one abstraction M_ab(m)"),
            Target::Concrete { agents } if agents > 0 => Some("takes no --agents"),
            _ if sentence.agents() > 0 => Some("has no agents v1, v2, .. to quantify over"),
            _ => None,
        };
        if let Some(why) = why {
            return Err(RunError::input(format!(
                "the model declares no parameterised `agent` template (only named agents), so it {why}: check its fixed agents with `nis check MODEL --spec SPEC` without --agents, over environment labels (which read `NAME.x` of named agents)"
            )));
        }
    }
    let milp = match choice {
        EngineChoice::Milp | EngineChoice::Both => true,
        EngineChoice::Explicit => false,
        EngineChoice::Auto => model.explicit_obstacle().is_some(),
    };
    if milp && !model.named.is_empty() {
        let why = if target == Target::Abstract {
            Some("on the zero-one abstraction M_ab(m)")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(RunError::input(format!(
                "the MILP decider does not yet encode named agents {why}; decide M(n), or use `--engine explicit` on a finite model"
            )));
        }
    }
    Ok(())
}

/// States of M(n) reachable in exactly j steps, j = 0..=k: (counter states, concrete global states).
pub fn state_counts(
    model: &Model,
    agents: usize,
    m: usize,
    k: u32,
) -> Result<Vec<(usize, u128)>, RunError> {
    let mut g = Graph::new(Concrete::new(semantics(model)?, agents, m.min(agents)))?;
    let layers = g.layers(k)?;
    Ok(layers
        .iter()
        .map(|layer| {
            (
                layer.len(),
                layer
                    .iter()
                    .map(|&s| g.sys.multiplicity(&g.states[s as usize]))
                    .sum(),
            )
        })
        .collect())
}

/// Abstract states of M_ab(m) reachable in exactly j steps, j = 0..=k.
pub fn abstract_state_counts(model: &Model, m: usize, k: u32) -> Result<Vec<usize>, RunError> {
    let mut g = Graph::new(Abstract::new(semantics(model)?, m))?;
    Ok(g.layers(k)?.iter().map(Vec::len).collect())
}
