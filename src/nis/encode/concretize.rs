//! Abstract traces of the slot encoding ([`super::slots`]) read back and
//! made concrete.
//!
//! A solution of the M_ab(m) MILP is decoded into a tree of abstract states
//! (the m agents, the environment, the active slots) and moves (the agents'
//! and the environment's actions, each active child slot's parent and
//! action). It is then concretized: slot s of a node needs
//! `need(s) = max over the node's branches of the sum of need(c) over its
//! children c` concrete agents (1 at a leaf), so M(m + need(root slot))
//! has a run in which agents m+1.. follow the slots, splitting as the slots
//! branch; every such agent performs its slot's actions, so every round
//! performs exactly the abstract set of actions and the environment and
//! agents 1..m take the abstract steps. The concrete tree is replayed through
//! the concrete semantics in f64 ([`crate::nis::witness::replay::real`]); a replayed
//! concrete witness shows the abstract claim too (Theorem 2: M_ab(m)
//! simulates M(n) for n > m), and a replayed counterexample of a universal
//! sentence in M(n') shows it fails in every M(n), n >= n' (an added agent
//! copies another's choices without changing the performed set).

use super::concrete::{decode_local, decode_move, decode_state};
use super::state::which;
use super::state::{Round, State};
use super::unrolling::{Solved, Unrolled};
use crate::milp::Solution;
use crate::nis::front::model::Model;
use crate::nis::witness::replay::real::{RealLocal, RealMove, RealState, RealTree};
use crate::nis::witness::WitnessTree;
use crate::report::RunError;

/// A state of S_ab(m) in f64: the concrete part and the active slots.
#[derive(Clone, Debug)]
pub struct AbsRealState {
    pub base: RealState,
    pub slots: Vec<RealLocal>,
}

/// A move of S_ab(m): the agents' and environment's actions and, per slot
/// of the successor, (parent slot, action).
#[derive(Clone, Debug)]
pub struct AbsRealMove {
    pub base: RealMove,
    pub children: Vec<(usize, usize)>,
}

pub type AbsRealTree = WitnessTree<AbsRealState, AbsRealMove>;

/// The active slots of unrolling state `s`: their indices there and values.
fn active_slots(
    model: &Model,
    sol: &Solution,
    u: &Unrolled<State, Round>,
    s: usize,
) -> Vec<(usize, RealLocal)> {
    u.states[s]
        .zero_one
        .iter()
        .enumerate()
        .filter(|(_, z)| sol.eval(&z.active) > 0.5)
        .map(|(i, z)| (i, decode_local(model, sol, &z.local)))
        .collect()
}

/// The abstract witness tree of a solution along the encoded formula.
pub fn decode_abstract(model: &Model, s: Solved<State, Round>) -> AbsRealTree {
    let (sol, u) = (s.sol, s.tree);
    let state = |s: usize| AbsRealState {
        base: decode_state(model, sol, &u.states[s]),
        slots: active_slots(model, sol, u, s)
            .into_iter()
            .map(|x| x.1)
            .collect(),
    };
    s.root.tree(sol, state(0), &mut |at, to| {
        let round = &u.step(to).round;
        // Parents as positions among the active slots of `at`.
        let parents: Vec<usize> = active_slots(model, sol, u, at)
            .iter()
            .map(|x| x.0)
            .collect();
        let children = round
            .zero_one
            .iter()
            .filter(|c| sol.eval(&c.active) > 0.5)
            .map(|c| {
                let p = parents
                    .iter()
                    .position(|&q| q == c.parent)
                    .unwrap_or(usize::MAX);
                (p, which(sol, &c.action))
            })
            .collect();
        let mv = AbsRealMove {
            base: decode_move(sol, round),
            children,
        };
        (mv, state(to))
    })
}

