//! The MILP decider for the concrete system S(n) (seed Section 3/4; the
//! issue's "Decider 1"). The system is unrolled k steps (k = the temporal
//! depth, Definition 9) as one mixed-integer program over HiGHS: per step and
//! agent a network copy (binaries only for unstable neurons), the percept
//! choice (any maximal output), the action choice under the protocol, the
//! guarded updates by big-M (`unroll`); the existential formula on top
//! (`formula`). Existential sentences: feasible = holds, the solution is a
//! witness. Universal ones: the existential dual is solved, infeasible =
//! holds, a solution is a counterexample. Every solution is decoded
//! (`decode`) and replayed through the semantics (exact for finite models,
//! f64 with tolerances for real-valued ones) before it counts.
//! `encode` and `ops` turn expressions into MILP expressions; `ranges`
//! finds updates that leave their declared range.

mod abstract_decode;
mod abstract_formula;
mod abstract_slots;
mod abstract_unroll;
mod concretize;
mod cover;
mod decode;
mod encode;
mod formula;
mod ops;
mod ranges;
mod real;
mod slots;
mod ties;
mod unroll;

#[cfg(test)]
mod abstract_tests;
#[cfg(test)]
mod tests;

pub use abstract_decode::check_abstract;
pub use abstract_slots::check_abstract_slots;

use super::checker::{lower, WitnessTree};
use super::concrete::{CMove, CState};
use super::formula::{Kind, Sentence};
use super::model::Model;
use super::replay::replay_concrete;
use super::semantics::Semantics;
use crate::milp::{EncodeOptions, LinExpr, Objective, SolveOptions, Status};
use crate::report::RunError;
use encode::{code_val, milp_error, one_hot, value_val};
use formula::Unrolling;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Instant;
use unroll::{AgentState, State};

/// Options of the MILP decider (the CLI fills them from its flags).
#[derive(Clone, Debug)]
pub struct MilpOptions {
    /// Order the interchangeable agents m+1..n (`--no-symmetry-breaking` turns it off).
    pub symmetry_breaking: bool,
    /// HiGHS threads and time limit.
    pub solve: SolveOptions,
    /// How network copies get their bounds.
    pub encode: EncodeOptions,
    /// Decide M_ab(m) by the slot encoding even when the template is finite
    /// (`--zero-one slots`; the slot encoding is the only one for real-valued templates).
    pub zero_one_slots: bool,
    /// Most slots of the zero-one agent in one MILP (the slots grow as B^depth).
    pub max_slots: usize,
}

impl Default for MilpOptions {
    fn default() -> Self {
        MilpOptions {
            symmetry_breaking: true,
            solve: SolveOptions::default(),
            encode: EncodeOptions::default(),
            zero_one_slots: false,
            max_slots: slots::MAX_SLOTS,
        }
    }
}

/// The encoder's state: the MILP under construction and what names and
/// enumerations need.
pub struct Enc<'m> {
    pub model: &'m Model,
    pub milp: crate::milp::Model,
    pub encode: EncodeOptions,
    /// Members per enumeration id (percepts, actions, enumerated variables).
    pub enum_sizes: HashMap<usize, usize>,
    pub counter: usize,
    /// Name stem of the variables being added (step and agent).
    pub prefix: String,
    pub network_copies: usize,
    pub network_binaries: usize,
    /// Update values that may leave their declared range.
    pub range_checks: Vec<ranges::RangeCheck>,
    /// Child positions per slot of the zero-one agent (M_ab(m); unused in M(n)).
    pub branching: usize,
    /// Slots created so far, and their cap ([`MilpOptions::max_slots`]).
    pub slot_count: usize,
    pub max_slots: usize,
    /// While set, updates count for the range check only when it is 1 (a slot's active flag).
    pub range_guard: Option<LinExpr>,
}

impl<'m> Enc<'m> {
    fn new(model: &'m Model, encode: EncodeOptions) -> Self {
        let mut enum_sizes = HashMap::new();
        let t = &model.template;
        enum_sizes.insert(t.percept_enum, t.percepts.len());
        enum_sizes.insert(t.action_enum, t.actions.len());
        enum_sizes.insert(model.env.action_enum, model.env.actions.len());
        for v in t.vars.iter().chain(&model.env.vars) {
            if let crate::lang::DeclType::Enum { id, values } = &v.ty {
                enum_sizes.insert(*id, values.len());
            }
        }
        Enc {
            model,
            milp: crate::milp::Model::new(),
            encode,
            enum_sizes,
            counter: 0,
            prefix: String::new(),
            network_copies: 0,
            network_binaries: 0,
            range_checks: Vec::new(),
            branching: 0,
            slot_count: 0,
            max_slots: slots::MAX_SLOTS,
            range_guard: None,
        }
    }

