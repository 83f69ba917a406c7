//! The JANI (JSON) printer of the intermediate form, the exchange format
//! Storm and the Modest toolset read. A [`Network`] is an automaton per
//! module, each with one location, over global variables; labels are
//! transient Booleans set at the last automaton's (the environment's)
//! location. An [`Explicit`] model is one automaton: with one initial state
//! its locations are the states (a JANI builder then looks only at the
//! current location's edges, linear in the transitions); JANI allows one
//! initial location only, so several initial states use one location and
//! the state index `s` with `restrict-initial`.
//!
//! The text is streamed an automaton (or an edge) at a time: memory stays
//! that of the model, whatever the file's size.

use super::explicit_rewards::is_zero;
pub use super::jani_expr::exact_number;
use super::jani_expr::{atom, binary, expr};
use super::{Command, Explicit, Init, Network, Prob, Runs, Val, VarType};
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::io::Write;

/// The most agents a JANI export of S(n) takes: each agent-environment
/// action of each agent is a synchronisation vector with an entry per
/// automaton, so the file grows with the square of the agents (1,000
/// agents: a million entries per such action).
pub const JANI_MAX_AGENTS: usize = 1_000;

/// The one location of every automaton of a network.
const LOC: &str = "l";

/// The model's head with its `properties`, `variables`, the automata
/// `elements` and, for a network, its synchronisations.
fn head(
    what: &str,
    properties: Vec<Json>,
    variables: Vec<Json>,
    elements: Vec<Json>,
    syncs: Option<(Vec<Json>, Vec<Json>)>,
) -> Json {
    let mut system = json!({"elements": elements});
    let mut actions = vec![];
    if let Some((a, s)) = syncs {
        actions = a;
        system["syncs"] = json!(s);
    }
    json!({"jani-version": 1, "name": "mavis", "type": "mdp", "features": [],
        "metadata": {"author": format!("mavis {}", env!("CARGO_PKG_VERSION")), "description": what},
        "actions": actions, "constants": [], "variables": variables, "properties": properties,
        "system": system})
}

/// Writes the head without its closing brace and opens the automata, which
/// are then streamed one by one (closed by `]}`).
fn write_open(w: &mut dyn Write, head: &Json) -> std::io::Result<()> {
    let head = serde_json::to_string(head)?;
    w.write_all(&head.as_bytes()[..head.len() - 1])?;
    w.write_all(b",\"automata\":[")
}

/// Writes `items` as the elements of a JSON array (without the brackets).
fn write_items(w: &mut dyn Write, items: impl Iterator<Item = Json>) -> std::io::Result<()> {
    for (i, item) in items.enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, &item)?;
    }
    Ok(())
}

fn label_variable(name: &str) -> Json {
    json!({"name": name, "type": "bool", "transient": true, "initial-value": false})
}

/// Writes a network of modules to `w`, one automaton at a time.
pub fn write_network(n: &Network, w: &mut dyn Write) -> std::io::Result<()> {
    let vars = || n.modules.iter().flat_map(|m| &m.vars);
    let mut variables: Vec<Json> = vars()
        .map(|v| {
            let ty = match v.ty {
                VarType::Bool => json!("bool"),
                VarType::Int(lo, hi) => {
                    json!({"kind": "bounded", "base": "int", "lower-bound": lo, "upper-bound": hi})
                }
            };
            let mut var = json!({"name": v.name, "type": ty});
            if let Init::Value(x) = v.init {
                var["initial-value"] = if v.ty == VarType::Bool {
                    json!(x != 0)
                } else {
                    json!(x)
                };
            }
            var
        })
        .collect();
    variables.extend(n.labels.iter().map(|(name, _)| label_variable(name)));
    variables.extend(super::jani_rewards::variables(n));
    let elements = n
        .modules
        .iter()
        .map(|m| json!({"automaton": m.name}))
        .collect();
    let syncs = with_lone_actions(n);
    let actions = syncs.iter().map(|s| json!({"name": s.action})).collect();
    let syncs = syncs
        .iter()
        .map(|s| {
            let mut v = vec![Json::Null; n.modules.len()];
            for &k in &s.modules {
                v[k] = json!(s.action);
            }
            json!({"synchronise": v, "result": s.action})
        })
        .collect();
    let properties = (n.queries.iter().enumerate())
        .map(|(i, q)| super::jani_expr::query(q, i + 1))
        .collect();
    let mut head = head(
        &n.what,
        properties,
        variables,
        elements,
        Some((actions, syncs)),
    );
    if vars().any(|v| !matches!(v.init, Init::Value(_))) {
        let restrict = vars()
            .filter_map(|v| match &v.init {
                Init::Where(a) => Some(atom(a)),
                _ => None,
            })
            .reduce(|a, b| binary("∧", a, b))
            .unwrap_or(json!(true));
        head["restrict-initial"] = json!({"exp": restrict});
    }
    write_open(w, &head)?;
    let carry = super::jani_rewards::carriers(n);
    write_items(w, (0..n.modules.len()).map(|k| automaton(n, &carry, k)))?;
    w.write_all(b"]}\n")
}

