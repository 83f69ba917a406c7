//! The f64 domain of the strategy walker ([`super::check_strategy`]): the
//! shape of a strategy tree of a real-valued model, checked in f64 (the
//! steps themselves are replayed by [`super::real`]).
//!
//! A tree of `<<G>> X^k psi` ([`Shape::Strategy`]): at every node below
//! round k the coalition G takes the same actions in every branch, and the
//! branches are exactly the others' joint moves (the environment's action
//! and each named agent outside G) that their protocols may enable at the
//! node, each once; every successor's percepts are the only ones the
//! observation gives there in f64 (the network's exact argmax: a strategy
//! whose MILP took the other side of a near-tie is rejected, since the
//! semantics' successor would be another branch).
//!
//! A refutation of `<<G>> X^k phi` ([`Shape::Refutation`]): the branches
//! are exactly G's joint moves its protocols may enable at the node, each
//! once, each answered by the others (any enabled answer, any successor
//! the observation allows: the refuter picks them).
//!
//! In both, every leaf is at round k and the goal (psi, or !phi) holds
//! there; a condition within the replay's tolerance of its border may go
//! either way ([`crate::nis::semantics::real_truth`]).

use super::real::RealTree;
use super::{check_strategy, mismatch, Shape, StrategyRules};
use crate::nis::front::core::{Core, Node};
use crate::nis::front::model::{InitPercept, Model, NamedAgent};
use crate::nis::semantics::real::{
    agent_vals, enabled, percepts_within, RealLocal, RealMove, RealState, Slots,
};
use crate::nis::semantics::real_named::env_vals;
use crate::nis::semantics::real_truth::truth;

/// Why a tree was rejected: it is wrong, or it relies on a near-tie that
/// f64 cannot decide (the verdict is then undetermined, not wrong).
#[derive(Debug)]
pub enum Rejected {
    Wrong(String),
    NearTie(String),
}

impl From<String> for Rejected {
    fn from(why: String) -> Self {
        Rejected::Wrong(why)
    }
}

/// Checks the shape of `tree` for the coalition `g` (named-agent indices),
/// `k` rounds and the goal at the leaves; `root_unique` also asks the
/// root's percepts to be the only possible ones (a strategy from one
/// given initial state).
pub fn check_shape(
    model: &Model,
    tree: &RealTree,
    (shape, g): (Shape, &[usize]),
    (goal, k): (&Core, u32),
    root_unique: bool,
) -> Result<(), Rejected> {
    if root_unique && shape == Shape::Strategy {
        unique_percepts(model, &tree.state, true)
            .map_err(|why| Rejected::NearTie(format!("at the initial state: {why}")))?;
    }
    let mut rules = RealRules {
        model,
        shape,
        g,
        goal,
    };
    check_strategy(&mut rules, tree, k)
}

/// The rules of a strategy tree of a real-valued model in f64.
struct RealRules<'m, 'g> {
    model: &'m Model,
    shape: Shape,
    g: &'g [usize],
    goal: &'g Core,
}

impl StrategyRules for RealRules<'_, '_> {
    type State = RealState;
    type Move = RealMove;
    type Error = Rejected;

    fn branches(&mut self, node: &RealTree, round: u32, k: u32) -> Result<(), Rejected> {
        let (model, shape, g) = (self.model, self.shape, self.g);
        let branched: Vec<usize> = match shape {
            Shape::Strategy => (0..model.named.len()).filter(|j| !g.contains(j)).collect(),
            Shape::Refutation => g.to_vec(),
        };
        let env_branched = shape == Shape::Strategy;
        let expected = joint_moves(model, &node.state, &branched, env_branched)?;
        let got = node.children.iter();
        let got = got.map(|(mv, _)| pinned(mv, &branched, env_branched));
        if let Some((got, expected)) = mismatch(got.collect(), expected) {
            return Err(Rejected::Wrong(format!(
                "round {round}: the branches are not every move {} may enable, each once ({got} branches, {expected} moves)",
                if env_branched { "the others" } else { "the coalition" },
            )));
        }
        if shape == Shape::Strategy {
            self.strategy_children(node, round, k)?;
        }
        Ok(())
    }

    fn last_round(&mut self, node: &RealTree, k: u32) -> Result<(), Rejected> {
        if !node.children.is_empty() {
            return Err(Rejected::Wrong(
                "the strategy goes on after its last round".into(),
            ));
        }
        if !holds(self.model, self.goal, self.goal.root, &node.state)? {
            return Err(Rejected::Wrong(format!("the goal fails after round {k}")));
        }
        Ok(())
    }
}

impl RealRules<'_, '_> {
    /// The children of a strategy's node before round `round`: the
    /// coalition acts alike in each, and each successor's percepts are the
    /// only ones possible (after the last round: the goal holds for each).
    fn strategy_children(&self, node: &RealTree, round: u32, k: u32) -> Result<(), Rejected> {
        let (model, goal) = (self.model, self.goal);
        let Some((first, _)) = node.children.first() else {
            return Err(Rejected::Wrong(format!(
                "the strategy stops {} rounds early",
                k + 1 - round
            )));
        };
        for (mv, child) in &node.children {
            if self.g.iter().any(|&j| mv.named[j] != first.named[j]) {
                return Err(Rejected::Wrong(format!(
                    "round {round}: the coalition's action differs between branches"
                )));
            }
            if round < k {
                unique_percepts(model, &child.state, false)
                    .map_err(|why| Rejected::NearTie(format!("after round {round}: {why}")))?;
            } else {
                goal_for_every_percept(model, goal, &child.state)?;
            }
        }
        Ok(())
    }
}

