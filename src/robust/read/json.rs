//! The JSON form of a metric automaton (same content as `.ma`):
//! `{"name", "metric", "states": [{"name", "at"?, "gamma"?, "priority"?}],
//!   "distances"?: [[p, q, d]], "init", "inputs", "disturbances",
//!   "transitions": [{"from", "input", "to", "disturbed"?: {x: target}}],
//!   "objective": {"reach": [..]} | {"buchi": [..]} | {"gen-buchi": [[..]]} | "parity"}`.

use super::raw::{Loc, Names, RawModel, RawObjective, RawState, RawTrans, Sym};
use crate::robust::front::{Automaton, Metric, MetricKind, Objective};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonState {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gamma: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonTrans {
    pub from: String,
    pub input: String,
    pub to: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub disturbed: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JsonObjective {
    Reach(Vec<String>),
    Buchi(Vec<String>),
    GenBuchi(Vec<Vec<String>>),
    Parity,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonModel {
    #[serde(default)]
    pub name: String,
    pub metric: MetricKind,
    pub states: Vec<JsonState>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub distances: Vec<(String, String, f64)>,
    pub init: String,
    pub inputs: Vec<String>,
    #[serde(default)]
    pub disturbances: Vec<String>,
    pub transitions: Vec<JsonTrans>,
    pub objective: JsonObjective,
}

/// Parses JSON text; serde's errors carry line and column.
pub fn parse(name: &str, text: &str) -> Result<RawModel, String> {
    let j: JsonModel = serde_json::from_str(text).map_err(|e| format!("{name}: {e}"))?;
    let mut names = Names::default();
    let mut coords = Vec::new();
    let states = j
        .states
        .into_iter()
        .enumerate()
        .map(|(i, s)| RawState {
            name: names.intern_owned(s.name),
            at: s.at.map(|p| RawModel::push_point(&mut coords, &p)),
            gamma: s.gamma,
            priority: s.priority,
            loc: Loc::path(format!("states[{i}]")),
        })
        .collect();
    let syms = |v: Vec<String>, n: &mut Names| -> Vec<Sym> {
        v.into_iter().map(|x| n.intern_owned(x)).collect()
    };
    let inputs = syms(j.inputs, &mut names);
    let disturbances = syms(j.disturbances, &mut names);
    let distances = j
        .distances
        .into_iter()
        .enumerate()
        .map(|(i, (p, q, d))| {
            let (p, q) = (names.intern_owned(p), names.intern_owned(q));
            (p, q, d, Loc::path(format!("distances[{i}]")))
        })
        .collect();
    let init = Some((names.intern_owned(j.init), Loc::path("init")));
    let mut pairs = Vec::new();
    let mut transitions = Vec::with_capacity(j.transitions.len());
    for (i, t) in j.transitions.into_iter().enumerate() {
        let (from, input, to) = (
            names.intern_owned(t.from),
            names.intern_owned(t.input),
            names.intern_owned(t.to),
        );
        let first = pairs.len() as u32;
        for (x, q) in t.disturbed {
            pairs.push((names.intern_owned(x), names.intern_owned(q)));
        }
        transitions.push(RawTrans {
            from,
            input,
            to,
            disturbed: (first, pairs.len() as u32),
            loc: Loc::path(format!("transitions[{i}]")),
        });
    }
    let objective = match j.objective {
        JsonObjective::Reach(f) => RawObjective::Reach(syms(f, &mut names)),
        JsonObjective::Buchi(f) => RawObjective::Buchi(syms(f, &mut names)),
        JsonObjective::GenBuchi(fs) => {
            RawObjective::GenBuchi(fs.into_iter().map(|f| syms(f, &mut names)).collect())
        }
        JsonObjective::Parity => RawObjective::Parity,
    };
    Ok(RawModel {
        name: j.name,
        names,
        metric: j.metric,
        states,
        coords,
        distances,
        init,
        inputs,
        disturbances,
        transitions,
        disturbed: pairs,
        objective: Some((objective, Loc::path("objective"))),
    })
}

/// The JSON form of a built automaton (gamma written only when it was declared).
pub fn write(a: &Automaton) -> JsonModel {
    let names = |v: &[u32]| {
        v.iter()
            .map(|&q| a.states[q as usize].to_string())
            .collect::<Vec<_>>()
    };
    let (metric, points) = match &a.metric {
        Metric::Coords { kind, points } => (kind.clone(), Some(points)),
        Metric::Table { .. } | Metric::Lifted { .. } => (MetricKind::Table, None),
    };
    let mut distances = Vec::new();
    if points.is_none() {
        for p in 0..a.len() {
            for q in p + 1..a.len() {
                distances.push((
                    a.states[p].to_string(),
                    a.states[q].to_string(),
                    a.dist(p, q),
                ));
            }
        }
    }
    JsonModel {
        name: a.name.clone(),
        metric,
        states: (0..a.len())
            .map(|q| JsonState {
                name: a.states[q].to_string(),
                at: points.map(|p| p.get(q).to_vec()),
                gamma: a.gamma_declared.then(|| a.gamma[q]),
                priority: match &a.objective {
                    Objective::Parity(p) => Some(p[q]),
                    _ => None,
                },
            })
            .collect(),
        distances,
        init: a.states[a.init as usize].to_string(),
        inputs: a.inputs.clone(),
        disturbances: a.disturbances[1..].to_vec(),
        transitions: a
            .moves
            .iter()
            .enumerate()
            .flat_map(|(q, ms)| {
                ms.iter().map(move |m| JsonTrans {
                    from: a.states[q].to_string(),
                    input: a.inputs[m.input as usize].clone(),
                    to: a.states[m.nominal as usize].to_string(),
                    disturbed: a
                        .moves
                        .disturbed(m)
                        .iter()
                        .map(|&(x, t)| {
                            (
                                a.disturbances[x as usize].clone(),
                                a.states[t as usize].to_string(),
                            )
                        })
                        .collect(),
                })
            })
            .collect(),
        objective: match &a.objective {
            Objective::Reach(f) => JsonObjective::Reach(names(f)),
            Objective::Buchi(f) => JsonObjective::Buchi(names(f)),
            Objective::GenBuchi(fs) => {
                JsonObjective::GenBuchi(fs.iter().map(|f| names(f)).collect())
            }
            Objective::Parity(_) => JsonObjective::Parity,
        },
    }
}