/// The synchronisations, and a vector of its own for each named action
/// that only one automaton has (the per-agent asynchronous actions that
/// carry action rewards): JANI only lets an edge with an action move within
/// a vector that names it.
fn with_lone_actions(n: &Network) -> Vec<super::Sync> {
    let mut out = n.syncs.clone();
    let mut named: std::collections::HashSet<String> =
        out.iter().map(|s| s.action.clone()).collect();
    for (k, m) in n.modules.iter().enumerate() {
        for c in &m.commands {
            if !c.action.is_empty() && named.insert(c.action.clone()) {
                out.push(super::Sync {
                    action: c.action.clone(),
                    modules: vec![k],
                });
            }
        }
    }
    out
}

/// A network's JANI text as JSON (tests).
pub fn network_json(n: &Network) -> Json {
    let mut out = Vec::new();
    write_network(n, &mut out).expect("writing to memory");
    serde_json::from_slice(&out).expect("the printer writes JSON")
}

/// Automaton `k` of the network; the labels and the state rewards are set
/// at the last one's location, action rewards on the edges that carry them
/// ([`super::jani_rewards`]).
fn automaton(n: &Network, carry: &HashMap<&str, usize>, k: usize) -> Json {
    use super::jani_rewards::{edge_assignments, state_values};
    let m = &n.modules[k];
    let mut transient: Vec<Json> = Vec::new();
    if k + 1 == n.modules.len() {
        let labels = n.labels.iter();
        transient.extend(labels.map(|(name, e)| json!({"ref": name, "value": expr(e)})));
        transient.extend(state_values(n));
    }
    let edges: Vec<Json> = m
        .commands
        .iter()
        .map(|c| {
            let mut e = edge(c);
            let rewards = edge_assignments(n, carry, k, &c.action);
            if !rewards.is_empty() {
                e["assignments"] = json!(rewards);
            }
            e
        })
        .collect();
    json!({"name": m.name, "locations": [{"name": LOC, "transient-values": transient}],
           "initial-locations": [LOC], "edges": edges})
}

fn probability(p: &Prob) -> Json {
    match p {
        Prob::Exact(r) => exact_number(r),
        Prob::Float(f) => json!(f),
    }
}

fn edge(c: &Command) -> Json {
    let guard = c
        .guard
        .iter()
        .map(atom)
        .reduce(|a, b| binary("∧", a, b))
        .unwrap_or(json!(true));
    let dests: Vec<Json> = c
        .dests
        .iter()
        .map(|d| {
            let assigns: Vec<Json> = d
                .assigns
                .iter()
                .map(|(v, val)| {
                    let value = match val {
                        Val::Int(x) => json!(x),
                        Val::Bool(b) => json!(b),
                        Val::Decrement => binary("-", json!(v), json!(1)),
                        Val::IncrementUpTo(t) => binary("min", binary("+", json!(v), json!(1)), json!(t)),
                    };
                    json!({"ref": v, "value": value})
                })
                .collect();
            json!({"location": LOC, "probability": {"exp": probability(&d.prob)}, "assignments": assigns})
        })
        .collect();
    let mut e = json!({"location": LOC, "guard": {"exp": guard}, "destinations": dests});
    if !c.action.is_empty() {
        e["action"] = json!(c.action);
    }
    e
}

/// `lo <= s <= hi`.
fn interval(lo: usize, hi: usize) -> Json {
    if lo == hi {
        binary("=", json!("s"), json!(lo))
    } else {
        binary(
            "∧",
            binary("≥", json!("s"), json!(lo)),
            binary("≤", json!("s"), json!(hi)),
        )
    }
}

/// A balanced disjunction (depth log n) of index intervals over `s`.
fn disjunction(parts: &[(usize, usize)]) -> Json {
    match parts {
        [] => json!(false),
        [(lo, hi)] => interval(*lo, *hi),
        _ => binary(
            "∨",
            disjunction(&parts[..parts.len() / 2]),
            disjunction(&parts[parts.len() / 2..]),
        ),
    }
}

/// Writes an explored model as one automaton to `w`, piece by piece.
pub fn write_explicit(x: &Explicit, w: &mut dyn Write) -> std::io::Result<()> {
    let mdp = x.mdp;
    let by_location = mdp.initial.len() == 1;
    let mut variables: Vec<Json> = x
        .labels
        .iter()
        .map(|(name, _)| label_variable(name))
        .collect();
    variables.extend(
        x.rewards.iter().map(
            |r| json!({"name": r.name, "type": "real", "transient": true, "initial-value": 0}),
        ),
    );
    if !by_location {
        let hi = mdp.num_states().saturating_sub(1);
        let ty = json!({"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": hi});
        variables.insert(0, json!({"name": "s", "type": ty}));
    }
    let automata = vec![json!({"automaton": "M"})];
    let mut head = head(&x.what, vec![], variables, automata, None);
    if !by_location {
        let mut init: Vec<usize> = mdp.initial.iter().map(|&i| i as usize).collect();
        init.sort_unstable();
        init.dedup();
        head["restrict-initial"] = json!({"exp": disjunction(&super::runs(&init))});
    }
    write_open(w, &head)?;
    if by_location {
        write_by_location(x, w)?;
    } else {
        write_by_variable(x, w)?;
    }
    w.write_all(b"]}\n")
}

