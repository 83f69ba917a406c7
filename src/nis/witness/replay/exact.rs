//! The exact domain of the replay walker ([`super::replay_trace`]).
//!
//! Concrete traces of S(n) are expanded from the counter representation to
//! n named agents and re-run step by step through the per-agent semantics
//! of Definition 5 (protocol compliance, the performed set, each local
//! transition, the environment, the observation). Abstract traces of
//! M_ab(m) are checked step by step against Definitions 12 and 13
//! ([`validate_step`]).

use super::{replay_trace, Replay, Stop};
use crate::lang::SourceError;
use crate::nis::front::model::Model;
use crate::nis::semantics::abstraction::{validate_step, AMove, AState};
use crate::nis::semantics::concrete::{add_count, CMove, CState};
use crate::nis::semantics::rules::Truth;
use crate::nis::semantics::{EnvId, LocalId, SemResult, Semantics};
use crate::nis::witness::WitnessTree;

/// One step of a replayed concrete trace: every agent's local state, the
/// actions taken to get there (none at the start), the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConcreteStep {
    pub locals: Vec<LocalId>,
    pub actions: Option<(Vec<usize>, usize)>,
    pub env: EnvId,
}

/// A replayed witness: its branches as full concrete traces.
pub type ConcreteTrace = Vec<Vec<ConcreteStep>>;

fn expand(s: &CState) -> Vec<LocalId> {
    let mut v = s.indexed.clone();
    for &(l, c) in &s.others {
        v.extend(std::iter::repeat_n(l, c as usize));
    }
    v
}

/// Replays a concrete witness tree; `Err(reason)` in the inner result when it does not replay.
pub fn replay_concrete(
    sem: &mut Semantics,
    tree: &WitnessTree<CState, CMove>,
) -> SemResult<Result<ConcreteTrace, String>> {
    Stop::nested(replay_trace(&mut Concrete { sem }, tree))
}

/// S(n) in the exact domain: counter states expanded to named agents.
struct Concrete<'s, 'm> {
    sem: &'s mut Semantics<'m>,
}

impl Replay for Concrete<'_, '_> {
    type State = CState;
    type Move = CMove;
    type Step = ConcreteStep;
    type Error = Box<SourceError>;

    fn model(&self) -> &Model {
        self.sem.model
    }

    fn start(&mut self, root: &CState) -> Result<ConcreteStep, Stop<Self::Error>> {
        let starts = self.sem.initial_locals(root.env)?;
        let mut locals = root
            .indexed
            .iter()
            .chain(root.others.iter().map(|(l, _)| l));
        if locals.any(|l| !starts.contains(l)) {
            return Err(Stop::Wrong(
                "the trace does not start at the initial local state".into(),
            ));
        }
        initial_env(self.sem, root.env)?;
        Ok(ConcreteStep {
            locals: expand(root),
            actions: None,
            env: root.env,
        })
    }

    fn label(
        &mut self,
        at: &ConcreteStep,
        label: usize,
        agent: Option<usize>,
    ) -> Result<Truth, Stop<Self::Error>> {
        let local = agent.map(|a| at.locals[a]);
        Ok(Truth::of(self.sem.literal(label, local, at.env)?))
    }

    fn step(
        &mut self,
        from: &ConcreteStep,
        mv: &CMove,
        to: &CState,
    ) -> Result<ConcreteStep, Stop<Self::Error>> {
        concrete_step(self.sem, from, mv, to)
    }
}

/// Whether `env` is an initial environment state.
fn initial_env(sem: &mut Semantics, env: EnvId) -> Result<(), Stop<Box<SourceError>>> {
    if !sem.initial_envs()?.contains(&env) {
        return Err(Stop::Wrong(
            "the trace does not start at an initial environment state".into(),
        ));
    }
    Ok(())
}

