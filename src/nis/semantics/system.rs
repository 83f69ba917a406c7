//! What the explicit deciders need of a transition system: initial states,
//! successors with the joint move that produces them, and the local states
//! of the indexed agents 1..m (whose labels the formulas and simulations read).
//! The concrete system S(n) ([`super::concrete`]) and the abstract system
//! S_ab(m) ([`super::abstraction`]) implement it.

use super::{bits, EnvId, LocalId, SemResult, Semantics};
use crate::lang::Source;
use crate::report::Deadline;
use std::fmt::Debug;
use std::hash::Hash;

pub trait System<'m> {
    // Send and 'static: a graph cut by the deadline frees its states on
    // another thread (see `Graph`'s Drop).
    type State: Clone + Eq + Hash + Debug + Send + 'static;
    type Move: Clone + Debug + Send + 'static;

    /// The initial global states (Definition 4 / Definition 13).
    fn initial(&mut self) -> SemResult<Vec<Self::State>>;

    /// Every successor with one joint move leading to it (duplicates removed).
    fn successors(&mut self, s: &Self::State) -> SemResult<Vec<(Self::Move, Self::State)>>;

    /// Local states of the indexed agents 1..m, in order.
    fn indexed<'a>(&self, s: &'a Self::State) -> &'a [LocalId];

    /// The environment's state, for environment labels.
    fn env(&self, s: &Self::State) -> EnvId;

    /// The exact semantics, for labels and printing.
    fn semantics(&mut self) -> &mut Semantics<'m>;

    fn semantics_ref(&self) -> &Semantics<'m>;

    /// A state in words, for the run that leads to a model error: the
    /// environment and the indexed agents.
    fn describe(&self, s: &Self::State) -> String {
        let sem = self.semantics_ref();
        let mut parts = vec![format!("environment {}", sem.describe_env(self.env(s)))];
        for (i, &l) in self.indexed(s).iter().enumerate() {
            parts.push(format!("agent {} {}", i + 1, sem.describe_local(l)));
        }
        parts.join(", ")
    }

    /// Size of a state in concrete global states (a counter state stands for
    /// every ordering of its non-indexed agents).
    fn multiplicity(&self, _s: &Self::State) -> u128 {
        1
    }
}

/// The first choices of every joint move (Definition 5): the environment's
/// enabled actions at `env`, and each indexed agent's at its local state.
pub fn enabled_choices(
    sem: &mut Semantics,
    env: EnvId,
    indexed: &[LocalId],
) -> SemResult<(Vec<usize>, Vec<Vec<usize>>)> {
    let env_actions: Vec<usize> = bits(sem.env_protocol(env)?).collect();
    let mut agents = Vec::with_capacity(indexed.len());
    for &l in indexed {
        agents.push(bits(sem.protocol(l)?).collect());
    }
    Ok((env_actions, agents))
}

/// The most joint choices one expansion may enumerate: past it (a state of
/// 199 indexed agents with two actions each has 2^199 joint moves) the
/// explicit deciders refuse the model instead of running without end.
pub const MAX_JOINT_CHOICES: u128 = 1 << 24;

/// Calls `f` with every index vector of the product `0..sizes[0] x 0..sizes[1] x ...`.
///
/// A product larger than [`MAX_JOINT_CHOICES`] is refused before any call,
/// with an error located in the model `source`.
pub fn for_each_product(
    source: &Source,
    sizes: &[usize],
    f: impl FnMut(&[usize]) -> SemResult<()>,
) -> SemResult<()> {
    for_each_product_until(source, sizes, Deadline::NONE, f)
}

/// How many index vectors [`for_each_product_until`] visits between two
/// looks at the clock.
const VECTORS_PER_CLOCK_CHECK: usize = 256;

/// [`for_each_product`] that stops early, without an error, once `deadline`
/// has passed: the caller must then treat what `f` collected as incomplete
/// (the deadline tells the two endings apart).
pub fn for_each_product_until(
    source: &Source,
    sizes: &[usize],
    deadline: Deadline,
    mut f: impl FnMut(&[usize]) -> SemResult<()>,
) -> SemResult<()> {
    if sizes.contains(&0) {
        return Ok(());
    }
    let count = sizes
        .iter()
        .try_fold(1u128, |acc, &n| acc.checked_mul(n as u128))
        .filter(|&c| c <= MAX_JOINT_CHOICES);
    if count.is_none() {
        return Err(joint_choice_error(source, sizes.len()));
    }
    let mut idx = vec![0usize; sizes.len()];
    for visited in 1usize.. {
        f(&idx)?;
        if visited % VECTORS_PER_CLOCK_CHECK == 0 && deadline.expired() {
            return Ok(());
        }
        let mut i = sizes.len();
        loop {
            if i == 0 {
                return Ok(());
            }
            i -= 1;
            idx[i] += 1;
            if idx[i] < sizes[i] {
                break;
            }
            idx[i] = 0;
        }
    }
    Ok(())
}

