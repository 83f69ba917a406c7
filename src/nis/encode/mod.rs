//! The MILP deciders of NIS (Sections 3 and 4 of Kouvaros et al., IJCAI
//! 2024): a system is unrolled k steps (k = the temporal depth, Definition 9)
//! into one mixed-integer program over HiGHS ([`crate::milp`]), with the
//! existential formula on top. Existential sentences: feasible = holds, the
//! solution is a witness. Universal ones: the existential dual is solved,
//! infeasible = holds, a solution is a counterexample. Every solution is
//! decoded and replayed through the semantics (exact for finite models, f64
//! with tolerances for real-valued ones) before it counts.
//!
//! The systems implement one trait, [`unrolling::Unrolling`]:
//!
//! |                | finite model                      | real-valued model        |
//! |----------------|-----------------------------------|--------------------------|
//! | M(n)           | [`concrete`], exact replay        | [`concrete`], f64 replay |
//! | M_ab(m)        | [`tabulated`] (or [`slots`] on request) | [`slots`], concretized |
//!
//! [`formula`] encodes the formula over any of them, [`decide`] solves and
//! loops over the initial states ([`starts`]; intervals by [`cover`], or
//! split into boxes for universal sentences, [`split`]).
//! [`expr`] turns checked expressions into MILP expressions, [`round`] adds
//! one round of Definition 5, [`ranges`] finds updates that leave their
//! declared range.

mod box_proof;
mod box_witness;
mod breach;
mod concrete;
mod concretize;
mod confirm;
mod cover;
mod decide;
mod encoded;
mod expr;
mod falsify;
mod falsify_walk;
mod finite;
mod formula;
mod guards;
mod initial;
mod named;
mod options;
mod ranges;
mod round;
mod search_first;
mod slots;
mod split;
mod starts;
mod state;
mod stats;
mod strategic;
mod strategic_exact;
mod strategic_f64;
mod tabulated;
mod tabulated_unrolling;
mod ties;
mod unrolling;

#[cfg(test)]
mod tabulated_tests;
#[cfg(test)]
mod tests;

use super::front::core::{Core, Lowered};
use super::front::formula::Kind;
use super::front::model::{InitPercept, Model};
use super::semantics::{EnvId, Semantics};
use super::witness::internal;
use super::witness::replay::exact::{replay_abstract, replay_concrete};
use super::witness::shown::Witness;
use super::witness::trace::{abstract_trace, concrete_trace};
use crate::report::{Outcome, RunError};
use concrete::{Concrete, Exact};
use decide::{decide, runs_checked, solve, Answer};
pub use falsify::falsify_universal;
use finite::semantics;
use initial::Start;
pub use options::{FalsifyOptions, MilpOptions, MilpOutcome, SplitOptions};
pub use stats::{
    BoxStats, FalsifyStats, MilpForm, MilpStats, RealStats, Sizes, SolveCounts, SplitStats,
};
use std::time::Instant;
use tabulated::Tabulated;

/// Decides phi\[m\] (Lemma 1) on M(n) by MILP; every witness or
/// counterexample is replayed through the semantics (Definition 5).
pub fn check_concrete(
    model: &Model,
    sentence: &Lowered,
    n: usize,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    let start = Instant::now();
    let (goal, universal) = existential_goal(sentence)?;
    let m = sentence.agents();
    if n < m {
        return Err(RunError::input(format!(
            "the formula names {m} agents but the system has {n}"
        )));
    }
    let counterexample = sentence.kind() == Kind::Universal;
    let mut sizes = Sizes::default();
    if model.explicit_obstacle().is_some() {
        // The template agents' observed first percepts are covered per
        // percept (cover.rs); a named agent's is not covered yet.
        let mut named = model.named.iter().map(|a| a.template.init_percept);
        if !universal && named.any(|p| p == InitPercept::Observed) {
            return Err(observed_ties_refused());
        }
        // Real-valued or interval-initialised: replayed in f64.
        let a = starts::decide_f64(model, &goal, universal, (n, m), false, opts, &mut sizes)?;
        let witness = starts::replay_f64(model, &a.trees, counterexample)?;
        let mut stats = MilpStats::new(MilpForm::Unrolling, sizes, start);
        stats.real = a.extra;
        return Ok(Outcome::decided(a.holds, witness, stats));
    }
    let mut sem = semantics(
        model,
        "the MILP decider replays every trace through the finite semantics, which",
    )?;
    let envs = sem.initial_envs()?;
    let starts = first_percept_starts(&mut sem, &envs, (n, m), universal)?;
    let mut searched = (opts.falsify.samples > 0).then(FalsifyStats::default);
    let d = decide(starts, universal, |(env, pin)| {
        if let Some(stats) = searched.as_mut() {
            let found = witness_first(&mut sem, &goal, (n, m), (env, pin.as_deref()), opts, stats)?;
            if let Some(w) = found {
                let start = Start::Codes(sem.env_codes(env).to_vec());
                let mut u = Concrete::new(model, opts, (n, m), start, Exact { sem: &mut sem });
                u.enc.first_percepts = pin;
                if runs_checked(&mut u, &goal, opts, &mut sizes)? {
                    return Ok(Answer::Witness(w));
                }
                return Ok(Answer::NoStart);
            }
        }
        let start = Start::Codes(sem.env_codes(env).to_vec());
        let mut u = Concrete::new(model, opts, (n, m), start, Exact { sem: &mut sem });
        u.enc.first_percepts = pin;
        solve(&mut u, &goal, opts, &mut sizes)
    })?;
    let mut traces = Vec::new();
    for w in &d.witnesses {
        match replay_concrete(&mut sem, w)? {
            Ok(t) => traces.push(t),
            Err(why) => return Err(internal("MILP trace", why)),
        }
    }
    let witness = concrete_trace(&sem, &traces, counterexample).map(Witness::Trace);
    let mut stats = MilpStats::new(MilpForm::Unrolling, sizes, start);
    stats.real.falsify = searched;
    Ok(Outcome::decided(d.holds, witness, stats))
}

