//! Reward structures in JANI, as Storm reads them: a structure is a
//! transient real variable of its name, 0 unless assigned. Its state
//! rewards are the variable's value at the environment automaton's location
//! (the sum of `ite(guard, value, 0)` over the items), its action rewards an
//! edge-level assignment on the edges of the action. A synchronised action
//! is a step of several automata; only the first automaton that has the
//! action carries its reward, so that the step earns it once. The silent
//! action synchronises with nothing: each of its edges carries `[]`'s
//! rewards, as PRISM's `[]` reward reads every unlabelled command.

use super::jani_expr::{binary, expr};
use super::{Network, RewardEntry};
use serde_json::{json, Value as Json};
use std::collections::HashMap;

/// The transient variables, one per reward structure.
pub fn variables(n: &Network) -> Vec<Json> {
    n.rewards
        .iter()
        .map(|r| json!({"name": r.name, "type": "real", "transient": true, "initial-value": 0}))
        .collect()
}

/// `sum ite(guard, value, 0)` over `items` (`None` when there are none).
fn sum<'a>(items: impl Iterator<Item = &'a RewardEntry>) -> Option<Json> {
    items
        .map(|i| json!({"op": "ite", "if": expr(&i.guard), "then": expr(&i.value), "else": 0}))
        .reduce(|a, b| binary("+", a, b))
}

/// The state rewards, as the environment's location's transient values.
pub fn state_values(n: &Network) -> Vec<Json> {
    n.rewards
        .iter()
        .filter_map(|r| {
            let v = sum(r.items.iter().filter(|i| i.action.is_none()))?;
            Some(json!({"ref": r.name, "value": v}))
        })
        .collect()
}

/// Which automaton carries each action's rewards: the first that has it.
pub fn carriers(n: &Network) -> HashMap<&str, usize> {
    let mut out = HashMap::new();
    for (k, m) in n.modules.iter().enumerate() {
        for c in &m.commands {
            out.entry(c.action.as_str()).or_insert(k);
        }
    }
    out
}

/// The reward assignments of an edge of automaton `module` with `action`.
pub fn edge_assignments(
    n: &Network,
    carriers: &HashMap<&str, usize>,
    module: usize,
    action: &str,
) -> Vec<Json> {
    if !action.is_empty() && carriers.get(action) != Some(&module) {
        return Vec::new();
    }
    n.rewards
        .iter()
        .filter_map(|r| {
            let v = sum(r
                .items
                .iter()
                .filter(|i| i.action.as_deref() == Some(action)))?;
            Some(json!({"ref": r.name, "value": v}))
        })
        .collect()
}
