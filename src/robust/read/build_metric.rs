//! The metric of an automaton under construction: coordinates (checked for
//! repeated points, the identity of indiscernibles) or an explicit distance
//! table (complete, symmetric, zero exactly on the diagonal, triangle
//! inequality), with located errors.

use super::raw::{Loc, RawState, Sym};
use super::repeats::{first_repeated, hash_words};
use super::resolve::Resolver;
use crate::lang::Span;
use crate::report::RunError;
use crate::robust::front::{Metric, MetricKind, Points};

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
    let point_of = |i: usize| {
        states[i]
            .at
            .map_or(&[][..], |(a, b)| &coords[a as usize..b as usize])
    };
    if let Some((j, i)) = first_repeated_point(good, point_of) {
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
/// earlier one: `(earlier, state)`. -0 and +0 are the same point. The states
/// are `0..len`, state i at `point(i)`.
pub fn first_repeated_point<'p>(
    len: usize,
    point: impl Fn(usize) -> &'p [f64],
) -> Option<(usize, usize)> {
    let key = |i: usize| point(i).iter().map(|x| (x + 0.0).to_bits());
    let hash = |i: usize| hash_words(key(i).chain([point(i).len() as u64]));
    first_repeated(len, hash, |a, b| key(a).cmp(key(b)))
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
        .unwrap_or(Loc::span(Span::new(0, 0)));
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
    use crate::robust::read::raw::RawModel;
    use crate::robust::read::resolve::whole;
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
            let point = |i: usize| raw_states[i].at.map_or(&[][..], |(a, b)| &coords[a as usize..b as usize]);
            prop_assert_eq!(first_repeated_point(raw_states.len(), point), brute_force(&points));
        }
    }
}
