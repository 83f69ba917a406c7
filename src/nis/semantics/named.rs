//! Named agents (agents with roles) on the environment's side of the exact
//! semantics. An environment state's codes are the environment's own
//! variables followed by every named agent's local state (private variables,
//! then percept); a joint environment-side action is the environment's own
//! action with one action per named agent ([`Model::split_env_action`]). A
//! step updates the environment (which reads the named agents' state and
//! actions) and every named agent (its own update, as a template's), and
//! each named agent then observes the new environment: an argmax tie gives
//! several successor environment states. Without named agents all of this is
//! the plain tr_e and prot_e of Definition 2.
//!
//! [`Model::split_env_action`]: crate::nis::front::model::Model::split_env_action

use super::system::for_each_product;
use super::{bits, code_value, ActionMask, EnvId, LocalId, SemResult, Semantics};
use crate::lang::Value;
use std::rc::Rc;

impl<'m> Semantics<'m> {
    /// Where named agent `j`'s local codes start in an environment state's codes.
    fn named_offset(&self, j: usize) -> usize {
        let before = self.model.named[..j].iter();
        self.model.env.vars.len() + before.map(|a| a.template.vars.len() + 1).sum::<usize>()
    }

    /// Named agent `j`'s own semantics (its template's protocol, update and
    /// observation; its environment states are the environment's own
    /// variables).
    pub fn named_semantics(&mut self, j: usize) -> &mut Semantics<'m> {
        &mut self.named[j]
    }

    /// Named agent `j`'s local state at environment state `e`, numbered in
    /// that agent's own semantics.
    pub fn named_local(&self, e: EnvId, j: usize) -> LocalId {
        let codes = self.env_codes(e);
        let (from, len) = (
            self.named_offset(j),
            self.model.named[j].template.vars.len() + 1,
        );
        self.named[j].space.encode(&codes[from..from + len])
    }

    /// Named agent `j`'s local codes (private variables, then percept) at `e`.
    pub fn named_codes(&self, e: EnvId, j: usize) -> &[i64] {
        let (from, len) = (
            self.named_offset(j),
            self.model.named[j].template.vars.len() + 1,
        );
        &self.env_codes(e)[from..from + len]
    }

    /// The full initial codes from the environment's own initial codes: one
    /// per combination of the named agents' initial local states (with
    /// `percept = observe`, each percept observed at `own`).
    pub(super) fn with_named_initials(&mut self, own: Vec<i64>) -> SemResult<Vec<Vec<i64>>> {
        let mut out = vec![own.clone()];
        for sub in &mut self.named {
            let env = sub.env_id(own.clone());
            let starts: Vec<Vec<i64>> = sub
                .initial_locals(env)?
                .into_iter()
                .map(|l| sub.space.decode(l))
                .collect();
            out = extend_each(out, &starts);
        }
        Ok(out)
    }

    /// Slots of an environment expression at full codes under joint action
    /// `joint` (see [`crate::nis::front::model::EnvSlots`]).
    pub(super) fn env_slots(&self, codes: &[i64], joint: usize) -> Vec<Value> {
        let model = self.model;
        let (own, named_actions) = model.split_env_action(joint);
        let mut slots: Vec<Value> = codes
            .iter()
            .zip(&model.env.vars)
            .map(|(&c, v)| code_value(&v.ty, c))
            .collect();
        slots.push(Value::Enum(model.env.action_enum, own));
        for (j, a) in model.named.iter().enumerate() {
            let (t, from) = (&a.template, self.named_offset(j));
            for (i, v) in t.vars.iter().enumerate() {
                slots.push(code_value(&v.ty, codes[from + i]));
            }
            let percept = codes[from + t.vars.len()] as usize;
            slots.push(Value::Enum(t.percept_enum, percept));
            slots.push(Value::Enum(t.action_enum, named_actions[j]));
        }
        slots
    }

    /// The joint actions enabled at `e`: the environment's own enabled
    /// actions `own` times each named agent's protocol at its local state.
    pub(super) fn joint_protocol(&mut self, e: EnvId, own: ActionMask) -> SemResult<ActionMask> {
        if self.named.is_empty() {
            return Ok(own);
        }
        let mut options: Vec<Vec<usize>> = vec![bits(own).collect()];
        for j in 0..self.named.len() {
            let l = self.named_local(e, j);
            options.push(bits(self.named[j].protocol(l)?).collect());
        }
        let sizes: Vec<usize> = options.iter().map(Vec::len).collect();
        let model = self.model;
        let mut mask: ActionMask = 0;
        for_each_product(&model.source, &sizes, |pick| {
            let named: Vec<usize> = (1..options.len()).map(|j| options[j][pick[j]]).collect();
            mask |= 1 << model.join_env_action(options[0][pick[0]], &named);
            Ok(())
        })?;
        Ok(mask)
    }

    /// tr_e with the named agents: the environment's successor states under
    /// joint action `joint` and the template agents' performed set (one
    /// without named agents; several on a named agent's argmax tie).
    pub fn env_successors(
        &mut self,
        e: EnvId,
        joint: usize,
        performed: ActionMask,
    ) -> SemResult<Rc<[EnvId]>> {
        let key = (e, joint as u8, performed);
        if let Some(next) = self.env_tr_cache.get(&key) {
            return Ok(next.clone());
        }
        let codes = self.env_codes(e).to_vec();
        let (own, named_actions) = self.model.split_env_action(joint);
        let slots = self.env_slots(&codes, joint);
        let model = self.model;
        let env_vars = self.run_update(
            &model.env.update,
            &model.env.vars,
            &codes,
            slots,
            performed,
            own,
        )?;
        let mut combos = vec![env_vars.clone()];
        for (j, &action) in named_actions.iter().enumerate() {
            let l = self.named_local(e, j);
            let sub = &mut self.named[j];
            let env_next = sub.env_id(env_vars.clone());
            let locals: Vec<Vec<i64>> = sub
                .local_successors(l, action, (performed, own), env_next)?
                .into_iter()
                .map(|l| sub.space.decode(l))
                .collect();
            combos = extend_each(combos, &locals);
        }
        let mut next: Vec<EnvId> = Vec::new();
        for c in combos {
            let id = self.env_id(c);
            if !next.contains(&id) {
                next.push(id);
            }
        }
        // Shared with the cache: a hit costs a reference count, not a copy.
        let next: Rc<[EnvId]> = next.into();
        self.env_tr_cache.insert(key, next.clone());
        Ok(next)
    }
}

/// Every prefix in `prefixes` extended by every tail in `tails`.
fn extend_each(prefixes: Vec<Vec<i64>>, tails: &[Vec<i64>]) -> Vec<Vec<i64>> {
    let mut out = Vec::with_capacity(prefixes.len() * tails.len());
    for p in prefixes {
        for t in tails {
            let mut c = p.clone();
            c.extend_from_slice(t);
            out.push(c);
        }
    }
    out
}
