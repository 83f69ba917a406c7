//! Witness traces: per step the agent, the transition or reset, the delay
//! before it, and the exact V after it. Every trace is replayed through the
//! semantics before it is reported; the verb layer renders it
//! ([`crate::timed::verbs::trace`]).

use crate::report::RunError;
use crate::timed::semantics::{Semantics, State, Step};

#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub initial: State,
    pub steps: Vec<(Step, State)>,
}

impl Trace {
    pub fn last(&self) -> &State {
        self.steps.last().map_or(&self.initial, |(_, s)| s)
    }

    /// Checks that every step is a successor of the previous state under `sem`.
    pub fn replay(&self, sem: &Semantics) -> Result<(), RunError> {
        if self.initial != sem.initial() {
            return Err(RunError::Internal(
                "the witness does not start in the initial state".into(),
            ));
        }
        let mut succ = Vec::new();
        let mut cur = &self.initial;
        for (k, (step, next)) in self.steps.iter().enumerate() {
            sem.successors(cur, &mut succ)?;
            if !succ.iter().any(|(st, s)| st == step && s == next) {
                return Err(RunError::Internal(format!(
                    "the witness does not replay: step {} ({step:?}) is not enabled",
                    k + 1
                )));
            }
            cur = next;
        }
        Ok(())
    }
}
