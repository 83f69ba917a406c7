//! The model as written (from `.ma` text or JSON), and its checked construction:
//! names resolved, metric axioms (seed Sec. 2: identity, symmetry, triangle
//! inequality) and declared gamma (Def. 2.1) validated, with located errors.

use super::model::{Automaton, Metric, MetricKind, Move, Objective};
use crate::lang::{error_at, Source, Span};
use crate::report::RunError;
use rustc_hash::FxHashMap as HashMap;

/// Where a raw item came from: a span of `.ma` text or a JSON path.
#[derive(Clone, Debug)]
pub enum Loc {
    Span(Span),
    Path(String),
}

#[derive(Clone, Debug)]
pub struct RawState {
    pub name: String,
    pub at: Option<Vec<f64>>,
    pub gamma: Option<f64>,
    pub priority: Option<u32>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct RawTrans {
    pub from: String,
    pub input: String,
    pub to: String,
    /// (disturbance, target) pairs.
    pub disturbed: Vec<(String, String)>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub enum RawObjective {
    Reach(Vec<String>),
    Buchi(Vec<String>),
    GenBuchi(Vec<Vec<String>>),
    Parity,
}

#[derive(Clone, Debug)]
pub struct RawModel {
    pub name: String,
    pub metric: MetricKind,
    pub states: Vec<RawState>,
    pub distances: Vec<(String, String, f64, Loc)>,
    pub init: Option<(String, Loc)>,
    pub inputs: Vec<String>,
    pub disturbances: Vec<String>,
    pub transitions: Vec<RawTrans>,
    pub objective: Option<(RawObjective, Loc)>,
}

impl RawModel {
    /// The model before its first declaration (Euclidean metric, no states).
    pub fn empty() -> Self {
        RawModel {
            name: String::new(),
            metric: MetricKind::Euclidean,
            states: Vec::new(),
            distances: Vec::new(),
            init: None,
            inputs: Vec::new(),
            disturbances: Vec::new(),
            transitions: Vec::new(),
            objective: None,
        }
    }
}

/// Limit on explicit distance tables (the triangle check is cubic).
pub const MAX_TABLE_STATES: usize = 2000;

/// Turns a located message into the run error of the right kind.
pub struct Locator<'a> {
    pub source: &'a Source,
}

impl Locator<'_> {
    pub fn err(&self, loc: &Loc, msg: impl Into<String>) -> RunError {
        match loc {
            Loc::Span(s) => error_at(self.source, *s, msg).into(),
            Loc::Path(p) => RunError::input(format!("{}: {p}: {}", self.source.name(), msg.into())),
        }
    }
}

fn index(names: &[String]) -> HashMap<&str, u32> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as u32))
        .collect()
}

