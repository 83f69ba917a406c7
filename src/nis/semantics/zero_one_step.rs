//! The zero-one agent's part of one abstract step (Definition 12 of Kouvaros
//! et al., IJCAI 2024), enumerated by outcome rather than by move.
//!
//! An abstract action gives each present local state a non-empty set of its
//! enabled actions, so a zero-one agent holding k states with 3 actions each
//! has 7^k moves: millions at k = 8, for a handful of distinct successors.
//! What a move decides is only (1) the performed set P it contributes to and
//! (2) the set of intermediate states (prv', per) its (state, action) pairs
//! reach under P. So for each P the moves are folded one present state at a
//! time into a map from (actions covered so far, intermediate states so far)
//! to one move reaching it: the map stays as small as the number of distinct
//! partial outcomes, and each final entry with covered = P is one outcome,
//! with a move that produces it for the witness. The observed sets are
//! folded the same way. The zero-one agent's state, [`LocalSet`], lives here
//! too, so that [`super::abstraction`] depends on this module and not back.

use super::system::{joint_choice_error, nonempty_submasks, MAX_JOINT_CHOICES};
use super::{bits, ActionMask, LocalId, SemResult, Semantics};
use std::collections::{BTreeMap, BTreeSet};

/// A set of template local states, compared and hashed by value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalSet(pub Box<[u64]>);

impl LocalSet {
    pub fn empty(size: u64) -> Self {
        LocalSet(vec![0; size.div_ceil(64).max(1) as usize].into_boxed_slice())
    }

    pub fn insert(&mut self, l: LocalId) {
        self.0[(l / 64) as usize] |= 1 << (l % 64);
    }

    pub fn contains(&self, l: LocalId) -> bool {
        self.0
            .get((l / 64) as usize)
            .is_some_and(|w| w >> (l % 64) & 1 == 1)
    }

    pub fn iter(&self) -> impl Iterator<Item = LocalId> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(w, &word)| bits(word).map(move |b| (w * 64 + b) as LocalId))
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One distinct outcome of the zero-one agent's moves under a performed set:
/// the intermediate states (prv', per) with their private parts, and one
/// move (each present state with its set of actions) that reaches exactly them.
#[derive(Clone, Debug)]
pub struct ZeroOneOutcome {
    pub pairs: Vec<(LocalId, ActionMask)>,
    pub intermediates: BTreeMap<LocalId, Vec<i64>>,
}

/// Every distinct outcome of the zero-one agent's moves at `present` (each
/// present local state with its enabled actions) whose actions, together with
/// `fixed` (the other choosers' actions), are exactly `performed`.
///
/// Refuses, with an error located in the model, a fold whose partial
/// outcomes exceed [`MAX_JOINT_CHOICES`].
pub fn zero_one_outcomes(
    sem: &mut Semantics,
    present: &[(LocalId, ActionMask)],
    fixed: ActionMask,
    performed: ActionMask,
    env_action: usize,
) -> SemResult<Vec<ZeroOneOutcome>> {
    type Partial = (ActionMask, Vec<LocalId>);
    let mut partial: BTreeMap<Partial, Vec<(LocalId, ActionMask)>> = BTreeMap::new();
    partial.insert((fixed, Vec::new()), Vec::new());
    let mut prv_of: BTreeMap<LocalId, Vec<i64>> = BTreeMap::new();
    for &(l, enabled) in present {
        // A set of actions outside `performed` would perform more than it.
        let options = nonempty_submasks(enabled & performed);
        if options.is_empty() {
            return Ok(Vec::new());
        }
        let mut image_of = Vec::new();
        for a in bits(enabled & performed) {
            let (prv, inter) = sem.intermediate(l, a, (performed, env_action))?;
            prv_of.entry(inter).or_insert(prv);
            image_of.push((a, inter));
        }
        if (partial.len() as u128) * (options.len() as u128) > MAX_JOINT_CHOICES {
            return Err(joint_choice_error(&sem.model.source, present.len()));
        }
        let mut next = BTreeMap::new();
        for ((covered, inters), pairs) in &partial {
            for &mask in &options {
                let mut grown = inters.clone();
                grown.extend(
                    image_of
                        .iter()
                        .filter(|(a, _)| mask >> a & 1 == 1)
                        .map(|(_, i)| *i),
                );
                grown.sort_unstable();
                grown.dedup();
                next.entry((covered | mask, grown)).or_insert_with(|| {
                    let mut p = pairs.clone();
                    p.push((l, mask));
                    p
                });
            }
        }
        partial = next;
    }
    Ok(partial
        .into_iter()
        .filter(|((covered, _), _)| *covered == performed)
        .map(|((_, inters), pairs)| ZeroOneOutcome {
            pairs,
            intermediates: inters
                .into_iter()
                .map(|i| (i, prv_of[&i].clone()))
                .collect(),
        })
        .collect())
}

/// Every performed set the zero-one agent can complete: `fixed` plus any
/// subset of the actions enabled at some present local state.
pub fn performed_sets(
    sem: &Semantics,
    present: &[(LocalId, ActionMask)],
    fixed: ActionMask,
) -> SemResult<Vec<ActionMask>> {
    let free = present.iter().fold(0, |u, &(_, m)| u | m) & !fixed;
    if u128::from(free.count_ones()) >= MAX_JOINT_CHOICES.ilog2() as u128 {
        return Err(joint_choice_error(&sem.model.source, present.len()));
    }
    let mut out = Vec::new();
    let mut sub = free;
    loop {
        out.push(fixed | sub);
        if sub == 0 {
            break;
        }
        sub = (sub - 1) & free;
    }
    out.reverse();
    Ok(out)
}

/// Every zero-one local-state set an outcome can be observed as at
/// `env_next`: each intermediate state is seen with a non-empty subset of
/// its tied percepts. Folded one intermediate state at a time, without
/// duplicates, since intermediate states that differ only in their old
/// percept reach the same local states.
pub fn observed_sets(
    sem: &mut Semantics,
    outcome: &ZeroOneOutcome,
    env_next: super::EnvId,
) -> SemResult<Vec<LocalSet>> {
    let mut sets = vec![LocalSet::empty(sem.space.size)];
    for (&inter, prv) in &outcome.intermediates {
        let options = nonempty_submasks(sem.observe(inter, env_next)?);
        if (sets.len() as u128) * (options.len() as u128) > MAX_JOINT_CHOICES {
            return Err(joint_choice_error(
                &sem.model.source,
                outcome.intermediates.len(),
            ));
        }
        let mut next = BTreeSet::new();
        for set in &sets {
            for &mask in &options {
                let mut grown = set.clone();
                for p in bits(mask) {
                    grown.insert(sem.with_percept(prv, p));
                }
                next.insert(grown);
            }
        }
        sets = next.into_iter().collect();
    }
    Ok(sets)
}