/// Search first ([`search_first`], the module): a run from `start` on which the goal
/// holds, found by the f64 walk and replayed through the exact semantics;
/// `None` when the walk finds none or its run does not replay.
fn witness_first(
    sem: &mut Semantics,
    goal: &Core,
    (n, m): (usize, usize),
    (env, pin): (EnvId, Option<&[usize]>),
    opts: &MilpOptions,
    stats: &mut FalsifyStats,
) -> Result<Option<search_first::CounterTree>, RunError> {
    let start = search_first::SearchStart { env, pin };
    let deadline = &opts.solve.deadline;
    let found =
        search_first::search_witness(sem, goal, (n, m), &start, &opts.falsify, deadline, stats)?;
    let Some(tree) = found else {
        return Ok(None);
    };
    let replays = replay_concrete(sem, &tree)?.is_ok();
    stats.unreplayed += usize::from(!replays);
    Ok(replays.then_some(tree))
}

/// An initial environment state and, when they are pinned, the template
/// agents' first percepts.
type TiedStart = (EnvId, Option<Vec<usize>>);

/// The most starts one check of M(n) enumerates for tied first percepts.
pub const MAX_TIED_STARTS: usize = 512;

/// The starts of M(n), one MILP each: the initial environment states, and
/// for an existential sentence whose template's first percept is observed
/// and ties there, every initial state of M(n) (Definition 4) at it: each
/// indexed agent at any tied percept, agents m+1..n as a multiset (sorted
/// percepts). The MILP chooses a tied first percept as it chooses a move,
/// which is right for a counterexample (some initial state) but an
/// existential sentence must hold from every initial state.
fn first_percept_starts(
    sem: &mut Semantics,
    envs: &[EnvId],
    (n, m): (usize, usize),
    universal: bool,
) -> Result<Vec<TiedStart>, RunError> {
    let mut out = Vec::new();
    for &env in envs {
        let locals = sem.initial_locals(env)?;
        if universal || locals.len() <= 1 {
            out.push((env, None));
            continue;
        }
        let percepts: Vec<usize> = locals
            .iter()
            .map(|&l| sem.space.decode(l).last().copied().unwrap_or(0) as usize)
            .collect();
        for pin in tied_assignments(&percepts, n, m, MAX_TIED_STARTS + 1) {
            out.push((env, Some(pin)));
        }
        if out.len() > MAX_TIED_STARTS {
            return Err(RunError::input(format!(
                "the first percept ties at the initial state: M({n}) has more than {MAX_TIED_STARTS} initial states, one MILP each for an existential sentence; use --engine explicit or fewer agents"
            )));
        }
    }
    Ok(out)
}

/// Every assignment of `options` to n agents, agents 0..m each freely and
/// agents m..n non-decreasing (a multiset); at most `cap` of them.
fn tied_assignments(options: &[usize], n: usize, m: usize, cap: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for i in 0..n {
        let mut next = Vec::new();
        for a in &out {
            // Position in `options` of the previous unindexed agent's choice.
            let from = if i > m {
                let last = a[i - 1];
                options.iter().position(|&o| o == last).unwrap_or(0)
            } else {
                0
            };
            for &o in &options[from..] {
                let mut b = a.clone();
                b.push(o);
                next.push(b);
            }
            if next.len() > cap {
                break;
            }
        }
        out = next;
        out.truncate(cap);
    }
    out
}

