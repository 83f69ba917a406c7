//! Strategic sentences (ATL over named agents, [`crate::nis::front::strategic`])
//! on M(0), the named agents and the environment, by explicit search (M(0)
//! as a game: [`crate::nis::semantics::game`]; the strategy trees' replay:
//! [`crate::nis::witness::replay::strategic_exact`]).
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
//! A strategy tree is a [`WitnessTree`] over the states and moves of
//! M(0): at each node before round k the coalition's choice is the same in
//! every child and the children are exactly the enabled joint actions with
//! that choice times their successors; at round k psi holds.

use crate::nis::front::core::{Core, Node};
use crate::nis::semantics::game::{by_choice, holds_at, m0_move, m0_state};
use crate::nis::semantics::{EnvId, SemResult, Semantics};
pub use crate::nis::witness::replay::strategic_exact::StrategyTree;
use crate::nis::witness::WitnessTree;
use rustc_hash::FxHashMap as HashMap;

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
