//! Deciders behind one interface: `--engine explicit|milp|both`. The explicit
//! decider is here; the MILP decider ([`super::encode`]) decides M(n) and, for
//! finite templates, the zero-one abstraction M_ab(m).

use super::encode::MilpOptions;
use super::explicit::checker::{check_system, Graph, Outcome};
use super::front::core::{lower, Core};
use super::front::formula::Sentence;
use super::front::model::Model;
use super::semantics::abstraction::{AMove, AState, Abstract};
use super::semantics::concrete::{CMove, CState, Concrete};
use super::semantics::system::System;
use super::semantics::Semantics;
use super::witness::replay::{replay_abstract, replay_concrete, ConcreteTrace};
use super::witness::trace;
use super::witness::{internal, shown};
use crate::report::{Deadline, RunError};
use serde_json::{json, Value};
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

/// One decided check: which system, which engine, the verdict, the replayed witness.
#[derive(Clone, Debug)]
pub struct CheckRecord {
    pub model: String,
    pub engine: &'static str,
    pub holds: bool,
    /// Replayed witness (existential, holds) or counterexample (universal, violated), as JSON.
    pub witness: Option<Value>,
    /// The same as step tables for the text output.
    pub witness_text: Option<String>,
    pub time_s: f64,
    /// Sizes: states explored, network evaluations, ...
    pub stats: serde_json::Map<String, Value>,
}

/// A verdict with its shown witness (JSON and text), as the deciders give it.
pub type Shown = (bool, Option<Value>, Option<String>);

impl CheckRecord {
    /// The record of a verdict on `target` (naming `m` indexed agents) by
    /// `engine`, timed from `start`.
    fn decided(
        (target, m): (Target, usize),
        engine: &'static str,
        (holds, witness, witness_text): Shown,
        stats: serde_json::Map<String, Value>,
        start: Instant,
    ) -> Self {
        CheckRecord {
            model: target.describe(m),
            engine,
            holds,
            witness,
            witness_text,
            time_s: start.elapsed().as_secs_f64(),
            stats,
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "model": self.model,
            "engine": self.engine,
            "verdict": if self.holds { "holds" } else { "violated" },
            "witness": self.witness.clone().unwrap_or(Value::Null),
            "time_s": self.time_s,
            "stats": Value::Object(self.stats.clone()),
        })
    }
}

/// A verdict with its shown witness, and the decider's statistics.
pub type Decided = (Shown, serde_json::Map<String, Value>);

/// A decider of phi[m] on M(n) or M_ab(m).
pub trait Decider {
    fn name(&self) -> &'static str;

    /// phi\[m\] (`phi` names m agents) decided on `on`.
    fn decide(&self, model: &Model, phi: &Sentence, on: Target) -> Result<Decided, RunError>;

