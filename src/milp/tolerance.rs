//! Every floating-point tolerance of the MILP layer and of the replays that
//! check MILP answers, in one place.
//!
//! HiGHS solves in floating point and answers within its tolerances: a
//! point it returns may violate a row by about [`FEASIBILITY`] (scaled by
//! the row's magnitude), a binary may be `1 - 1e-9`, and an optimum is
//! optimal only up to the MIP gap. Nothing mavis reports rests on such a
//! point alone: every solution is replayed (in exact or f64 semantics) and
//! the replay decides. The constants below say how far a replay may differ
//! from the solver before the difference stops being rounding and becomes a
//! bug (an internal error, exit 3), and how far bounds are widened so that
//! rounding cannot make them unsound. Where a tolerance is relative it is
//! applied as `tol * (1 + |x|)` by [`scaled`] (absolute near 0, relative
//! above 1) unless its documentation says otherwise.

/// HiGHS's `mip_feasibility_tolerance` (also its integrality tolerance) for
/// every MILP whose solutions are replayed: the nis deciders, the range
/// check and `nn bounds`. HiGHS's default is 1e-6; the tighter value keeps
/// solutions close to the semantics and avoids wrong "infeasible" answers
/// of HiGHS's MIP presolve on big-M models (HiGHS issues 1958, 2446).
pub const FEASIBILITY: f64 = 1e-9;

/// The least `mip_feasibility_tolerance` of a second opinion
/// ([`super::SolveOptions::second_opinion`]): HiGHS's LP primal feasibility
/// tolerance. With [`FEASIBILITY`] below it, HiGHS 1.16 proved wrong MIP
/// optima on tiny big-M ReLU models even without any presolve (docs/nn.md,
/// "HiGHS's wrong optima"); a looser tolerance only adds points, so it
/// cannot make an infeasibility claim or a proven bound less safe.
pub const SECOND_OPINION_FEASIBILITY: f64 = 1e-7;

/// HiGHS's `mip_rel_gap` for exact output ranges (`nn bounds`): none, so an
/// optimum is optimal up to [`EXACT_ABS_GAP`] only.
pub const EXACT_REL_GAP: f64 = 0.0;

/// HiGHS's `mip_abs_gap` for exact output ranges (HiGHS's default value,
/// set explicitly so that it is documented here): the proven bound and the
/// best solution's objective differ by at most this much.
pub const EXACT_ABS_GAP: f64 = 1e-6;

/// Relative widening of HiGHS's proven objective bound (its MIP dual bound,
/// or an LP's optimum) before `nn bounds` reports it as an outer bound: the
/// bound comes from LPs solved to HiGHS's primal and dual feasibility
/// tolerances (1e-7 each), so it is widened by ten times that.
pub const OUTER_WIDENING: f64 = 1e-6;

/// `nn bounds` calls an extremum exact when the value the network attains
/// at the MILP's optimiser (the inner bound) and the widened proven bound
/// (the outer bound) differ by at most this (relative): the gap, the
/// widening and the solver's feasibility slack together stay below it.
pub const EXACT_AGREEMENT: f64 = 1e-5;

/// Largest residual, relative to the neuron's magnitude (its weighted
/// inputs, bias and big-M bounds), between a neuron value of a MILP
/// solution and the network's layer applied to the solution's previous
/// layer. Within it, a difference between the MILP's objective and the
/// network's f64 value is solver rounding; beyond it the MILP does not
/// encode this network at this input (an internal error).
pub const NEURON_RESIDUAL: f64 = 1e-6;

/// A solution HiGHS returns must satisfy every bound and row of the model
/// within this (relative to the row's magnitude, see
/// [`super::Model::check`]); otherwise it is an internal error. A thousand
/// times [`FEASIBILITY`], so only a real solver failure trips it.
pub const SOLUTION_CHECK: f64 = 1e-6;

/// Relative padding of propagated neuron bounds before they become variable
/// bounds and big-M values, so rounding in their computation cannot cut
/// off a feasible point.
pub const BOUND_PADDING: f64 = 1e-9;

