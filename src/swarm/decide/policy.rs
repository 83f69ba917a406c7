//! Exact policy iteration (Puterman, Markov Decision Processes, Section
//! 7.2; for reachability, Baier and Katoen, Section 10.6.1; for expected
//! rewards until a target, Bertsekas and Tsitsiklis 1991), shared by the
//! unbounded probabilities ([`super::property`]) and the expected rewards
//! ([`super::reward`]): the scheduler found in f64 is evaluated exactly, by
//! solving the linear equations of the Markov chain it induces over the
//! rationals, and improved wherever a choice is strictly better under the
//! exact values, until none is. The last scheduler is optimal and its values
//! are the exact ones.
//!
//! Both problems are one equation system: at a free state s with chosen
//! choice c, x_s = step(c) + sum_t P(c, t) x_t; every other state keeps its
//! `outside` value (1 or 0 at the fixed states of reachability, 0 at the
//! targets of a reward). Reachability has no step reward; a reward has no
//! outside value but 0.

use super::mdp::Mdp;
use crate::lang::Rat;
use crate::report::meter::{Counting, Meter, MeterGuard};
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;
use num_traits::{One, Zero};
use std::collections::{BTreeMap, BTreeSet};

/// The exact values at every state, and how many schedulers were evaluated.
pub struct Exact {
    pub values: Vec<Rat>,
    pub rounds: usize,
}

/// One policy-iteration problem over the exact probabilities of `mdp`.
pub struct Problem<'a> {
    pub mdp: &'a Mdp,
    /// The states whose choice is improved and whose value is solved for.
    pub free: &'a [usize],
    /// Per state, whether it is free (the complement keeps `outside`).
    pub is_free: &'a [bool],
    /// The value of every state that is not free.
    pub outside: &'a [Rat],
    /// The choices a scheduler may take (`None`: every choice).
    pub usable: Option<&'a [bool]>,
    /// The reward of a step taking each choice (`None`: no reward).
    pub step: Option<&'a [Rat]>,
    pub opt: Opt,
}

impl Problem<'_> {
    /// The value of choice `c` under `x`.
    fn value(&self, c: usize, x: &[Rat]) -> Rat {
        let p = self.probs();
        let start = self.step.map_or_else(Rat::zero, |r| r[c].clone());
        self.mdp.entries(c).fold(start, |acc, e| {
            acc + &p[e] * &x[self.mdp.targets[e] as usize]
        })
    }

    fn probs(&self) -> &[Rat] {
        self.mdp
            .exact
            .as_ref()
            .expect("explored with exact probabilities")
    }

    fn usable(&self, c: usize) -> bool {
        self.usable.is_none_or(|u| u[c])
    }

    /// Policy iteration from `scheduler` (one choice per free state; for a
    /// reward it must be proper, see [`super::reward_reach`]). `meter`
    /// ([`meter_under`]) counts the states eliminated, and as its level the
    /// schedulers evaluated; it says "timed out" when the deadline cuts it.
    pub fn solve(
        &self,
        scheduler: Vec<u32>,
        (deadline, meter): (Deadline, &Meter),
    ) -> Result<Exact, Expired> {
        self.improve(scheduler, (deadline, meter))
            .inspect_err(|_| meter.timed_out())
    }

    fn improve(
        &self,
        mut scheduler: Vec<u32>,
        (deadline, meter): (Deadline, &Meter),
    ) -> Result<Exact, Expired> {
        let mut rounds = 0;
        loop {
            rounds += 1;
            let x = self.evaluate(&scheduler, (deadline, meter))?;
            meter.set_level(rounds as u64);
            let mut improved = false;
            for &s in self.free {
                deadline.check()?;
                let mut cur = self.value(scheduler[s] as usize, &x);
                for c in self.mdp.choices(s).filter(|&c| self.usable(c)) {
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
                return Ok(Exact { values: x, rounds });
            }
        }
    }

    /// The exact values of the chain `scheduler` induces: free states that
    /// reach neither a positive outside value nor a positive step reward
    /// get 0 (an end component of them would make the equations singular),
    /// the others solve x = P x + b by eliminating one state at a time.
    fn evaluate(
        &self,
        scheduler: &[u32],
        (deadline, meter): (Deadline, &Meter),
    ) -> Result<Vec<Rat>, Expired> {
        let mdp = self.mdp;
        let n = mdp.num_states();
        let p = self.probs();
        let live = self.live(scheduler);
        let solved = |t: usize| self.is_free[t] && live[t];
        let mut rows: Vec<Row> = vec![Row::default(); n];
        let mut users: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
        let order: Vec<usize> = self.free.iter().copied().filter(|&s| live[s]).collect();
        for &s in &order {
            let c = scheduler[s] as usize;
            let row = &mut rows[s];
            row.b = self.step.map_or_else(Rat::zero, |r| r[c].clone());
            for e in mdp.entries(c) {
                let t = mdp.targets[e] as usize;
                if solved(t) {
                    *row.a.entry(t as u32).or_insert_with(Rat::zero) += &p[e];
                    users[t].insert(s as u32);
                } else if !self.is_free[t] {
                    row.b += &p[e] * &self.outside[t];
                }
            }
        }
        for &s in &order {
            deadline.check()?;
            eliminate(s, &mut rows, &mut users);
            meter.add(1);
        }
        let mut x: Vec<Rat> = (0..n)
            .map(|s| {
                if self.is_free[s] {
                    Rat::zero()
                } else {
                    self.outside[s].clone()
                }
            })
            .collect();
        for &s in order.iter().rev() {
            let row = &rows[s];
            x[s] = row
                .a
                .iter()
                .fold(row.b.clone(), |acc, (t, c)| acc + c * &x[*t as usize]);
        }
        Ok(x)
    }

    /// The free states from which the chain reaches a positive outside
    /// value or a choice with a positive step reward.
    fn live(&self, scheduler: &[u32]) -> Vec<bool> {
        let mdp = self.mdp;
        let n = mdp.num_states();
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut live = vec![false; n];
        for &s in self.free {
            let c = scheduler[s] as usize;
            live[s] = self.step.is_some_and(|r| !r[c].is_zero());
            for e in mdp.entries(c) {
                preds[mdp.targets[e] as usize].push(s as u32);
            }
        }
        for (s, l) in live.iter_mut().enumerate() {
            *l = *l || (!self.is_free[s] && !self.outside[s].is_zero());
        }
        let mut stack: Vec<usize> = (0..n).filter(|&s| live[s]).collect();
        while let Some(t) = stack.pop() {
            for &s in &preds[t] {
                if !live[s as usize] {
                    live[s as usize] = true;
                    stack.push(s as usize);
                }
            }
        }
        live
    }
}

