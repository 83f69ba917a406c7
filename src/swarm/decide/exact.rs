//! Exact step-bounded value iteration over one shared denominator.
//!
//! Every probability of the MDP is a_e / D for the least common multiple D
//! of their denominators, so the value with r steps left is N_r(s) / D^r for
//! an integer N_r(s): a Bellman step is integer multiply-adds, and the max or
//! min compares integers, with no fraction reduced on the way (one division
//! per state at the end). While D^steps fits 128 bits it runs on `u128`.
//! This is the same iteration as `check::bounded_until::<Rat>`, so the
//! values are equal, only faster.

use super::bounded::{better, maybe_states};
use super::mdp::Mdp;
use crate::lang::Rat;
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

/// States of one step between two looks at the clock.
const STATES_PER_CHECK: usize = 4096;

/// Integers the iteration runs on: `u128` while D^steps fits, else `BigUint`.
trait Num: Clone + Ord + Zero {
    fn of(x: &BigUint) -> Self;
    fn mul_add(acc: &mut Self, a: &Self, x: &Self);
    fn big(&self) -> BigUint;
}

impl Num for u128 {
    fn of(x: &BigUint) -> Self {
        x.to_u128().expect("checked to fit")
    }
    fn mul_add(acc: &mut Self, a: &Self, x: &Self) {
        // Cannot overflow: the numerators of a step sum to at most D^(r+1).
        *acc += a * x;
    }
    fn big(&self) -> BigUint {
        BigUint::from(*self)
    }
}

impl Num for BigUint {
    fn of(x: &BigUint) -> Self {
        x.clone()
    }
    fn mul_add(acc: &mut Self, a: &Self, x: &Self) {
        *acc += a * x;
    }
    fn big(&self) -> BigUint {
        self.clone()
    }
}

/// `P_opt[ allowed U<=steps target ]` for every state, exactly; `None` when
/// the MDP has no exact probabilities.
pub fn bounded_until_exact(
    mdp: &Mdp,
    target: &[bool],
    allowed: &[bool],
    steps: usize,
    opt: Opt,
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<Option<Vec<Rat>>, Expired> {
    let Some(exact) = &mdp.exact else {
        return Ok(None);
    };
    let d = exact
        .iter()
        .fold(BigInt::one(), |acc, p| acc.lcm(p.denom()));
    let d = d.to_biguint().expect("denominators are positive");
    let numerators: Vec<BigUint> = exact
        .iter()
        .map(|p| {
            (p.numer() * (BigInt::from(d.clone()) / p.denom()))
                .to_biguint()
                .expect("probabilities are not negative")
        })
        .collect();
    let scale = num_traits::pow(d.clone(), steps);
    let question = Question {
        mdp,
        target,
        allowed,
        steps,
        opt,
    };
    let budget = (deadline, meter);
    let counts = if scale.bits() < 127 {
        iterate::<u128>(&question, &d, &numerators, budget)?
    } else {
        iterate::<BigUint>(&question, &d, &numerators, budget)?
    };
    let den = BigInt::from(scale);
    Ok(Some(
        counts
            .into_iter()
            .map(|n| Rat::new(BigInt::from(n), den.clone()))
            .collect(),
    ))
}

/// `P_opt[ allowed U<=steps target ]`, the question asked of `mdp`.
struct Question<'a> {
    mdp: &'a Mdp,
    target: &'a [bool],
    allowed: &'a [bool],
    steps: usize,
    opt: Opt,
}

