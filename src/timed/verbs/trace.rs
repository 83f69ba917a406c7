//! The text and JSON of a timed witness trace: per step the time, the
//! delay before it, the agent, the transition or reset, and the exact V and
//! localities after it.

use crate::report::Table;
use crate::timed::front::model::Model;
use crate::timed::semantics::trace::Trace;
use crate::timed::semantics::{State, Step};
use serde_json::{json, Value as Json};

/// Rows: one per firing or reset, with the time that passed before it.
fn rows(trace: &Trace, model: &Model) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut time = 0u64;
    let mut pending = 0u64;
    for (step, state) in &trace.steps {
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
        let state = trace.last();
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

/// The trace as a table: the initial state, then one row per firing or reset.
pub fn table(trace: &Trace, model: &Model) -> Table {
    let mut t = Table::new(["#", "time", "delay", "agent", "action", "V", "localities"]);
    t.row([
        "0".to_string(),
        "0".into(),
        "".into(),
        "".into(),
        "initial".into(),
        vars_text(model, &trace.initial),
        locs_text(model, &trace.initial),
    ]);
    for (k, r) in rows(trace, model).into_iter().enumerate() {
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

/// The trace as the report's JSON: the initial state and the rows.
pub fn to_json(trace: &Trace, model: &Model) -> Json {
    let steps: Vec<Json> = rows(trace, model)
        .into_iter()
        .map(|r| {
            json!({"time": r.time, "delay": r.delay, "agent": r.agent, "action": r.action,
                   "V": r.vars, "localities": r.localities})
        })
        .collect();
    json!({"initial": {"V": vars_text(model, &trace.initial), "localities": locs_text(model, &trace.initial)},
           "steps": steps})
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
        .map(|(v, x)| format!("{}={x}", v.name))
        .collect::<Vec<_>>()
        .join(" ")
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
