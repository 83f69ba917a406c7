//! Observation (obs_t of Definition 1): the percepts an intermediate local
//! state can see at an environment state, several on exact argmax ties.

use super::{argmax_mask_within, bits, ActionMask, Ctx, EnvId, LocalId, SemResult, Semantics};
use crate::lang::{error_at, Value};
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

    pub(super) fn percepts_of(
        &mut self,
        obs: &Observation,
        slots: &[Value],
        tie: f64,
    ) -> SemResult<u64> {
        match obs {
            Observation::If(cond, then, otherwise) => {
                let branch = if self.eval_bool(cond, slots.to_vec(), 0, 0)? {
                    then
                } else {
                    otherwise
                };
                self.percepts_of(branch, slots, tie)
            }
            Observation::Argmax {
                net,
                inputs,
                percepts,
                span,
            } => {
                let mut values = Vec::new();
                for i in inputs {
                    values.push(self.eval_value(i, slots.to_vec(), 0, 0)?);
                }
                let before = self.net_cache.len();
                let mut ctx = Ctx {
                    model: self.model,
                    slots: Vec::new(),
                    performed: 0,
                    env_action: 0,
                    net_cache: &mut self.net_cache,
                };
                let out = ctx.network(*net, &values);
                self.network_evaluations += self.net_cache.len() - before;
                if out.iter().any(|x| !x.is_finite()) {
                    return Err(error_at(
                        &self.model.source,
                        *span,
                        "the network gives a NaN or infinite output",
                    ));
                }
                Ok(argmax_mask_within(&out, percepts, tie))
            }
            Observation::Expr(e) => match self.eval_value(e, slots.to_vec(), 0, 0)? {
                Value::Enum(_, i) => Ok(1 << i),
                other => Err(error_at(
                    &self.model.source,
                    e.span,
                    format!("`observe` gave {other}, not a percept"),
                )),
            },
        }
    }
}
