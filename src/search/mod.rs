//! One search for the neural core (issue 32): falsify first, bound the
//! parts, decide the small ones by a leaf decision (a MILP), split the rest,
//! over any [`Problem`] with a box of real inputs.
//!
//! [`search`] runs, within one deadline:
//! 1. **falsification** of each root over its whole box ([`falsify()`]):
//!    the centre, the corners (up to [`falsify::MAX_CORNERS`]), Halton
//!    low-discrepancy points and seeded uniform points, then from the best
//!    of them signed gradient steps ([`Problem::gradient`]) and a pattern
//!    search; bounded to [`SearchOptions::falsify_share`] of the time left;
//! 2. a depth-first **branch and bound** over parts. Each part: bounds
//!    ([`Problem::bound`]) that may refute it outright; a short
//!    falsification of its box (not for roots); the **leaf decision**
//!    ([`Problem::leaf`], a small MILP within
//!    [`SearchOptions::leaf_budget`]) once its bounds have at most
//!    [`SearchOptions::leaf_unstable`] unstable neurons or its box cannot be
//!    split; otherwise it is **split**: its box halved along the input of
//!    largest influence times width ([`SplitRule`]), or, once
//!    [`SearchOptions::branch_after`] input splits in a row have not lowered
//!    the unstable count (or the box is too small), **branched** by the
//!    problem ([`Problem::branch`]: one unstable ReLU active, then
//!    inactive).
//! 3. Every point, sampled or the leaf's, is **replayed** by
//!    [`Problem::replay`] before it is reported; a leaf point that does not
//!    replay is counted ([`SearchStats::unreplayed`]) and its part split.
//!
//! Parts run in **parallel** on [`SearchOptions::threads`] worker threads
//! (std's scoped threads and channels: the work is coarse, a few to a few
//! thousand parts, so a work-stealing pool such as rayon would buy nothing
//! over a channel, and would be a new dependency). The order of work and
//! the answer do not depend on the number of threads (see [`driver`]).
//!
//! The layer imports only `nn` (the input box) and `report` (the
//! deadline); the deciders implement [`Problem`]: `milp::verify` for a
//! network and a VNN-LIB property (`mavis nn verify`). The sampler alone
//! ([`falsify()`]) needs only an [`Objective`]: the NIS MILP deciders
//! implement that much to falsify a universal sentence before their MILP
//! (`nis::encode::falsify`; the rest of the plan below is still to do).
//!
//! # Plan: the NIS unrolling as a [`Problem`]
//! An unrolled system with a sentence is the next implementor (the NIS
//! half of issue 32), in `nis` (an engine may import this shared layer):
//! - **input box**: the initial set's real variables (the agents' initial
//!   states left open by the model), one root per combination of the
//!   finite initial values, as VNN-LIB's input boxes are roots here;
//! - **excess**: the f64 domain of the one NIS semantics (issue 31): run
//!   the system from `x` for k steps, following every branch of
//!   nondeterminism when there are few and a seeded sample of them when
//!   there are many, and return how far the sentence is from failing (for
//!   a universal sentence: the least, over the paths, of the largest
//!   margin of the failed atoms; `<= 0` when a path violates it). An
//!   existential sentence over a real initial set is decided per part the
//!   other way round: a witness path per part (the leaf's MILP or
//!   simulation), a refutation as an initial state from which every
//!   branch fails;
//! - **replay**: the exact (rational) NIS semantics on the path found,
//!   as the NIS witnesses are replayed today;
//! - **bound**: linear relational bounds through the unrolled system
//!   (DeepPoly/CROWN over the composition network-environment-network,
//!   so that a state at step t is a linear function of the initial
//!   variables), refuting a part when the sentence's atoms are out of reach;
//!   `unstable` counts the unstable ReLUs of every network copy;
//! - **leaf**: today's MILP of the unrolling over the part's box, with the
//!   bounds as big-Ms, encoding only the copies the sentence reads;
//! - **branch**: an unstable ReLU of one copy (or a branch of the
//!   nondeterminism), as for a single network;
//! - **stats**: the NIS MILP counters (binaries, copies, nodes).
//!
//! What the NIS side needs from this driver that it does not have yet:
//! a per-root seed (done: the falsification seed is fixed per part),
//! `excess` over several paths (the problem's business), and a leaf
//! that may return a *witness path* for existential sentences, which the
//! driver treats as a [`Leaf::Candidate`] to replay.

pub mod driver;
pub mod falsify;
mod options;
mod problem;
pub mod split;

#[cfg(test)]
mod tests;

pub use driver::{search, Search};
pub use falsify::{falsify, FalsifyOptions};
pub use options::{Outcome, SearchOptions, SearchStats};
pub use problem::{Bounded, Leaf, Objective, Problem, Source};
pub use split::SplitRule;
