//! Exact expected reward until the target, by policy iteration over the
//! rationals ([`super::reward_reach`] says why it stays proper): the
//! chain of the current scheduler is solved exactly, x = r + P x on the
//! finite states that are not targets, 0 at the targets, and every state
//! switches to a usable choice strictly better under x, until none is.

use super::mdp::Mdp;
use super::policy::{eliminate, Row};
use crate::lang::Rat;
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;
use num_traits::Zero;
use std::collections::BTreeSet;

/// The exact values (0 at targets; infinite states are left at 0 and must
/// be read from the graph) and the schedulers evaluated.
pub struct ExactReward {
    pub values: Vec<Rat>,
    pub rounds: usize,
}

/// What policy iteration reads: the states to solve, the usable choices
/// and the exact step reward of every choice.
pub struct RewardProblem<'a> {
    pub mdp: &'a Mdp,
    /// Finite states that are not targets.
    pub maybe: &'a [usize],
    pub usable: &'a [bool],
    pub step: &'a [Rat],
    pub opt: Opt,
}

impl RewardProblem<'_> {
    fn value(&self, c: usize, x: &[Rat]) -> Rat {
        let p = self.mdp.exact.as_ref().expect("explored exactly");
        self.mdp.entries(c).fold(self.step[c].clone(), |acc, e| {
            acc + &p[e] * &x[self.mdp.targets[e] as usize]
        })
    }

    /// Policy iteration from the proper scheduler `scheduler`.
    pub fn solve(
        &self,
        mut scheduler: Vec<u32>,
        deadline: Deadline,
    ) -> Result<ExactReward, Expired> {
        let mut rounds = 0;
        loop {
            rounds += 1;
            let x = self.evaluate(&scheduler, deadline)?;
            let mut improved = false;
            for &s in self.maybe {
                deadline.check()?;
                let mut cur = self.value(scheduler[s] as usize, &x);
                for c in self.mdp.choices(s).filter(|&c| self.usable[c]) {
                    let v = self.value(c, &x);
                    let better = match self.opt {
                        Opt::Max => v > cur,
                        Opt::Min => v < cur,
                    };
                    if better {
                        cur = v;
                        scheduler[s] = c as u32;
                        improved = true;
                    }
                }
            }
            if !improved {
                return Ok(ExactReward { values: x, rounds });
            }
        }
    }

    /// The exact rewards of the chain `scheduler` induces (proper: every
    /// state of `maybe` reaches a target), by elimination.
    fn evaluate(&self, scheduler: &[u32], deadline: Deadline) -> Result<Vec<Rat>, Expired> {
        let mdp = self.mdp;
        let n = mdp.num_states();
        let p = mdp.exact.as_ref().expect("explored exactly");
        let mut solve = vec![false; n];
        for &s in self.maybe {
            solve[s] = true;
        }
        let mut rows: Vec<Row> = vec![Row::default(); n];
        let mut users: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
        for &s in self.maybe {
            let c = scheduler[s] as usize;
            rows[s].b = self.step[c].clone();
            for e in mdp.entries(c) {
                let t = mdp.targets[e] as usize;
                if solve[t] {
                    *rows[s].a.entry(t as u32).or_insert_with(Rat::zero) += &p[e];
                    users[t].insert(s as u32);
                }
            }
        }
        for &s in self.maybe {
            deadline.check()?;
            eliminate(s, &mut rows, &mut users);
        }
        let mut x = vec![Rat::zero(); n];
        for &s in self.maybe.iter().rev() {
            let row = &rows[s];
            x[s] = row
                .a
                .iter()
                .fold(row.b.clone(), |acc, (t, c)| acc + c * &x[*t as usize]);
        }
        Ok(x)
    }
}
