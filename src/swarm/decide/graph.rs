//! Graph preprocessing of unbounded reachability `allowed U target` on our
//! [`Mdp`] (Baier and Katoen, Principles of Model Checking, Algorithms 45
//! and 46, and the MEC decomposition of Section 10.6.3): the states whose
//! optimal probability is 0 or 1, and the maximal end components among the
//! others, which interval iteration for Pmax must collapse.

use super::mdp::Mdp;
use crate::swarm::front::props::Opt;

/// For every state, the choices that can reach it: `at[t]..at[t + 1]`
/// index `choices`.
pub struct Preds {
    at: Vec<usize>,
    choices: Vec<u32>,
    /// The state each choice belongs to.
    pub owner: Vec<u32>,
}

impl Preds {
    pub fn new(mdp: &Mdp) -> Self {
        let n = mdp.num_states();
        let mut owner = vec![0u32; mdp.num_choices()];
        let mut at = vec![0usize; n + 1];
        for s in 0..n {
            for c in mdp.choices(s) {
                owner[c] = s as u32;
                for e in mdp.entries(c) {
                    at[mdp.targets[e] as usize + 1] += 1;
                }
            }
        }
        for i in 0..n {
            at[i + 1] += at[i];
        }
        let mut fill = at.clone();
        let mut choices = vec![0u32; at[n]];
        for c in 0..mdp.num_choices() {
            for e in mdp.entries(c) {
                let t = mdp.targets[e] as usize;
                choices[fill[t]] = c as u32;
                fill[t] += 1;
            }
        }
        Preds { at, choices, owner }
    }

    /// The choices with an entry into `t` (a choice may appear more than once).
    pub fn of(&self, t: usize) -> &[u32] {
        &self.choices[self.at[t]..self.at[t + 1]]
    }
}

/// States that reach `from` with positive probability under some
/// scheduler, moving only through `through` states (`from` included).
fn exists_reach(preds: &Preds, from: &[bool], through: &[bool]) -> Vec<bool> {
    let mut reach = from.to_vec();
    let mut stack: Vec<usize> = (0..from.len()).filter(|&s| from[s]).collect();
    while let Some(t) = stack.pop() {
        for &c in preds.of(t) {
            let s = preds.owner[c as usize] as usize;
            if !reach[s] && through[s] {
                reach[s] = true;
                stack.push(s);
            }
        }
    }
    reach
}

/// States that reach `from` with positive probability under EVERY
/// scheduler, through `through` states: a state joins when each of its
/// choices has an entry into the set (and it has a choice).
fn forall_reach(mdp: &Mdp, preds: &Preds, from: &[bool], through: &[bool]) -> Vec<bool> {
    let mut reach = from.to_vec();
    let mut hit = vec![false; mdp.num_choices()];
    let mut missing: Vec<usize> = (0..mdp.num_states())
        .map(|s| mdp.choices(s).len())
        .collect();
    let mut stack: Vec<usize> = (0..from.len()).filter(|&s| from[s]).collect();
    while let Some(t) = stack.pop() {
        for &c in preds.of(t) {
            if std::mem::replace(&mut hit[c as usize], true) {
                continue;
            }
            let s = preds.owner[c as usize] as usize;
            missing[s] -= 1;
            if missing[s] == 0 && !reach[s] && through[s] {
                reach[s] = true;
                stack.push(s);
            }
        }
    }
    reach
}

/// The states of probability 0 and of probability 1 for `opt`.
pub struct ZeroOne {
    pub zero: Vec<bool>,
    pub one: Vec<bool>,
}

/// Algorithms 45 (prob0) and 46 (prob1) for `P_opt[ allowed U target ]`.
pub fn zero_one(mdp: &Mdp, preds: &Preds, target: &[bool], allowed: &[bool], opt: Opt) -> ZeroOne {
    let n = mdp.num_states();
    let through: Vec<bool> = (0..n).map(|s| allowed[s] && !target[s]).collect();
    match opt {
        Opt::Max => {
            let zero: Vec<bool> = exists_reach(preds, target, &through)
                .iter()
                .map(|r| !r)
                .collect();
            ZeroOne {
                one: prob1_exists(mdp, preds, target, &through),
                zero,
            }
        }
        Opt::Min => {
            let zero: Vec<bool> = forall_reach(mdp, preds, target, &through)
                .iter()
                .map(|r| !r)
                .collect();
            // Pmin < 1 exactly where some scheduler reaches a state of
            // probability 0 with positive probability first.
            let escape = exists_reach(preds, &zero, &through);
            ZeroOne {
                one: (0..n).map(|s| !escape[s]).collect(),
                zero,
            }
        }
    }
}