/// Builds and validates the automaton; returns it with warnings (unreachable states).
pub fn build(raw: &RawModel, source: &Source) -> Result<(Automaton, Vec<String>), RunError> {
    let at = Locator { source };
    let whole = Loc::Span(Span::new(0, 0));
    let names: Vec<String> = raw.states.iter().map(|s| s.name.clone()).collect();
    if names.is_empty() {
        return Err(at.err(&whole, "the automaton has no states"));
    }
    let mut sidx = HashMap::default();
    for (i, s) in raw.states.iter().enumerate() {
        if sidx.insert(s.name.as_str(), i as u32).is_some() {
            return Err(at.err(&s.loc, format!("state `{}` is declared twice", s.name)));
        }
    }
    let n = names.len();
    let state = |name: &str, loc: &Loc| -> Result<u32, RunError> {
        sidx.get(name)
            .copied()
            .ok_or_else(|| at.err(loc, format!("unknown state `{name}`")))
    };
    let metric = build_metric(raw, &at, &state)?;
    let mut dists = vec!["eps".to_string()];
    for d in &raw.disturbances {
        if d != "eps" {
            dists.push(d.clone());
        }
    }
    let iidx = index(&raw.inputs);
    let didx = index(&dists);
    if iidx.len() != raw.inputs.len() {
        return Err(at.err(&whole, "an input is declared twice"));
    }
    if didx.len() != dists.len() {
        return Err(at.err(&whole, "a disturbance is declared twice"));
    }
    let mut moves: Vec<Vec<Move>> = vec![Vec::new(); n];
    for t in &raw.transitions {
        let q = state(&t.from, &t.loc)?;
        let a = *iidx
            .get(t.input.as_str())
            .ok_or_else(|| at.err(&t.loc, format!("unknown input `{}`", t.input)))?;
        // A state has a few inputs: a scan finds the duplicate without a table of every transition.
        if moves[q as usize].iter().any(|m| m.input == a) {
            return Err(at.err(
                &t.loc,
                format!("delta({}, {}, ..) is given twice", t.from, t.input),
            ));
        }
        let nominal = state(&t.to, &t.loc)?;
        let mut disturbed = Vec::new();
        for (x, target) in &t.disturbed {
            let xi = *didx
                .get(x.as_str())
                .ok_or_else(|| at.err(&t.loc, format!("unknown disturbance `{x}`")))?;
            if xi == 0 {
                return Err(at.err(&t.loc, "the nominal successor (eps) is the one after `->`"));
            }
            if disturbed.iter().any(|&(y, _)| y == xi) {
                return Err(at.err(&t.loc, format!("disturbance `{x}` is given twice")));
            }
            disturbed.push((xi, state(target, &t.loc)?));
        }
        moves[q as usize].push(Move {
            input: a,
            nominal,
            disturbed,
        });
    }
    let init = match &raw.init {
        Some((name, loc)) => state(name, loc)?,
        None => return Err(at.err(&whole, "no initial state (`init NAME;`)")),
    };
    let (obj, obj_loc) = raw.objective.clone().ok_or_else(|| {
        at.err(
            &whole,
            "no objective (`reach`, `buchi`, `gen-buchi` or `parity`)",
        )
    })?;
    let set = |names: &[String]| -> Result<Vec<u32>, RunError> {
        let mut v = names
            .iter()
            .map(|s| state(s, &obj_loc))
            .collect::<Result<Vec<_>, _>>()?;
        v.sort_unstable();
        v.dedup();
        if v.is_empty() {
            return Err(at.err(&obj_loc, "an accepting set must not be empty"));
        }
        Ok(v)
    };
    let objective = match &obj {
        RawObjective::Reach(f) => Objective::Reach(set(f)?),
        RawObjective::Buchi(f) => Objective::Buchi(set(f)?),
        RawObjective::GenBuchi(fs) if fs.is_empty() => {
            // Only the JSON form can say `"gen-buchi": []`; with no set every
            // run would be accepting, which is not what anyone writes.
            return Err(at.err(&obj_loc, "`gen-buchi` needs at least one accepting set"));
        }
        RawObjective::GenBuchi(fs) => {
            Objective::GenBuchi(fs.iter().map(|f| set(f)).collect::<Result<_, _>>()?)
        }
        RawObjective::Parity => {
            let mut p = Vec::with_capacity(n);
            for s in &raw.states {
                p.push(s.priority.ok_or_else(|| {
                    at.err(
                        &s.loc,
                        format!("state `{}` has no priority (needed by `parity`)", s.name),
                    )
                })?);
            }
            Objective::Parity(p)
        }
    };
    let mut a = Automaton {
        name: raw.name.clone(),
        states: names,
        metric,
        init,
        inputs: raw.inputs.clone(),
        disturbances: dists,
        moves,
        gamma: Vec::new(),
        gamma_declared: raw.states.iter().any(|s| s.gamma.is_some()),
        objective,
    };
    // gamma: declared values are checked against every disturbed transition; the
    // others are the least valid bound.
    let least = a.least_gamma();
    a.gamma = raw
        .states
        .iter()
        .zip(&least)
        .map(|(s, &l)| s.gamma.unwrap_or(l))
        .collect();
    for (q, ms) in a.moves.iter().enumerate() {
        for m in ms {
            for &(x, t) in &m.disturbed {
                let d = a.dist(m.nominal as usize, t as usize);
                let g = a.gamma[m.nominal as usize];
                if d > g * (1.0 + 1e-12) + 1e-12 {
                    // The transition's location, found only on this error path.
                    let written = |t: &&RawTrans| {
                        sidx.get(t.from.as_str()) == Some(&(q as u32))
                            && iidx.get(t.input.as_str()) == Some(&m.input)
                    };
                    let loc = raw
                        .transitions
                        .iter()
                        .find(written)
                        .map_or(&whole, |t| &t.loc);
                    return Err(at.err(loc, format!(
                        "declared gamma violated: delta({}, {}, {}) = {} is at distance {} from the nominal successor {}, but gamma({}) = {}",
                        a.states[q], a.inputs[m.input as usize], a.disturbances[x as usize], a.states[t as usize], d,
                        a.states[m.nominal as usize], a.states[m.nominal as usize], g
                    )));
                }
            }
        }
    }
    let reach = a.reachable();
    let unreachable: Vec<&str> = (0..n)
        .filter(|&q| !reach[q])
        .map(|q| a.states[q].as_str())
        .collect();
    let mut warnings = Vec::new();
    if !unreachable.is_empty() {
        let shown: Vec<&str> = unreachable.iter().take(10).copied().collect();
        warnings.push(format!(
            "{} state(s) not reachable from the initial state: {}{}",
            unreachable.len(),
            shown.join(", "),
            if unreachable.len() > 10 { ", ..." } else { "" }
        ));
    }
    Ok((a, warnings))
}

