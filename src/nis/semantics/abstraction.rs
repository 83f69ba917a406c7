//! The zero-one abstraction (Definitions 12 and 13 of Kouvaros et al., IJCAI
//! 2024), built from the template.
//!
//! The zero-one agent's local state is a non-empty SET of template local
//! states (a bitset over [`super::LocalSpace`] numbers), initially
//! {iota_t}. An abstract action gives every present local state a non-empty
//! SET of its enabled actions (prot_zo(l_zo) = product over l_t in l_zo of
//! {(l_t, A) : A a non-empty subset of prot_t(l_t)}), so two agents in the
//! same state may act differently. Every action of the zero-one agent is in
//! the set of performed actions. The abstract private successor is the set of
//! template successors of the chosen pairs, each observed through obs_t; when
//! an observation ties, the represented agents may see any non-empty subset of
//! the tied percepts. S_ab(m) is m concrete agents + the zero-one agent + the
//! environment; labels are read on the m concrete agents only.

use super::system::{
    enabled_choices, for_each_product, for_each_product_until, nonempty_submasks, System,
};
pub use super::zero_one_step::LocalSet;
use super::zero_one_step::{observed_sets, performed_sets, zero_one_outcomes, ZeroOneOutcome};
use super::{bits, ActionMask, EnvId, LocalId, SemResult, Semantics};
use rustc_hash::FxHashSet as HashSet;
use std::collections::BTreeMap;

/// A global state of S_ab(m): the m concrete agents, the zero-one agent, the environment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AState {
    pub indexed: Vec<LocalId>,
    pub zo: LocalSet,
    pub env: EnvId,
}

/// An abstract joint move: environment action, the concrete agents' actions,
/// and the zero-one agent's action as (local state, set of actions) pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AMove {
    pub env_action: usize,
    pub indexed: Vec<usize>,
    pub zo: Vec<(LocalId, ActionMask)>,
}

pub struct Abstract<'m> {
    pub sem: Semantics<'m>,
    /// m, the number of concrete agents.
    pub indexed: usize,
}

impl<'m> Abstract<'m> {
    pub fn new(sem: Semantics<'m>, indexed: usize) -> Self {
        Abstract { sem, indexed }
    }
}

/// The performed set: the concrete agents' actions and every action of the zero-one agent.
pub fn performed_set(indexed: &[usize], zo: &[(LocalId, ActionMask)]) -> ActionMask {
    indexed.iter().fold(0, |p, &a| p | 1 << a) | zo.iter().fold(0, |p, &(_, m)| p | m)
}

/// The intermediate states (prv', per) of the zero-one agent's pairs with
/// their possible percepts: tr_zo of Definition 12 before observation.
pub fn zero_one_images(
    sem: &mut Semantics,
    zo: &[(LocalId, ActionMask)],
    performed: ActionMask,
    env_action: usize,
    env_next: EnvId,
) -> SemResult<BTreeMap<LocalId, (Vec<i64>, u64)>> {
    let mut images = BTreeMap::new();
    for &(l, mask) in zo {
        for a in bits(mask) {
            let (prv, inter) = sem.intermediate(l, a, (performed, env_action))?;
            if let std::collections::btree_map::Entry::Vacant(e) = images.entry(inter) {
                let ps = sem.observe(inter, env_next)?;
                e.insert((prv, ps));
            }
        }
    }
    Ok(images)
}

impl<'m> System<'m> for Abstract<'m> {
    type State = AState;
    type Move = AMove;

    /// Definition 13's initial states: the indexed agents and the zero-one
    /// agent's set at iota_t; with `percept = observe`, each indexed agent
    /// at any initial local state and the set any non-empty set of them.
    fn initial(&mut self) -> SemResult<Vec<AState>> {
        let mut out = Vec::new();
        for env in self.sem.initial_envs()? {
            let starts = self.sem.initial_locals(env)?;
            let all = if starts.len() >= 64 {
                u64::MAX
            } else {
                (1u64 << starts.len()) - 1
            };
            let sets: Vec<LocalSet> = nonempty_submasks(all)
                .into_iter()
                .map(|mask| {
                    let mut zo = LocalSet::empty(self.sem.space.size);
                    bits(mask).for_each(|i| zo.insert(starts[i]));
                    zo
                })
                .collect();
            let source = self.sem.model.source.clone();
            for_each_product(&source, &vec![starts.len(); self.indexed], |pick| {
                for zo in &sets {
                    out.push(AState {
                        indexed: pick.iter().map(|&i| starts[i]).collect(),
                        zo: zo.clone(),
                        env,
                    });
                }
                Ok(())
            })?;
        }
        Ok(out)
    }

    /// Definition 13's successors. The zero-one agent's moves are taken by
    /// outcome ([`zero_one_outcomes`]), not one by one: the successors are
    /// the same, and a state holding many local states no longer costs the
    /// product of their action sets.
    fn successors(&mut self, s: &AState) -> SemResult<Vec<(AMove, AState)>> {
        let sem = &mut self.sem;
        let (env_actions, indexed_options) = enabled_choices(sem, s.env, &s.indexed)?;
        let mut present = Vec::new();
        for l in s.zo.iter() {
            present.push((l, sem.protocol(l)?));
        }
        let mut sizes: Vec<usize> = vec![env_actions.len()];
        sizes.extend(indexed_options.iter().map(Vec::len));
        let mut step = Step {
            from: s,
            out: Vec::new(),
            seen: HashSet::default(),
        };
        let (source, deadline) = (sem.model.source.clone(), sem.deadline());
        for_each_product_until(&source, &sizes, deadline, |choice| {
            let env_action = env_actions[choice[0]];
            let acts: Vec<usize> = (1..choice.len())
                .map(|i| indexed_options[i - 1][choice[i]])
                .collect();
            let fixed = performed_set(&acts, &[]);
            for performed in performed_sets(sem, &present, fixed)? {
                let outcomes = zero_one_outcomes(sem, &present, fixed, performed, env_action)?;
                if !outcomes.is_empty() {
                    step.expand(sem, (env_action, &acts, performed), &outcomes)?;
                }
            }
            Ok(())
        })?;
        Ok(step.out)
    }

    fn indexed<'a>(&self, s: &'a AState) -> &'a [LocalId] {
        &s.indexed
    }

    fn env(&self, s: &AState) -> EnvId {
        s.env
    }

    fn semantics(&mut self) -> &mut Semantics<'m> {
        &mut self.sem
    }

    fn semantics_ref(&self) -> &Semantics<'m> {
        &self.sem
    }
}