/// The states where some scheduler reaches the target with probability 1:
/// the greatest set U such that from every state of U some choice stays in
/// U and reaches the target with positive probability within U.
fn prob1_exists(mdp: &Mdp, preds: &Preds, target: &[bool], through: &[bool]) -> Vec<bool> {
    let n = mdp.num_states();
    let mut u = vec![true; n];
    loop {
        let stays: Vec<bool> = (0..mdp.num_choices())
            .map(|c| mdp.entries(c).all(|e| u[mdp.targets[e] as usize]))
            .collect();
        let mut r = target.to_vec();
        let mut stack: Vec<usize> = (0..n).filter(|&s| target[s]).collect();
        while let Some(t) = stack.pop() {
            for &c in preds.of(t) {
                let s = preds.owner[c as usize] as usize;
                if !r[s] && through[s] && u[s] && stays[c as usize] {
                    r[s] = true;
                    stack.push(s);
                }
            }
        }
        if r == u {
            return u;
        }
        u = r;
    }
}

/// The maximal end components of the sub-MDP of the states `within`:
/// `mec[s]` is the component of s (or `u32::MAX`), and each component's
/// exits are the choices of its states that leave it.
pub struct Mecs {
    pub mec: Vec<u32>,
    pub exits: Vec<Vec<u32>>,
}

/// The MEC decomposition: strongly connected components over the choices
/// that stay in `within`, refined until every kept choice stays inside
/// its component.
pub fn mecs(mdp: &Mdp, within: &[bool]) -> Mecs {
    mecs_over(mdp, within, &vec![true; mdp.num_choices()])
}

/// [`mecs`] of the sub-MDP that has only the choices `usable` (the
/// zero-reward choices, for minimal expected rewards).
pub fn mecs_over(mdp: &Mdp, within: &[bool], usable: &[bool]) -> Mecs {
    let n = mdp.num_states();
    let mut alive: Vec<bool> = within.to_vec();
    let mut keep: Vec<bool> = (0..mdp.num_choices())
        .map(|c| usable[c] && mdp.entries(c).all(|e| within[mdp.targets[e] as usize]))
        .collect();
    loop {
        let comp = scc(mdp, &alive, &keep);
        let mut changed = false;
        for s in 0..n {
            if !alive[s] {
                continue;
            }
            let mut any = false;
            for c in mdp.choices(s) {
                if keep[c]
                    && mdp
                        .entries(c)
                        .any(|e| comp[mdp.targets[e] as usize] != comp[s])
                {
                    keep[c] = false;
                    changed = true;
                }
                any |= keep[c];
            }
            if !any {
                alive[s] = false;
                changed = true;
            }
        }
        for (c, k) in keep.iter_mut().enumerate() {
            if *k && mdp.entries(c).any(|e| !alive[mdp.targets[e] as usize]) {
                *k = false;
                changed = true;
            }
        }
        if !changed {
            return components(mdp, &alive, &comp, within);
        }
    }
}

/// Numbers the surviving components and lists their exits.
fn components(mdp: &Mdp, alive: &[bool], comp: &[u32], within: &[bool]) -> Mecs {
    let n = mdp.num_states();
    let mut number = std::collections::HashMap::new();
    let mut mec = vec![u32::MAX; n];
    let mut exits: Vec<Vec<u32>> = Vec::new();
    for s in (0..n).filter(|&s| alive[s]) {
        let next = number.len() as u32;
        let m = *number.entry(comp[s]).or_insert(next);
        if m as usize == exits.len() {
            exits.push(Vec::new());
        }
        mec[s] = m;
    }
    for s in (0..n).filter(|&s| alive[s] && within[s]) {
        for c in mdp.choices(s) {
            if mdp
                .entries(c)
                .any(|e| mec[mdp.targets[e] as usize] != mec[s])
            {
                exits[mec[s] as usize].push(c as u32);
            }
        }
    }
    Mecs { mec, exits }
}

/// Tarjan's strongly connected components of the graph of the `alive`
/// states and the `keep` choices, without recursion.
fn scc(mdp: &Mdp, alive: &[bool], keep: &[bool]) -> Vec<u32> {
    let n = mdp.num_states();
    let (mut index, mut low) = (vec![u32::MAX; n], vec![0u32; n]);
    let mut comp = vec![u32::MAX; n];
    let (mut on, mut stack) = (vec![false; n], Vec::new());
    let mut next = 0u32;
    let succ = |s: usize| -> Vec<usize> {
        mdp.choices(s)
            .filter(|&c| keep[c])
            .flat_map(|c| mdp.entries(c).map(|e| mdp.targets[e] as usize))
            .filter(|&t| alive[t])
            .collect()
    };
    for root in (0..n).filter(|&s| alive[s]) {
        if index[root] != u32::MAX {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>, usize)> = vec![(root, succ(root), 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some((v, ws, i)) = work.last_mut() {
            let v = *v;
            if *i < ws.len() {
                let w = ws[*i];
                *i += 1;
                if index[w] == u32::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    work.push((w, succ(w), 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some((u, _, _)) = work.last() {
                low[*u] = low[*u].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp[w] = v as u32;
                    if w == v {
                        break;
                    }
                }
            }
        }
    }
    comp
}
