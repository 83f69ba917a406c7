//! The one renderer of replayed runs of S(n) (and of M(0)), exact or f64:
//! one row of the step table and one JSON object per step. The replays
//! hand their steps over as [`StepView`]s, whose values are already shown
//! in their domain (codes as the user wrote them, f64 values rounded in
//! text and as they are in JSON).

use crate::report::Table;
use serde_json::{json, Map, Value};

/// A variable as shown: its name, its text, its JSON value.
pub struct VarView {
    pub name: String,
    pub text: String,
    pub json: Value,
}

/// A local state as shown: the private variables and the percept.
pub struct LocalView {
    pub vars: Vec<VarView>,
    pub percept: String,
}

/// The move that led to a step: each agent's action, the joint
/// environment-side action as described, each named agent's action.
pub struct MoveView {
    pub actions: Vec<String>,
    pub env_action: String,
    pub named: Vec<String>,
}

/// One step of a replayed run.
pub struct StepView {
    pub agents: Vec<LocalView>,
    pub env: Vec<VarView>,
    /// (name, local state) of every named agent (part of the environment).
    pub named: Vec<(String, LocalView)>,
    pub moved: Option<MoveView>,
}

impl LocalView {
    /// `h=3 volunteer`.
    fn text(&self) -> String {
        let mut parts: Vec<String> = self.vars.iter().map(VarView::assignment).collect();
        parts.push(self.percept.clone());
        parts.join(" ")
    }

    fn json(&self, action: Option<&String>) -> Value {
        json!({
            "private": vars_json(&self.vars),
            "percept": self.percept,
            "action": action.map_or(Value::Null, |a| Value::from(a.clone())),
        })
    }
}

impl VarView {
    fn assignment(&self) -> String {
        format!("{}={}", self.name, self.text)
    }
}

fn vars_json(vars: &[VarView]) -> Value {
    let map: Map<String, Value> = vars
        .iter()
        .map(|v| (v.name.clone(), v.json.clone()))
        .collect();
    Value::Object(map)
}

impl StepView {
    /// `t=1`, with named agents `t=1 | ownship: v=2 COC` (`-` without variables).
    fn env_text(&self) -> String {
        let mut out = self
            .env
            .iter()
            .map(VarView::assignment)
            .collect::<Vec<_>>()
            .join(" ");
        if out.is_empty() {
            out.push('-');
        }
        for (name, l) in &self.named {
            out.push_str(&format!(" | {name}: {}", l.text()));
        }
        out
    }
}

/// One row per step: every agent's local state and the action it takes
/// next; the environment and, when `env_moves` (it has variables or more
/// than one joint action), the joint action it takes next.
pub fn step_table(steps: &[StepView], env_moves: bool) -> Table {
    let n = steps.first().map_or(0, |s| s.agents.len());
    let mut header = vec!["step".to_string()];
    header.extend((1..=n).map(|i| format!("agent {i}")));
    header.push("env".into());
    let mut t = Table::new(header);
    for (j, s) in steps.iter().enumerate() {
        let next = steps.get(j + 1).and_then(|x| x.moved.as_ref());
        let mut row = vec![j.to_string()];
        for (i, l) in s.agents.iter().enumerate() {
            let mut cell = l.text();
            if let Some(mv) = next {
                cell.push_str(&format!(" -> {}", mv.actions[i]));
            }
            row.push(cell);
        }
        let mut env = s.env_text();
        if let Some(mv) = next.filter(|_| env_moves) {
            env.push_str(&format!(" -> {}", mv.env_action));
        }
        row.push(env);
        t.row(row);
    }
    t
}

/// The steps as JSON: per step the agents' local states and next actions,
/// the environment, its next joint action, and (`with_named`) the named
/// agents by name.
pub fn step_json(steps: &[StepView], with_named: bool) -> Value {
    let rows = steps.iter().enumerate().map(|(j, s)| {
        let next = steps.get(j + 1).and_then(|x| x.moved.as_ref());
        let agents: Vec<Value> = s
            .agents
            .iter()
            .enumerate()
            .map(|(i, l)| l.json(next.map(|mv| &mv.actions[i])))
            .collect();
        let mut row = json!({
            "step": j,
            "agents": agents,
            "env": vars_json(&s.env),
            "env_action": next.map_or(Value::Null, |mv| Value::from(mv.env_action.clone())),
        });
        if with_named {
            let named: Map<String, Value> = s
                .named
                .iter()
                .enumerate()
                .map(|(k, (name, l))| (name.clone(), l.json(next.map(|mv| &mv.named[k]))))
                .collect();
            row["named"] = Value::Object(named);
        }
        row
    });
    Value::Array(rows.collect())
}
