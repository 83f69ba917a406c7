//! The concrete system S(n) of Definitions 4-6 in the counter representation:
//! agents 1..m (the ones formulas name) are kept individually, agents m+1..n
//! as a multiset of local states, so states do not multiply by permutations
//! of interchangeable agents.

use super::system::{
    composition_count, compositions, enabled_choices, for_each_product, for_each_product_until,
    System,
};
use super::{bits, ActionMask, EnvId, LocalId, SemResult, Semantics};
use std::collections::HashSet;

/// A global state of S(n): the indexed agents, the others as (local state,
/// count) sorted by local state with positive counts, and the environment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CState {
    pub indexed: Vec<LocalId>,
    pub others: Vec<(LocalId, u32)>,
    pub env: EnvId,
}

/// A joint move: the environment's action, each indexed agent's action, and
/// for the other agents groups `(from, action, to, count)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CMove {
    pub env_action: usize,
    pub indexed: Vec<usize>,
    pub others: Vec<(LocalId, usize, LocalId, u32)>,
}

pub struct Concrete<'m> {
    pub sem: Semantics<'m>,
    /// n, the number of agents.
    pub agents: usize,
    /// m, the number of indexed agents (m <= n).
    pub indexed: usize,
}

impl<'m> Concrete<'m> {
    pub fn new(sem: Semantics<'m>, agents: usize, indexed: usize) -> Self {
        Concrete {
            sem,
            agents,
            indexed: indexed.min(agents),
        }
    }
}

/// The most ways one group of interchangeable agents may split among its
/// actions or percepts in one step; beyond it (100,000 agents in
/// one local state with two choices) a single state has too many
/// successors to hold, and the search is refused.
pub const MAX_SPLITS: u128 = 100_000;

/// [`compositions`] of `count` agents into `parts` groups, refused past [`MAX_SPLITS`].
fn splits(sem: &Semantics<'_>, count: u32, parts: usize) -> SemResult<Vec<Vec<u32>>> {
    let n = composition_count(count, parts);
    if n > MAX_SPLITS {
        return Err(crate::lang::error_at(
            &sem.model.source,
            crate::lang::Span::default(),
            format!(
                "{count} agents in one local state split {n} ways among {parts} choices; the limit is {MAX_SPLITS} (fewer --agents, or --engine milp)"
            ),
        ));
    }
    Ok(compositions(count, parts))
}

/// Adds `count` agents at `l` to a sorted counter list.
pub fn add_count(list: &mut Vec<(LocalId, u32)>, l: LocalId, count: u32) {
    if count == 0 {
        return;
    }
    match list.binary_search_by_key(&l, |&(x, _)| x) {
        Ok(i) => list[i].1 += count,
        Err(i) => list.insert(i, (l, count)),
    }
}

/// The moves of the non-indexed agents when each group (local state,
/// count) splits its count over its enabled actions as `picked` says:
/// (from, action, count) per part taken, and the actions they perform.
fn group_moves(
    others: &[(LocalId, u32)],
    group_actions: &[Vec<usize>],
    picked: &[&[u32]],
) -> (Vec<(LocalId, usize, u32)>, ActionMask) {
    let mut performed: ActionMask = 0;
    let mut groups = Vec::new();
    for (g, &(l, _)) in others.iter().enumerate() {
        for (j, &k) in picked[g].iter().enumerate() {
            if k > 0 {
                performed |= 1 << group_actions[g][j];
                groups.push((l, group_actions[g][j], k));
            }
        }
    }
    (groups, performed)
}

/// One joint move's parts before the environment's successor is chosen.
struct Round<'a> {
    env_action: usize,
    acts: &'a [usize],
    groups: &'a [(LocalId, usize, u32)],
    performed: ActionMask,
}

/// The successors of `s` under `round` with the environment's successor
/// `env_next`: every combination of the agents' observed percepts, new ones
/// (by `seen`) pushed to `out`.
fn successors_at(
    sem: &mut Semantics<'_>,
    s: &CState,
    round: &Round<'_>,
    env_next: EnvId,
    (seen, out): (&mut HashSet<CState>, &mut Vec<(CMove, CState)>),
) -> SemResult<()> {
    let (m, step) = (s.indexed.len(), (round.performed, round.env_action));
    // Percept options of each indexed agent, and of each group.
    let mut ind_opts: Vec<Vec<LocalId>> = Vec::new();
    for (i, &l) in s.indexed.iter().enumerate() {
        ind_opts.push(sem.local_successors(l, round.acts[i], step, env_next)?);
    }
    let mut grp_targets: Vec<Vec<LocalId>> = Vec::new();
    let mut grp_splits: Vec<Vec<Vec<u32>>> = Vec::new();
    for &(l, a, k) in round.groups {
        let targets = sem.local_successors(l, a, step, env_next)?;
        grp_splits.push(splits(sem, k, targets.len())?);
        grp_targets.push(targets);
    }
    let mut inner: Vec<usize> = ind_opts.iter().map(Vec::len).collect();
    inner.extend(grp_splits.iter().map(Vec::len));
    let (source, deadline) = (sem.model.source.clone(), sem.deadline());
    for_each_product_until(&source, &inner, deadline, |pick| {
        let indexed: Vec<LocalId> = (0..m).map(|i| ind_opts[i][pick[i]]).collect();
        let mut others = Vec::new();
        let mut moves = Vec::new();
        for (g, &(from, a, _)) in round.groups.iter().enumerate() {
            for (j, &k) in grp_splits[g][pick[m + g]].iter().enumerate() {
                if k > 0 {
                    add_count(&mut others, grp_targets[g][j], k);
                    moves.push((from, a, grp_targets[g][j], k));
                }
            }
        }
        let next = CState {
            indexed,
            others,
            env: env_next,
        };
        if seen.insert(next.clone()) {
            let mv = CMove {
                env_action: round.env_action,
                indexed: round.acts.to_vec(),
                others: moves,
            };
            out.push((mv, next));
        }
        Ok::<(), Box<crate::lang::SourceError>>(())
    })
}