    /// S(n)'s initial state with the environment at `env` (codes): every
    /// agent at the template's initial local state (Definition 4).
    fn initial(&self, n: usize, env: &[i64]) -> State {
        let t = &self.model.template;
        let agent = AgentState {
            private: t
                .init
                .iter()
                .zip(&t.vars)
                .map(|(v, d)| value_val(v, enum_len(&d.ty)))
                .collect(),
            percept: one_hot(t.init_percept, t.percepts.len()),
        };
        State {
            agents: vec![agent; n],
            env: self
                .model
                .env
                .vars
                .iter()
                .zip(env)
                .map(|(d, &c)| code_val(&d.ty, c))
                .collect(),
            zero_one: Vec::new(),
        }
    }
}

fn enum_len(ty: &crate::lang::DeclType) -> usize {
    match ty {
        crate::lang::DeclType::Enum { values, .. } => values.len(),
        _ => 0,
    }
}

/// Sizes and times of the MILPs of one check.
#[derive(Default)]
struct Sizes {
    milps: usize,
    variables: usize,
    binaries: usize,
    integers: usize,
    constraints: usize,
    network_copies: usize,
    network_binaries: usize,
    symmetry_rows: usize,
    /// Slots of the zero-one agent (M_ab(m) by slots).
    slots: usize,
    /// Solutions refused for an argmax near-tie and cut off (`ties`).
    tie_cuts: usize,
    solving: SolveCounts,
}

/// Solve time and infeasibility confirmations, summed over a check's MILPs.
#[derive(Default)]
pub(super) struct SolveCounts {
    solve_s: f64,
    /// Infeasibility claims re-solved without presolve.
    confirmations: usize,
    /// Of those, the second solves that disagreed.
    presolve_disagreements: usize,
}

impl SolveCounts {
    /// Adds the report statistics of these counts.
    fn put_stats(&self, stats: &mut serde_json::Map<String, Value>) {
        stats.insert(
            "infeasibility_confirmations".into(),
            self.confirmations.into(),
        );
        stats.insert(
            "presolve_disagreements".into(),
            self.presolve_disagreements.into(),
        );
        stats.insert("solve_time_s".into(), self.solve_s.into());
    }
}

/// Solves a feasibility MILP of the deciders. A tight feasibility tolerance
/// keeps solutions close to the semantics (they are replayed) and avoids wrong
/// infeasibility claims of HiGHS's presolve seen on these models; an
/// infeasibility is a verdict no replay can check, so it gets a second
/// opinion without presolve.
fn solve_confirmed(
    milp: &crate::milp::Model,
    opts: &MilpOptions,
    counts: &mut SolveCounts,
) -> Result<crate::milp::Outcome, RunError> {
    let mut solve = opts.solve.clone();
    solve
        .feasibility_tolerance
        .get_or_insert(crate::milp::tolerance::FEASIBILITY);
    let mut out = milp
        .solve(&Objective::Feasibility, &solve)
        .map_err(milp_error)?;
    counts.solve_s += out.time.as_secs_f64();
    if out.status == Status::Infeasible {
        solve.presolve = false;
        out = milp
            .solve(&Objective::Feasibility, &solve)
            .map_err(milp_error)?;
        counts.solve_s += out.time.as_secs_f64();
        counts.confirmations += 1;
        if out.status != Status::Infeasible {
            counts.presolve_disagreements += 1;
        }
    }
    Ok(out)
}

/// What one MILP (one initial environment state) answered.
enum Answer {
    Infeasible,
    Witness(WitnessTree<CState, CMove>),
}

