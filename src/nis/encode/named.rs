//! Named agents (agents with roles) in the MILP unrollings of M(n). As in
//! the exact semantics ([`crate::nis::semantics::named`]) they are part of
//! the environment's side: a state carries each named agent's local state
//! next to the environment's variables ([`super::state::State::named`]),
//! and a round chooses each one's action (one-hot under its own protocol)
//! next to the environment's ([`super::state::Round::named`]). The
//! environment's protocol, update and labels read them through the slots of
//! [`crate::nis::front::model::EnvSlots`] (`NAME.x`, `NAME.percept`,
//! `NAME.action`); each named agent updates by its own template's rules
//! (seeing the environment's own action and the template agents' performed
//! set) and then observes the new environment state through the same
//! network encoding as every agent.

use super::expr::{code_val, one_hot, Ctx, Enc, Val};
use super::state::{AgentState, Joint};
use crate::milp::LinExpr;
use crate::report::RunError;

impl Enc<'_> {
    /// Slots of an environment expression ([`crate::nis::front::model::EnvSlots`]):
    /// its variables, its action, then per named agent its private
    /// variables, percept and action (`None` where not readable).
    pub(super) fn env_slots_named(
        &self,
        env: &[Val],
        action: Option<&[LinExpr]>,
        named: &[AgentState],
        named_actions: Option<&[Vec<LinExpr>]>,
    ) -> Vec<Option<Val>> {
        let mut slots = Self::env_slots(env, action);
        for (j, a) in named.iter().enumerate() {
            slots.extend(a.private.iter().cloned().map(Some));
            slots.push(Some(Val::Enum(a.percept.clone())));
            slots.push(named_actions.map(|xs| Val::Enum(xs[j].clone())));
        }
        slots
    }

    /// Environment labels read the environment's state and the named agents'.
    pub fn env_label_named(
        &mut self,
        expr: &crate::lang::TExpr,
        env: &[Val],
        named: &[AgentState],
    ) -> Result<LinExpr, RunError> {
        let slots = self.env_slots_named(env, None, named, None);
        let ctx = Ctx::of(&slots);
        self.boolean(expr, &ctx)
    }

    /// The named agents' initial local states at a start of a finite model:
    /// `codes` are the full environment codes of the exact semantics (its
    /// variables, then each named agent's private codes and percept), so a
    /// tied first percept (`= observe`) is one start among several.
    pub(super) fn named_from_codes(&self, codes: &[i64]) -> Vec<AgentState> {
        let mut at = self.model.env.vars.len();
        let mut out = Vec::with_capacity(self.model.named.len());
        for a in &self.model.named {
            let t = &a.template;
            let private: Vec<Val> = t
                .vars
                .iter()
                .zip(&codes[at..])
                .map(|(d, &c)| code_val(&d.ty, c))
                .collect();
            let percept = codes[at + t.vars.len()] as usize;
            at += t.vars.len() + 1;
            out.push(AgentState {
                private,
                percept: one_hot(percept, t.percepts.len()),
            });
        }
        out
    }

    /// Each named agent's one-hot action under its own protocol.
    pub(super) fn named_actions(
        &mut self,
        named: &[AgentState],
        tag: &str,
    ) -> Result<Vec<Vec<LinExpr>>, RunError> {
        let model = self.model;
        let mut out = Vec::with_capacity(named.len());
        for (a, state) in model.named.iter().zip(named) {
            let t = &a.template;
            let slots = self.agent_slots(state, None, None, None);
            let name = format!("{tag}.{}.act", a.name);
            out.push(self.choose_action(&name, (&t.protocol, t.actions.len()), &slots)?);
        }
        Ok(out)
    }

    /// The named agents after a round: each one's own update (under its
    /// action, the environment's own action and the performed set), then
    /// its observation at the new environment state `env`. With `guard`
    /// the range checks count only where it is 1.
    pub(super) fn named_successors(
        &mut self,
        joint: &Joint,
        env: &[Val],
        tag: &str,
        guard: Option<&LinExpr>,
    ) -> Result<Vec<AgentState>, RunError> {
        let model = self.model;
        let mut out = Vec::with_capacity(joint.named.len());
        for (j, a) in model.named.iter().enumerate() {
            let t = &a.template;
            self.prefix = format!("{tag}.{}", a.name);
            let name = self.prefix.clone();
            let from = &joint.named[j];
            let action = &joint.named_actions[j];
            let private = self.update_of(t, &name, from, action, joint, guard)?;
            out.push(self.observed_by(t, private, from, env)?);
        }
        Ok(out)
    }
}