    /// [`Decider::decide`], timed and recorded.
    fn check(
        &self,
        model: &Model,
        sentence: &Sentence,
        target: Target,
    ) -> Result<CheckRecord, RunError> {
        let start = Instant::now();
        let (shown, stats) = self.decide(model, sentence, target)?;
        let on = (target, sentence.agents());
        Ok(CheckRecord::decided(on, self.name(), shown, stats, start))
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

    fn decide(&self, model: &Model, phi: &Sentence, on: Target) -> Result<Decided, RunError> {
        if phi.strategy.is_some() {
            let out = super::encode::check_strategic(model, phi, &self.options)?;
            return Ok(((out.holds, out.witness, out.witness_text), out.stats));
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
        Ok(((out.holds, out.witness, out.witness_text), out.stats))
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

    fn decide(&self, model: &Model, phi: &Sentence, on: Target) -> Result<Decided, RunError> {
        let mut stats = serde_json::Map::new();
        if phi.strategy.is_some() {
            let shown = super::atl::check_explicit(model, phi, self.deadline, &mut stats)?;
            return Ok((shown, stats));
        }
        let core = lower(phi, model)?;
        let m = phi.agents();
        let shown = match on {
            Target::Concrete { agents } => {
                if agents < m {
                    return Err(RunError::input(format!(
                        "the formula names {m} agents but the system has {agents}"
                    )));
                }
                self.on_concrete(model, phi, &core, agents, &mut stats)?
            }
            Target::Abstract => self.on_abstract(model, m, &core, &mut stats)?,
        };
        Ok((shown, stats))
    }
}

impl ExplicitDecider {
    /// phi[m] on M(n), every state within the horizon expanded first.
    fn on_concrete(
        &self,
        model: &Model,
        sentence: &Sentence,
        core: &Core,
        agents: usize,
        stats: &mut serde_json::Map<String, Value>,
    ) -> Result<Shown, RunError> {
        let m = sentence.agents();
        let mut g =
            Graph::new(Concrete::new(semantics(model)?, agents, m))?.with_deadline(self.deadline);
        explore_horizon(&mut g, sentence)?;
        let outcome = check_system(&mut g, core)?;
        if g.expired() {
            let target = Target::Concrete { agents };
            return Err(stopped(self.deadline, &target.describe(m), g.states.len()));
        }
        stats.insert("states".into(), outcome.states_explored.into());
        let traces = replay_concrete_all(&mut g, &outcome)?;
        stats.insert("network_evaluations".into(), g.sys.sem.cache_sizes().into());
        let counterexample = sentence.kind() == super::front::formula::Kind::Universal;
        let (w, t) = shown(trace::concrete_trace(&g.sys.sem, &traces, counterexample));
        Ok((outcome.holds, w, t))
    }

    /// phi[m] on M_ab(m), explored lazily: not `explore_horizon`, since the
    /// abstract states within the horizon are sets of local states, far too
    /// many to expand.
    fn on_abstract(
        &self,
        model: &Model,
        m: usize,
        core: &Core,
        stats: &mut serde_json::Map<String, Value>,
    ) -> Result<Shown, RunError> {
        let mut g = Graph::new(Abstract::new(semantics(model)?, m))?.with_deadline(self.deadline);
        let outcome = check_system(&mut g, core)?;
        if g.expired() {
            let what = Target::Abstract.describe(m);
            return Err(stopped(self.deadline, &what, g.states.len()));
        }
        stats.insert("abstract_states".into(), outcome.states_explored.into());
        replay_abstract_all(&mut g, &outcome)?;
        stats.insert("network_evaluations".into(), g.sys.sem.cache_sizes().into());
        let (w, t) = shown(trace::abstract_trace(&g.sys.sem, &outcome.witnesses));
        Ok((outcome.holds, w, t))
    }
}

/// Expands every state of M(n) within the sentence's temporal depth before
/// the check: an update that leaves its declared range at any of them is a
/// model error (exit 2) whether or not the formula's search would visit it,
/// as in the MILP decider, whose range check covers every run of the
/// unrolling; so the two deciders fail on the same models. (On M_ab(m) the
/// explicit decider stays lazy: see docs/nis.md.)
fn explore_horizon<'m, S: System<'m>>(
    g: &mut Graph<'m, S>,
    sentence: &Sentence,
) -> Result<(), RunError> {
    g.layers(sentence.depth())?;
    Ok(())
}

fn replay_concrete_all<'m>(
    g: &mut Graph<'m, Concrete<'m>>,
    o: &Outcome<CState, CMove>,
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
    o: &Outcome<AState, AMove>,
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

/// Decides one check with the chosen engine(s); with `both`, a disagreement
/// is an internal error. The MILP decider's statistics are kept under
/// `milp.` keys next to the first decider's, each decider's time under
/// `explicit.time_s` and `milp.time_s`, and `time_s` is their sum.
pub fn decide_with(
    choice: EngineChoice,
    milp: &MilpOptions,
    model: &Model,
    sentence: &Sentence,
    target: Target,
) -> Result<CheckRecord, RunError> {
    if let Target::Concrete { agents } = target {
        if agents > MAX_AGENTS {
            return Err(RunError::input(format!(
                "M({agents}) has more agents than the limit of {MAX_AGENTS}"
            )));
        }
    }
    roles_allow(choice, model, sentence, target)?;
    let mut first: Option<CheckRecord> = None;
    for d in deciders(choice, model, milp) {
        let r = d.check(model, sentence, target)?;
        if let Some(f) = &mut first {
            if f.holds != r.holds {
                return Err(RunError::Internal(format!(
                    "the deciders disagree on {}: {} says {}, {} says {}",
                    r.model, f.engine, f.holds, r.engine, r.holds
                )));
            }
            for (k, v) in r.stats {
                f.stats.insert(format!("{}.{k}", r.engine), v);
            }
            // Each decider's own time, and the record's time is both together.
            f.stats
                .insert(format!("{}.time_s", f.engine), f.time_s.into());
            f.stats
                .insert(format!("{}.time_s", r.engine), r.time_s.into());
            f.time_s += r.time_s;
            // Both deciders answered and agree: the record says so.
            if (f.engine, r.engine) == ("explicit", "milp") {
                f.engine = "explicit+milp";
            }
        } else {
            first = Some(r);
        }
    }
    first.ok_or_else(|| RunError::Internal("no decider ran".into()))
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
