//! Strategic sentences (ATL over named agents, [`crate::nis::front::strategic`])
//! on M(0), the named agents and the environment, by explicit search, and
//! the replay of every decider's strategy trees.
//!
//! A state is an environment state (named agents included); a round's joint
//! action is the environment's own action with one action per named agent.
//! `<<G>> X psi` holds at `e` when some choice of the coalition G (one
//! enabled action per member) makes psi hold at every successor of every
//! enabled joint action with that choice (every other agent's and the
//! environment's action, every percept an argmax tie allows). Deciders
//! compute `<<G>> X^k psi` for psi = phi (`<<G>>`) or psi = !phi (`[[G]]`,
//! whose counterexample is G's strategy for !phi).
//!
//! A strategy tree is a [`WitnessTree`] over [`CState`] / [`CMove`] of
//! M(0): at each node before round k the coalition's choice is the same in
//! every child and the children are exactly the enabled joint actions with
//! that choice times their successors; at round k psi holds.

use super::concrete::{CMove, CState};
use super::semantics::{bits, EnvId, SemResult, Semantics};
use crate::nis::front::core::{Core, Node};
use crate::nis::witness::WitnessTree;
use rustc_hash::FxHashMap as HashMap;

/// A strategy tree of M(0).
pub type StrategyTree = WitnessTree<CState, CMove>;

/// psi (propositional over environment labels) at `e`.
pub fn holds_at(sem: &mut Semantics, goal: &Core, node: usize, e: EnvId) -> SemResult<bool> {
    Ok(match &goal.nodes[node] {
        &Node::Lit { label, negated, .. } => sem.literal(label, None, e)? != negated,
        Node::And(cs) => {
            for &c in cs {
                if !holds_at(sem, goal, c, e)? {
                    return Ok(false);
                }
            }
            true
        }
        Node::Or(cs) => {
            for &c in cs {
                if holds_at(sem, goal, c, e)? {
                    return Ok(true);
                }
            }
            false
        }
        Node::EX(_) | Node::AX(_) => false,
    })
}

/// The literals that make psi hold at `e` (an OR follows its first true disjunct).
fn obligations(
    sem: &mut Semantics,
    goal: &Core,
    node: usize,
    e: EnvId,
    out: &mut Vec<(usize, Option<usize>, bool)>,
) -> SemResult<()> {
    match &goal.nodes[node] {
        &Node::Lit { label, negated, .. } => out.push((label, None, negated)),
        Node::And(cs) => {
            for &c in cs {
                obligations(sem, goal, c, e, out)?;
            }
        }
        Node::Or(cs) => {
            for &c in cs {
                if holds_at(sem, goal, c, e)? {
                    return obligations(sem, goal, c, e, out);
                }
            }
        }
        Node::EX(_) | Node::AX(_) => {}
    }
    Ok(())
}

/// The coalition's part of a joint environment-side action.
pub fn coalition_part(sem: &Semantics, coalition: &[usize], joint: usize) -> Vec<usize> {
    let (_, named) = sem.model.split_env_action(joint);
    coalition.iter().map(|&j| named[j]).collect()
}

/// The enabled joint actions at `e`, grouped by the coalition's choice.
pub fn by_choice(
    sem: &mut Semantics,
    coalition: &[usize],
    e: EnvId,
) -> SemResult<Vec<(Vec<usize>, Vec<usize>)>> {
    let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for joint in bits(sem.env_protocol(e)?) {
        let g = coalition_part(sem, coalition, joint);
        match groups.iter_mut().find(|(h, _)| *h == g) {
            Some((_, js)) => js.push(joint),
            None => groups.push((g, vec![joint])),
        }
    }
    Ok(groups)
}

/// `<<G>> X^k psi` by memoised search over M(0).
pub struct Strategic<'s, 'm> {
    pub sem: &'s mut Semantics<'m>,
    pub(super) coalition: Vec<usize>,
    goal: &'s Core,
    memo: HashMap<(EnvId, u32), bool>,
}

impl<'s, 'm> Strategic<'s, 'm> {
    /// The search for coalition `coalition` (named-agent indices) and psi `goal`.
    pub fn new(sem: &'s mut Semantics<'m>, coalition: Vec<usize>, goal: &'s Core) -> Self {
        Strategic {
            sem,
            coalition,
            goal,
            memo: HashMap::default(),
        }
    }

    /// The coalition's choice that wins `<<G>> X^k psi` at `e`, if one does,
    /// with the joint actions it leaves open.
    fn winning(&mut self, e: EnvId, k: u32) -> SemResult<Option<Vec<usize>>> {
        for (_, joints) in by_choice(self.sem, &self.coalition, e)? {
            if self.all_win(e, &joints, k - 1)? {
                return Ok(Some(joints));
            }
        }
        Ok(None)
    }

