//! The metric of an automaton under construction: coordinates (checked for
//! repeated points, the identity of indiscernibles) or an explicit distance
//! table (complete, symmetric, zero exactly on the diagonal, triangle
//! inequality), with located errors.

use super::model::{Metric, MetricKind, Points};
use super::raw::{Loc, RawState, Sym};
use super::resolve::Resolver;
use crate::lang::Span;
use crate::report::RunError;

/// Limit on explicit distance tables (the triangle check is cubic).
pub const MAX_TABLE_STATES: usize = 2000;

/// The metric: coordinates (the raw states' points, `coords[at.0..at.1]`,
/// copied into one flat vector) or a checked table.
pub fn build_metric(
    kind: MetricKind,
    states: &[RawState],
    coords: &[f64],
    distances: &[(Sym, Sym, f64, Loc)],
    r: &Resolver,
) -> Result<Metric, RunError> {
    if kind == MetricKind::Table {
        return build_table(states, distances, r);
    }
    let name = |s: &RawState| r.names.name(s.name).to_string();
    let point = |s: &RawState| s.at.map(|(a, b)| &coords[a as usize..b as usize]);
    let mut dim = None;
    // The first state whose coordinates are missing, of another dimension, or
    // not finite; duplicates are looked for among the states before it.
    let mut first_bad = None;
    for (i, s) in states.iter().enumerate() {
        let problem = match point(s) {
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
    if let Some((j, i)) = first_repeated_point(&states[..good], coords) {
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
    let dim = dim.unwrap_or(0);
    let mut flat = Vec::with_capacity(states.len() * dim);
    for s in states {
        flat.extend_from_slice(point(s).unwrap_or_default());
    }
    let points = Points::from_flat(dim, states.len(), flat);
    Ok(Metric::Coords { kind, points })
}

/// The first state (in order) at the same point as an earlier one, with that
/// earlier one: `(earlier, state)`. Sorting the points instead of hashing them
/// needs no allocation per state. -0 and +0 are the same point.
fn first_repeated_point(states: &[RawState], coords: &[f64]) -> Option<(usize, usize)> {
    let point = |i: usize| {
        states[i]
            .at
            .map_or(&[][..], |(a, b)| &coords[a as usize..b as usize])
    };
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
    use crate::robust::raw::RawModel;
    use crate::robust::resolve::whole;
    use proptest::prelude::*;

    /// Raw states at the points, with the coordinates they point into.
    fn states(points: &[Vec<f64>]) -> (Vec<RawState>, Vec<f64>) {
        let mut coords = Vec::new();
        let states = points
            .iter()
            .enumerate()
            .map(|(i, p)| RawState {
                name: Sym(i as u32),
                at: Some(RawModel::push_point(&mut coords, p)),
                gamma: None,
                priority: None,
                loc: whole(),
            })
            .collect();
        (states, coords)
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
            let (raw_states, coords) = states(&points);
            prop_assert_eq!(first_repeated_point(&raw_states, &coords), brute_force(&points));
        }
    }
}