type StateLookup<'a> = dyn Fn(&str, &Loc) -> Result<u32, RunError> + 'a;

fn build_metric(raw: &RawModel, at: &Locator, state: &StateLookup) -> Result<Metric, RunError> {
    let n = raw.states.len();
    if raw.metric != MetricKind::Table {
        let mut dim = None;
        let mut points = Vec::with_capacity(n);
        let mut seen: HashMap<Vec<u64>, usize> = HashMap::default();
        for (i, s) in raw.states.iter().enumerate() {
            let p = s.at.clone().ok_or_else(|| {
                at.err(
                    &s.loc,
                    format!(
                        "state `{}` needs coordinates (`at (x, y)`) for this metric",
                        s.name
                    ),
                )
            })?;
            if *dim.get_or_insert(p.len()) != p.len() {
                return Err(at.err(
                    &s.loc,
                    format!(
                        "state `{}` has {} coordinates, others have {}",
                        s.name,
                        p.len(),
                        dim.unwrap_or(0)
                    ),
                ));
            }
            if p.iter().any(|x| !x.is_finite()) {
                return Err(at.err(&s.loc, "coordinates must be finite"));
            }
            let key: Vec<u64> = p.iter().map(|x| (x + 0.0).to_bits()).collect();
            if let Some(&j) = seen.get(&key) {
                return Err(at.err(&s.loc, format!(
                    "identity of indiscernibles fails: states `{}` and `{}` have the same coordinates, so d = 0 between distinct states",
                    raw.states[j].name, s.name
                )));
            }
            seen.insert(key, i);
            points.push(p);
        }
        if !raw.distances.is_empty() {
            return Err(at.err(
                &raw.distances[0].3,
                "`distance` entries need `metric table;`",
            ));
        }
        return Ok(Metric::Coords {
            kind: raw.metric.clone(),
            points,
        });
    }
    if n > MAX_TABLE_STATES {
        return Err(at.err(
            &raw.states[0].loc,
            format!("distance tables are limited to {MAX_TABLE_STATES} states; use coordinates"),
        ));
    }
    let mut table: Vec<Option<(f64, bool)>> = vec![None; n * n];
    for (p, q, d, loc) in &raw.distances {
        let (pi, qi) = (state(p, loc)? as usize, state(q, loc)? as usize);
        if !(d.is_finite() && *d >= 0.0) {
            return Err(at.err(
                loc,
                format!("d({p}, {q}) = {d} is not a non-negative number"),
            ));
        }
        if let Some((_, true)) = table[pi * n + qi] {
            return Err(at.err(loc, format!("d({p}, {q}) is given twice")));
        }
        table[pi * n + qi] = Some((*d, true));
        match table[qi * n + pi] {
            Some((e, true)) if e != *d && pi != qi => {
                return Err(at.err(
                    loc,
                    format!("symmetry fails: d({p}, {q}) = {d} but d({q}, {p}) = {e}"),
                ));
            }
            Some((_, true)) => {}
            _ => table[qi * n + pi] = Some((*d, false)),
        }
    }
    let name = |i: usize| raw.states[i].name.as_str();
    let first = raw
        .distances
        .first()
        .map(|d| d.3.clone())
        .unwrap_or(Loc::Span(Span::new(0, 0)));
    let mut flat = vec![0.0; n * n];
    for p in 0..n {
        for q in 0..n {
            let d = match table[p * n + q] {
                Some((d, _)) => d,
                None if p == q => 0.0,
                None => {
                    return Err(at.err(
                        &first,
                        format!("no distance between `{}` and `{}`", name(p), name(q)),
                    ))
                }
            };
            if (p == q) != (d == 0.0) {
                return Err(at.err(
                    &first,
                    format!(
                        "identity of indiscernibles fails: d({}, {}) = {d}",
                        name(p),
                        name(q)
                    ),
                ));
            }
            flat[p * n + q] = d;
        }
    }
    for p in 0..n {
        for q in 0..n {
            for r in 0..n {
                let (pq, qr, pr) = (flat[p * n + q], flat[q * n + r], flat[p * n + r]);
                if pr > (pq + qr) * (1.0 + 1e-12) {
                    return Err(at.err(&first, format!(
                        "triangle inequality fails for ({}, {}, {}): d({}, {}) = {pr} > d({}, {}) + d({}, {}) = {}",
                        name(p), name(q), name(r), name(p), name(r), name(p), name(q), name(q), name(r), pq + qr
                    )));
                }
            }
        }
    }
    Ok(Metric::Table { n, table: flat })
}
