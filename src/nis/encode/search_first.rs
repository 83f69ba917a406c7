//! Search first on a finite M(n) (issue 32): before the MILP of one start,
//! the f64 walk of the falsifier ([`super::falsify_walk`]) looks for a run
//! on which the existential goal holds: a witness of an existential
//! sentence (`EX^k`, E-paths), or of the dual of a universal one (a
//! counterexample to `AX^k`). The MILP is solved only when the walk finds
//! nothing, so a holding existential cell (the guarding game's Table 1)
//! needs no MILP, while a failing one still needs the MILP's infeasibility.
//!
//! The walk is the real-valued falsifier's, on the integer values of the
//! finite model: every joint move and percept combination while a state
//! has at most [`FalsifyOptions::branches`], a seeded sample of them
//! otherwise, at most [`FalsifyOptions::states_per_sample`] successor
//! states per walk. Walks with further seeds follow while the last one
//! sampled some choice, up to [`FalsifyOptions::samples`] walks and
//! [`STATE_BUDGET_WALKS`] walks' worth of states per start, in a share of
//! the deadline ([`FalsifyOptions::share_of`]): a walk that sampled nothing
//! followed every run within its budget, and another seed would repeat it. Its tree is translated to
//! the explicit decider's counter form ([`CState`], [`CMove`]) and the
//! caller replays it through the exact semantics
//! ([`crate::nis::witness::replay::exact::replay_concrete`]); one that does
//! not replay is dropped and the MILP decides, as if nothing had been found.
//! Deterministic: the branches sampled depend on the seed only.

use super::falsify_walk::Walk;
use super::options::FalsifyOptions;
use super::stats::FalsifyStats;
use crate::nis::front::core::Core;
use crate::nis::semantics::concrete::{add_count, CMove, CState};
use crate::nis::semantics::real::{RealLocal, RealMove, RealState};
use crate::nis::semantics::{EnvId, LocalId, SemResult, Semantics};
use crate::nis::witness::replay::real::RealTree;
use crate::nis::witness::WitnessTree;
use crate::report::Deadline;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::time::Instant;

/// The successor states of all walks from one start: at most this many
/// times [`FalsifyOptions::states_per_sample`].
pub const STATE_BUDGET_WALKS: usize = 8;

/// A witness tree in the explicit decider's counter form.
pub type CounterTree = WitnessTree<CState, CMove>;

/// One start of M(n): an initial environment state and, when pinned, every
/// template agent's first percept.
pub struct SearchStart<'p> {
    pub env: EnvId,
    pub pin: Option<&'p [usize]>,
}

/// Looks for a run from `start` on which the existential `goal` holds on
/// M(n) with `m` indexed agents (module docs); the tree found in counter
/// form, not yet replayed, with what the search did added to `stats`.
pub fn search_witness(
    sem: &mut Semantics,
    goal: &Core,
    (n, m): (usize, usize),
    start: &SearchStart,
    opts: &FalsifyOptions,
    deadline: &Deadline,
    stats: &mut FalsifyStats,
) -> SemResult<Option<CounterTree>> {
    let began = Instant::now();
    let stop = Deadline::starting_at(began, Some(opts.share_of(deadline)));
    let model = sem.model;
    let firsts = first_locals(sem, start, n)?;
    let mut found = None;
    let mut left = opts.states_per_sample.saturating_mul(STATE_BUDGET_WALKS);
    for walk in 0..opts.samples {
        if stop.expired() || left == 0 {
            break;
        }
        let mut w = Walk {
            model,
            goal,
            n,
            budget: opts.states_per_sample.min(left),
            branches: opts.branches,
            rng: StdRng::seed_from_u64(seed(opts.seed, start.env, walk)),
            expanded: 0,
            sampled: false,
        };
        let sizes: Vec<usize> = firsts.iter().map(Vec::len).collect();
        for pick in w.picks(&sizes) {
            let locals: Vec<LocalId> = firsts.iter().zip(&pick).map(|(ls, &i)| ls[i]).collect();
            let s = real_state(sem, start.env, &locals);
            let (score, frag) = w.score(&s, goal.root);
            if score > 0.0 {
                found = frag.map(|f| f.at(s));
                break;
            }
        }
        stats.samples += 1;
        stats.states += w.expanded;
        opts.meter.add(w.expanded as u64);
        opts.meter.add_level(1);
        left -= w.expanded.min(left);
        if found.is_some() || !w.sampled {
            break;
        }
    }
    stats.time_s += began.elapsed().as_secs_f64();
    let Some(tree) = found else {
        return Ok(None);
    };
    stats.traces += 1;
    Ok(Some(counter_tree(sem, &tree, m)))
}