    fn all_win(&mut self, e: EnvId, joints: &[usize], k: u32) -> SemResult<bool> {
        for &joint in joints {
            for next in self.sem.env_successors(e, joint, 0)?.iter().copied() {
                if !self.can(next, k)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// `<<G>> X^k psi` at `e`.
    pub fn can(&mut self, e: EnvId, k: u32) -> SemResult<bool> {
        if k == 0 {
            return holds_at(self.sem, self.goal, self.goal.root, e);
        }
        if let Some(&v) = self.memo.get(&(e, k)) {
            return Ok(v);
        }
        let v = self.winning(e, k)?.is_some();
        self.memo.insert((e, k), v);
        Ok(v)
    }

    /// The number of nodes of the strategy tree [`Strategic::strategy`]
    /// builds at `e` (saturating), without building it.
    pub fn strategy_size(&mut self, e: EnvId, k: u32) -> SemResult<usize> {
        if k == 0 {
            return Ok(1);
        }
        let mut size: usize = 1;
        for joint in self.winning(e, k)?.unwrap_or_default() {
            for next in self.sem.env_successors(e, joint, 0)?.iter().copied() {
                size = size.saturating_add(self.strategy_size(next, k - 1)?);
                if size > MAX_SHOWN_STRATEGY {
                    return Ok(size);
                }
            }
        }
        Ok(size)
    }

    /// The strategy tree of `<<G>> X^k psi` at `e` (which must hold there).
    pub fn strategy(&mut self, e: EnvId, k: u32) -> SemResult<StrategyTree> {
        let mut node = WitnessTree::leaf(m0_state(e));
        if k == 0 {
            let root = self.goal.root;
            obligations(self.sem, self.goal, root, e, &mut node.obligations)?;
            return Ok(node);
        }
        let joints = self.winning(e, k)?.unwrap_or_default();
        for joint in joints {
            for next in self.sem.env_successors(e, joint, 0)?.iter().copied() {
                let sub = self.strategy(next, k - 1)?;
                node.children.push((m0_move(joint), sub));
            }
        }
        Ok(node)
    }
}

/// The largest strategy tree a decider builds and replays to show it.
pub const MAX_SHOWN_STRATEGY: usize = 100_000;

/// A state of M(0): the environment state alone.
pub fn m0_state(env: EnvId) -> CState {
    CState {
        indexed: Vec::new(),
        others: Vec::new(),
        env,
    }
}

/// A move of M(0): the joint environment-side action alone.
pub fn m0_move(joint: usize) -> CMove {
    CMove {
        env_action: joint,
        indexed: Vec::new(),
        others: Vec::new(),
    }
}

/// The branches of one node of a strategy tree of `<<G>> X^k psi` (see the
/// module documentation): the coalition's one choice, with every enabled
/// move of the others and every successor. `Err(reason)` in the inner
/// result when they are not.
pub fn strategy_branches(
    sem: &mut Semantics,
    tree: &StrategyTree,
    coalition: &[usize],
) -> SemResult<Result<(), String>> {
    let e = tree.state.env;
    let Some((first, _)) = tree.children.first() else {
        return Ok(Err("the strategy stops before its last round".into()));
    };
    let choice = coalition_part(sem, coalition, first.env_action);
    let mut expected: Vec<(usize, EnvId)> = Vec::new();
    for (g, joints) in by_choice(sem, coalition, e)? {
        if g != choice {
            continue;
        }
        for joint in joints {
            for next in sem.env_successors(e, joint, 0)?.iter().copied() {
                expected.push((joint, next));
            }
        }
    }
    let got = tree
        .children
        .iter()
        .map(|(mv, c)| (mv.env_action, c.state.env));
    if let Some((got, expected)) = mismatch(got.collect(), expected) {
        return Ok(Err(format!(
            "at {} the strategy's branches are not every enabled move of the others and every successor of the coalition's choice ({got} branches, {expected} expected)",
            sem.describe_env(e),
        )));
    }
    Ok(Ok(()))
}

/// The sizes of `got` and `expected` when they differ as multisets (a
/// tree's branches against the ones the semantics asks for).
pub fn mismatch<T: Ord>(mut got: Vec<T>, mut expected: Vec<T>) -> Option<(usize, usize)> {
    got.sort_unstable();
    expected.sort_unstable();
    (got != expected).then_some((got.len(), expected.len()))
}

/// The last round of a strategy tree (`wanted`: the goal holds there) or
/// of a refutation (it fails): no further rounds, and the goal as wanted.
pub fn last_round(
    sem: &mut Semantics,
    tree: &StrategyTree,
    goal: &Core,
    wanted: bool,
) -> SemResult<Result<(), String>> {
    if !tree.children.is_empty() {
        return Ok(Err("the tree goes on after its last round".into()));
    }
    let e = tree.state.env;
    if holds_at(sem, goal, goal.root, e)? != wanted {
        let verb = if wanted { "fails" } else { "holds" };
        return Ok(Err(format!(
            "the goal {verb} at {} after the last round",
            sem.describe_env(e)
        )));
    }
    Ok(Ok(()))
}
