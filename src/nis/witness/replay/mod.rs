//! Every witness and counterexample is replayed before it is reported, by
//! one walker over the witness shapes, whatever the number domain:
//!
//! - a trace ([`replay_trace`]): from the checked initial state, each step
//!   re-run through the semantics (Definition 5, or Definitions 12 and 13
//!   on M_ab(m)) from the walker's OWN replayed state, and every literal
//!   the formula needs re-evaluated there; the branches come back as
//!   replayed runs;
//! - a strategy tree or a refutation of `<<G>> X^k psi` ([`check_strategy`],
//!   [`Shape`]): the branches of every node before round k are the ones the
//!   shape asks for, and the goal is as wanted after round k.
//!
//! A domain says what one step, one literal, one node's branches and the
//! last round are: exact on S(n) ([`exact`]) and M_ab(m), exact strategies
//! on M(0) ([`strategic_exact`]), f64 on real-valued models ([`real`],
//! [`strategic_real`]). A witness that does not replay is an internal
//! error, never a verdict.

pub mod exact;
pub mod real;
pub mod strategic_exact;
pub mod strategic_real;

use super::WitnessTree;
use crate::lang::SourceError;
use crate::nis::front::model::Model;
use crate::nis::semantics::rules::Truth;

/// Why a walk stopped: the witness does not replay (`Wrong`, the reason), or
/// the domain itself failed (`Failed`, e.g. an evaluation error the model
/// must report).
#[derive(Debug)]
pub enum Stop<E> {
    Wrong(String),
    Failed(E),
}

impl<E> From<String> for Stop<E> {
    fn from(why: String) -> Self {
        Stop::Wrong(why)
    }
}

impl From<Box<SourceError>> for Stop<Box<SourceError>> {
    fn from(e: Box<SourceError>) -> Self {
        Stop::Failed(e)
    }
}

impl<E> Stop<E> {
    /// The reason, said of step `at` of its branch.
    fn at_step(self, at: usize) -> Self {
        match self {
            Stop::Wrong(why) => Stop::Wrong(format!("step {at}: {why}")),
            failed => failed,
        }
    }

    /// The form the callers read: the domain's failure outside, the
    /// reason a witness does not replay inside.
    pub fn nested<T>(r: Result<T, Stop<E>>) -> Result<Result<T, String>, E> {
        match r {
            Ok(t) => Ok(Ok(t)),
            Err(Stop::Wrong(why)) => Ok(Err(why)),
            Err(Stop::Failed(e)) => Err(e),
        }
    }
}

/// One number domain's semantics of a trace, as the walker needs it.
pub trait Replay {
    /// A state and a move as the decider reports them.
    type State;
    type Move;
    /// A state as replayed (with what the run shows of it).
    type Step: Clone;
    type Error;

    fn model(&self) -> &Model;

    /// The replayed initial state, when `root` is one.
    fn start(&mut self, root: &Self::State) -> Result<Self::Step, Stop<Self::Error>>;

    /// The truth of `label` of `agent` (or of the environment) at `at`.
    fn label(
        &mut self,
        at: &Self::Step,
        label: usize,
        agent: Option<usize>,
    ) -> Result<Truth, Stop<Self::Error>>;

    /// One round from `from` under `mv`, checked against the decider's
    /// successor `to`; the replayed successor.
    fn step(
        &mut self,
        from: &Self::Step,
        mv: &Self::Move,
        to: &Self::State,
    ) -> Result<Self::Step, Stop<Self::Error>>;
}

/// Replays a trace tree from its root; its branches as replayed runs.
pub fn replay_trace<R: Replay>(
    r: &mut R,
    tree: &WitnessTree<R::State, R::Move>,
) -> Result<Vec<Vec<R::Step>>, Stop<R::Error>> {
    let mut prefix = vec![r.start(&tree.state)?];
    let mut out = Vec::new();
    trace_node(r, tree, &mut prefix, &mut out)?;
    Ok(out)
}

fn trace_node<R: Replay>(
    r: &mut R,
    node: &WitnessTree<R::State, R::Move>,
    prefix: &mut Vec<R::Step>,
    out: &mut Vec<Vec<R::Step>>,
) -> Result<(), Stop<R::Error>> {
    let here = prefix.last().expect("non-empty prefix").clone();
    for &(label, agent, negated) in &node.obligations {
        let t = r.label(&here, label, agent)?;
        if !(if negated { t.may_fail() } else { t.may_hold() }) {
            let lit = literal_name(r.model(), label, agent);
            let not = if negated { "!" } else { "" };
            let why = format!("literal {not}{lit} fails on the replayed state");
            return Err(Stop::Wrong(why).at_step(prefix.len() - 1));
        }
    }
    if node.children.is_empty() {
        out.push(prefix.clone());
    }
    for (mv, child) in &node.children {
        let next = r
            .step(&here, mv, &child.state)
            .map_err(|e| e.at_step(prefix.len()))?;
        prefix.push(next);
        let walked = trace_node(r, child, prefix, out);
        prefix.pop();
        walked?;
    }
    Ok(())
}

/// `(label, 2)` for an agent's literal, `label` for the environment's.
pub fn literal_name(model: &Model, label: usize, agent: Option<usize>) -> String {
    let name = &model.labels[label].name;
    match agent {
        Some(a) => format!("({name}, {})", a + 1),
        None => name.clone(),
    }
}

/// What a strategy tree claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The coalition's strategy against every move of the others.
    Strategy,
    /// The others' answer to every move of the coalition.
    Refutation,
}

/// One number domain's rules of a strategy tree of `<<G>> X^k psi` (its
/// [`Shape`], the coalition and the goal are the domain's).
pub trait StrategyRules {
    type State;
    type Move;
    type Error;

    /// The branches of `node`, before round `round` (from 1) of `k`.
    fn branches(
        &mut self,
        node: &WitnessTree<Self::State, Self::Move>,
        round: u32,
        k: u32,
    ) -> Result<(), Self::Error>;

    /// A node after round `k`: no further rounds, the goal as wanted.
    fn last_round(
        &mut self,
        node: &WitnessTree<Self::State, Self::Move>,
        k: u32,
    ) -> Result<(), Self::Error>;
}

/// Checks that `tree` has the shape its rules ask for, over `k` rounds.
pub fn check_strategy<R: StrategyRules>(
    r: &mut R,
    tree: &WitnessTree<R::State, R::Move>,
    k: u32,
) -> Result<(), R::Error> {
    strategy_node(r, tree, 1, k)
}

fn strategy_node<R: StrategyRules>(
    r: &mut R,
    node: &WitnessTree<R::State, R::Move>,
    round: u32,
    k: u32,
) -> Result<(), R::Error> {
    if round > k {
        return r.last_round(node, k);
    }
    r.branches(node, round, k)?;
    for (_, child) in &node.children {
        strategy_node(r, child, round + 1, k)?;
    }
    Ok(())
}

/// The sizes of `got` and `expected` when they differ as multisets (a
/// tree's branches against the ones the semantics asks for).
pub fn mismatch<T: Ord>(mut got: Vec<T>, mut expected: Vec<T>) -> Option<(usize, usize)> {
    got.sort_unstable();
    expected.sort_unstable();
    (got != expected).then_some((got.len(), expected.len()))
}