/// Concrete agents slot `s` of node `t` needs (module documentation).
fn need(t: &AbsRealTree, s: usize) -> Result<usize, RunError> {
    if t.children.is_empty() {
        return Ok(1);
    }
    let mut most = 0;
    for (mv, child) in &t.children {
        let mut sum = 0;
        for (c, &(p, _)) in mv.children.iter().enumerate() {
            if p == s {
                sum += need(child, c)?;
            }
        }
        if sum == 0 {
            return Err(RunError::Internal(
                "an abstract move leaves a present local state without an action".into(),
            ));
        }
        most = most.max(sum);
    }
    Ok(most)
}

/// The abstract tree as a concrete tree of M(m + need(root slot)).
pub fn concretize(t: &AbsRealTree) -> Result<RealTree, RunError> {
    if t.state.slots.len() != 1 {
        return Err(RunError::Internal(
            "the zero-one agent does not start as one local state".into(),
        ));
    }
    let extra = need(t, 0)?;
    let m = t.state.base.agents.len();
    let groups = vec![(m..m + extra).collect::<Vec<usize>>()];
    let mut tree = build(t, &groups, m + extra)?;
    drop_redundant_agents(&mut tree, m);
    Ok(tree)
}

/// Removes, from the last one down, every agent beyond the first m whose
/// action in every round of every branch is also taken by another remaining
/// agent: the performed sets do not change, so neither does any other
/// agent's step or the environment's (the solver activates more slots
/// than a run needs; this gives a small concrete system).
fn drop_redundant_agents(t: &mut RealTree, m: usize) {
    fn redundant(t: &RealTree, j: usize) -> bool {
        t.children.iter().all(|(mv, child)| {
            let a = mv.actions[j];
            let covered = mv
                .actions
                .iter()
                .enumerate()
                .any(|(i, &b)| i != j && b == a);
            covered && redundant(child, j)
        })
    }
    fn remove(t: &mut RealTree, j: usize) {
        t.state.agents.remove(j);
        for (mv, child) in &mut t.children {
            mv.actions.remove(j);
            remove(child, j);
        }
    }
    for j in (m..t.state.agents.len()).rev() {
        if redundant(t, j) {
            remove(t, j);
        }
    }
}

/// The concrete node of `t` with `groups[s]` the agents that follow slot s.
fn build(t: &AbsRealTree, groups: &[Vec<usize>], n: usize) -> Result<RealTree, RunError> {
    let mut agents = t.state.base.agents.clone();
    agents.resize(n, t.state.slots[0].clone());
    for (s, g) in groups.iter().enumerate() {
        for &j in g {
            agents[j] = t.state.slots[s].clone();
        }
    }
    let mut out = WitnessTree {
        state: RealState {
            agents,
            env: t.state.base.env.clone(),
            named: Vec::new(),
        },
        obligations: t.obligations.clone(),
        children: Vec::new(),
    };
    for (mv, child) in &t.children {
        let mut actions = mv.base.actions.clone();
        actions.resize(n, 0);
        let mut next = vec![Vec::new(); child.state.slots.len()];
        for (s, g) in groups.iter().enumerate() {
            let kids: Vec<usize> = (0..mv.children.len())
                .filter(|&c| mv.children[c].0 == s)
                .collect();
            let mut rest = g.as_slice();
            for (i, &c) in kids.iter().enumerate() {
                // Each child gets what it needs; the last takes the surplus.
                let take = if i + 1 == kids.len() {
                    rest.len()
                } else {
                    need(child, c)?
                };
                if take == 0 || take > rest.len() {
                    return Err(RunError::Internal(
                        "too few agents to concretize a slot".into(),
                    ));
                }
                let (mine, others) = rest.split_at(take);
                for &j in mine {
                    actions[j] = mv.children[c].1;
                }
                next[c] = mine.to_vec();
                rest = others;
            }
        }
        let sub = build(child, &next, n)?;
        out.children.push((
            RealMove {
                actions,
                env_action: mv.base.env_action,
                named: Vec::new(),
            },
            sub,
        ));
    }
    Ok(out)
}
