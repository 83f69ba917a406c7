//! The JSON forms of NIS outcomes, for the reports: a check's record, its
//! statistics and its replayed witness ([`Witness`]: per branch one object
//! per step).

use super::text::{env_move_text, env_text, local_text};
use crate::nis::engine::CheckRecord;
use crate::nis::witness::shown::{AbstractStep, Local, Runs, Step, Trace, Val, Var, Witness};
use crate::report::stats_json;
use serde_json::{json, Map, Value};

/// A check's statistics as the report's `stats` (keys sorted). With both
/// deciders, the second's keys follow under its name (`milp.milps`), and
/// each decider's time is `explicit.time_s` and `milp.time_s`.
pub fn check_stats(rec: &CheckRecord) -> Map<String, Value> {
    let mut stats = stats_json(&rec.stats);
    if let Some(both) = &rec.both {
        let (second, second_s) = both.second;
        for (k, v) in stats_json(&both.second_stats) {
            stats.insert(format!("{second}.{k}"), v);
        }
        let (first, first_s) = both.first;
        stats.insert(format!("{first}.time_s"), first_s.into());
        stats.insert(format!("{second}.time_s"), second_s.into());
    }
    stats
}

/// The report's `witness` of a check (`null` when it has none).
pub fn witness_json(rec: &CheckRecord) -> Option<Value> {
    rec.witness.as_ref().map(witness)
}

/// A sub-check as `verify` lists it: `model`, `engine`, `verdict`,
/// `witness`, `time_s`, `stats`.
pub fn check_json(rec: &CheckRecord) -> Value {
    json!({
        "model": rec.model,
        "engine": rec.engine,
        "verdict": if rec.holds { "holds" } else { "violated" },
        "witness": witness_json(rec).unwrap_or(Value::Null),
        "time_s": rec.time_s,
        "stats": Value::Object(check_stats(rec)),
    })
}

/// A witness: its trace's `kind`, `initial_states` and `branches`; a
/// concretized abstract trace adds `concretized_in` (`M(n)`).
pub fn witness(w: &Witness) -> Value {
    match w {
        Witness::Trace(t) | Witness::Refutation(t) => trace(t),
        Witness::Concretized {
            trace: t, agents, ..
        } => {
            let mut json = trace(t);
            json["concretized_in"] = format!("M({agents})").into();
            json
        }
    }
}

fn trace(t: &Trace) -> Value {
    let branches: Vec<Value> = match &t.runs {
        Runs::Concrete {
            branches,
            named_agents,
            ..
        } => branches.iter().map(|b| steps(b, *named_agents)).collect(),
        Runs::Abstract { branches, .. } => branches.iter().map(|b| abstract_steps(b)).collect(),
    };
    json!({
        "kind": t.kind.word(),
        "initial_states": t.initial_states,
        "branches": branches,
    })
}

fn val(v: &Val) -> Value {
    match v {
        Val::Bool(b) => Value::Bool(*b),
        Val::Enum(Ok(name)) => name.clone().into(),
        Val::Enum(Err(_)) => Value::Null,
        Val::Int(c) => (*c).into(),
        Val::Real(x, _) => json!(x),
    }
}

fn vars(vars: &[Var]) -> Value {
    let map: Map<String, Value> = vars
        .iter()
        .map(|v| (v.name.clone(), val(&v.value)))
        .collect();
    Value::Object(map)
}

/// A local state with the action it takes next.
fn local(l: &Local, action: Option<&String>) -> Value {
    json!({
        "private": vars(&l.vars),
        "percept": l.percept,
        "action": action.map_or(Value::Null, |a| Value::from(a.clone())),
    })
}

/// Per step the agents' local states and next actions, the environment,
/// its next joint action, and (`named_agents`) the named agents by name.
fn steps(steps: &[Step], named_agents: bool) -> Value {
    let rows = steps.iter().enumerate().map(|(j, s)| {
        let next = steps.get(j + 1).and_then(|x| x.moved.as_ref());
        let agents: Vec<Value> = s
            .agents
            .iter()
            .enumerate()
            .map(|(i, l)| local(l, next.map(|mv| &mv.actions[i])))
            .collect();
        let mut row = json!({
            "step": j,
            "agents": agents,
            "env": vars(&s.env.vars),
            "env_action": next.map_or(Value::Null, |mv| env_move_text(&mv.env).into()),
        });
        if named_agents {
            let named: Map<String, Value> = s
                .env
                .named
                .iter()
                .enumerate()
                .map(|(k, (name, l))| (name.clone(), local(l, next.map(|mv| &mv.env.named[k].1))))
                .collect();
            row["named"] = Value::Object(named);
        }
        row
    });
    Value::Array(rows.collect())
}

/// Per step of M_ab(m): the indexed agents, the zero-one agent's set, the
/// environment (as text), and the joint action taken next.
fn abstract_steps(steps: &[AbstractStep]) -> Value {
    let (text, env) = (local_text, env_text);
    let rows = steps.iter().enumerate().map(|(j, s)| {
        let next = steps.get(j + 1).and_then(|x| x.moved.as_ref());
        json!({
            "step": j,
            "agents": s.agents.iter().map(text).collect::<Vec<_>>(),
            "zero_one": s.zero_one.iter().map(text).collect::<Vec<_>>(),
            "actions": next.map(|mv| mv.actions.clone()),
            "zero_one_action": next.map(|mv| mv.zero_one.iter().map(|(l, acts)| json!({
                "state": text(l),
                "actions": acts,
            })).collect::<Vec<_>>()),
            "env": env(&s.env),
            "env_action": next.map(|mv| env_move_text(&mv.env)),
        })
    });
    Value::Array(rows.collect())
}
