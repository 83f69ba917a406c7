//! The checked construction of an automaton from its raw model: names
//! resolved, metric axioms (seed Sec. 2: identity, symmetry, triangle
//! inequality; [`super::build_metric`]) and declared gamma (Def. 2.1)
//! validated, with located errors.
//!
//! Names are resolved through tables indexed by [`Sym`] (no hashing, no
//! string comparison per transition); state names and coordinates are copied
//! into one flat vector each (no allocation per state): a 10^6-state model is
//! built in one pass over its transitions.

use super::build_metric::build_metric;
use super::raw::{Locator, Names, RawModel, RawObjective, RawTrans, Sym};
use super::resolve::{positions, whole, Resolver, NONE};
use crate::lang::Source;
use crate::report::RunError;
use crate::robust::front::{Automaton, Move, MoveTable, Objective, StateNames};

/// Builds and validates the automaton; returns it with warnings (unreachable states).
pub fn build(mut raw: RawModel, source: &Source) -> Result<(Automaton, Vec<String>), RunError> {
    let at = Locator { source };
    if raw.states.is_empty() {
        return Err(at.err(&whole(), "the automaton has no states"));
    }
    let eps = raw.names.intern("eps");
    let mut dists = vec![eps];
    dists.extend(raw.disturbances.iter().copied().filter(|&d| d != eps));
    let symbols = raw.names.len();
    let mut state_of = vec![NONE; symbols];
    for (i, s) in raw.states.iter().enumerate() {
        if std::mem::replace(&mut state_of[s.name.0 as usize], i as u32) != NONE {
            let name = raw.names.name(s.name);
            return Err(at.err(&s.loc, format!("state `{name}` is declared twice")));
        }
    }
    let input_of = positions(symbols, &raw.inputs)
        .ok_or_else(|| at.err(&whole(), "an input is declared twice"))?;
    let dist_of = positions(symbols, &dists)
        .ok_or_else(|| at.err(&whole(), "a disturbance is declared twice"))?;
    let names = std::mem::take(&mut raw.names);
    let r = Resolver {
        at,
        names: &names,
        state_of,
    };
    let metric = build_metric(
        raw.metric.clone(),
        &raw.states,
        &raw.coords,
        &raw.distances,
        &r,
    )?;
    let moves = build_moves(&raw, &r, &input_of, &dist_of)?;
    let init = match &raw.init {
        Some((q, loc)) => r.state(*q, loc)?,
        None => return Err(at.err(&whole(), "no initial state (`init NAME;`)")),
    };
    let objective = build_objective(&raw, &r)?;
    let text = |list: &[Sym]| list.iter().map(|&s| names.name(s).to_string()).collect();
    let (inputs, disturbances) = (text(&raw.inputs), text(&dists));
    let states = state_names(&raw, &names);
    let a = Automaton {
        name: std::mem::take(&mut raw.name),
        states,
        metric,
        init,
        inputs,
        disturbances,
        moves,
        gamma: Vec::new(),
        gamma_declared: false,
        objective,
    };
    finish(a, |q| raw.states[q].gamma)
        .map_err(|(q, input, message)| gamma_error(&raw, &r, &input_of, (q, input), message))
}

