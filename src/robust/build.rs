//! The checked construction of an automaton from its raw model: names
//! resolved, metric axioms (seed Sec. 2: identity, symmetry, triangle
//! inequality) and declared gamma (Def. 2.1) validated, with located errors.
//!
//! Names are resolved through tables indexed by [`Sym`] (no hashing, no
//! string comparison per transition), and the raw model is consumed, so state
//! names and coordinates move into the automaton instead of being copied: a
//! 10^6-state model is built in one pass over its transitions.

use super::model::{Automaton, Metric, MetricKind, Move, MoveTable, Objective};
use super::raw::{Loc, Locator, Names, RawModel, RawObjective, RawState, RawTrans, Sym};
use crate::lang::{Source, Span};
use crate::report::RunError;

/// Limit on explicit distance tables (the triangle check is cubic).
pub const MAX_TABLE_STATES: usize = 2000;

/// "Not declared" in a table indexed by symbol.
const NONE: u32 = u32::MAX;

/// Symbols to states, inputs or disturbances, with the located error for an
/// unknown one.
struct Resolver<'a> {
    at: Locator<'a>,
    names: &'a Names,
    state_of: Vec<u32>,
}

impl Resolver<'_> {
    fn state(&self, s: Sym, loc: &Loc) -> Result<u32, RunError> {
        match self.state_of[s.0 as usize] {
            NONE => Err(self
                .at
                .err(loc, format!("unknown state `{}`", self.names.name(s)))),
            q => Ok(q),
        }
    }

    fn states(&self, set: &[Sym], loc: &Loc) -> Result<Vec<u32>, RunError> {
        let mut v = set
            .iter()
            .map(|&s| self.state(s, loc))
            .collect::<Result<Vec<_>, _>>()?;
        v.sort_unstable();
        v.dedup();
        if v.is_empty() {
            return Err(self.at.err(loc, "an accepting set must not be empty"));
        }
        Ok(v)
    }
}

/// For each symbol its position in `list`; `None` if a symbol is listed twice.
fn positions(symbols: usize, list: &[Sym]) -> Option<Vec<u32>> {
    let mut pos = vec![NONE; symbols];
    for (i, s) in list.iter().enumerate() {
        if std::mem::replace(&mut pos[s.0 as usize], i as u32) != NONE {
            return None;
        }
    }
    Some(pos)
}

fn whole() -> Loc {
    Loc::Span(Span::new(0, 0))
}

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
    let metric = build_metric(raw.metric.clone(), &mut raw.states, &raw.distances, &r)?;
    let moves = build_moves(&raw, &r, &input_of, &dist_of)?;
    let init = match &raw.init {
        Some((q, loc)) => r.state(*q, loc)?,
        None => return Err(at.err(&whole(), "no initial state (`init NAME;`)")),
    };
    let objective = build_objective(&raw, &r)?;
    let text = |list: &[Sym]| list.iter().map(|&s| names.name(s).to_string()).collect();
    let (inputs, disturbances) = (text(&raw.inputs), text(&dists));
    let states = raw
        .states
        .iter()
        .map(|s| names.name(s.name).to_string())
        .collect();
    let mut a = Automaton {
        name: std::mem::take(&mut raw.name),
        states,
        metric,
        init,
        inputs,
        disturbances,
        moves,
        gamma: Vec::new(),
        gamma_declared: raw.states.iter().any(|s| s.gamma.is_some()),
        objective,
    };
    check_gamma(&mut a, &raw, &r, &input_of)?;
    let warnings = unreachable_warning(&a).into_iter().collect();
    Ok((a, warnings))
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
        disturbed: Vec::new(),
    };
    let mut moves = vec![placeholder; first[states]];
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
        moves[next[q]] = build_move(raw, t, r, input, dist_of)?;
        next[q] += 1;
    }
    Ok(MoveTable::from_parts(first, moves))
}

/// The move of a transition with its (resolved) input: its nominal and
/// disturbed successors checked.
fn build_move(
    raw: &RawModel,
    t: &RawTrans,
    r: &Resolver,
    input: u32,
    dist_of: &[u32],
) -> Result<Move, RunError> {
    let name = |s: Sym| r.names.name(s);
    let nominal = r.state(t.to, &t.loc)?;
    let pairs = raw.disturbed_of(t);
    let mut disturbed = Vec::with_capacity(pairs.len());
    for &(x, target) in pairs {
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
        if disturbed.iter().any(|&(y, _)| y == xi) {
            return Err(r
                .at
                .err(&t.loc, format!("disturbance `{}` is given twice", name(x))));
        }
        disturbed.push((xi, r.state(target, &t.loc)?));
    }
    Ok(Move {
        input,
        nominal,
        disturbed,
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

/// gamma: declared values are checked against every disturbed transition; the
/// others are the least valid bound.
fn check_gamma(
    a: &mut Automaton,
    raw: &RawModel,
    r: &Resolver,
    input_of: &[u32],
) -> Result<(), RunError> {
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
                        r.state_of[t.from.0 as usize] == q as u32
                            && input_of[t.input.0 as usize] == m.input
                    };
                    let whole = whole();
                    let loc = raw
                        .transitions
                        .iter()
                        .find(written)
                        .map_or(&whole, |t| &t.loc);
                    return Err(r.at.err(loc, format!(
                        "declared gamma violated: delta({}, {}, {}) = {} is at distance {} from the nominal successor {}, but gamma({}) = {}",
                        a.states[q], a.inputs[m.input as usize], a.disturbances[x as usize], a.states[t as usize], d,
                        a.states[m.nominal as usize], a.states[m.nominal as usize], g
                    )));
                }
            }
        }
    }
    Ok(())
}

