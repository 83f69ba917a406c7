//! The interface of the MILP deciders: a system that can be unrolled into a
//! mixed-integer program, one layer of states per round (as
//! [`crate::nis::semantics::system::System`] is the interface of the explicit deciders).
//!
//! Three systems implement it: M(n) ([`super::concrete`], finite and
//! real-valued alike: integrality is a property of the variables), M_ab(m)
//! tabulated over the finite local states ([`super::tabulated`]) and M_ab(m)
//! with the zero-one agent as slots ([`super::slots`]). One encoder of the
//! formula ([`super::formula`]) and one solve loop ([`super::decide`]) serve
//! all three.

use super::encoded::Encoded;
use super::options::MilpOptions;
use super::ranges::Breach;
use super::stats::{Sizes, SolveCounts};
use crate::milp::{LinExpr, Model as Milp, ObbtStats, Solution};

/// A solution of an unrolling with what it is read along.
pub struct Solved<'a, S, R> {
    pub sol: &'a Solution,
    pub tree: &'a Unrolled<S, R>,
    pub root: &'a Encoded,
}
use crate::report::RunError;

/// The round that led to a state of the unrolling, and the state it left.
pub struct Step<R> {
    pub from: usize,
    pub round: R,
}

/// The states of one unrolling as a tree: state 0 is initial; every other
/// state `i` was reached by `steps[i]` (one successor copy per `EX`).
pub struct Unrolled<S, R> {
    pub states: Vec<S>,
    pub steps: Vec<Option<Step<R>>>,
    /// States whose agents' percepts were not encoded
    /// ([`Unrolling::round_unobserved`]).
    pub unobserved: Vec<usize>,
}

impl<S, R> Unrolled<S, R> {
    /// The unrolling of the initial state alone.
    pub fn new(initial: S) -> Self {
        Unrolled {
            states: vec![initial],
            steps: vec![None],
            unobserved: Vec::new(),
        }
    }

    /// The step into state `to` (not the initial state).
    pub fn step(&self, to: usize) -> &Step<R> {
        self.steps[to]
            .as_ref()
            .expect("every state but the initial one has a step")
    }
}

/// One branch of a strategic round: its combination of the others' actions
/// is `enabled` (0/1) at the state it leaves, which the run `reached` (0/1,
/// including this combination), the round and the successor.
pub struct Branch<R, S> {
    pub enabled: LinExpr,
    pub reached: LinExpr,
    pub round: R,
    pub state: S,
}

/// The branches of a strategic round, or why there are none.
pub type Branches<R, S> = Result<Vec<Branch<R, S>>, RunError>;

/// A round and the state it leads to.
pub type Stepped<U> = (<U as Unrolling>::Round, <U as Unrolling>::State);

/// A system the MILP decider can unroll. Every method adds variables and
/// rows to the MILP it owns ([`Unrolling::milp`]).
pub trait Unrolling {
    /// A state as MILP expressions.
    type State;
    /// The choices of one round (actions, performed set, contexts).
    type Round;
    /// A solution read back as a witness tree, to be replayed.
    type Witness;

    /// The program under construction.
    fn milp(&mut self) -> &mut Milp;

    /// The initial layer; `None` when the start given to this unrolling is
    /// not an initial state (an `init` condition excludes it).
    fn initial(&mut self) -> Result<Option<Self::State>, RunError>;

    /// 0/1: label `label` holds for indexed agent `agent` at `state` (for
    /// the environment's state when `agent` is `None`).
    fn label(
        &mut self,
        state: &Self::State,
        label: usize,
        agent: Option<usize>,
    ) -> Result<LinExpr, RunError>;

    /// One round from `from` (Definition 5, or 13 for M_ab(m)): the choices
    /// and the successor state; `tag` names its variables.
    fn round(
        &mut self,
        from: &Self::State,
        tag: &str,
    ) -> Result<(Self::Round, Self::State), RunError>;

