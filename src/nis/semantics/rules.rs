//! The rules of one agent's (or the environment's) part of a round, written
//! once for every number domain (Definitions 1 and 2 of Kouvaros et al.):
//! which actions a protocol enables, which outcomes an update may have,
//! which percepts an observation gives, whether a label holds.
//!
//! A [`Domain`] evaluates the model's expressions at one state: exactly
//! (the finite semantics, [`super::Semantics`]: a condition is true or
//! false) or in f64 (real-valued models, [`super::real`]: a real comparison
//! within the replay's tolerance of its border may go either way,
//! [`Truth::Either`], [`super::real_truth`]). The rules take every outcome
//! a condition allows, so an exact domain gets exactly the semantics'
//! outcome and the f64 domain every outcome the solver may have taken.

use crate::lang::{Span, TExpr};
use crate::nis::front::model::{Observation, ProtocolCase, UpdateCase, VarDecl};

/// A condition's truth at a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    False,
    True,
    /// Undecided: a real comparison within the f64 domain's tolerance of
    /// its border (never in an exact domain).
    Either,
}

impl Truth {
    pub fn of(b: bool) -> Truth {
        if b {
            Truth::True
        } else {
            Truth::False
        }
    }

    /// True or undecided.
    pub fn may_hold(self) -> bool {
        self != Truth::False
    }

    /// False or undecided.
    pub fn may_fail(self) -> bool {
        self != Truth::True
    }

    /// Kleene's conjunction: false if one side is, undecided unless both hold.
    pub fn and(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::False, _) | (_, Truth::False) => Truth::False,
            (Truth::True, Truth::True) => Truth::True,
            _ => Truth::Either,
        }
    }

    /// Kleene's disjunction.
    pub fn or(self, other: Truth) -> Truth {
        !(!self).and(!other)
    }

    /// The truth of a choice between `self` and `other` where it is not
    /// known which is taken.
    pub fn join(self, other: Truth) -> Truth {
        if self == other {
            self
        } else {
            Truth::Either
        }
    }
}

impl std::ops::Not for Truth {
    type Output = Truth;

    fn not(self) -> Truth {
        match self {
            Truth::False => Truth::True,
            Truth::True => Truth::False,
            Truth::Either => Truth::Either,
        }
    }
}

/// The model's expressions evaluated at one state (its slots: private
/// values, percept, actions, environment) in a number domain.
pub trait Domain {
    /// A variable's value (a code in the finite semantics, an f64 here).
    type Value: Clone;
    type Error;

    /// The truth of a Boolean expression.
    fn truth(&mut self, e: &TExpr) -> Result<Truth, Self::Error>;

    /// The value an update assigns to `var` (a domain that checks declared
    /// ranges at the update does it here).
    fn assign(&mut self, e: &TExpr, var: &VarDecl) -> Result<Self::Value, Self::Error>;

    /// The outputs of network `net` on `inputs` (`span`: the call).
    fn network(
        &mut self,
        net: usize,
        inputs: &[TExpr],
        span: Span,
    ) -> Result<Vec<f64>, Self::Error>;

    /// The percept (of `count`) a percept-valued expression gives.
    fn percept(&mut self, e: &TExpr, count: usize) -> Result<usize, Self::Error>;
}

/// prot (Definitions 1 and 2): marks in `enabled` every action of a case
/// whose guard may hold.
pub fn protocol<D: Domain>(
    d: &mut D,
    cases: &[ProtocolCase],
    enabled: &mut [bool],
) -> Result<(), D::Error> {
    for c in cases {
        if d.truth(&c.guard)?.may_hold() {
            for &a in &c.actions {
                enabled[a] = true;
            }
        }
    }
    Ok(())
}

/// tr (Definitions 1 and 2): the first case whose guard holds assigns its
/// variables simultaneously, the others keep their values; no case: no
/// change. The outcomes in case order: one per case whose guard may hold,
/// up to the first whose guard certainly holds (else no change, last).
pub fn update<D: Domain>(
    d: &mut D,
    cases: &[UpdateCase],
    vars: &[VarDecl],
    old: &[D::Value],
) -> Result<Vec<Vec<D::Value>>, D::Error> {
    let mut out = Vec::new();
    for c in cases {
        let t = d.truth(&c.guard)?;
        if t.may_hold() {
            let mut new = old.to_vec();
            for (v, e) in &c.assigns {
                new[*v] = d.assign(e, &vars[*v])?;
            }
            out.push(new);
        }
        if t == Truth::True {
            return Ok(out);
        }
    }
    out.push(old.to_vec());
    Ok(out)
}

/// obs (Definition 1): marks in `percepts` every percept the observation
/// may give: both branches of an undecided `if`; for `argmax`, every
/// percept whose network output is within `tie` (relative above magnitude
/// 1; 0: equal in f64) of the maximum.
pub fn observe<D: Domain>(
    d: &mut D,
    obs: &Observation,
    tie: f64,
    percepts: &mut [bool],
) -> Result<(), D::Error> {
    match obs {
        Observation::If(cond, then, otherwise) => {
            let t = d.truth(cond)?;
            if t.may_hold() {
                observe(d, then, tie, percepts)?;
            }
            if t.may_fail() {
                observe(d, otherwise, tie, percepts)?;
            }
        }
        Observation::Argmax {
            net,
            inputs,
            percepts: of_output,
            span,
        } => {
            let outputs = d.network(*net, inputs, *span)?;
            for p in argmax_within(&outputs, of_output, tie) {
                percepts[p] = true;
            }
        }
        Observation::Expr(e) => {
            let p = d.percept(e, percepts.len())?;
            percepts[p] = true;
        }
    }
    Ok(())
}

/// The percepts (`of_output[o]` for output o) whose outputs are within
/// `tie` (relative above magnitude 1) of the maximum: every tie is possible.
pub fn argmax_within<'a>(
    outputs: &'a [f64],
    of_output: &'a [usize],
    tie: f64,
) -> impl Iterator<Item = usize> + 'a {
    let best = outputs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let slack = tie * best.abs().max(1.0);
    outputs
        .iter()
        .zip(of_output)
        .filter(move |(o, _)| **o >= best - slack)
        .map(|(_, &p)| p)
}
