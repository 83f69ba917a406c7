//! Every witness and counterexample is replayed before it is reported.
//!
//! Concrete traces are expanded from the counter representation to n named
//! agents and re-run step by step through the per-agent semantics of
//! Definition 5 (protocol compliance, the performed set, each local
//! transition, the environment, the observation); the literals the formula
//! needs are re-evaluated on the replayed states. Abstract traces are checked
//! step by step against Definitions 12 and 13 ([`validate_step`]). A trace that
//! does not replay is an internal error, never a verdict.

use crate::nis::semantics::abstraction::{validate_step, AMove, AState};
use crate::nis::semantics::concrete::{add_count, CMove, CState};
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
    let root = ConcreteStep {
        locals: expand(&tree.state),
        actions: None,
        env: tree.state.env,
    };
    let starts = sem.initial_locals(tree.state.env)?;
    if tree
        .state
        .indexed
        .iter()
        .chain(tree.state.others.iter().map(|(l, _)| l))
        .any(|l| !starts.contains(l))
    {
        return Ok(Err(
            "the trace does not start at the initial local state".into()
        ));
    }
    if !sem.initial_envs()?.contains(&tree.state.env) {
        return Ok(Err(
            "the trace does not start at an initial environment state".into(),
        ));
    }
    let mut out = Vec::new();
    let mut prefix = vec![root];
    if let Err(e) = replay_node(sem, tree, &mut prefix, &mut out)? {
        return Ok(Err(e));
    }
    Ok(Ok(out))
}

fn replay_node(
    sem: &mut Semantics,
    node: &WitnessTree<CState, CMove>,
    prefix: &mut Vec<ConcreteStep>,
    out: &mut ConcreteTrace,
) -> SemResult<Result<(), String>> {
    let here = prefix.last().cloned().expect("non-empty prefix");
    for &(label, agent, negated) in &node.obligations {
        let holds = sem.literal(label, agent.map(|a| here.locals[a]), here.env)?;
        if holds == negated {
            return Ok(Err(format!(
                "literal {}{} fails on the replayed state",
                if negated { "!" } else { "" },
                literal_name(sem, label, agent)
            )));
        }
    }
    if node.children.is_empty() {
        out.push(prefix.clone());
    }
    for (mv, child) in &node.children {
        let step = match concrete_step(sem, &here, mv, &child.state)? {
            Ok(s) => s,
            Err(e) => return Ok(Err(format!("step {}: {e}", prefix.len()))),
        };
        prefix.push(step);
        let r = replay_node(sem, child, prefix, out)?;
        prefix.pop();
        if r.is_err() {
            return Ok(r);
        }
    }
    Ok(Ok(()))
}

/// Assigns the counter move to named agents and runs one step of Definition 5.
fn concrete_step(
    sem: &mut Semantics,
    from: &ConcreteStep,
    mv: &CMove,
    to: &CState,
) -> SemResult<Result<ConcreteStep, String>> {
    let m = mv.indexed.len();
    let n = from.locals.len();
    let mut actions = mv.indexed.clone();
    let mut targets: Vec<LocalId> = to.indexed.clone();
    let mut groups = mv.others.clone();
    for j in m..n {
        let Some(g) = groups.iter_mut().find(|g| g.0 == from.locals[j] && g.3 > 0) else {
            return Ok(Err(format!("no action for agent {}", j + 1)));
        };
        g.3 -= 1;
        actions.push(g.1);
        targets.push(g.2);
    }
    if groups.iter().any(|g| g.3 > 0) {
        return Ok(Err("the move names more agents than the state has".into()));
    }
    if sem.env_protocol(from.env)? >> mv.env_action & 1 == 0 {
        return Ok(Err("the environment's action is not enabled".into()));
    }
    let mut performed = 0u64;
    for (j, &a) in actions.iter().enumerate() {
        if sem.protocol(from.locals[j])? >> a & 1 == 0 {
            return Ok(Err(format!(
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
        return Ok(Err("the environment's successor differs".into()));
    }
    for j in 0..n {
        let round = (performed, mv.env_action);
        let reached = sem.local_successors(from.locals[j], actions[j], round, env)?;
        if !reached.contains(&targets[j]) {
            return Ok(Err(format!(
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
        return Ok(Err(
            "the replayed agents do not form the reported state".into()
        ));
    }
    Ok(Ok(ConcreteStep {
        locals: targets,
        actions: Some((actions, mv.env_action)),
        env,
    }))
}

/// Replays an abstract witness tree; the branches as (move, state) lists.
pub fn replay_abstract(
    sem: &mut Semantics,
    tree: &WitnessTree<AState, AMove>,
) -> SemResult<Result<(), String>> {
    let starts = sem.initial_locals(tree.state.env)?;
    if tree.state.indexed.iter().any(|l| !starts.contains(l))
        || tree.state.zo.iter().any(|l| !starts.contains(&l))
        || tree.state.zo.iter().next().is_none()
    {
        return Ok(Err(
            "the abstract trace does not start at the initial abstract state".into(),
        ));
    }
    if !sem.initial_envs()?.contains(&tree.state.env) {
        return Ok(Err(
            "the trace does not start at an initial environment state".into(),
        ));
    }
    abstract_node(sem, tree)
}

fn abstract_node(
    sem: &mut Semantics,
    node: &WitnessTree<AState, AMove>,
) -> SemResult<Result<(), String>> {
    for &(label, agent, negated) in &node.obligations {
        let local = agent.map(|a| node.state.indexed[a]);
        let holds = sem.literal(label, local, node.state.env)?;
        if holds == negated {
            return Ok(Err(format!(
                "literal {}{} fails on the replayed abstract state",
                if negated { "!" } else { "" },
                literal_name(sem, label, agent)
            )));
        }
    }
    for (mv, child) in &node.children {
        if let Err(e) = validate_step(sem, &node.state, mv, &child.state)? {
            return Ok(Err(e));
        }
        if let Err(e) = abstract_node(sem, child)? {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

/// `(label, 2)` for an agent's literal, `label` for the environment's.
pub fn literal_name(sem: &Semantics, label: usize, agent: Option<usize>) -> String {
    let name = &sem.model.labels[label].name;
    match agent {
        Some(a) => format!("({name}, {})", a + 1),
        None => name.clone(),
    }
}
