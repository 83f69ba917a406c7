//! Witness traces: per step the agent, the transition or reset, the delay
//! before it, and the exact V after it. Every trace is replayed through the
//! semantics before it is reported.

use crate::lang::Value;
use crate::report::{RunError, Table};
use crate::timed::front::model::Model;
use crate::timed::semantics::{Semantics, State, Step};
use serde_json::{json, Value as Json};

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

    /// Rows: one per firing or reset, with the time that passed before it.
    fn rows(&self, model: &Model) -> Vec<Row> {
        let mut rows = Vec::new();
        let mut time = 0u64;
        let mut pending = 0u64;
        for (step, state) in &self.steps {
            match *step {
                Step::Delay(d) => {
                    pending += d;
                    time += d;
                }
                Step::Fire { agent, transition } => {
                    rows.push(Row::new(
                        model,
                        time,
                        pending,
                        agent,
                        model.agents[agent].transition_label(transition),
                        state,
                    ));
                    pending = 0;
                }
                Step::Reset { agent } => {
                    rows.push(Row::new(model, time, pending, agent, "reset".into(), state));
                    pending = 0;
                }
            }
        }
        if pending > 0 {
            let state = self.last();
            rows.push(Row {
                time,
                delay: pending,
                agent: "-".into(),
                action: "wait".into(),
                vars: vars_text(model, state),
                localities: locs_text(model, state),
            });
        }
        rows
    }

    pub fn table(&self, model: &Model) -> Table {
        let mut t = Table::new(["#", "time", "delay", "agent", "action", "V", "localities"]);
        t.row([
            "0".to_string(),
            "0".into(),
            "".into(),
            "".into(),
            "initial".into(),
            vars_text(model, &self.initial),
            locs_text(model, &self.initial),
        ]);
        for (k, r) in self.rows(model).into_iter().enumerate() {
            t.row([
                (k + 1).to_string(),
                r.time.to_string(),
                r.delay.to_string(),
                r.agent,
                r.action,
                r.vars,
                r.localities,
            ]);
        }
        t
    }

    pub fn to_json(&self, model: &Model) -> Json {
        let steps: Vec<Json> = self
            .rows(model)
            .into_iter()
            .map(|r| {
                json!({"time": r.time, "delay": r.delay, "agent": r.agent, "action": r.action,
                       "V": r.vars, "localities": r.localities})
            })
            .collect();
        json!({"initial": {"V": vars_text(model, &self.initial), "localities": locs_text(model, &self.initial)},
               "steps": steps})
    }
}

struct Row {
    time: u64,
    delay: u64,
    agent: String,
    action: String,
    vars: String,
    localities: String,
}

impl Row {
    fn new(model: &Model, time: u64, delay: u64, agent: usize, action: String, s: &State) -> Self {
        Row {
            time,
            delay,
            agent: model.agents[agent].name.clone(),
            action,
            vars: vars_text(model, s),
            localities: locs_text(model, s),
        }
    }
}

/// `x1=0 v1=3/2`, exact.
pub fn vars_text(model: &Model, s: &State) -> String {
    model
        .vars
        .iter()
        .zip(&s.vars)
        .map(|(v, x)| format!("{}={}", v.name, show(x)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn show(v: &Value) -> String {
    v.to_string()
}

/// `car1@sense car2@done`.
pub fn locs_text(model: &Model, s: &State) -> String {
    model
        .agents
        .iter()
        .zip(&s.locs)
        .map(|(a, &l)| format!("{}@{}", a.name, a.localities[l as usize]))
        .collect::<Vec<_>>()
        .join(" ")
}