/// delta as moves per state, each input once, each disturbance once per move.
///
/// The moves go straight into their state's row of one flat table: a first
/// pass counts each state's transitions, the second checks every transition
/// in written order (so the first error is the one written first) and puts it
/// in place.
fn build_moves(
    raw: &RawModel,
    r: &Resolver,
    input_of: &[u32],
    dist_of: &[u32],
) -> Result<MoveTable, RunError> {
    let states = r.state_of.iter().filter(|&&q| q != NONE).count();
    let mut first = vec![0usize; states + 1];
    for t in &raw.transitions {
        // Unknown states are counted nowhere; the second pass reports them.
        if let Some(&q) = r.state_of.get(t.from.0 as usize).filter(|&&q| q != NONE) {
            first[q as usize + 1] += 1;
        }
    }
    for q in 0..states {
        first[q + 1] += first[q];
    }
    let placeholder = Move {
        input: 0,
        nominal: 0,
        pairs: (0, 0),
    };
    let mut moves = vec![placeholder; first[states]];
    // The pairs in written order; `from_parts` lays them out in row order if that differs.
    let mut pairs = Vec::with_capacity(raw.disturbed.len());
    // Where the next move of each state goes.
    let mut next = first[..states].to_vec();
    for t in &raw.transitions {
        let q = r.state(t.from, &t.loc)? as usize;
        let name = |s: Sym| r.names.name(s);
        let input = match input_of[t.input.0 as usize] {
            NONE => {
                return Err(r
                    .at
                    .err(&t.loc, format!("unknown input `{}`", name(t.input))))
            }
            a => a,
        };
        // A state has a few inputs: a scan finds the duplicate without a table of every transition.
        if moves[first[q]..next[q]].iter().any(|o| o.input == input) {
            let msg = format!(
                "delta({}, {}, ..) is given twice",
                name(t.from),
                name(t.input)
            );
            return Err(r.at.err(&t.loc, msg));
        }
        moves[next[q]] = build_move(raw, t, r, input, dist_of, &mut pairs)?;
        next[q] += 1;
    }
    Ok(MoveTable::from_parts(first, moves, pairs))
}

/// The move of a transition with its (resolved) input: its nominal and
/// disturbed successors checked, the latter appended to `out`.
fn build_move(
    raw: &RawModel,
    t: &RawTrans,
    r: &Resolver,
    input: u32,
    dist_of: &[u32],
    out: &mut Vec<(u32, u32)>,
) -> Result<Move, RunError> {
    let name = |s: Sym| r.names.name(s);
    let nominal = r.state(t.to, &t.loc)?;
    let start = out.len();
    for &(x, target) in raw.disturbed_of(t) {
        let xi = match dist_of[x.0 as usize] {
            NONE => {
                return Err(r
                    .at
                    .err(&t.loc, format!("unknown disturbance `{}`", name(x))))
            }
            xi => xi,
        };
        if xi == 0 {
            return Err(r
                .at
                .err(&t.loc, "the nominal successor (eps) is the one after `->`"));
        }
        if out[start..].iter().any(|&(y, _)| y == xi) {
            return Err(r
                .at
                .err(&t.loc, format!("disturbance `{}` is given twice", name(x))));
        }
        out.push((xi, r.state(target, &t.loc)?));
    }
    Ok(Move {
        input,
        nominal,
        pairs: (start as u32, out.len() as u32),
    })
}

fn build_objective(raw: &RawModel, r: &Resolver) -> Result<Objective, RunError> {
    let (obj, loc) = raw.objective.as_ref().ok_or_else(|| {
        r.at.err(
            &whole(),
            "no objective (`reach`, `buchi`, `gen-buchi` or `parity`)",
        )
    })?;
    Ok(match obj {
        RawObjective::Reach(f) => Objective::Reach(r.states(f, loc)?),
        RawObjective::Buchi(f) => Objective::Buchi(r.states(f, loc)?),
        RawObjective::GenBuchi(fs) if fs.is_empty() => {
            // Only the JSON form can say `"gen-buchi": []`; with no set every
            // run would be accepting, which is not what anyone writes.
            return Err(r
                .at
                .err(loc, "`gen-buchi` needs at least one accepting set"));
        }
        RawObjective::GenBuchi(fs) => Objective::GenBuchi(
            fs.iter()
                .map(|f| r.states(f, loc))
                .collect::<Result<_, _>>()?,
        ),
        RawObjective::Parity => {
            let mut p = Vec::with_capacity(raw.states.len());
            for s in &raw.states {
                p.push(s.priority.ok_or_else(|| {
                    let name = r.names.name(s.name);
                    r.at.err(
                        &s.loc,
                        format!("state `{name}` has no priority (needed by `parity`)"),
                    )
                })?);
            }
            Objective::Parity(p)
        }
    })
}

