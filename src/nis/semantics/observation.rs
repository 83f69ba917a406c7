//! Observation (obs_t of Definition 1): the percepts an intermediate local
//! state can see at an environment state, several on exact argmax ties.

use super::exact::Exact;
use super::step::bool_mask;
use super::{bits, rules, ActionMask, EnvId, LocalId, SemResult, Semantics};
use crate::lang::Value;
use crate::nis::front::model::Observation;

impl Semantics<'_> {
    /// obs_t((prv', per), l_e'): the possible percepts as bits (several on argmax ties).
    /// `intermediate` is the local state (prv', per) before observing.
    pub fn observe(&mut self, intermediate: LocalId, env: EnvId) -> SemResult<u64> {
        if let Some(&m) = self.obs_cache.get(&(intermediate, env)) {
            return Ok(m);
        }
        let codes = self.space.decode(intermediate);
        let env_codes = self.env_codes(env).to_vec();
        let slots = self.agent_slots(&codes, 0, 0, Some(&env_codes));
        let template = self.template;
        let mask = self.percepts_of(&template.observe, &slots, 0.0)?;
        self.obs_cache.insert((intermediate, env), mask);
        Ok(mask)
    }

    /// The private update tr_t of `l` under action `a` (Definition 1) and
    /// the intermediate local state (prv', per) it leads to, before the
    /// percept is observed anew: what every successor of the agent, concrete
    /// or zero-one, starts from.
    pub fn intermediate(
        &mut self,
        l: LocalId,
        a: usize,
        (performed, env_action): (ActionMask, usize),
    ) -> SemResult<(Vec<i64>, LocalId)> {
        let prv = self.transition(l, a, performed, env_action)?;
        let inter = self.with_percept(&prv, self.percept_of(l));
        Ok((prv, inter))
    }

    /// The local successors of `l` under its action `a` (the agent's part
    /// of Definition 5): the private update tr_t, then the local state with
    /// each percept observed there and at the successor environment
    /// `env_next` (several on argmax ties).
    pub fn local_successors(
        &mut self,
        l: LocalId,
        a: usize,
        (performed, env_action): (ActionMask, usize),
        env_next: EnvId,
    ) -> SemResult<Vec<LocalId>> {
        let (prv, inter) = self.intermediate(l, a, (performed, env_action))?;
        let ps = self.observe(inter, env_next)?;
        Ok(bits(ps).map(|p| self.with_percept(&prv, p)).collect())
    }

    /// The percepts [`Semantics::observe`] would allow if network outputs
    /// within `tie` (relative above magnitude 1) of an argmax's maximum
    /// counted as maximal: tells a solver's near-tie from a wrong percept.
    pub fn observe_within(
        &mut self,
        intermediate: LocalId,
        env: EnvId,
        tie: f64,
    ) -> SemResult<u64> {
        let codes = self.space.decode(intermediate);
        let env_codes = self.env_codes(env).to_vec();
        let slots = self.agent_slots(&codes, 0, 0, Some(&env_codes));
        let template = self.template;
        self.percepts_of(&template.observe, &slots, tie)
    }

    /// The percepts `obs` gives at `slots` (the rule: [`rules::observe`]).
    pub(super) fn percepts_of(
        &mut self,
        obs: &Observation,
        slots: &[Value],
        tie: f64,
    ) -> SemResult<u64> {
        let mut percepts = vec![false; self.template.percepts.len()];
        rules::observe(&mut Exact::at(self, slots), obs, tie, &mut percepts)?;
        Ok(bool_mask(&percepts))
    }
}
