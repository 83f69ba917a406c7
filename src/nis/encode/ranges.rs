//! Declared ranges (Definition 1 of Kouvaros et al., IJCAI 2024: L_t is the
//! product of the declared domains; the semantics calls an update leaving
//! them an error). The unrolling records every update value whose bounds
//! exceed its variable's range; one MILP then asks whether any of them can
//! leave it.

use super::confirm::solve_confirmed;
use super::options::milp_error;
use super::stats::SolveCounts;
use crate::lang::{num, DeclType, Source, Span};
use crate::milp::{tolerance, LinExpr, Model as Milp, Solution, SolveOptions};
use crate::nis::front::model::VarDecl;
use crate::report::RunError;

/// An update value that may leave its variable's declared range: `value`
/// assigned when `cond` (0/1) holds, the range `[lo, hi]`.
pub struct RangeCheck {
    pub what: String,
    pub cond: LinExpr,
    pub value: LinExpr,
    pub lo: f64,
    pub hi: f64,
    pub integral: bool,
    /// A further 0/1 condition (a zero-one slot's active flag).
    pub guard: Option<LinExpr>,
    /// The update expression in the model text.
    pub span: Option<Span>,
    /// The unrolling state the update's round leads to ([`state_of`]).
    pub at: Option<usize>,
}

/// The update values (each assigned when its 0/1 condition holds) whose
/// bounds exceed the declared range of a number variable: the semantics
/// calls leaving the range an error, which the decider looks for before it
/// answers ([`check_ranges`]); `span`: where the value is written. `guard`: a further condition (a slot's active flag).
pub fn range_checks<'v>(
    milp: &Milp,
    name: &str,
    decl: &VarDecl,
    values: impl Iterator<Item = (&'v LinExpr, &'v LinExpr, Option<Span>)>,
    guard: Option<&LinExpr>,
) -> Vec<RangeCheck> {
    let (lo, hi, integral) = match &decl.ty {
        DeclType::Int { lo, hi } => (lo, hi, true),
        DeclType::Real { lo, hi } => (lo, hi, false),
        _ => return Vec::new(),
    };
    let lo = lo.as_ref().map_or(f64::NEG_INFINITY, num::to_f64);
    let hi = hi.as_ref().map_or(f64::INFINITY, num::to_f64);
    let mut out = Vec::new();
    for (cond, value, span) in values {
        let (l, h) = milp.bounds(value);
        if l < lo - tolerance::RANGE_SLACK || h > hi + tolerance::RANGE_SLACK {
            out.push(RangeCheck {
                what: format!(
                    "the declared range {} of `{}` (MILP variable {name})",
                    decl.ty.describe(),
                    decl.name
                ),
                span,
                at: state_of(name),
                cond: cond.clone(),
                value: value.clone(),
                lo,
                hi,
                integral,
                guard: guard.cloned(),
            });
        }
    }
    out
}

/// Leaving a declared range is an error of the model (exit 2), as in the
/// exact semantics: one MILP (without the goal) asks whether any recorded
/// update value can leave its range on some run of the unrolling (state
/// variables are bounded by their value hulls, not clipped, so none is
/// hidden). A run found is returned as a [`Breach`], for the caller to
/// describe along its unrolling.
pub fn check_ranges(
    source: &Source,
    milp: &Milp,
    checks: &[RangeCheck],
    solve: &SolveOptions,
    counts: &mut SolveCounts,
) -> Result<Option<Breach>, RunError> {
    if checks.is_empty() {
        return Ok(None);
    }
    let mut m = milp.clone();
    let mut sides = Vec::new();
    for (i, c) in checks.iter().enumerate() {
        let gap = if c.integral {
            1.0
        } else {
            tolerance::STRICT_GAP
        };
        let (l, h) = m.bounds(&c.value);
        for (above, bound) in [(true, c.hi), (false, c.lo)] {
            let possible = if above { h > bound } else { l < bound };
            if !possible || !bound.is_finite() {
                continue;
            }
            let o = m.binary(&format!("range{i}"));
            m.le(&format!("range{i}.cond"), o, c.cond.clone());
            if let Some(g) = &c.guard {
                m.le(&format!("range{i}.guard"), o, g.clone());
            }
            let (lhs, rhs) = if above {
                (c.value.clone(), bound + gap)
            } else {
                (-c.value.clone(), -(bound - gap))
            };
            // o = 1 implies lhs >= rhs, with M from the bounds of lhs.
            let low = m.finite_lower(&lhs, "a range check").map_err(milp_error)?;
            let big = (rhs - low).max(0.0);
            m.ge(
                &format!("range{i}.out"),
                lhs - LinExpr::from(o) * big,
                rhs - big,
            );
            sides.push((i, o));
        }
    }
    if sides.is_empty() {
        return Ok(None);
    }
    m.ge("range.some", LinExpr::sum(sides.iter().map(|s| s.1)), 1.0);
    // "No update leaves its range" is an infeasibility: confirmed by a
    // second opinion, as the deciders' verdicts are.
    let out = solve_confirmed(&m, solve, counts)?;
    let Some(sol) = out.solution else {
        return Ok(None);
    };
    let Some(&(i, _)) = sides.iter().find(|(_, o)| sol.is_set(*o)) else {
        return Ok(None);
    };
    let c = &checks[i];
    let message = format!(
        "an update leaves {}: it takes the value {} on a run of the model",
        c.what,
        sol.eval(&c.value)
    );
    // Located like the explicit engine's error: at the update.
    Ok(Some(Breach {
        source: source.clone(),
        span: c.span,
        message,
        at: c.at,
        sol,
    }))
}

/// What the range check found: the message, where the update is written,
/// the unrolling state the update leads to (when its tag names one) and the
/// solution of the run.
pub struct Breach {
    pub source: Source,
    pub span: Option<Span>,
    pub message: String,
    pub at: Option<usize>,
    pub sol: Solution,
}

/// The unrolling state whose round a MILP name belongs to: the tag `s{i}`
/// the formula's encoder gives the round into state i (strategic branches
/// `s{i}.b{k}` only for k = 0, the others' states are numbered later).
pub fn state_of(name: &str) -> Option<usize> {
    let mut parts = name.split('.');
    let i: usize = parts.next()?.strip_prefix('s')?.parse().ok()?;
    match parts.next().and_then(|p| p.strip_prefix('b')) {
        Some(k) if k.parse::<usize>().is_ok() => (k == "0").then_some(i),
        _ => Some(i),
    }
}
