//! Witness traces as shown: replayed runs of S(n) and M(0), exact or f64,
//! and traces of M_ab(m), each as typed steps ([`super::views`]).

use super::replay::exact::ConcreteTrace;
use super::replay::real::RealStep;
use super::replay::Shape;
use super::shown::{Runs, Step, Trace, TraceKind, Witness};
use super::views::{abstract_steps, env_moves, exact_steps, real_steps};
use super::WitnessTree;
use crate::nis::front::model::Model;
use crate::nis::semantics::abstraction::{AMove, AState};
use crate::nis::semantics::Semantics;

/// A trace of S(n) (or M(0)) from the first tree's `branches`, one tree per
/// initial state.
fn concrete(model: &Model, counterexample: bool, trees: usize, branches: Vec<Vec<Step>>) -> Trace {
    Trace {
        kind: TraceKind::of(counterexample),
        initial_states: trees,
        runs: Runs::Concrete {
            branches,
            named_agents: !model.named.is_empty(),
            env_moves: env_moves(model),
        },
    }
}

/// Replayed M(n) traces as shown: the first tree's branches.
pub fn concrete_trace(
    sem: &Semantics,
    traces: &[ConcreteTrace],
    counterexample: bool,
) -> Option<Trace> {
    let branches = traces
        .first()?
        .iter()
        .map(|b| exact_steps(sem, b))
        .collect();
    Some(concrete(sem.model, counterexample, traces.len(), branches))
}

/// Replayed f64 traces (per initial state, its branches) as shown: the
/// first tree's branches.
pub fn real_trace(
    model: &Model,
    traces: &[Vec<Vec<RealStep>>],
    counterexample: bool,
) -> Option<Trace> {
    let branches = traces
        .first()?
        .iter()
        .map(|b| real_steps(model, b))
        .collect();
    Some(concrete(model, counterexample, traces.len(), branches))
}

/// Replayed strategic trees of M(0) as shown: the counterexample of a
/// failing `[[G]]` (G's strategy against phi) or `<<G>>` (the refutation,
/// said as such), else the strategies that witness `<<G>>`.
pub fn strategic_shown(
    sem: &Semantics,
    traces: &[ConcreteTrace],
    universal: bool,
    shape: Shape,
) -> Option<Witness> {
    let refuted = shape == Shape::Refutation;
    concrete_trace(sem, traces, universal || refuted).map(|t| Witness::strategic(t, refuted))
}

/// Replayed M_ab(m) witnesses as shown: the first tree's branches.
pub fn abstract_trace(sem: &Semantics, witnesses: &[WitnessTree<AState, AMove>]) -> Option<Trace> {
    let first = witnesses.first()?;
    let branches = first
        .branches()
        .iter()
        .map(|b| abstract_steps(sem, b))
        .collect();
    Some(Trace {
        kind: TraceKind::Abstract,
        initial_states: witnesses.len(),
        runs: Runs::Abstract {
            branches,
            named_agents: !sem.model.named.is_empty(),
        },
    })
}
