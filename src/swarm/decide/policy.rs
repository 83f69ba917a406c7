//! Exact unbounded reachability by policy iteration (Puterman, Markov
//! Decision Processes, Section 7.2; for reachability, Baier and Katoen,
//! Section 10.6.1): the scheduler interval iteration found in f64 is
//! evaluated exactly, by solving the linear equations of the Markov chain
//! it induces over the rationals, and improved wherever a choice is
//! strictly better under the exact values, until none is. The last
//! scheduler is optimal and its values are the exact probabilities.

use super::mdp::Mdp;
use crate::lang::Rat;
use crate::report::{Deadline, Expired};
use crate::swarm::front::props::Opt;
use num_traits::{One, Zero};
use std::collections::{BTreeMap, BTreeSet};

/// The exact values at every state, and how many schedulers were evaluated.
pub struct Exact {
    pub values: Vec<Rat>,
    pub rounds: usize,
}

/// Policy iteration from `scheduler` (one choice per state that is not
/// `fixed`); `fixed` states keep `base`'s value (1 or 0).
pub fn policy_iteration(
    mdp: &Mdp,
    fixed: &[bool],
    base: &[Rat],
    mut scheduler: Vec<u32>,
    opt: Opt,
    deadline: Deadline,
) -> Result<Exact, Expired> {
    let p = mdp
        .exact
        .as_ref()
        .expect("explored with exact probabilities");
    let value = |c: usize, x: &[Rat]| -> Rat {
        mdp.entries(c).fold(Rat::zero(), |acc, e| {
            acc + &p[e] * &x[mdp.targets[e] as usize]
        })
    };
    let mut rounds = 0;
    loop {
        rounds += 1;
        let x = evaluate(mdp, fixed, base, &scheduler, deadline)?;
        let mut improved = false;
        for s in (0..mdp.num_states()).filter(|&s| !fixed[s]) {
            deadline.check()?;
            let mut cur = value(scheduler[s] as usize, &x);
            for c in mdp.choices(s) {
                let v = value(c, &x);
                let better = match opt {
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

/// The exact values of the chain `scheduler` induces: states that cannot
/// reach a fixed state with a positive value get 0, the others solve
/// x = P x + b by eliminating one state at a time.
fn evaluate(
    mdp: &Mdp,
    fixed: &[bool],
    base: &[Rat],
    scheduler: &[u32],
    deadline: Deadline,
) -> Result<Vec<Rat>, Expired> {
    let n = mdp.num_states();
    let p = mdp
        .exact
        .as_ref()
        .expect("explored with exact probabilities");
    let live = reaches_value(mdp, fixed, base, scheduler);
    let mut rows: Vec<Row> = vec![Row::default(); n];
    let mut users: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
    let order: Vec<usize> = (0..n).filter(|&s| !fixed[s] && live[s]).collect();
    for &s in &order {
        let row = &mut rows[s];
        for e in mdp.entries(scheduler[s] as usize) {
            let t = mdp.targets[e] as usize;
            if fixed[t] || !live[t] {
                if fixed[t] {
                    row.b += &p[e] * &base[t];
                }
            } else {
                *row.a.entry(t as u32).or_insert_with(Rat::zero) += &p[e];
                users[t].insert(s as u32);
            }
        }
    }
    for &s in &order {
        deadline.check()?;
        eliminate(s, &mut rows, &mut users);
    }
    let mut x: Vec<Rat> = (0..n)
        .map(|s| {
            if fixed[s] {
                base[s].clone()
            } else {
                Rat::zero()
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

/// One state's equation x_s = sum a_t x_t + b over the states not yet eliminated.
#[derive(Clone, Debug, Default)]
pub(super) struct Row {
    pub a: BTreeMap<u32, Rat>,
    pub b: Rat,
}

/// Solves row `s` for x_s (dividing out its self-loop) and substitutes it
/// into every row that reads x_s.
pub(super) fn eliminate(s: usize, rows: &mut [Row], users: &mut [BTreeSet<u32>]) {
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

/// The states from which the chain reaches a fixed state of positive value.
fn reaches_value(mdp: &Mdp, fixed: &[bool], base: &[Rat], scheduler: &[u32]) -> Vec<bool> {
    let n = mdp.num_states();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for s in (0..n).filter(|&s| !fixed[s]) {
        for e in mdp.entries(scheduler[s] as usize) {
            preds[mdp.targets[e] as usize].push(s as u32);
        }
    }
    let mut live: Vec<bool> = (0..n).map(|s| fixed[s] && !base[s].is_zero()).collect();
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