/// The actions of the branched positions in a move: the environment's
/// (when branched) then each branched named agent's.
fn pinned(mv: &RealMove, named: &[usize], env: bool) -> Vec<usize> {
    let mut out: Vec<usize> = env.then_some(mv.env_action).into_iter().collect();
    out.extend(named.iter().map(|&j| mv.named[j]));
    out
}

/// Every joint move of the branched positions their protocols may enable at `s`.
fn joint_moves(
    model: &Model,
    s: &RealState,
    named: &[usize],
    env: bool,
) -> Result<Vec<Vec<usize>>, String> {
    let mut options: Vec<Vec<usize>> = Vec::new();
    if env {
        let slots = Slots {
            model,
            vals: env_vals(s, None, None),
            performed: None,
            env_action: None,
        };
        let e = &model.env;
        options.push(indices(&enabled(&e.protocol, &slots, e.actions.len())?));
    }
    for &j in named {
        let t = &model.named[j].template;
        let slots = Slots {
            model,
            vals: agent_vals(&s.named[j], None, None, None, model),
            performed: None,
            env_action: None,
        };
        options.push(indices(&enabled(&t.protocol, &slots, t.actions.len())?));
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for o in options {
        out = out
            .into_iter()
            .flat_map(|c| {
                o.iter().map(move |&a| {
                    let mut c = c.clone();
                    c.push(a);
                    c
                })
            })
            .collect();
    }
    Ok(out)
}

/// The positions of the set flags.
fn indices(flags: &[bool]) -> Vec<usize> {
    (0..flags.len()).filter(|&a| flags[a]).collect()
}

/// After the last round a near-tie matters only through the goal: it must
/// hold whichever of the possible percepts each named agent has (a goal
/// over environment variables alone does not read them at all).
fn goal_for_every_percept(model: &Model, goal: &Core, s: &RealState) -> Result<(), Rejected> {
    let mut states = vec![s.clone()];
    for (j, a) in model.named.iter().enumerate() {
        let possible = possible_percepts(model, a, &s.named[j], s)?;
        states = states
            .into_iter()
            .flat_map(|t| {
                possible.iter().map(move |&p| {
                    let mut t = t.clone();
                    t.named[j].percept = p;
                    t
                })
            })
            .collect();
    }
    for t in &states {
        if !holds(model, goal, goal.root, t)? {
            return Err(Rejected::NearTie(format!(
                "after the last round the goal depends on which percept an argmax near-tie gives ({} possible combinations)",
                states.len()
            )));
        }
    }
    Ok(())
}

/// The percepts the observation of agent `a` (local state `l`) allows at `s`
/// in f64.
fn possible_percepts(
    model: &Model,
    a: &NamedAgent,
    l: &RealLocal,
    s: &RealState,
) -> Result<Vec<usize>, String> {
    let t = &a.template;
    let slots = Slots {
        model,
        vals: agent_vals(l, None, None, Some(&s.env), model),
        performed: None,
        env_action: None,
    };
    let mut possible = vec![false; t.percepts.len()];
    percepts_within(&t.observe, &slots, &mut possible, 0.0)?;
    Ok(indices(&possible))
}

/// Every named agent's percept at `s` is the only one its observation
/// allows (`initial`: at the initial state, where only a first percept
/// given by `= observe` is observed).
fn unique_percepts(model: &Model, s: &RealState, initial: bool) -> Result<(), String> {
    for (a, l) in model.named.iter().zip(&s.named) {
        let t = &a.template;
        if initial && t.init_percept != InitPercept::Observed {
            continue;
        }
        if possible_percepts(model, a, l, s)? != [l.percept] {
            return Err(format!(
                "{}'s percept {} is not the only one its observation gives in f64 (an argmax near-tie, or a condition at its border); the strategy would have to cover the other side",
                a.name, t.percepts[l.percept]
            ));
        }
    }
    Ok(())
}

/// The propositional goal at `s` (environment labels; a literal near its
/// border may go either way).
fn holds(model: &Model, goal: &Core, at: usize, s: &RealState) -> Result<bool, String> {
    match &goal.nodes[at] {
        Node::Lit {
            label,
            agent: None,
            negated,
        } => {
            let slots = Slots {
                model,
                vals: env_vals(s, None, None),
                performed: None,
                env_action: None,
            };
            let t = truth(&model.labels[*label].expr, &slots)?;
            Ok(if *negated { t.may_fail() } else { t.may_hold() })
        }
        Node::And(xs) => {
            for &x in xs {
                if !holds(model, goal, x, s)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Node::Or(xs) => {
            for &x in xs {
                if holds(model, goal, x, s)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ => {
            Err("the goal of a strategic sentence is propositional over environment labels".into())
        }
    }
}