/// Relative padding of an LP-tightened neuron bound (an LP optimum carries
/// HiGHS's 1e-7 primal/dual tolerances).
pub const LP_PADDING: f64 = 1e-7;

/// A strict comparison `d > 0` of real (not integral) quantities is encoded
/// as `d >= STRICT_GAP`: a run through a sliver thinner than this at a guard
/// or an argmax boundary is not explored. Comparisons of integral
/// quantities are scaled to integers and exact.
pub const STRICT_GAP: f64 = 1e-6;

/// A coefficient within this (relative) of an integer counts as integral
/// when a comparison is scaled to integers.
pub const INTEGRAL_COEFFICIENT: f64 = 1e-9;

/// An update bound within this (absolute) of a declared range is inside it
/// (propagated bounds carry [`BOUND_PADDING`]).
pub const RANGE_SLACK: f64 = 1e-9;

/// The f64 replay of real-valued traces accepts a replayed value within this
/// of the MILP's (relative above magnitude 1, absolute below: `tol *
/// max(1, |x|)`), and an initial point within it of the initial set.
pub const REPLAY_VALUE: f64 = 1e-6;

/// A percept whose network output is within this of the maximum (relative
/// above magnitude 1, absolute below) is a possible argmax percept in a
/// replay: the MILP chooses among outputs equal up to its feasibility
/// tolerance, so a near-tie in f64 is a tie.
pub const REPLAY_TIE: f64 = 1e-6;

/// A comparison of real quantities in a condition (a guard, a protocol
/// case, a label, an observation's `if`, `init COND`) whose sides differ by
/// at most this (relative above magnitude 1: `tol * max(1, |x|, |y|)`) is
/// undecided in the f64 replay, which then accepts either outcome. The MILP
/// decided the comparison on its own values, and each side of the replay's
/// is within [`REPLAY_VALUE`] of the MILP's, so the MILP may have seen it
/// either way: true from `d <= 0` (up to [`FEASIBILITY`]), false only from
/// `d >= STRICT_GAP`. Hence twice [`REPLAY_VALUE`]. Comparisons of two
/// integers stay exact (the MILP scales them to integers).
pub const REPLAY_GUARD: f64 = 2.0 * REPLAY_VALUE;

/// A point the MILP of `nn verify` found is a counterexample when, replayed
/// in f64 ([`crate::nn::Network::eval`]) at the point (clamped into the
/// input box, so the box holds exactly), every atom `lhs <= rhs` of its
/// disjunct holds within this: `lhs - rhs <= tol * (1 + |rhs|)`. The MILP
/// satisfies the atom up to [`FEASIBILITY`] plus the neurons' residuals, so
/// the point is unsafe up to rounding; the excess is reported with it.
/// Points found by sampling and local search satisfy the atoms exactly.
pub const COUNTEREXAMPLE: f64 = REPLAY_VALUE;

/// `tol * (1 + |x|)`: a tolerance absolute near 0 and relative above 1.
pub fn scaled(tol: f64, x: f64) -> f64 {
    tol * (1.0 + x.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tolerances_nest() {
        // The solver is tighter than every check of its answers, and the
        // check of "exact" covers the gap plus the widening.
        const { assert!(FEASIBILITY < SOLUTION_CHECK) };
        const { assert!(FEASIBILITY < NEURON_RESIDUAL) };
        const { assert!(FEASIBILITY < REPLAY_VALUE && FEASIBILITY < REPLAY_TIE) };
        const { assert!(FEASIBILITY < COUNTEREXAMPLE) };
        const { assert!(EXACT_ABS_GAP + OUTER_WIDENING < EXACT_AGREEMENT) };
        // A guard the replay calls undecided covers the MILP's strict gap
        // and both sides' replay differences.
        const { assert!(REPLAY_GUARD >= STRICT_GAP && REPLAY_GUARD >= 2.0 * REPLAY_VALUE) };
        assert_eq!(scaled(1e-6, 0.0), 1e-6);
        assert_eq!(scaled(1e-6, -3.0), 4e-6);
    }
}