/// The successors of one abstract state under way, without duplicates.
struct Step<'s> {
    from: &'s AState,
    out: Vec<(AMove, AState)>,
    seen: HashSet<AState>,
}

impl Step<'_> {
    /// Adds the successors of the environment's and the indexed agents'
    /// choice `(env_action, acts)` with the zero-one agent's `outcomes`, all
    /// under the performed set `performed`.
    fn expand(
        &mut self,
        sem: &mut Semantics,
        (env_action, acts, performed): (usize, &[usize], ActionMask),
        outcomes: &[ZeroOneOutcome],
    ) -> SemResult<()> {
        let (source, deadline) = (sem.model.source.clone(), sem.deadline());
        let m = acts.len();
        for env_next in sem
            .env_successors(self.from.env, env_action, performed)?
            .iter()
            .copied()
        {
            let mut ind_opts: Vec<Vec<LocalId>> = Vec::new();
            for (&l, &a) in self.from.indexed.iter().zip(acts) {
                ind_opts.push(sem.local_successors(l, a, (performed, env_action), env_next)?);
            }
            for outcome in outcomes {
                let zo_sets = observed_sets(sem, outcome, env_next)?;
                let mut inner: Vec<usize> = ind_opts.iter().map(Vec::len).collect();
                inner.push(zo_sets.len());
                for_each_product_until(&source, &inner, deadline, |pick| {
                    let next = AState {
                        indexed: (0..m).map(|i| ind_opts[i][pick[i]]).collect(),
                        zo: zo_sets[pick[m]].clone(),
                        env: env_next,
                    };
                    if self.seen.insert(next.clone()) {
                        let mv = AMove {
                            env_action,
                            indexed: acts.to_vec(),
                            zo: outcome.pairs.clone(),
                        };
                        self.out.push((mv, next));
                    }
                    Ok(())
                })?;
            }
        }
        Ok(())
    }
}

/// Checks one abstract step against Definitions 12 and 13 directly: protocol
/// compliance of every component, the performed set, the concrete agents'
/// successors, and that the zero-one successor is exactly the observed image.
pub fn validate_step(
    sem: &mut Semantics,
    from: &AState,
    mv: &AMove,
    to: &AState,
) -> SemResult<Result<(), String>> {
    if sem.env_protocol(from.env)? >> mv.env_action & 1 == 0 {
        return Ok(Err("the environment action is not enabled".into()));
    }
    for (i, (&l, &a)) in from.indexed.iter().zip(&mv.indexed).enumerate() {
        if sem.protocol(l)? >> a & 1 == 0 {
            return Ok(Err(format!("agent {} takes a disabled action", i + 1)));
        }
    }
    let present: Vec<LocalId> = from.zo.iter().collect();
    let paired: Vec<LocalId> = mv.zo.iter().map(|&(l, _)| l).collect();
    if present != paired {
        return Ok(Err(
            "the zero-one action does not pair every present local state exactly once".into(),
        ));
    }
    for &(l, mask) in &mv.zo {
        let enabled = sem.protocol(l)?;
        if mask == 0 || mask & !enabled != 0 {
            return Ok(Err(format!(
                "the zero-one action at {} is not a non-empty set of enabled actions",
                sem.describe_local(l)
            )));
        }
    }
    let performed = performed_set(&mv.indexed, &mv.zo);
    let env_next = to.env;
    if !sem
        .env_successors(from.env, mv.env_action, performed)?
        .contains(&env_next)
    {
        return Ok(Err("the environment successor differs".into()));
    }
    for (i, (&l, &a)) in from.indexed.iter().zip(&mv.indexed).enumerate() {
        let target = to.indexed[i];
        let reached = sem.local_successors(l, a, (performed, mv.env_action), env_next)?;
        if !reached.contains(&target) {
            return Ok(Err(format!(
                "agent {} does not reach {}",
                i + 1,
                sem.describe_local(target)
            )));
        }
    }
    let images = zero_one_images(sem, &mv.zo, performed, mv.env_action, env_next)?;
    let mut explained = LocalSet::empty(sem.space.size);
    for (prv, ps) in images.values() {
        let mut hit = false;
        for p in bits(*ps) {
            let l = sem.with_percept(prv, p);
            explained.insert(l);
            hit |= to.zo.contains(l);
        }
        if !hit {
            return Ok(Err(
                "a successor of a zero-one pair is missing from the abstract state".into(),
            ));
        }
    }
    if to.zo.iter().any(|l| !explained.contains(l)) || to.zo.is_empty() {
        return Ok(Err(
            "the abstract state holds a local state no pair leads to".into(),
        ));
    }
    Ok(Ok(()))
}
