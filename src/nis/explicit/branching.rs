//! How far one element of the zero-one agent (Definition 12 of Kouvaros et
//! al., IJCAI 2024) can branch in one round: a present local state takes a
//! non-empty set of its enabled actions, and each (state, action) successor
//! is seen with a non-empty set of tied percepts, so it is the parent of at
//! most `B = (most actions enabled at once) * (most percepts one observation
//! can tie)` elements of the next abstract state.
//!
//! Two things rest on B, both for models without a finite local-state space:
//! - the slot encoding of the zero-one agent gives every slot B child slots,
//!   so at depth j there are at most B^j slots;
//! - M(m + B^b) b-simulates M_ab(m) (Definition 14). Proof sketch: keep every
//!   element of the zero-one agent with at least B^(b-j) concrete agents at
//!   depth j; an abstract move splits each element into at most B
//!   (action, percept) groups, each of which gets at least B^(b-j-1) of the
//!   agents there; every group is non-empty, so the concrete agents perform
//!   exactly the abstract set of actions and the environment and the
//!   indexed agents 1..m take the same steps.

use crate::lang::{eval_f64, EnvF64, TExpr, TKind};
use crate::nis::front::model::{InitPercept, Model, Observation};

/// B of the module documentation (at least 1).
pub fn zero_one_branching(model: &Model) -> usize {
    most_enabled(model) * most_tied(&model.template.observe)
}

/// The most actions the protocol can enable at one local state: exact when
/// every guard reads only the percept (the usual `percept -> {actions}`
/// protocols), otherwise every action named by some case.
pub fn most_enabled(model: &Model) -> usize {
    let t = &model.template;
    let percept_slot = t.slots.percept();
    let percept_only = t
        .protocol
        .iter()
        .all(|c| reads_only(&c.guard, percept_slot));
    if percept_only {
        let mut most = 1;
        for p in 0..t.percepts.len() {
            let env = PerceptOnly {
                slot: percept_slot,
                percept: p as f64,
            };
            let mut enabled = vec![false; t.actions.len()];
            for c in &t.protocol {
                if eval_f64(&c.guard, &env) != 0.0 {
                    for &a in &c.actions {
                        enabled[a] = true;
                    }
                }
            }
            most = most.max(enabled.iter().filter(|&&e| e).count());
        }
        return most;
    }
    let mut named = vec![false; t.actions.len()];
    for c in &t.protocol {
        for &a in &c.actions {
            named[a] = true;
        }
    }
    named.iter().filter(|&&e| e).count().max(1)
}

/// The most percepts one evaluation of the observation tree can tie: the
/// distinct percepts of its largest `argmax` leaf (1 for constant leaves).
pub fn most_tied(obs: &Observation) -> usize {
    match obs {
        Observation::If(_, then, otherwise) => most_tied(then).max(most_tied(otherwise)),
        Observation::Argmax { percepts, .. } => {
            let mut distinct = percepts.clone();
            distinct.sort_unstable();
            distinct.dedup();
            distinct.len().max(1)
        }
        Observation::Expr(_) => 1,
    }
}

/// True if the expression reads no slot but `slot` (and calls nothing).
fn reads_only(e: &TExpr, slot: usize) -> bool {
    match &e.kind {
        TKind::Const(_) => true,
        TKind::Var(s) => *s == slot,
        TKind::Unary(_, a) => reads_only(a, slot),
        TKind::Binary(_, a, b) => reads_only(a, slot) && reads_only(b, slot),
        TKind::If(c, a, b) => reads_only(c, slot) && reads_only(a, slot) && reads_only(b, slot),
        TKind::Builtin(_, args) => args.iter().all(|a| reads_only(a, slot)),
        TKind::Ext(..) => false,
    }
}

/// Evaluation with only the percept slot readable (see `reads_only`).
struct PerceptOnly {
    slot: usize,
    percept: f64,
}

impl EnvF64 for PerceptOnly {
    fn var(&self, slot: usize) -> f64 {
        if slot == self.slot {
            self.percept
        } else {
            f64::NAN
        }
    }

    fn ext_typed(&self, _: usize, _: &[f64], _: &[crate::lang::Ty]) -> f64 {
        f64::NAN
    }
}

/// An upper bound on the least n with M_ab(m) <=_b M(n): m + B^b (saturating;
/// m + T * B^b when the first percept is observed and may tie T ways).
pub fn simulating_bound(model: &Model, m: usize, depth: u32) -> usize {
    // An observed first percept may tie: the zero-one agent then starts
    // as a set of up to `most_tied` local states, one agent for each.
    let roots = match model.template.init_percept {
        InitPercept::Given(_) => 1,
        InitPercept::Observed => most_tied(&model.template.observe),
    };
    zero_one_branching(model)
        .checked_pow(depth)
        .and_then(|x| x.checked_mul(roots))
        .and_then(|x| x.checked_add(m))
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(src: &str) -> Model {
        crate::nis::tests::model_with(src, &[]).expect("model")
    }

    #[test]
    fn guarding_branches_into_four() {
        // volunteer enables {guard, rest}; argmax ties rest_only and volunteer.
        let m = crate::nis::tests::guarding();
        assert_eq!(most_enabled(&m), 2);
        assert_eq!(most_tied(&m.template.observe), 2);
        assert_eq!(zero_one_branching(&m), 4);
    }

    const BASE: &str = r#"
agent a {
  var x : int[0..3] = 0;
  percept : {p, q, r} = p;
  actions : {go, stay, stop};
  observe = if x = 3 then r else q;
  PROTOCOL
  update { go -> x := min(x + 1, 3); }
}
environment { var e : bool = false; }
label done = x = 3;
"#;

    #[test]
    fn percept_guards_give_the_largest_enabled_set() {
        let m = model(&BASE.replace(
            "PROTOCOL",
            "protocol { p -> {go, stay}; q -> {go}; q -> {stop}; r -> {stop}; }",
        ));
        // p enables {go, stay}; q enables {go, stop} (cases add up); r {stop}.
        assert_eq!(most_enabled(&m), 2);
        assert_eq!(most_tied(&m.template.observe), 1);
        assert_eq!(zero_one_branching(&m), 2);
        assert_eq!(simulating_bound(&m, 2, 3), 2 + 8);
    }

    #[test]
    fn other_guards_count_every_named_action() {
        let m = model(&BASE.replace("PROTOCOL", "protocol { x < 3 -> {go}; x = 3 -> {stop}; }"));
        assert_eq!(most_enabled(&m), 2);
    }
}
