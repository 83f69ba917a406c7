//! The truth of a condition (a guard, a protocol case, a label, an `if` of
//! the observation, `init COND`) in the f64 replay of MILP traces
//! ([`crate::nis::witness::replay::real`]), with the tolerance of
//! [`crate::milp::tolerance::REPLAY_GUARD`].
//!
//! The MILP decides a comparison of real quantities on its own values,
//! which the replay's differ from by up to
//! [`crate::milp::tolerance::REPLAY_VALUE`]; so a comparison whose sides
//! are that close may have gone either way in the MILP, and the replay
//! accepts both outcomes ([`Truth::Either`], in the rules' [`Truth`]). Everything else is decided
//! exactly: comparisons of two integers (the MILP decides them exactly and
//! the replay rounds integer values), of Booleans and of enumerations. A
//! numeric `if` inside a number is evaluated exactly too (only conditions
//! are three-valued).

use super::rules::Truth;
use crate::lang::{eval_f64, BinOp, EnvF64, TExpr, TKind, Ty, UnOp};
use crate::milp::tolerance::REPLAY_GUARD;

/// The truth of the Boolean expression `e` at the values `env` gives.
pub fn truth(e: &TExpr, env: &impl EnvF64) -> Result<Truth, String> {
    match &e.kind {
        TKind::Unary(UnOp::Not, a) => Ok(!truth(a, env)?),
        TKind::Binary(op, a, b) => match op {
            // Left to right, stopping where the left side decides, as the
            // exact evaluator does.
            BinOp::And => Ok(match truth(a, env)? {
                Truth::False => Truth::False,
                Truth::True => truth(b, env)?,
                Truth::Either => Truth::Either.and(truth(b, env)?),
            }),
            BinOp::Or => Ok(match truth(a, env)? {
                Truth::True => Truth::True,
                Truth::False => truth(b, env)?,
                Truth::Either => Truth::Either.or(truth(b, env)?),
            }),
            BinOp::Implies => Ok(match truth(a, env)? {
                Truth::False => Truth::True,
                Truth::True => truth(b, env)?,
                Truth::Either => Truth::Either.or(truth(b, env)?),
            }),
            BinOp::Iff => {
                let (x, y) = (truth(a, env)?, truth(b, env)?);
                Ok(match (x, y) {
                    (Truth::Either, _) | (_, Truth::Either) => Truth::Either,
                    _ => Truth::of(x == y),
                })
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                if real_comparison(a, b) =>
            {
                compare(*op, number(a, env)?, number(b, env)?)
            }
            _ => exact(e, env),
        },
        TKind::If(c, a, b) => match truth(c, env)? {
            Truth::True => truth(a, env),
            Truth::False => truth(b, env),
            Truth::Either => Ok(truth(a, env)?.join(truth(b, env)?)),
        },
        _ => exact(e, env),
    }
}

/// A comparison of numbers of which at least one is real-valued.
fn real_comparison(a: &TExpr, b: &TExpr) -> bool {
    let numeric = |t: Ty| matches!(t, Ty::Int | Ty::Real);
    numeric(a.ty) && numeric(b.ty) && !(a.ty == Ty::Int && b.ty == Ty::Int)
}

fn number(e: &TExpr, env: &impl EnvF64) -> Result<f64, String> {
    let v = eval_f64(e, env);
    if v.is_nan() {
        return Err("an expression evaluates to NaN on the replayed state".into());
    }
    Ok(v)
}

fn exact(e: &TExpr, env: &impl EnvF64) -> Result<Truth, String> {
    Ok(Truth::of(number(e, env)? != 0.0))
}

/// `x op y`, undecided where `x` and `y` are within [`REPLAY_GUARD`]
/// (relative above magnitude 1) of each other.
fn compare(op: BinOp, x: f64, y: f64) -> Result<Truth, String> {
    let near = (x - y).abs() <= REPLAY_GUARD * x.abs().max(y.abs()).max(1.0);
    if near {
        return Ok(Truth::Either);
    }
    Ok(Truth::of(match op {
        BinOp::Eq => x == y,
        BinOp::Ne => x != y,
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        BinOp::Ge => x >= y,
        _ => unreachable!("only comparisons reach here"),
    }))
}

#[cfg(test)]
mod tests {
    use super::Truth::{Either, False, True};
    use super::*;

    #[test]
    fn comparisons_near_their_border_are_undecided_far_ones_exact() {
        let e = REPLAY_GUARD;
        assert_eq!(compare(BinOp::Le, 1.0, 1.0).unwrap(), Either);
        assert_eq!(compare(BinOp::Le, 1.0 + 0.5 * e, 1.0).unwrap(), Either);
        assert_eq!(compare(BinOp::Le, 1.0 + 2.0 * e, 1.0).unwrap(), False);
        assert_eq!(compare(BinOp::Lt, 1.0 - 2.0 * e, 1.0).unwrap(), True);
        assert_eq!(compare(BinOp::Gt, 0.0, 0.5 * e).unwrap(), Either);
        assert_eq!(compare(BinOp::Eq, 3.0, 3.0 + 2.0 * e).unwrap(), Either);
        assert_eq!(compare(BinOp::Ne, 3.0, 3.0 + 7.0 * e).unwrap(), True);
        // Relative above magnitude 1: at 1000 a gap of 1e-4 is within.
        assert_eq!(
            compare(BinOp::Ge, 1000.0, 1000.0 + 1e3 * e).unwrap(),
            Either
        );
        assert_eq!(compare(BinOp::Ge, 1000.0, 1000.0 + 4e3 * e).unwrap(), False);
    }

    /// h starts at 0.1 and gains 0.2: in f64 it becomes 0.30000000000000004,
    /// so `h <= 0.3` is false there while the MILP (and exact arithmetic)
    /// has h = 0.3 and the guard true.
    const ROUNDING: &str = "agent a {
      var h : real[0..4] = 0.1;
      percept : {low, high} = low;
      actions : {go};
      observe = if h <= 0.3 then low else high;
      protocol { low -> {go}; high -> {go}; }
      update { go & h <= 0.3 -> h := h + 0.2; }
    }
    label small = h <= 0.3;";

    fn one_step(h: f64, percept: usize, gain: &str) -> Result<(), String> {
        use crate::nis::witness::replay::real::{replay_real, RealLocal, RealMove, RealState};
        use crate::nis::witness::WitnessTree;
        let text = ROUNDING.replace("h + 0.2", &format!("h + {gain}"));
        let source = crate::lang::Source::new("rounding.nis", text);
        let dir = std::path::Path::new(".");
        let model = crate::nis::parse_model(&source, dir, &Default::default()).unwrap();
        let state = |h: f64, percept: usize| RealState {
            agents: vec![RealLocal {
                private: vec![h],
                percept,
            }],
            env: Vec::new(),
            named: Vec::new(),
        };
        let mut child = WitnessTree::leaf(state(h, percept));
        child.obligations = vec![(model.label_index("small").unwrap(), Some(0), false)];
        let mut root = WitnessTree::leaf(state(0.1, 0));
        let mv = RealMove {
            actions: vec![0],
            env_action: 0,
            named: Vec::new(),
        };
        root.children = vec![(mv, child)];
        replay_real(&model, &root).map(|_| ())
    }

    #[test]
    fn the_replay_accepts_a_guard_that_f64_rounding_moves_across_its_border() {
        let (a, b) = (std::hint::black_box(0.1_f64), std::hint::black_box(0.2_f64));
        assert!(a + b > 0.3, "the rounding this test is about");
        // The MILP's successor: h = 0.3, percept `low`, label `small` true.
        one_step(0.3, 0, "0.2").unwrap();
        // Far from the border the replay stays exact: h = 0.6 is `high`.
        let why = one_step(0.6, 0, "0.5").unwrap_err();
        assert!(why.contains("cannot observe `low`"), "{why}");
        one_step(0.6, 1, "0.5").unwrap_err();
        // ... and the value must still match the update.
        let why = one_step(0.3, 0, "0.25").unwrap_err();
        assert!(why.contains("the MILP says 0.3"), "{why}");
    }

    #[test]
    fn connectives_are_kleene_and_choices_join() {
        assert_eq!(!Either, Either);
        assert_eq!((Either.and(False), Either.and(True)), (False, Either));
        assert_eq!((Either.or(True), Either.or(False)), (True, Either));
        assert_eq!((True.and(True), False.or(False)), (True, False));
        assert_eq!(True.join(True), True);
        assert_eq!(True.join(False), Either);
        assert!(Either.may_hold() && Either.may_fail());
        assert!(True.may_hold() && !True.may_fail());
        assert!(!False.may_hold() && False.may_fail());
    }
}