/// One state's equation x_s = sum a_t x_t + b over the states not yet eliminated.
#[derive(Clone, Debug, Default)]
struct Row {
    a: BTreeMap<u32, Rat>,
    b: Rat,
}

/// Solves row `s` for x_s (dividing out its self-loop) and substitutes it
/// into every row that reads x_s.
fn eliminate(s: usize, rows: &mut [Row], users: &mut [BTreeSet<u32>]) {
    let mut row = std::mem::take(&mut rows[s]);
    if let Some(loop_p) = row.a.remove(&(s as u32)) {
        let scale = Rat::one() / (Rat::one() - loop_p);
        row.a.values_mut().for_each(|c| *c *= &scale);
        row.b *= &scale;
    }
    users[s].remove(&(s as u32));
    for u in std::mem::take(&mut users[s]) {
        let target = &mut rows[u as usize];
        let Some(c) = target.a.remove(&(s as u32)) else {
            continue;
        };
        target.b += &c * &row.b;
        for (t, a) in &row.a {
            *target.a.entry(*t).or_insert_with(Rat::zero) += &c * a;
            users[*t as usize].insert(u);
        }
    }
    for t in row.a.keys() {
        users[*t as usize].remove(&(s as u32));
    }
    rows[s] = row;
}

/// The meter of a policy iteration inside the stage `meter` counts (the
/// checking of the properties): lines of its own under `-v`.
pub fn meter_under(meter: &Meter) -> MeterGuard {
    meter.nested(Counting {
        label: "swarm: exact policy iteration".into(),
        unit: "states eliminated",
        level: Some("schedulers evaluated"),
        total: None,
    })
}

/// Exact `P_opt[ allowed U target ]` from an interval iteration's result:
/// the states it fixed keep 1 or 0, the others are improved from its
/// scheduler; `meter` ([`meter_under`]) counts as [`Problem::solve`] says.
pub fn exact_reachability(
    mdp: &Mdp,
    iv: &super::unbounded::Interval,
    opt: Opt,
    (deadline, meter): (Deadline, &Meter),
) -> Result<Exact, Expired> {
    let n = mdp.num_states();
    let outside: Vec<Rat> = (0..n)
        .map(|s| {
            if iv.fixed[s] && iv.lo[s] == 1.0 {
                Rat::one()
            } else {
                Rat::zero()
            }
        })
        .collect();
    let is_free: Vec<bool> = iv.fixed.iter().map(|f| !f).collect();
    let free: Vec<usize> = (0..n).filter(|&s| is_free[s]).collect();
    let problem = Problem {
        mdp,
        free: &free,
        is_free: &is_free,
        outside: &outside,
        usable: None,
        step: None,
        opt,
    };
    problem.solve(iv.scheduler.clone(), (deadline, meter))
}
