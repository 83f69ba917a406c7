//! Progress measures for the sweep-line search ([`super::sweep`]): a number
//! per state that few steps decrease.
//!
//! Without a horizon the global time is not part of a state, but the clocks
//! keep it modulo the periods: an agent resets exactly when its clock
//! reaches its period `E`, so at every instant `c = (t + c0) mod E`, where
//! `c0` is its initial clock (the clock `E` just before a reset counts as
//! 0). The clocks of a set of agents therefore give `t` modulo the lcm of
//! their periods (Chinese remainder theorem), the *phase*: firings and
//! resets leave it unchanged, time passing raises it, and only a delay that
//! crosses a multiple of the lcm lowers it (the regress edges). One agent
//! (the pacemaker) gives the phase of its period; every agent, the phase of
//! the hyperperiod, whose regress edges are the rarest.

use crate::timed::front::model::Model;
use crate::timed::semantics::State;

/// Which clocks make up the phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The pacemaker's clock alone: regress once per pacemaker period.
    Pacemaker,
    /// Every agent's clock (as many as keep the lcm below 2^62): regress once per hyperperiod.
    Hyperperiod,
}

/// One agent's share of the phase: its clock's residue, combined with the
/// phase of the agents before it (`modulus`) by the Chinese remainder theorem.
#[derive(Clone, Debug)]
struct Term {
    agent: usize,
    period: i128,
    init: i128,
    /// lcm of the periods of the agents before this one (1 for the first).
    modulus: i128,
    /// gcd(modulus, period).
    gcd: i128,
    /// The inverse of modulus/gcd modulo period/gcd.
    inverse: i128,
}

/// The progress of a state: the global time with a horizon (it never
/// decreases), else the phase of some agents' clocks.
#[derive(Clone, Debug)]
pub struct Progress {
    with_time: bool,
    terms: Vec<Term>,
}

/// The largest lcm of periods kept, so that phases fit in a u64.
const LARGEST_MODULUS: i128 = 1 << 62;

impl Progress {
    /// The measure for `model`: the time when `horizon` is set, else the
    /// phase of `pacemaker` alone or of the hyperperiod.
    pub fn new(model: &Model, horizon: bool, measure: Measure, pacemaker: usize) -> Self {
        let agents: Vec<usize> = match measure {
            Measure::Pacemaker => vec![pacemaker],
            Measure::Hyperperiod => {
                // The pacemaker first, then by decreasing period.
                let mut rest: Vec<usize> = (0..model.agents.len())
                    .filter(|&i| i != pacemaker)
                    .collect();
                rest.sort_by_key(|&i| std::cmp::Reverse(model.agents[i].period));
                std::iter::once(pacemaker).chain(rest).collect()
            }
        };
        let mut terms = Vec::new();
        let mut modulus: i128 = 1;
        // Time counted from the pacemaker's last reset, so that its phase is its clock.
        let shift = model
            .agents
            .get(pacemaker)
            .map_or(0, |a| i128::from(a.init_clock));
        for i in agents.into_iter().filter(|&i| i < model.agents.len()) {
            let period = i128::from(model.agents[i].period.max(1));
            let gcd = gcd(modulus, period);
            let lcm = modulus / gcd * period;
            if lcm > LARGEST_MODULUS {
                continue;
            }
            terms.push(Term {
                agent: i,
                period,
                init: i128::from(model.agents[i].init_clock) - shift,
                modulus,
                gcd,
                inverse: inverse(modulus / gcd, period / gcd),
            });
            modulus = lcm;
        }
        Progress {
            with_time: horizon,
            terms,
        }
    }

    /// The progress of `s` (any value is sound for the sweep: a step that
    /// lowers it is handled as a regress edge; a good measure makes them rare).
    pub fn of(&self, s: &State) -> u64 {
        if self.with_time {
            return s.time;
        }
        let mut phase: i128 = 0;
        for t in &self.terms {
            // t = c - c0 (mod E), then lift `phase` (mod modulus) to mod lcm.
            let residue = (i128::from(s.clocks[t.agent]) - t.init).rem_euclid(t.period);
            let step = t.period / t.gcd;
            let k = ((residue - phase) / t.gcd).rem_euclid(step) * t.inverse % step;
            phase += t.modulus * k;
        }
        u64::try_from(phase).unwrap_or(u64::MAX)
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// `x` with `a * x = 1 (mod m)`, for coprime `a` and `m` (0 when `m` is 1).
fn inverse(a: i128, m: i128) -> i128 {
    // Extended Euclid on (a mod m, m).
    let (mut old_r, mut r) = (a.rem_euclid(m), m);
    let (mut old_s, mut s) = (1i128, 0i128);
    while r != 0 {
        let q = old_r / r;
        (old_r, r) = (r, old_r - q * r);
        (old_s, s) = (s, old_s - q * s);
    }
    old_s.rem_euclid(m.max(1))
}
