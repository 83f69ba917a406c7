//! The reward structures of an explored model ([`super::Explicit`]), grouped
//! for the printers: each distinct non-zero state reward with the states
//! that earn it, and each distinct non-zero action reward with the choice's
//! place among its state's choices and the states whose choice earns it.
//! Grouping keeps the text near one line per distinct value (a swarm's
//! rewards take few values) instead of one line per state.

use super::{ExplicitRewards, Prob};
use crate::lang::num;
use crate::swarm::decide::mdp::Mdp;
use crate::swarm::decide::reward::RewardVectors;
use std::collections::BTreeMap;

impl ExplicitRewards<'_> {
    /// The state reward of `s` (exact when there is one).
    pub fn state_value(&self, s: usize) -> Prob {
        match &self.vectors.exact {
            Some((state, _)) => Prob::Exact(state[s].clone()),
            None => Prob::Float(self.vectors.state[s]),
        }
    }

    /// The action reward of choice `c`.
    pub fn action_value(&self, c: usize) -> Prob {
        match &self.vectors.exact {
            Some((_, action)) => Prob::Exact(action[c].clone()),
            None => Prob::Float(self.vectors.action[c]),
        }
    }
}

/// `vectors` grouped by value.
pub fn group<'a>(mdp: &Mdp, name: &str, vectors: &'a RewardVectors) -> ExplicitRewards<'a> {
    let mut out = ExplicitRewards {
        name: name.to_string(),
        vectors,
        state: Vec::new(),
        action: Vec::new(),
    };
    let mut states: BTreeMap<String, (Prob, Vec<usize>)> = BTreeMap::new();
    let mut actions: BTreeMap<(usize, String), (Prob, Vec<usize>)> = BTreeMap::new();
    for s in 0..mdp.num_states() {
        let v = out.state_value(s);
        if !is_zero(&v) {
            states.entry(key(&v)).or_insert((v, Vec::new())).1.push(s);
        }
        let first = mdp.choices(s).start;
        for c in mdp.choices(s) {
            let v = out.action_value(c);
            if !is_zero(&v) {
                let k = (c - first, key(&v));
                actions.entry(k).or_insert((v, Vec::new())).1.push(s);
            }
        }
    }
    out.state = states
        .into_values()
        .map(|(v, s)| (v, super::runs(&s)))
        .collect();
    out.action = actions
        .into_iter()
        .map(|((k, _), (v, s))| (k, v, super::runs(&s)))
        .collect();
    out
}

/// Whether `v` is 0 (no text is written for it).
pub fn is_zero(v: &Prob) -> bool {
    match v {
        Prob::Exact(r) => num_traits::Zero::is_zero(r),
        Prob::Float(f) => *f == 0.0,
    }
}

/// A value's text, as the grouping key: equal values, equal keys.
fn key(v: &Prob) -> String {
    match v {
        Prob::Exact(r) => num::display(r),
        Prob::Float(f) => format!("{f:?}"),
    }
}