/// The last step of every reader's build (text, JSON and binary alike):
/// each state's gamma, declared (`declared(q)`) or else the least valid
/// bound, declared values checked against every disturbed transition
/// ([`gamma_violation`]), and the warnings. A violation comes back as its
/// state, input and message, for the reader to locate.
pub fn finish(
    mut a: Automaton,
    declared: impl Fn(usize) -> Option<f64>,
) -> Result<(Automaton, Vec<String>), (usize, u32, String)> {
    let n = a.len();
    a.gamma_declared = (0..n).any(|q| declared(q).is_some());
    // The least bound costs a pass over the moves: only where one is missing.
    let least = if (0..n).all(|q| declared(q).is_some()) {
        Vec::new()
    } else {
        a.least_gamma()
    };
    a.gamma = (0..n)
        .map(|q| declared(q).unwrap_or_else(|| least[q]))
        .collect();
    if a.gamma_declared {
        if let Some(violation) = gamma_violation(&a, &a.gamma) {
            return Err(violation);
        }
    }
    let warnings = unreachable_warning(&a).into_iter().collect();
    Ok((a, warnings))
}

/// A gamma violation at the transition of state `q` and `input` as written
/// (found only on this error path).
fn gamma_error(
    raw: &RawModel,
    r: &Resolver,
    input_of: &[u32],
    (q, input): (usize, u32),
    message: String,
) -> RunError {
    let written = |t: &&RawTrans| {
        r.state_of[t.from.0 as usize] == q as u32 && input_of[t.input.0 as usize] == input
    };
    let whole = whole();
    let loc = raw
        .transitions
        .iter()
        .find(written)
        .map_or(&whole, |t| &t.loc);
    r.at.err(loc, message)
}

/// The first disturbed move farther from its nominal successor than `gamma`
/// allows (Def. 2.1: d(q^{a,eps}, q^{a,x}) <= gamma(q^{a,eps})), as its state,
/// its input and the message; the relative and absolute 1e-12 forgive the
/// rounding of computed distances. Every reader checks declared gamma here.
pub fn gamma_violation(a: &Automaton, gamma: &[f64]) -> Option<(usize, u32, String)> {
    for (q, ms) in a.moves.iter().enumerate() {
        for m in ms {
            for &(x, t) in a.moves.disturbed(m) {
                let d = a.dist(m.nominal as usize, t as usize);
                let g = gamma[m.nominal as usize];
                if d > g * (1.0 + 1e-12) + 1e-12 {
                    let message = format!(
                        "declared gamma violated: delta({}, {}, {}) = {} is at distance {} from the nominal successor {}, but gamma({}) = {}",
                        &a.states[q], a.inputs[m.input as usize], a.disturbances[x as usize], &a.states[t as usize], d,
                        &a.states[m.nominal as usize], &a.states[m.nominal as usize], g
                    );
                    return Some((q, m.input, message));
                }
            }
        }
    }
    None
}

/// The warning naming the states not reachable from the initial state, if any.
pub fn unreachable_warning(a: &Automaton) -> Option<String> {
    let reach = a.reachable();
    let unreachable: Vec<&str> = (0..a.len())
        .filter(|&q| !reach[q])
        .map(|q| &a.states[q])
        .collect();
    if unreachable.is_empty() {
        return None;
    }
    let shown: Vec<&str> = unreachable.iter().take(10).copied().collect();
    Some(format!(
        "{} state(s) not reachable from the initial state: {}{}",
        unreachable.len(),
        shown.join(", "),
        if unreachable.len() > 10 { ", ..." } else { "" }
    ))
}

/// The state names in declaration order, copied into one string.
fn state_names(raw: &RawModel, names: &Names) -> StateNames {
    let bytes = raw.states.iter().map(|s| names.name(s.name).len()).sum();
    let mut out = StateNames::with_capacity(raw.states.len(), bytes);
    for s in &raw.states {
        out.push(names.name(s.name));
    }
    out
}