/// M_ab(m) by MILP does not enumerate tied first percepts (the zero-one
/// agent may start as any non-empty set of them): an existential sentence
/// there is refused when the first percept ties.
fn refuse_observed_ties(
    sem: &mut Semantics,
    envs: &[EnvId],
    universal: bool,
) -> Result<(), RunError> {
    if universal || sem.model.template.init_percept != InitPercept::Observed {
        return Ok(());
    }
    for &env in envs {
        if sem.initial_locals(env)?.len() > 1 {
            return Err(observed_ties_refused());
        }
    }
    Ok(())
}

fn observed_ties_refused() -> RunError {
    RunError::input(
        "the MILP decider does not yet decide existential sentences on real-valued models whose first percept is observed (`= observe`) in a named agent, nor on M_ab(m) when that percept ties at the initial state: use --engine explicit (finite models), or a given first percept",
    )
}

/// Decides phi\[m\] on the abstract system M_ab(m) (Definitions 12 and 13)
/// by MILP: tabulated for finite templates, by slots for the others (or on
/// request). Every witness or counterexample is replayed.
pub fn check_abstract(
    model: &Model,
    sentence: &Lowered,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    if opts.zero_one_slots || model.explicit_obstacle().is_some() {
        return check_abstract_slots(model, sentence, opts);
    }
    let start = Instant::now();
    let (goal, universal) = existential_goal(sentence)?;
    let m = sentence.agents();
    let mut sem = semantics(model, "the tabulated MILP decider for M_ab(m)")?;
    let mut sizes = Sizes::default();
    let envs = sem.initial_envs()?;
    refuse_observed_ties(&mut sem, &envs, universal)?;
    // A tabulation that meets an update leaving its declared range (a
    // fault) is decided again by slots, whose range check covers every run
    // of the unrolling and names the run: the tabulated fault probe missed
    // faults reachable beyond the first round (issue 33: `AX^2` held over
    // a model whose first update leaves its range).
    let mut faults = false;
    let d = decide(envs, universal, |env0| {
        let mut u = Tabulated::new(&mut sem, m, env0);
        let answer = solve(&mut u, &goal, opts, &mut sizes);
        faults |= u.met_faults();
        match faults {
            true => Err(RunError::Internal("a fault: decided by slots".into())),
            false => answer,
        }
    });
    if faults {
        return check_abstract_slots(model, sentence, opts);
    }
    let d = d?;
    for w in &d.witnesses {
        if let Err(why) = replay_abstract(&mut sem, w)? {
            return Err(internal("MILP abstract trace", why));
        }
    }
    let witness = abstract_trace(&sem, &d.witnesses).map(Witness::Trace);
    Ok(Outcome::decided(
        d.holds,
        witness,
        MilpStats::new(MilpForm::Tabulated, sizes, start),
    ))
}

/// Decides phi\[m\] on M_ab(m) (Definitions 12 and 13) with the slot encoding.
/// The statistics name the number of agents of the concrete system in which
/// the counterexample (`counterexample_agents`) or the witnesses
/// (`witness_agents`, the largest) were replayed.
pub fn check_abstract_slots(
    model: &Model,
    sentence: &Lowered,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    let start = Instant::now();
    let (goal, universal) = existential_goal(sentence)?;
    let m = sentence.agents();
    let mut sizes = Sizes::default();
    let a = starts::decide_f64(model, &goal, universal, (m, m), true, opts, &mut sizes)?;
    let witness = starts::replay_f64(model, &a.trees, universal)?;
    let agents = a.trees.iter().map(|t| t.state.agents.len()).max();
    let mut stats = MilpStats::new(MilpForm::Unrolling, sizes, start);
    stats.real = a.extra;
    stats.replayed_in = agents.map(|n| (n, universal));
    // Agents m+1..n of M(n) follow the zero-one agent in the replay.
    let witness = witness.map(|w| match (w, agents) {
        (Witness::Trace(trace), Some(n)) => Witness::Concretized {
            trace,
            indexed: m,
            agents: n,
        },
        (w, _) => w,
    });
    Ok(Outcome::decided(a.holds, witness, stats))
}

/// What every MILP decider solves: the sentence's existential core, or for
/// a universal sentence the core of its negation (whose solutions are
/// counterexamples); the flag says which. Mixed sentences are refused.
fn existential_goal(sentence: &Lowered) -> Result<(Core, bool), RunError> {
    let core = &sentence.core;
    if core.has_universal() && core.has_existential() {
        return Err(RunError::input(
            "the MILP decider needs a sentence whose path quantifiers are all A or all E",
        ));
    }
    let universal = core.has_universal();
    Ok((
        if universal {
            core.negate()
        } else {
            core.clone()
        },
        universal,
    ))
}

pub use strategic_exact::check_strategic;