fn unreachable_warning(a: &Automaton) -> Option<String> {
    let reach = a.reachable();
    let unreachable: Vec<&str> = (0..a.len())
        .filter(|&q| !reach[q])
        .map(|q| a.states[q].as_str())
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

/// The metric: coordinates (moved out of the raw states) or a checked table.
fn build_metric(
    kind: MetricKind,
    states: &mut [RawState],
    distances: &[(Sym, Sym, f64, Loc)],
    r: &Resolver,
) -> Result<Metric, RunError> {
    if kind == MetricKind::Table {
        return build_table(states, distances, r);
    }
    let name = |s: &RawState| r.names.name(s.name).to_string();
    let mut dim = None;
    // The first state whose coordinates are missing, of another dimension, or
    // not finite; duplicates are looked for among the states before it.
    let mut first_bad = None;
    for (i, s) in states.iter().enumerate() {
        let problem = match &s.at {
            None => Some(format!(
                "state `{}` needs coordinates (`at (x, y)`) for this metric",
                name(s)
            )),
            Some(p) if *dim.get_or_insert(p.len()) != p.len() => Some(format!(
                "state `{}` has {} coordinates, others have {}",
                name(s),
                p.len(),
                dim.unwrap_or(0)
            )),
            Some(p) if p.iter().any(|x| !x.is_finite()) => {
                Some("coordinates must be finite".to_string())
            }
            Some(_) => None,
        };
        if let Some(msg) = problem {
            first_bad = Some((i, msg));
            break;
        }
    }
    let good = first_bad.as_ref().map_or(states.len(), |(i, _)| *i);
    if let Some((j, i)) = first_repeated_point(&states[..good]) {
        return Err(r.at.err(&states[i].loc, format!(
            "identity of indiscernibles fails: states `{}` and `{}` have the same coordinates, so d = 0 between distinct states",
            name(&states[j]), name(&states[i])
        )));
    }
    if let Some((i, msg)) = first_bad {
        return Err(r.at.err(&states[i].loc, msg));
    }
    if let Some(d) = distances.first() {
        return Err(r.at.err(&d.3, "`distance` entries need `metric table;`"));
    }
    let points = states
        .iter_mut()
        .map(|s| s.at.take().unwrap_or_default())
        .collect();
    Ok(Metric::Coords { kind, points })
}

/// The first state (in order) at the same point as an earlier one, with that
/// earlier one: `(earlier, state)`. Sorting the points instead of hashing them
/// needs no allocation per state. -0 and +0 are the same point.
fn first_repeated_point(states: &[RawState]) -> Option<(usize, usize)> {
    let point = |i: usize| states[i].at.as_deref().unwrap_or_default();
    let bits = |x: &f64| (x + 0.0).to_bits();
    // Points of at most 3 coordinates (the usual ones) are sorted as inline
    // keys (coordinates, dimension, state), without an indirection per comparison.
    if (0..states.len()).all(|i| point(i).len() <= 3) {
        let mut keyed: Vec<([u64; 3], u32, u32)> = (0..states.len())
            .map(|i| {
                let mut k = [0u64; 3];
                for (slot, x) in k.iter_mut().zip(point(i)) {
                    *slot = bits(x);
                }
                (k, point(i).len() as u32, i as u32)
            })
            .collect();
        keyed.sort_unstable();
        // Within a run of equal points the states are in order: the run's
        // second state is its first repetition.
        return keyed
            .windows(2)
            .filter(|w| w[0].0 == w[1].0 && w[0].1 == w[1].1)
            .map(|w| (w[0].2 as usize, w[1].2 as usize))
            .fold(None, |best: Option<(usize, usize)>, (j, i)| match best {
                Some((_, b)) if b <= i => best,
                _ => Some((j, i)),
            });
    }
    let key = |i: usize| point(i).iter().map(bits);
    let mut order: Vec<usize> = (0..states.len()).collect();
    order.sort_unstable_by(|&a, &b| key(a).cmp(key(b)).then(a.cmp(&b)));
    let mut best: Option<(usize, usize)> = None;
    let mut run_start = 0;
    for k in 1..=order.len() {
        if k < order.len() && key(order[k]).eq(key(order[run_start])) {
            if k == run_start + 1 && best.is_none_or(|(_, i)| order[k] < i) {
                best = Some((order[run_start], order[k]));
            }
        } else {
            run_start = k;
        }
    }
    best
}

/// An explicit distance table: complete, symmetric, zero exactly on the
/// diagonal, and satisfying the triangle inequality.
fn build_table(
    states: &[RawState],
    distances: &[(Sym, Sym, f64, Loc)],
    r: &Resolver,
) -> Result<Metric, RunError> {
    let n = states.len();
    if n > MAX_TABLE_STATES {
        return Err(r.at.err(
            &states[0].loc,
            format!("distance tables are limited to {MAX_TABLE_STATES} states; use coordinates"),
        ));
    }
    let table = given_distances(n, distances, r)?;
    let name = |i: usize| r.names.name(states[i].name);
    let first = distances
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
                    return Err(r.at.err(
                        &first,
                        format!("no distance between `{}` and `{}`", name(p), name(q)),
                    ))
                }
            };
            if (p == q) != (d == 0.0) {
                return Err(r.at.err(
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
    check_triangle_inequality(&flat, states, r, &first)?;
    Ok(Metric::Table { n, table: flat })
}

/// The distances as written, `(d, true)` at `p * n + q` for a written
/// `d(p, q)` and `(d, false)` for its mirror when `d(q, p)` is not written;
/// a distance given twice, not a non-negative number or asymmetric is an error.
fn given_distances(
    n: usize,
    distances: &[(Sym, Sym, f64, Loc)],
    r: &Resolver,
) -> Result<Vec<Option<(f64, bool)>>, RunError> {
    let mut table: Vec<Option<(f64, bool)>> = vec![None; n * n];
    for &(ps, qs, d, ref loc) in distances {
        let (pi, qi) = (r.state(ps, loc)? as usize, r.state(qs, loc)? as usize);
        let (p, q) = (r.names.name(ps), r.names.name(qs));
        let d = &d;
        if !(d.is_finite() && *d >= 0.0) {
            return Err(r.at.err(
                loc,
                format!("d({p}, {q}) = {d} is not a non-negative number"),
            ));
        }
        if let Some((_, true)) = table[pi * n + qi] {
            return Err(r.at.err(loc, format!("d({p}, {q}) is given twice")));
        }
        table[pi * n + qi] = Some((*d, true));
        match table[qi * n + pi] {
            Some((e, true)) if e != *d && pi != qi => {
                return Err(r.at.err(
                    loc,
                    format!("symmetry fails: d({p}, {q}) = {d} but d({q}, {p}) = {e}"),
                ));
            }
            Some((_, true)) => {}
            _ => table[qi * n + pi] = Some((*d, false)),
        }
    }
    Ok(table)
}

/// The triangle inequality on the completed table (with a relative
/// tolerance, as the distances are floating-point numbers); a failure is
/// reported at the first distance written.
fn check_triangle_inequality(
    flat: &[f64],
    states: &[RawState],
    r: &Resolver,
    first: &Loc,
) -> Result<(), RunError> {
    let n = states.len();
    let name = |i: usize| r.names.name(states[i].name);
    for p in 0..n {
        for q in 0..n {
            for w in 0..n {
                let (pq, qw, pw) = (flat[p * n + q], flat[q * n + w], flat[p * n + w]);
                if pw > (pq + qw) * (1.0 + 1e-12) {
                    return Err(r.at.err(first, format!(
                        "triangle inequality fails for ({}, {}, {}): d({}, {}) = {pw} > d({}, {}) + d({}, {}) = {}",
                        name(p), name(q), name(w), name(p), name(w), name(p), name(q), name(q), name(w), pq + qw
                    )));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn states(points: &[Vec<f64>]) -> Vec<RawState> {
        points
            .iter()
            .enumerate()
            .map(|(i, p)| RawState {
                name: Sym(i as u32),
                at: Some(p.clone()),
                gamma: None,
                priority: None,
                loc: whole(),
            })
            .collect()
    }

    /// The definition: the first state equal to an earlier one, and the
    /// earliest state it equals (-0 = +0).
    fn brute_force(points: &[Vec<f64>]) -> Option<(usize, usize)> {
        (0..points.len()).find_map(|i| {
            (0..i)
                .find(|&j| points[j].iter().zip(&points[i]).all(|(a, b)| a == b))
                .map(|j| (j, i))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn repeated_points_are_found_as_by_the_definition(
            raw in proptest::collection::vec(proptest::collection::vec(-2i8..3, 5), 0..30),
            dim in 1usize..=5,
        ) {
            // Small integer grids repeat often (more so in few dimensions; above 3
            // the general path is taken); -0.0 stands for 0 in half the cells.
            let points: Vec<Vec<f64>> = raw
                .iter()
                .enumerate()
                .map(|(i, p)| p[..dim].iter().map(|&x| if x == 0 && i % 2 == 1 { -0.0 } else { f64::from(x) }).collect())
                .collect();
            prop_assert_eq!(first_repeated_point(&states(&points)), brute_force(&points));
        }
    }
}