/// The seed of walk `walk` from environment state `env`.
fn seed(base: u64, env: EnvId, walk: usize) -> u64 {
    base ^ (u64::from(env) << 32) ^ (walk as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Each template agent's possible initial local states at `start`: the
/// pinned first percept's, or every tied one.
fn first_locals(
    sem: &mut Semantics,
    start: &SearchStart,
    n: usize,
) -> SemResult<Vec<Vec<LocalId>>> {
    let all = sem.initial_locals(start.env)?;
    let percept = |sem: &Semantics, l: LocalId| sem.space.decode(l).last().copied();
    Ok((0..n)
        .map(|i| match start.pin {
            Some(p) => all
                .iter()
                .copied()
                .filter(|&l| percept(sem, l) == Some(p[i] as i64))
                .collect(),
            None => all.clone(),
        })
        .collect())
}

/// A local state's codes (private values, then the percept) in f64.
fn real_local(codes: &[i64]) -> RealLocal {
    let (percept, private) = codes.split_last().unwrap_or((&0, &[]));
    RealLocal {
        private: private.iter().map(|&c| c as f64).collect(),
        percept: *percept as usize,
    }
}

/// The global state of environment `env` and the agents at `locals`, in f64.
fn real_state(sem: &Semantics, env: EnvId, locals: &[LocalId]) -> RealState {
    let model = sem.model;
    let codes = sem.env_codes(env);
    let (own, mut rest) = codes.split_at(model.env.vars.len().min(codes.len()));
    let mut named = Vec::with_capacity(model.named.len());
    for a in &model.named {
        let (l, r) = rest.split_at((a.template.vars.len() + 1).min(rest.len()));
        named.push(real_local(l));
        rest = r;
    }
    RealState {
        agents: locals
            .iter()
            .map(|&l| real_local(&sem.space.decode(l)))
            .collect(),
        env: own.iter().map(|&x| x as f64).collect(),
        named,
    }
}

/// A local state's codes: private values rounded, then the percept.
fn codes(l: &RealLocal) -> Vec<i64> {
    let mut c: Vec<i64> = l.private.iter().map(|x| x.round() as i64).collect();
    c.push(l.percept as i64);
    c
}

fn local_ids(sem: &Semantics, s: &RealState) -> Vec<LocalId> {
    s.agents
        .iter()
        .map(|a| sem.space.encode(&codes(a)))
        .collect()
}

fn cstate(sem: &mut Semantics, s: &RealState, m: usize) -> CState {
    let locals = local_ids(sem, s);
    let mut others = Vec::new();
    for &l in &locals[m..] {
        add_count(&mut others, l, 1);
    }
    let mut env: Vec<i64> = s.env.iter().map(|x| x.round() as i64).collect();
    for a in &s.named {
        env.extend(codes(a));
    }
    CState {
        indexed: locals[..m].to_vec(),
        others,
        env: sem.env_id(env),
    }
}

fn cmove(sem: &Semantics, from: &RealState, mv: &RealMove, to: &RealState, m: usize) -> CMove {
    let (before, after) = (local_ids(sem, from), local_ids(sem, to));
    let mut others: Vec<(LocalId, usize, LocalId, u32)> = Vec::new();
    for j in m..mv.actions.len() {
        let key = (before[j], mv.actions[j], after[j]);
        match others.iter_mut().find(|g| (g.0, g.1, g.2) == key) {
            Some(g) => g.3 += 1,
            None => others.push((key.0, key.1, key.2, 1)),
        }
    }
    CMove {
        env_action: sem.model.join_env_action(mv.env_action, &mv.named),
        indexed: mv.actions[..m].to_vec(),
        others,
    }
}

/// The walk's f64 tree in the explicit decider's counter form (the first
/// `m` agents indexed, the others grouped).
fn counter_tree(sem: &mut Semantics, t: &RealTree, m: usize) -> CounterTree {
    let children = t
        .children
        .iter()
        .map(|(mv, c)| {
            (
                cmove(sem, &t.state, mv, &c.state, m),
                counter_tree(sem, c, m),
            )
        })
        .collect();
    WitnessTree {
        state: cstate(sem, &t.state, m),
        obligations: t.obligations.clone(),
        children,
    }
}
