//! Protocols and transitions: prot_t and tr_t of Definition 1, prot_e and
//! tr_e of Definition 2, evaluated exactly and cached.

use super::exact::Exact;
use super::{rules, ActionMask, EnvId, LocalId, SemResult, Semantics};
use crate::lang::{error_at, Value};
use crate::nis::front::model::{ProtocolCase, UpdateCase, VarDecl};

impl Semantics<'_> {
    /// The actions some case enables at `slots` (the rule: [`rules::protocol`]).
    pub(super) fn protocol_mask(
        &mut self,
        cases: &[ProtocolCase],
        slots: Vec<Value>,
    ) -> SemResult<ActionMask> {
        let count = cases
            .iter()
            .flat_map(|c| &c.actions)
            .max()
            .map_or(0, |a| a + 1);
        let mut enabled = vec![false; count];
        rules::protocol(&mut Exact::at(self, &slots), cases, &mut enabled)?;
        Ok(bool_mask(&enabled))
    }

    /// prot_t(l): the actions enabled at a local state; an error if none is.
    pub fn protocol(&mut self, l: LocalId) -> SemResult<ActionMask> {
        if let Some(&m) = self.protocol_cache.get(&l) {
            return Ok(m);
        }
        let codes = self.space.decode(l);
        let slots = self.agent_slots(&codes, 0, 0, None);
        let model = self.model;
        let template = self.template;
        let mask = self.protocol_mask(&template.protocol, slots)?;
        if mask == 0 {
            return Err(error_at(
                &model.source,
                template
                    .protocol
                    .first()
                    .map_or(crate::lang::Span::default(), |c| c.span),
                format!(
                    "the protocol enables no action at the local state {}",
                    self.describe_local(l)
                ),
            ));
        }
        self.protocol_cache.insert(l, mask);
        Ok(mask)
    }

    /// prot_e(l_e), an error if empty.
    pub fn env_protocol(&mut self, e: EnvId) -> SemResult<ActionMask> {
        if let Some(&m) = self.env_protocol_cache.get(&e) {
            return Ok(m);
        }
        let slots = self.env_slots(self.env_codes(e), 0);
        let model = self.model;
        let own = self.protocol_mask(&model.env.protocol, slots)?;
        let mask = self.joint_protocol(e, own)?;
        if own == 0 {
            return Err(error_at(
                &model.source,
                model
                    .env
                    .protocol
                    .first()
                    .map_or(crate::lang::Span::default(), |c| c.span),
                format!(
                    "the environment protocol enables no action at {}",
                    self.describe_env(e)
                ),
            ));
        }
        self.env_protocol_cache.insert(e, mask);
        Ok(mask)
    }

    /// The private state after the update (the rule: [`rules::update`],
    /// one outcome in the exact domain); a value outside its declared range
    /// is an error.
    pub(super) fn run_update(
        &mut self,
        cases: &[UpdateCase],
        vars: &[VarDecl],
        current: &[i64],
        slots: Vec<Value>,
        performed: ActionMask,
        env_action: usize,
    ) -> SemResult<Vec<i64>> {
        let mut exact = Exact {
            sem: self,
            slots: &slots,
            performed,
            env_action,
        };
        let mut outcomes = rules::update(&mut exact, cases, vars, &current[..vars.len()])?;
        Ok(outcomes.swap_remove(0))
    }

    /// tr_t(l, a, A, a_e): the next private state (Definition 1).
    pub fn transition(
        &mut self,
        l: LocalId,
        a: usize,
        performed: ActionMask,
        env_action: usize,
    ) -> SemResult<Vec<i64>> {
        // A joint environment-side action acts here as the environment's own.
        let env_action = env_action % self.model.env.actions.len();
        let key = (l, a as u8, performed, env_action as u8);
        if let Some(p) = self.tr_cache.get(&key) {
            return Ok(p.clone());
        }
        let codes = self.space.decode(l);
        let slots = self.agent_slots(&codes, a, env_action, None);
        let template = self.template;
        let next = self.run_update(
            &template.update,
            &template.vars,
            &codes,
            slots,
            performed,
            env_action,
        )?;
        self.tr_cache.insert(key, next.clone());
        Ok(next)
    }

    /// tr_e(l_e, a_e, A) of a model without named agents (one successor;
    /// with named agents use [`Semantics::env_successors`]).
    pub fn env_transition(
        &mut self,
        e: EnvId,
        env_action: usize,
        performed: ActionMask,
    ) -> SemResult<EnvId> {
        debug_assert!(self.model.named.is_empty());
        Ok(self.env_successors(e, env_action, performed)?[0])
    }
}

/// The set bits of a list of flags.
pub(super) fn bool_mask(flags: &[bool]) -> u64 {
    flags
        .iter()
        .enumerate()
        .filter(|(_, &on)| on)
        .fold(0, |m, (i, _)| m | 1 << i)
}