    /// [`Unrolling::round`] without encoding the agents' observations of
    /// the successor, for a successor whose percepts nothing reads (no
    /// later round, no literal on them): its network copies are not built.
    /// `None`: this system encodes them anyway (the caller calls `round`).
    fn round_unobserved(
        &mut self,
        _from: &Self::State,
        _tag: &str,
    ) -> Result<Option<Stepped<Self>>, RunError> {
        Ok(None)
    }

    /// The branches of one round of a strategic sentence from `from` (ATL
    /// over named agents, [`super::strategic`]): the movers' actions are
    /// the solver's (shared by every branch, or one choice per branch when
    /// they move second); every combination of the others' actions is one
    /// [`Branch`]. `reached` (0/1) says that the run gets to `from`
    /// (every combination above it enabled): range checks count only there.
    /// Systems without named agents on their environment's side do not
    /// have such rounds.
    fn strategic_rounds(
        &mut self,
        _from: &Self::State,
        _play: Play,
        _reached: &LinExpr,
        _tag: &str,
    ) -> Branches<Self::Round, Self::State> {
        Err(RunError::input(
            "strategic sentences are decided on M(0) of named agents only",
        ))
    }

    /// What must hold of every run of the unrolling before a verdict counts
    /// (declared ranges, failing updates); called before the goal is added.
    /// Their MILPs' time and work go to `counts`.
    /// A run found that leaves a declared range is returned as a
    /// [`Breach`], which the caller turns into the error with the run.
    fn final_checks(
        &mut self,
        opts: &MilpOptions,
        counts: &mut SolveCounts,
    ) -> Result<Option<Breach>, RunError>;

    /// A state under a solution in words, for the run of a [`Breach`]
    /// (`None`: this system cannot say).
    fn describe(&self, _state: &Self::State, _sol: &Solution) -> Option<String> {
        None
    }

    /// Rows ordering interchangeable agents, added after the goal; their count.
    fn break_symmetry(&mut self, _tree: &Unrolled<Self::State, Self::Round>) -> usize {
        0
    }

    /// Records this encoding's own sizes (the MILP's are recorded by the caller).
    fn measure(&self, sizes: &mut Sizes);

    /// What bound tightening in the unrolled context did while encoding
    /// (nothing for systems whose networks it does not tighten).
    fn obbt(&self) -> ObbtStats {
        ObbtStats::default()
    }

    /// The witness tree of a solution along the encoded formula.
    fn decode(&mut self, s: Solved<Self::State, Self::Round>) -> Result<Self::Witness, RunError>;

    /// Cuts off a solution that relies on an argmax near-tie the f64 network
    /// breaks ([`super::ties`]), so that the MILP is solved again; false when
    /// the solution has none (or the system has no such ties).
    fn cut_near_tie(&mut self, _s: &Solved<Self::State, Self::Round>) -> Result<bool, RunError> {
        Ok(false)
    }
}

/// Who chooses by variables in a strategic round, and when.
#[derive(Clone, Copy, Debug)]
pub struct Play<'a> {
    /// The named agents whose actions are the solver's choice.
    pub movers: &'a [usize],
    /// The environment's action is the solver's choice too.
    pub env_moves: bool,
    /// The movers answer the others' combination (a choice per branch);
    /// otherwise they choose first, one choice shared by the node's branches.
    pub second: bool,
}

impl<'a> Play<'a> {
    /// `<<G>>`: G chooses first; every move of the others (the environment
    /// included) is a branch.
    pub fn coalition(g: &'a [usize]) -> Self {
        Play {
            movers: g,
            env_moves: false,
            second: false,
        }
    }

    /// The refutation of `<<G>>` (`others`: every named agent outside G):
    /// every move of G is a branch, answered by the others and the environment.
    pub fn refuting(others: &'a [usize]) -> Self {
        Play {
            movers: others,
            env_moves: true,
            second: true,
        }
    }
}
