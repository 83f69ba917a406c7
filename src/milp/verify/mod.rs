//! Deciding a VNN-LIB property of a network (`mavis nn verify`) with the
//! shared search ([`crate::search`]): the network and the property are a
//! [`Problem`](crate::search::Problem) ([`problem::NetProblem`]), one root
//! per case (input box).
//!
//! Within one deadline: falsification of each case over its whole box
//! (seeded samples and a local search, exact in f64); then a depth-first
//! branch and bound over parts of the cases' boxes. Each part: interval
//! and symbolic bounds of the specification network ([`spec::Spec`])
//! refute the disjuncts they can; a short falsification of the part; then,
//! when the part has few unstable ReLUs, LP tightening and one MILP
//! encoding with one feasibility problem per open disjunct, within a time
//! budget; what is left open is split in two along the input of largest
//! influence (width times the gradient of the open atoms at the centre) or
//! the widest one, or, once input splits stop lowering the unstable ReLUs
//! (`branch_after`), on an unstable ReLU ([`phases`]).
//!
//! A MILP point is replayed in f64 ([`Network::eval`]) and accepted when one
//! of the case's disjuncts holds within [`tolerance::COUNTEREXAMPLE`]; one
//! that does not replay leaves the part open (it is split further), never
//! reported.

mod answer;
mod gradient;
mod options;
mod phases;
mod problem;
mod spec;

use super::model::MilpError;
use crate::nn::vnnlib::Property;
use crate::nn::Network;
use crate::search::{search, Outcome, SearchOptions};
pub use crate::search::{FalsifyOptions, SearchStats, Source, SplitRule};
use answer::replayed;
pub use answer::{Answer, Counterexample, Verification, VerifyStats};
pub use options::{VerifyOptions, BRANCH_AFTER};
use problem::NetProblem;
pub use spec::MilpCounts;

/// Decides `prop` for `net` (the sizes must match: the caller checks).
pub fn verify(
    net: &Network,
    prop: &Property,
    opts: &VerifyOptions,
) -> Result<Verification, MilpError> {
    assert_eq!(
        (prop.inputs, prop.outputs),
        (net.input_size(), net.output_size())
    );
    for (ci, case) in prop.cases.iter().enumerate() {
        if let Some(d) = case.disjuncts.iter().position(|d| d.is_empty()) {
            // An empty conjunction: every input of the box is unsafe.
            let x = case.input.lo.clone();
            if let Some(cex) = replayed(net, case, ci, d, x, Source::Sampling, 0.0) {
                return Ok(done(Answer::Violated(cex), VerifyStats::default()));
            }
        }
    }
    let problem = NetProblem::new(net, prop, opts);
    let run = search(&problem, &search_options(opts));
    if let Some(e) = problem.error.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let answer = match run.outcome {
        Outcome::Holds => Answer::Holds,
        Outcome::Violated(c) => Answer::Violated(c),
        Outcome::Deadline => Answer::Unknown(super::TIME_LIMIT.into()),
        Outcome::Unknown(why) => Answer::Unknown(why),
    };
    let (s, p) = (run.stats, run.problem_stats);
    let stats = VerifyStats {
        falsify_s: s.falsify_s,
        evaluations: s.samples,
        bounds_s: s.bound_s,
        lp_s: p.lp_s,
        milp: p.milp,
        boxes: s.parts,
        splits: s.input_splits + s.branches,
        root_unstable: p.root_unstable,
        root_lp: p.root_lp,
        unreplayed: s.unreplayed,
        search: s,
    };
    Ok(done(answer, stats))
}

/// The search's options from the verb's.
fn search_options(opts: &VerifyOptions) -> SearchOptions {
    SearchOptions {
        falsify: opts.falsify.clone(),
        part_falsify: opts.box_falsify.clone(),
        leaf_unstable: opts.milp_unstable,
        leaf_budget: opts.milp_budget,
        split: opts.split,
        branch_after: opts.branch_after,
        threads: opts.threads,
        deadline: opts.solve.deadline,
        meter: opts.meter.clone(),
        ..SearchOptions::default()
    }
}

fn done(answer: Answer, stats: VerifyStats) -> Verification {
    Verification { answer, stats }
}

#[cfg(test)]
mod tests;