/// The numerators N_steps(s) over D^steps.
fn iterate<T: Num>(
    question: &Question,
    d: &BigUint,
    numerators: &[BigUint],
    (deadline, meter): (Deadline, &crate::report::meter::Meter),
) -> Result<Vec<BigUint>, Expired> {
    let Question {
        mdp,
        target,
        allowed,
        steps,
        opt,
    } = *question;
    let n = mdp.num_states();
    let maybe = maybe_states(mdp, target, allowed);
    let active: Vec<usize> = (0..n).filter(|&s| maybe[s]).collect();
    let a: Vec<T> = numerators.iter().map(T::of).collect();
    let d = T::of(d);
    // With r steps left a target state has N = D^r (value 1).
    let mut one = T::of(&BigUint::one());
    let mut cur: Vec<T> = target
        .iter()
        .map(|&t| if t { one.clone() } else { T::zero() })
        .collect();
    let mut next = cur.clone();
    for _ in 0..steps {
        deadline.check()?;
        meter.add(active.len() as u64);
        for (i, &s) in active.iter().enumerate() {
            if i % STATES_PER_CHECK == STATES_PER_CHECK - 1 {
                deadline.check()?;
            }
            let mut best: Option<T> = None;
            for c in mdp.choices(s) {
                let mut v = T::zero();
                for e in mdp.entries(c) {
                    let x = &cur[mdp.targets[e] as usize];
                    if !x.is_zero() {
                        T::mul_add(&mut v, &a[e], x);
                    }
                }
                best = Some(better(best, v, opt));
            }
            next[s] = best.unwrap_or_else(T::zero);
        }
        let mut up = T::zero();
        T::mul_add(&mut up, &one, &d);
        one = up;
        for (s, &t) in target.iter().enumerate() {
            if t {
                next[s] = one.clone();
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(cur.iter().map(Num::big).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::meter::Meter;
    use crate::swarm::decide::bounded::bounded_until;
    use crate::swarm::decide::mdp::StateTable;
    use proptest::prelude::*;

    /// A random MDP: per state 1-3 choices, each a distribution over 1-3
    /// targets with weights w / sum(w) (denominators vary, so D does too).
    fn mdp_of(n: usize, shape: &[(u8, u8, u8, u8)]) -> Mdp {
        let mut m = Mdp {
            states: StateTable::new(1),
            initial: vec![0],
            row_start: vec![0],
            choice_label: Vec::new(),
            choice_start: vec![0],
            targets: Vec::new(),
            probs: Vec::new(),
            exact: Some(Vec::new()),
        };
        for s in 0..n {
            let (choices, a, b, c) = shape[s % shape.len()];
            for k in 0..(choices % 3 + 1) as usize {
                let weights = [a as i64 % 7 + 1, b as i64 % 5 + 1, c as i64 % 3 + 1];
                let width = (a as usize + k) % 3 + 1;
                let total: i64 = weights[..width].iter().sum();
                let mut seen = Vec::new();
                for (j, w) in weights[..width].iter().enumerate() {
                    let t = ((s * 7 + j * 3 + k + b as usize) % n) as u32;
                    let p = Rat::new((*w).into(), total.into());
                    match seen.iter().position(|&x| x == t) {
                        Some(i) => {
                            let e = m.targets.len() - seen.len() + i;
                            let x = &mut m.exact.as_mut().unwrap()[e];
                            *x += p;
                            m.probs[e] = crate::lang::num::to_f64(x);
                        }
                        None => {
                            seen.push(t);
                            m.targets.push(t);
                            m.probs.push(crate::lang::num::to_f64(&p));
                            m.exact.as_mut().unwrap().push(p);
                        }
                    }
                }
                m.choice_label.push(0);
                m.choice_start.push(m.targets.len());
            }
            m.row_start.push(m.choice_label.len());
        }
        m
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

        /// Equal to the value iteration over reduced fractions, on both the
        /// u128 path and (past 2^127) the big-integer one.
        #[test]
        fn equals_rational_value_iteration(
            n in 2usize..12,
            shape in proptest::collection::vec((0u8..9, 0u8..9, 0u8..9, 0u8..9), 1..12),
            targets in proptest::collection::vec(any::<bool>(), 12),
            blocked in proptest::collection::vec(any::<bool>(), 12),
            steps in prop_oneof![0usize..8, 40usize..60],
            max in any::<bool>(),
        ) {
            let m = mdp_of(n, &shape);
            let target = targets[..n].to_vec();
            let allowed: Vec<bool> = blocked[..n].iter().map(|b| !b).collect();
            let opt = if max { Opt::Max } else { Opt::Min };
            let fast = bounded_until_exact(&m, &target, &allowed, steps, opt, (Deadline::NONE, &Meter::none()))
                .unwrap()
                .unwrap();
            let slow = bounded_until::<Rat>(&m, &target, &allowed, steps, opt, false, (Deadline::NONE, &Meter::none()), 1)
                .unwrap()
                .values;
            prop_assert_eq!(fast, slow);
        }
    }
}
