//! The zero-one agent of seed Definition 12 by slots, for models whose local
//! states cannot be tabulated (real-valued variables).
//!
//! An abstract local state is a non-empty set of template local states. From
//! the singleton {iota_t}, every element of the set may take a non-empty set
//! of its enabled actions and see each successor with a non-empty set of
//! tied percepts, so it has at most B children
//! ([`crate::nis::branching::zero_one_branching`]). The encoding gives every
//! slot B child positions, each with an active flag, its own action (one-hot,
//! summing to the flag, allowed by the protocol at the parent), its own
//! update and its own network copy for the percept. The abstract state at
//! depth j is the set of the active slots' local states (at most B^j slots):
//! - a slot is active only under an active parent, and an active parent has
//!   at least one active child (Definition 12: a NON-EMPTY set of actions);
//! - the actions of the active children are performed (Definition 13: the
//!   set of performed actions includes the zero-one agent's);
//! - children with the same action and different percepts are the tie subsets.
//!
//! Every abstract move is some assignment of the positions, and every
//! assignment is an abstract move (duplicate children are harmless: the
//! abstract state is the set of their values), so the encoding is exact.
//! Inactive children still get an update and a percept (their values are
//! not read); declared ranges are checked under the active flag only.

use super::encode::{milp_error, Ctx};
use super::unroll::AgentState;
use super::Enc;
use crate::milp::LinExpr;
use crate::report::RunError;

/// Default cap of the slots of one unrolling (the encoding is exponential in the depth).
pub const MAX_SLOTS: usize = 2000;

/// A slot of the zero-one agent: active flag (0/1) and local state.
#[derive(Clone, Debug)]
pub struct Slot {
    pub active: LinExpr,
    pub local: AgentState,
}

/// A child position of one round: its parent slot, active flag and one-hot
/// action (summing to the flag).
#[derive(Clone, Debug)]
pub struct SlotChoice {
    pub parent: usize,
    pub active: LinExpr,
    pub action: Vec<LinExpr>,
}

impl Enc<'_> {
    /// The child positions of every slot of `from` with their actions
    /// (Definition 12's constraints); none in M(n).
    pub(super) fn slot_choices(
        &mut self,
        from: &[Slot],
        tag: &str,
    ) -> Result<Vec<SlotChoice>, RunError> {
        let t = &self.model.template;
        let mut out = Vec::new();
        self.slot_count += from.len() * self.branching;
        if self.slot_count > self.max_slots {
            return Err(RunError::input(format!(
                "the slot encoding of the zero-one agent needs more than {} slots \
                 ({} children per slot; the slots grow as {}^depth): the formula is too deep \
                 for the MILP decider of M_ab(m) on this model",
                self.max_slots, self.branching, self.branching
            )));
        }
        for (p, slot) in from.iter().enumerate() {
            let slots = self.agent_slots(&slot.local, None, None, None);
            let name = format!("{tag}.zo{p}");
            let enabled = self.enabled_actions(&name, &t.protocol, t.actions.len(), &slots)?;
            let mut flags = Vec::with_capacity(self.branching);
            for c in 0..self.branching {
                let cname = format!("{name}.c{c}");
                let active: LinExpr = if super::encode::constant(&slot.active) == Some(0.0) {
                    LinExpr::constant(0.0)
                } else {
                    let x = self.milp.binary(&format!("{cname}.on"));
                    self.milp
                        .le(&format!("{cname}.under"), x, slot.active.clone())
                        .map_err(milp_error)?;
                    x.into()
                };
                let action = self.pick_action(&format!("{cname}.act"), &enabled, active.clone())?;
                flags.push(active.clone());
                out.push(SlotChoice {
                    parent: p,
                    active,
                    action,
                });
            }
            // A present state takes a non-empty set of actions.
            self.milp
                .ge(
                    &format!("{name}.some"),
                    LinExpr::sum(flags.clone()),
                    slot.active.clone(),
                )
                .map_err(milp_error)?;
            // The positions are interchangeable: active ones first.
            for (c, w) in flags.windows(2).enumerate() {
                if super::encode::constant(&w[0]).is_none() {
                    self.milp
                        .ge(&format!("{name}.order{c}"), w[0].clone(), w[1].clone())
                        .map_err(milp_error)?;
                }
            }
        }
        Ok(out)
    }

    /// The child slots of one round: each position's update of its parent's
    /// private state under its action, and its percept at the new environment.
    pub(super) fn slot_successors(
        &mut self,
        from: &[Slot],
        choices: &[SlotChoice],
        performed: &[LinExpr],
        env_action: &[LinExpr],
        env: &[super::encode::Val],
        tag: &str,
    ) -> Result<Vec<Slot>, RunError> {
        let t = &self.model.template;
        let mut out = Vec::with_capacity(choices.len());
        for (c, ch) in choices.iter().enumerate() {
            let parent = &from[ch.parent].local;
            let tag = format!("{tag}.zo.c{c}");
            let slots = self.agent_slots(parent, Some(&ch.action), Some(env_action), None);
            let ctx = Ctx {
                slots: &slots,
                performed: Some(performed),
                env_action: Some(env_action),
            };
            self.range_guard = Some(ch.active.clone());
            let private = self.update(&tag, &t.update, &t.vars, &parent.private, &ctx);
            self.range_guard = None;
            let inter = AgentState {
                private: private?,
                percept: parent.percept.clone(),
            };
            let slots = self.agent_slots(&inter, None, None, Some(env));
            let ctx = Ctx {
                slots: &slots,
                performed: None,
                env_action: None,
            };
            self.prefix = tag;
            let percept = self.observe(&t.observe, &ctx)?;
            out.push(Slot {
                active: ch.active.clone(),
                local: AgentState {
                    private: inter.private,
                    percept,
                },
            });
        }
        self.order_siblings(choices, &out, tag)?;
        Ok(out)
    }

    /// Active siblings in strictly increasing (action, percept) order. Sound:
    /// two active siblings with the same action and percept have the same
    /// local state, one element of the abstract set, and their subtrees
    /// merge into one with at most B distinct children per element again; so
    /// every abstract run has a solution with sorted distinct siblings.
    fn order_siblings(
        &mut self,
        choices: &[SlotChoice],
        children: &[Slot],
        tag: &str,
    ) -> Result<(), RunError> {
        let percepts = self.model.template.percepts.len();
        let code = |c: usize| -> LinExpr {
            let mut e = LinExpr::constant(0.0);
            for (a, x) in choices[c].action.iter().enumerate() {
                e += x.clone() * (a * percepts) as f64;
            }
            for (p, x) in children[c].local.percept.iter().enumerate() {
                e += x.clone() * p as f64;
            }
            e
        };
        let big = (self.model.template.actions.len() * percepts) as f64;
        for c in 0..choices.len().saturating_sub(1) {
            let next = &choices[c + 1];
            if next.parent != choices[c].parent || super::encode::constant(&next.active).is_some() {
                continue;
            }
            // code(c) + 1 <= code(c+1) + big * (1 - active(c+1)).
            self.milp
                .le(
                    &format!("{tag}.zo.sorted{c}"),
                    code(c) + 1.0 + next.active.clone() * big,
                    code(c + 1) + big,
                )
                .map_err(milp_error)?;
        }
        Ok(())
    }
}