/// An explored model's JANI text as JSON (tests).
pub fn explicit_json(x: &Explicit) -> Json {
    let mut out = Vec::new();
    write_explicit(x, &mut out).expect("writing to memory");
    serde_json::from_slice(&out).expect("the printer writes JSON")
}

/// Every choice of the MDP as (source state, choice index).
fn all_choices(mdp: &crate::swarm::decide::mdp::Mdp) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..mdp.num_states()).flat_map(move |s| mdp.choices(s).map(move |c| (s, c)))
}

fn location_name(s: usize) -> String {
    format!("s{s}")
}

/// Whether state `s` lies in `runs`, for states asked in increasing
/// order: `cursor` is the first run not yet passed.
fn holds_at(runs: &Runs, cursor: &mut usize, s: usize) -> bool {
    while *cursor < runs.len() && runs[*cursor].1 < s {
        *cursor += 1;
    }
    *cursor < runs.len() && runs[*cursor].0 <= s
}

fn write_by_location(x: &Explicit, w: &mut dyn Write) -> std::io::Result<()> {
    let mdp = x.mdp;
    let initial = json!([location_name(mdp.initial[0] as usize)]);
    write!(
        w,
        "{{\"name\":\"M\",\"initial-locations\":{initial},\"locations\":["
    )?;
    let mut cursors = vec![0usize; x.labels.len()];
    write_items(
        w,
        (0..mdp.num_states()).map(|s| {
            let values: Vec<Json> = x
                .labels
                .iter()
                .zip(cursors.iter_mut())
                .filter_map(|((name, runs), cursor)| {
                    holds_at(runs, cursor, s).then(|| json!({"ref": name, "value": true}))
                })
                .collect();
            let mut values = values;
            values.extend(x.rewards.iter().filter_map(|r| {
                let v = r.state_value(s);
                (!r.state.is_empty() && !is_zero(&v))
                    .then(|| json!({"ref": r.name, "value": probability(&v)}))
            }));
            json!({"name": location_name(s), "transient-values": values})
        }),
    )?;
    w.write_all(b"],\"edges\":[")?;
    write_items(
        w,
        all_choices(mdp).map(|(s, c)| {
            let dests: Vec<Json> = super::lower::explicit_command(mdp, s, c)
                .dests
                .iter()
                .zip(mdp.entries(c))
                .map(|(d, e)| {
                    json!({"location": location_name(mdp.targets[e] as usize),
                           "probability": {"exp": probability(&d.prob)}})
                })
                .collect();
            let mut e = json!({"location": location_name(s), "destinations": dests});
            action_rewards(x, c, &mut e);
            e
        }),
    )?;
    w.write_all(b"]}")
}

fn write_by_variable(x: &Explicit, w: &mut dyn Write) -> std::io::Result<()> {
    let mut transient: Vec<Json> = x
        .labels
        .iter()
        .map(|(name, runs)| json!({"ref": name, "value": disjunction(runs)}))
        .collect();
    // A state reward is the sum, over its distinct values, of ite(s in the
    // states with that value, value, 0).
    transient.extend(x.rewards.iter().filter_map(|r| {
        let v = r
            .state
            .iter()
            .map(|(v, runs)| json!({"op": "ite", "if": disjunction(runs), "then": probability(v), "else": 0}))
            .reduce(|a, b| binary("+", a, b))?;
        Some(json!({"ref": r.name, "value": v}))
    }));
    let locations = json!([{"name": LOC, "transient-values": transient}]);
    write!(
        w,
        "{{\"name\":\"M\",\"initial-locations\":[\"l\"],\"locations\":{locations},\"edges\":["
    )?;
    let mdp = x.mdp;
    write_items(
        w,
        all_choices(mdp).map(|(s, c)| {
            let mut e = edge(&super::lower::explicit_command(mdp, s, c));
            action_rewards(x, c, &mut e);
            e
        }),
    )?;
    w.write_all(b"]}")
}

/// Choice `c`'s action rewards, as edge-level assignments of the reward
/// variables (how Storm reads a JANI action reward).
fn action_rewards(x: &Explicit, c: usize, edge: &mut Json) {
    let assigns: Vec<Json> = x
        .rewards
        .iter()
        .filter_map(|r| {
            let v = r.action_value(c);
            (!r.action.is_empty() && !is_zero(&v))
                .then(|| json!({"ref": r.name, "value": probability(&v)}))
        })
        .collect();
    if !assigns.is_empty() {
        edge["assignments"] = json!(assigns);
    }
}