fn solve_one(
    model: &Model,
    sem: &mut Semantics,
    goal: &super::checker::Core,
    (n, m): (usize, usize),
    env0: &[i64],
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer, RunError> {
    let mut enc = Enc::new(model, opts.encode.clone());
    let mut u = Unrolling {
        states: vec![enc.initial(n, env0)],
        rounds: vec![None],
    };
    let root = enc.formula(goal, goal.root, 0, &mut u)?;
    let holds = root.value();
    if encode::constant(&holds) == Some(0.0) {
        sizes.milps += 1;
        return Ok(Answer::Infeasible);
    }
    ranges::check_ranges(&enc, &opts.solve)?;
    enc.milp.ge("goal", holds, 1.0).map_err(milp_error)?;
    if opts.symmetry_breaking {
        sizes.symmetry_rows += enc.break_symmetry(&u, m)?;
    }
    let st = enc.milp.stats();
    sizes.milps += 1;
    sizes.variables = sizes.variables.max(st.variables);
    sizes.binaries = sizes.binaries.max(st.binaries);
    sizes.integers = sizes.integers.max(st.integers);
    sizes.constraints = sizes.constraints.max(st.constraints);
    sizes.network_copies = sizes.network_copies.max(enc.network_copies);
    sizes.network_binaries = sizes.network_binaries.max(enc.network_binaries);
    for _ in 0..=ties::MAX_TIE_CUTS {
        let out = solve_confirmed(&enc.milp, opts, &mut sizes.solving)?;
        let sol = match (out.status, out.solution) {
            (Status::Infeasible, _) => return Ok(Answer::Infeasible),
            (Status::Optimal | Status::Feasible, Some(sol)) => sol,
            (_, _) => {
                return Err(RunError::Internal(format!(
                    "the MILP decider is undetermined: {}",
                    out.reason.unwrap_or_else(|| "no answer from HiGHS".into())
                )))
            }
        };
        if let Err(why) = enc.milp.check(&sol, crate::milp::tolerance::SOLUTION_CHECK) {
            return Err(RunError::Internal(format!(
                "HiGHS returned a point that violates the MILP: {why}"
            )));
        }
        if let Some(tie) = ties::find(sem, &sol, &u)? {
            enc.cut_near_tie(&u, &tie)?;
            sizes.tie_cuts += 1;
            continue;
        }
        let mut d = decode::Decoder {
            sol: &sol,
            sem,
            u: &u,
            m,
        };
        return Ok(Answer::Witness(d.tree(&root)));
    }
    Err(RunError::Internal(format!(
        "the MILP decider is undetermined: its solutions took {} argmax near-ties that the f64 network breaks",
        ties::MAX_TIE_CUTS + 1
    )))
}

/// The outcome of a MILP check: verdict, replayed witness rendered as the
/// explicit decider renders it, and the sizes.
pub struct MilpOutcome {
    pub holds: bool,
    pub witness: Option<Value>,
    pub witness_text: Option<String>,
    pub stats: serde_json::Map<String, Value>,
}

/// Decides phi\[m\] (Lemma 1) on M(n) by MILP; every witness or
/// counterexample is replayed through the exact semantics (Definition 5).
pub fn check_concrete(
    model: &Model,
    sentence: &Sentence,
    n: usize,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    let start = Instant::now();
    let (goal, universal) = existential_goal(model, sentence)?;
    let m = sentence.agents();
    if n < m {
        return Err(RunError::input(format!(
            "the formula names {m} agents but the system has {n}"
        )));
    }
    let kind = sentence.kind();
    if model.explicit_obstacle().is_some() {
        // Real-valued or interval-initialised: replayed in f64 (`real`).
        let mut sizes = Sizes::default();
        let a = real::check_real(model, &goal, universal, (n, m), false, opts, &mut sizes)?;
        let shown = real::replay_and_render(model, &a.trees, kind == Kind::Universal)?;
        let mut stats = stats_of(&sizes, start);
        stats.extend(a.extra);
        return Ok(real::outcome(a.holds, shown, stats));
    }
    // Traces are replayed through the finite semantics, which needs a finite model.
    let mut sem = Semantics::new(model).map_err(|why| {
        RunError::input(format!(
            "the MILP decider replays every trace through the finite semantics, which cannot take this model: {why}"
        ))
    })?;
    let mut sizes = Sizes::default();
    let mut holds = true;
    let mut witnesses = Vec::new();
    for env in sem.initial_envs()? {
        let codes = sem.env_codes(env).to_vec();
        match solve_one(model, &mut sem, &goal, (n, m), &codes, opts, &mut sizes)? {
            Answer::Infeasible if !universal => {
                holds = false;
                witnesses.clear();
                break;
            }
            Answer::Witness(w) if universal => {
                holds = false;
                witnesses = vec![w];
                break;
            }
            Answer::Witness(w) => witnesses.push(w),
            Answer::Infeasible => {}
        }
    }
    let mut traces = Vec::new();
    for w in &witnesses {
        match replay_concrete(&mut sem, w)? {
            Ok(t) => traces.push(t),
            Err(why) => return Err(super::engine::internal("MILP trace", why)),
        }
    }
    let (witness, witness_text) =
        super::engine::render_concrete(&sem, &traces, kind == Kind::Universal);
    Ok(MilpOutcome {
        holds,
        witness,
        witness_text,
        stats: stats_of(&sizes, start),
    })
}

/// What every MILP decider solves: the sentence's existential core, or for
/// a universal sentence the core of its negation (whose solutions are
/// counterexamples); the flag says which. Mixed sentences are refused.
fn existential_goal(
    model: &Model,
    sentence: &Sentence,
) -> Result<(super::checker::Core, bool), RunError> {
    let core = lower(sentence, model)?;
    if core.has_universal() && core.has_existential() {
        return Err(RunError::input(
            "the MILP decider needs a sentence whose path quantifiers are all A or all E",
        ));
    }
    let universal = core.has_universal();
    Ok((if universal { core.negate() } else { core }, universal))
}

/// The sizes and times of one check as report statistics.
fn stats_of(sizes: &Sizes, start: Instant) -> serde_json::Map<String, Value> {
    let mut stats = serde_json::Map::new();
    let mut put = |k: &str, v: Value| {
        stats.insert(k.to_string(), v);
    };
    put("milps", sizes.milps.into());
    put("milp_variables", sizes.variables.into());
    put("milp_binaries", sizes.binaries.into());
    put("milp_integers", sizes.integers.into());
    put("milp_constraints", sizes.constraints.into());
    put("network_copies", sizes.network_copies.into());
    put("network_binaries", sizes.network_binaries.into());
    put("symmetry_rows", sizes.symmetry_rows.into());
    if sizes.slots > 0 {
        put("zero_one_slots", sizes.slots.into());
    }
    if sizes.tie_cuts > 0 {
        put("near_tie_cuts", sizes.tie_cuts.into());
    }
    put("total_time_s", start.elapsed().as_secs_f64().into());
    sizes.solving.put_stats(&mut stats);
    stats
}