/// The refusal of a state with more than [`MAX_JOINT_CHOICES`] joint choices.
pub fn joint_choice_error(source: &Source, choosers: usize) -> Box<crate::lang::SourceError> {
    crate::lang::error_at(
        source,
        crate::lang::Span::default(),
        format!(
            "a state of this system has more than {MAX_JOINT_CHOICES} joint choices ({choosers} choosers); \
             the explicit search cannot enumerate them (try --engine milp, or fewer agents)"
        ),
    )
}

/// How many ways [`compositions`] finds: C(total + parts - 1, parts - 1),
/// saturating at `u128::MAX`, computed without enumerating them.
pub fn composition_count(total: u32, parts: usize) -> u128 {
    if parts == 0 {
        return u128::from(total == 0);
    }
    let (n, k) = (u128::from(total) + parts as u128 - 1, parts as u128 - 1);
    let k = k.min(n - k);
    let mut count: u128 = 1;
    for i in 0..k {
        // count * (n - i) / (i + 1) stays exact: count is C(n, i) here.
        count = match count.checked_mul(n - i) {
            Some(c) => c / (i + 1),
            None => return u128::MAX,
        };
    }
    count
}

/// Every way to split `total` agents into `parts` ordered groups (weak compositions).
pub fn compositions(total: u32, parts: usize) -> Vec<Vec<u32>> {
    if parts == 0 {
        return if total == 0 {
            vec![Vec::new()]
        } else {
            Vec::new()
        };
    }
    if parts == 1 {
        return vec![vec![total]];
    }
    let mut out = Vec::new();
    for first in 0..=total {
        for mut rest in compositions(total - first, parts - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

/// The non-empty subsets of a mask, as masks.
pub fn nonempty_submasks(mask: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut sub = mask;
    while sub != 0 {
        out.push(sub);
        sub = (sub - 1) & mask;
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinatorics_by_hand() {
        assert_eq!(compositions(2, 2), vec![vec![0, 2], vec![1, 1], vec![2, 0]]);
        assert_eq!(compositions(3, 3).len(), 10);
        for (total, parts) in [
            (0, 0),
            (2, 0),
            (0, 3),
            (2, 2),
            (3, 3),
            (5, 1),
            (4, 4),
            (6, 3),
        ] {
            assert_eq!(
                composition_count(total, parts),
                compositions(total, parts).len() as u128,
                "{total} into {parts}"
            );
        }
        // 10^6 agents into 3 groups: C(1000002, 2) = 500001500001.
        assert_eq!(composition_count(1_000_000, 3), 500_001_500_001);
        assert_eq!(nonempty_submasks(0b101), vec![0b001, 0b100, 0b101]);
        let source = Source::new("m.nis", "agent a {}");
        let mut seen = Vec::new();
        for_each_product(&source, &[2, 3], |i| {
            seen.push(i.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[5], vec![1, 2]);
        // 2^24 joint choices are enumerable, 2^24 + 1 are refused before
        // the first call (and so are 2^199, whose count overflows u128).
        let mut calls = 0u32;
        let wide = [2usize; 199];
        let refused = for_each_product(&source, &wide, |_| {
            calls += 1;
            Ok(())
        });
        assert!(refused
            .unwrap_err()
            .message
            .contains("joint choices (199 choosers)"));
        let over = [4096usize, 4097];
        assert!(for_each_product(&source, &over, |_| Ok(())).is_err());
        assert_eq!(calls, 0);
    }

    /// One expansion of a large M(n) (2^20 joint moves here) stops at the
    /// deadline instead of running to its end (issue 33, item 6): the
    /// deadline passes during the first call, and the clock is looked at
    /// every [`VECTORS_PER_CLOCK_CHECK`] vectors, so exactly that many are
    /// visited, however slow the machine.
    #[test]
    fn a_product_stops_at_the_deadline_that_passes_during_it() {
        let source = Source::new("m.nis", "agent a {}");
        let deadline = Deadline::after(std::time::Duration::from_millis(5));
        let mut calls = 0usize;
        for_each_product_until(&source, &[2; 20], deadline, |_| {
            if calls == 0 {
                while !deadline.expired() {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(calls, VECTORS_PER_CLOCK_CHECK);
        // Without a deadline every vector is visited.
        let mut all = 0usize;
        for_each_product_until(&source, &[2; 12], Deadline::NONE, |_| {
            all += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(all, 1 << 12);
    }
}
