//! Labels (Definition 6's atoms) of local and environment states, cached.

use super::exact::Exact;
use super::rules::Domain;
use super::{EnvId, LocalId, SemResult, Semantics};
use crate::lang::Value;
use crate::nis::front::model::LabelSubject;

impl Semantics<'_> {
    /// The agents' labels holding at a local state, as bits by label index
    /// (environment labels are never set here).
    pub fn labels(&mut self, l: LocalId) -> SemResult<u64> {
        if let Some(&m) = self.label_cache.get(&l) {
            return Ok(m);
        }
        let codes = self.space.decode(l);
        let slots = self.agent_slots(&codes, 0, 0, None);
        let mask = self.label_mask(LabelSubject::Agent, &slots)?;
        self.label_cache.insert(l, mask);
        Ok(mask)
    }

    /// The environment labels holding at an environment state, as bits by label index.
    /// Cached: the simulation search compares them at every pair of states.
    pub fn env_labels(&mut self, e: EnvId) -> SemResult<u64> {
        let i = e as usize;
        if let Some(&Some(m)) = self.env_label_cache.get(i) {
            return Ok(m);
        }
        let codes = self.env_codes(e).to_vec();
        let slots = self.env_slots(&codes, 0);
        let mask = self.label_mask(LabelSubject::Environment, &slots)?;
        if self.env_label_cache.len() <= i {
            self.env_label_cache.resize(i + 1, None);
        }
        self.env_label_cache[i] = Some(mask);
        Ok(mask)
    }

    /// The labels about `subject` that hold at `slots`, as bits by label index.
    pub(super) fn label_mask(&mut self, subject: LabelSubject, slots: &[Value]) -> SemResult<u64> {
        let model = self.model;
        let mut mask = 0;
        for (i, label) in model.labels.iter().enumerate() {
            if label.subject == subject && Exact::at(self, slots).truth(&label.expr)?.may_hold() {
                mask |= 1 << i;
            }
        }
        Ok(mask)
    }

    /// Label `label` of indexed agent `agent` at local state `l`, or of the
    /// environment at `env` when `agent` is `None`.
    pub fn literal(&mut self, label: usize, local: Option<LocalId>, env: EnvId) -> SemResult<bool> {
        let bits = match local {
            Some(l) => self.labels(l)?,
            None => self.env_labels(env)?,
        };
        Ok(bits >> label & 1 == 1)
    }
}
