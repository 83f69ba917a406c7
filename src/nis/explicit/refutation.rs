//! Refutations of `<<G>> X^k psi` on M(0): the counterexample of a
//! strategic sentence that fails from an initial state.
//!
//! A refutation tree answers every choice the coalition G may make at a
//! node (each enabled choice once) with one joint action of the others and
//! the environment that includes it, and one successor of that action from
//! which G does not win the remaining rounds; at round k psi fails. It is
//! the dual of a strategy tree ([`super::strategic`]): the branching is
//! over G's choices, the rest is picked by the refuter.

use super::strategic::{Strategic, StrategyTree, MAX_SHOWN_STRATEGY};
use crate::nis::semantics::game::{by_choice, m0_move, m0_state};
use crate::nis::semantics::{EnvId, SemResult};
use crate::nis::witness::WitnessTree;

impl Strategic<'_, '_> {
    /// The refutation of `<<G>> X^k psi` at `e`, where G does not win
    /// there; `None` when it would have more than [`MAX_SHOWN_STRATEGY`]
    /// nodes (the verdict stands, the tree is not shown).
    pub fn refutation(&mut self, e: EnvId, k: u32) -> SemResult<Option<StrategyTree>> {
        let mut budget = MAX_SHOWN_STRATEGY;
        self.refute(e, k, &mut budget)
    }

    fn refute(&mut self, e: EnvId, k: u32, budget: &mut usize) -> SemResult<Option<StrategyTree>> {
        if *budget == 0 {
            return Ok(None);
        }
        *budget -= 1;
        let mut node = WitnessTree::leaf(m0_state(e));
        if k == 0 {
            return Ok(Some(node));
        }
        for (_, joints) in by_choice(self.sem, &self.coalition, e)? {
            let Some((joint, next)) = self.answer(e, &joints, k - 1)? else {
                // G wins with this choice: `e` was not a losing state.
                return Ok(None);
            };
            let Some(sub) = self.refute(next, k - 1, budget)? else {
                return Ok(None);
            };
            node.children.push((m0_move(joint), sub));
        }
        Ok(Some(node))
    }

    /// A joint action among `joints` and a successor of it from which G
    /// does not win `<<G>> X^k psi`.
    fn answer(&mut self, e: EnvId, joints: &[usize], k: u32) -> SemResult<Option<(usize, EnvId)>> {
        for &joint in joints {
            for next in self.sem.env_successors(e, joint, 0)?.iter().copied() {
                if !self.can(next, k)? {
                    return Ok(Some((joint, next)));
                }
            }
        }
        Ok(None)
    }
}