impl<'m> System<'m> for Concrete<'m> {
    type State = CState;
    type Move = CMove;

    /// Definition 4: every agent at iota_t (with `percept = observe`, at
    /// any percept the initial observation allows, independently per agent).
    fn initial(&mut self) -> SemResult<Vec<CState>> {
        let rest = u32::try_from(self.agents - self.indexed).map_err(|_| {
            crate::lang::error_at(
                &self.sem.model.source,
                crate::lang::Span::default(),
                format!(
                    "{} agents do not fit a counter (at most {})",
                    self.agents,
                    u32::MAX
                ),
            )
        })?;
        let mut out = Vec::new();
        for env in self.sem.initial_envs()? {
            let starts = self.sem.initial_locals(env)?;
            let splits = compositions(rest, starts.len());
            let source = self.sem.model.source.clone();
            for_each_product(&source, &vec![starts.len(); self.indexed], |pick| {
                for split in &splits {
                    let mut others = Vec::new();
                    for (&l, &count) in starts.iter().zip(split) {
                        add_count(&mut others, l, count);
                    }
                    out.push(CState {
                        indexed: pick.iter().map(|&i| starts[i]).collect(),
                        others,
                        env,
                    });
                }
                Ok(())
            })?;
        }
        Ok(out)
    }

    fn successors(&mut self, s: &CState) -> SemResult<Vec<(CMove, CState)>> {
        let source = self.sem.model.source.clone();
        let sem = &mut self.sem;
        let (env_actions, indexed_options) = enabled_choices(sem, s.env, &s.indexed)?;
        // For each group of other agents: its enabled actions and the splits of its count.
        let mut group_actions: Vec<Vec<usize>> = Vec::new();
        let mut group_splits: Vec<Vec<Vec<u32>>> = Vec::new();
        for &(l, c) in &s.others {
            let acts: Vec<usize> = bits(sem.protocol(l)?).collect();
            group_splits.push(splits(sem, c, acts.len())?);
            group_actions.push(acts);
        }
        let mut sizes: Vec<usize> = vec![env_actions.len()];
        sizes.extend(indexed_options.iter().map(Vec::len));
        sizes.extend(group_splits.iter().map(Vec::len));
        let m = s.indexed.len();
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let deadline = sem.deadline();
        for_each_product_until(&source, &sizes, deadline, |choice| {
            let env_action = env_actions[choice[0]];
            let acts: Vec<usize> = (0..m).map(|i| indexed_options[i][choice[1 + i]]).collect();
            let picked: Vec<&[u32]> = (0..s.others.len())
                .map(|g| &group_splits[g][choice[1 + m + g]][..])
                .collect();
            let (groups, by_others) = group_moves(&s.others, &group_actions, &picked);
            let performed = acts.iter().fold(by_others, |p, &a| p | 1 << a);
            let round = Round {
                env_action,
                acts: &acts,
                groups: &groups,
                performed,
            };
            for env_next in sem
                .env_successors(s.env, env_action, performed)?
                .iter()
                .copied()
            {
                successors_at(sem, s, &round, env_next, (&mut seen, &mut out))?;
            }
            Ok::<(), Box<crate::lang::SourceError>>(())
        })?;
        Ok(out)
    }

    fn indexed<'a>(&self, s: &'a CState) -> &'a [LocalId] {
        &s.indexed
    }

    fn env(&self, s: &CState) -> EnvId {
        s.env
    }

    fn semantics(&mut self) -> &mut Semantics<'m> {
        &mut self.sem
    }

    fn semantics_ref(&self) -> &Semantics<'m> {
        &self.sem
    }

    /// (n - m)! / prod(count!): the orderings of the non-indexed agents.
    fn multiplicity(&self, s: &CState) -> u128 {
        let mut result: u128 = 1;
        let mut placed: u128 = 0;
        for &(_, c) in &s.others {
            for j in 1..=c as u128 {
                placed += 1;
                result = result * placed / j;
            }
        }
        result
    }
}