/// Assigns the counter move to named agents and runs one step of Definition 5.
fn concrete_step(
    sem: &mut Semantics,
    from: &ConcreteStep,
    mv: &CMove,
    to: &CState,
) -> Result<ConcreteStep, Stop<Box<SourceError>>> {
    let m = mv.indexed.len();
    let n = from.locals.len();
    let mut actions = mv.indexed.clone();
    let mut targets: Vec<LocalId> = to.indexed.clone();
    let mut groups = mv.others.clone();
    for j in m..n {
        let Some(g) = groups.iter_mut().find(|g| g.0 == from.locals[j] && g.3 > 0) else {
            return Err(Stop::Wrong(format!("no action for agent {}", j + 1)));
        };
        g.3 -= 1;
        actions.push(g.1);
        targets.push(g.2);
    }
    if groups.iter().any(|g| g.3 > 0) {
        return Err(Stop::Wrong(
            "the move names more agents than the state has".into(),
        ));
    }
    if sem.env_protocol(from.env)? >> mv.env_action & 1 == 0 {
        return Err(Stop::Wrong(
            "the environment's action is not enabled".into(),
        ));
    }
    let mut performed = 0u64;
    for (j, &a) in actions.iter().enumerate() {
        if sem.protocol(from.locals[j])? >> a & 1 == 0 {
            return Err(Stop::Wrong(format!(
                "agent {} takes an action its protocol does not allow",
                j + 1
            )));
        }
        performed |= 1 << a;
    }
    let env = to.env;
    if !sem
        .env_successors(from.env, mv.env_action, performed)?
        .contains(&env)
    {
        return Err(Stop::Wrong("the environment's successor differs".into()));
    }
    for j in 0..n {
        let round = (performed, mv.env_action);
        let reached = sem.local_successors(from.locals[j], actions[j], round, env)?;
        if !reached.contains(&targets[j]) {
            return Err(Stop::Wrong(format!(
                "agent {} cannot reach {}",
                j + 1,
                sem.describe_local(targets[j])
            )));
        }
    }
    let mut others = Vec::new();
    for &t in &targets[m..] {
        add_count(&mut others, t, 1);
    }
    if others != to.others {
        return Err(Stop::Wrong(
            "the replayed agents do not form the reported state".into(),
        ));
    }
    Ok(ConcreteStep {
        locals: targets,
        actions: Some((actions, mv.env_action)),
        env,
    })
}

/// Replays an abstract witness tree (Definitions 12 and 13).
pub fn replay_abstract(
    sem: &mut Semantics,
    tree: &WitnessTree<AState, AMove>,
) -> SemResult<Result<(), String>> {
    Stop::nested(replay_trace(&mut Abstract { sem }, tree).map(|_| ()))
}

/// M_ab(m) in the exact domain: each step checked by [`validate_step`].
struct Abstract<'s, 'm> {
    sem: &'s mut Semantics<'m>,
}

impl Replay for Abstract<'_, '_> {
    type State = AState;
    type Move = AMove;
    type Step = AState;
    type Error = Box<SourceError>;

    fn model(&self) -> &Model {
        self.sem.model
    }

    fn start(&mut self, root: &AState) -> Result<AState, Stop<Self::Error>> {
        let starts = self.sem.initial_locals(root.env)?;
        if root.indexed.iter().any(|l| !starts.contains(l))
            || root.zo.iter().any(|l| !starts.contains(&l))
            || root.zo.iter().next().is_none()
        {
            return Err(Stop::Wrong(
                "the abstract trace does not start at the initial abstract state".into(),
            ));
        }
        initial_env(self.sem, root.env)?;
        Ok(root.clone())
    }

    fn label(
        &mut self,
        at: &AState,
        label: usize,
        agent: Option<usize>,
    ) -> Result<Truth, Stop<Self::Error>> {
        let local = agent.map(|a| at.indexed[a]);
        Ok(Truth::of(self.sem.literal(label, local, at.env)?))
    }

    fn step(
        &mut self,
        from: &AState,
        mv: &AMove,
        to: &AState,
    ) -> Result<AState, Stop<Self::Error>> {
        validate_step(self.sem, from, mv, to)?.map_err(Stop::Wrong)?;
        Ok(to.clone())
    }
}
