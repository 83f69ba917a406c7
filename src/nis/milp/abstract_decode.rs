//! The MILP decider for the abstract system M_ab(m) of finite templates
//! (seed Definitions 12 and 13; the "MILP decider" for the zero-one
//! abstraction), and the decoding of its solutions into the explicit
//! decider's abstract trace form, replayed by
//! [`crate::nis::replay::replay_abstract`] before they count.
//!
//! Existential sentences: feasible = holds, the solution is a witness.
//! Universal ones: the existential dual is solved, infeasible = holds, a
//! solution is a counterexample. Every infeasibility is confirmed by a second
//! solve without presolve (HiGHS's presolve once called a feasible MILP of
//! this project infeasible).

use super::abstract_formula::AbsEncoded;
use super::abstract_unroll::{AbsEnc, AbsUnrolling, Layer};
use super::encode::milp_error;
use super::{Enc, MilpOptions, MilpOutcome};
use crate::milp::{LinExpr, Objective, Solution, Status};
use crate::nis::abstraction::{AMove, AState, LocalSet};
use crate::nis::checker::{Core, WitnessTree};
use crate::nis::formula::Sentence;
use crate::nis::model::Model;
use crate::nis::replay::replay_abstract;
use crate::nis::semantics::{EnvId, Semantics};
use crate::report::RunError;
use serde_json::Value;
use std::time::Instant;

/// The index of the largest entry under the solution.
fn argmax<K: Copy>(sol: &Solution, v: &[(K, LinExpr)]) -> Option<K> {
    v.iter()
        .max_by(|a, b| sol.eval(&a.1).total_cmp(&sol.eval(&b.1)))
        .map(|(k, _)| *k)
}

/// Decodes a solution into a witness tree of [`AState`] / [`AMove`].
pub struct AbsDecoder<'a, 's, 'm> {
    pub sol: &'a Solution,
    pub sem: &'s Semantics<'m>,
    pub u: &'a AbsUnrolling,
    pub layers: &'a [Layer],
}

impl AbsDecoder<'_, '_, '_> {
    /// The abstract state `s`: the concrete agents' local states, the set of
    /// present local states, the environment state.
    pub fn state(&self, s: usize) -> AState {
        let st = &self.u.states[s];
        let mut zo = LocalSet::empty(self.sem.space.size);
        for (l, x) in &st.zo {
            if self.sol.eval(x) > 0.5 {
                zo.insert(*l);
            }
        }
        AState {
            indexed: st
                .agents
                .iter()
                .map(|a| argmax(self.sol, a).unwrap_or(0))
                .collect(),
            zo,
            env: argmax(self.sol, &st.env).unwrap_or(0),
        }
    }

    /// The move into state `to`: the active context's environment action,
    /// the concrete agents' actions, the zero-one agent's taken pairs grouped
    /// per present local state (ascending, as [`LocalSet::iter`]).
    pub fn amove(&self, to: usize) -> AMove {
        let round = self.u.rounds[to].as_ref().expect("a successor has a round");
        let from = &self.u.states[round.from];
        let layer = &self.layers[from.depth];
        let ctx: Vec<(usize, LinExpr)> = round.contexts.iter().cloned().enumerate().collect();
        let c = argmax(self.sol, &ctx).unwrap_or(0);
        let indexed = round
            .agents
            .iter()
            .map(|q| argmax(self.sol, q).map_or(0, |(_, a)| a))
            .collect();
        let mut zo: Vec<(u32, u64)> = Vec::new();
        for ((l, a), x) in &round.zo {
            if self.sol.eval(x) > 0.5 {
                match zo.iter_mut().find(|(k, _)| k == l) {
                    Some(g) => g.1 |= 1 << a,
                    None => zo.push((*l, 1 << a)),
                }
            }
        }
        zo.sort_unstable();
        AMove {
            env_action: layer.contexts[c].env_action,
            indexed,
            zo,
        }
    }

    /// The witness tree of `root` (which holds under the solution) at state 0.
    pub fn tree(&self, root: &AbsEncoded) -> WitnessTree<AState, AMove> {
        let mut t = WitnessTree {
            state: self.state(0),
            obligations: Vec::new(),
            children: Vec::new(),
        };
        self.fill(root, &mut t);
        t
    }

    fn fill(&self, e: &AbsEncoded, t: &mut WitnessTree<AState, AMove>) {
        match e {
            &AbsEncoded::Lit {
                label,
                agent,
                negated,
                ..
            } => t.obligations.push((label, agent, negated)),
            AbsEncoded::And(cs, _) => cs.iter().for_each(|c| self.fill(c, t)),
            AbsEncoded::Or(cs, _) => {
                // One disjunct the solution makes true (the OR row guarantees one).
                if let Some(c) = cs.iter().find(|c| self.sol.eval(&c.value()) > 0.5) {
                    self.fill(c, t);
                }
            }
            AbsEncoded::Next { to, child } => {
                let mut sub = WitnessTree {
                    state: self.state(*to),
                    obligations: Vec::new(),
                    children: Vec::new(),
                };
                self.fill(child, &mut sub);
                t.children.push((self.amove(*to), sub));
            }
        }
    }
}

/// Sizes and times of the MILPs of one abstract check.
#[derive(Default)]
pub(super) struct AbsSizes {
    milps: usize,
    variables: usize,
    binaries: usize,
    constraints: usize,
    contexts: usize,
    layer_locals: usize,
    /// Failing (pair, context) combinations shown unreachable and excluded.
    faults: usize,
    solving: super::SolveCounts,
}

/// Fails with a fault's error when some run of the unrolling (the goal
/// aside) selects it, as the explicit decider fails on a reachable update
/// that leaves its range; otherwise excludes the faults from the MILP.
fn exclude_faults(
    milp: &mut crate::milp::Model,
    faults: Vec<super::abstract_unroll::Fault>,
    opts: &MilpOptions,
) -> Result<(), RunError> {
    if faults.is_empty() {
        return Ok(());
    }
    let mut probe = milp.clone();
    let mut ys = Vec::with_capacity(faults.len());
    for (i, f) in faults.iter().enumerate() {
        let y = probe.binary(&format!("fault{i}"));
        for w in &f.when {
            probe
                .le(&format!("fault{i}.when"), y, w.clone())
                .map_err(milp_error)?;
        }
        ys.push(LinExpr::from(y));
    }
    probe
        .ge("some_fault", LinExpr::sum(ys.clone()), 1.0)
        .map_err(milp_error)?;
    // No presolve: an infeasibility here hides an error, it must be right.
    let mut solve = opts.solve.clone();
    solve.presolve = false;
    solve
        .feasibility_tolerance
        .get_or_insert(crate::milp::tolerance::FEASIBILITY);
    let out = probe
        .solve(&Objective::Feasibility, &solve)
        .map_err(milp_error)?;
    match (out.status, out.solution) {
        (Status::Infeasible, _) => {}
        (Status::Optimal | Status::Feasible, Some(sol)) => {
            let hit = ys.iter().position(|y| sol.eval(y) > 0.5).unwrap_or(0);
            return Err(faults
                .into_iter()
                .nth(hit)
                .map(|f| f.error)
                .unwrap_or_else(|| RunError::Internal("a fault vanished".into())));
        }
        (_, _) => {
            return Err(RunError::Internal(format!(
                "the MILP decider could not decide whether an update leaves its range: {}",
                out.reason.unwrap_or_else(|| "no answer from HiGHS".into())
            )))
        }
    }
    for (i, f) in faults.iter().enumerate() {
        let k = f.when.len() as f64;
        milp.le(
            &format!("fault{i}.off"),
            LinExpr::sum(f.when.clone()),
            k - 1.0,
        )
        .map_err(milp_error)?;
    }
    Ok(())
}

/// One MILP: the goal from the initial state with environment `env0`.
pub(super) fn solve_one<'m>(
    model: &'m Model,
    sem: &mut Semantics<'m>,
    goal: &Core,
    m: usize,
    env0: EnvId,
    opts: &MilpOptions,
    sizes: &mut AbsSizes,
) -> Result<Option<WitnessTree<AState, AMove>>, RunError> {
    let mut layers = Vec::new();
    let mut a = AbsEnc {
        enc: Enc::new(model, opts.encode.clone()),
        sem,
        layers: &mut layers,
        max_contexts: 0,
        faults: Vec::new(),
    };
    let init = a.initial(m, env0)?;
    let mut u = AbsUnrolling {
        states: vec![init],
        rounds: vec![None],
    };
    let root = a.formula(goal, goal.root, 0, &mut u)?;
    let holds = root.value();
    sizes.milps += 1;
    if super::encode::constant(&holds) == Some(0.0) {
        return Ok(None);
    }
    let (mut milp, contexts) = (std::mem::take(&mut a.enc.milp), a.max_contexts);
    let faults = std::mem::take(&mut a.faults);
    sizes.faults += faults.len();
    exclude_faults(&mut milp, faults, opts)?;
    milp.ge("goal", holds, 1.0).map_err(milp_error)?;
    let st = milp.stats();
    sizes.variables = sizes.variables.max(st.variables);
    sizes.binaries = sizes.binaries.max(st.binaries);
    sizes.constraints = sizes.constraints.max(st.constraints);
    sizes.contexts = sizes.contexts.max(contexts);
    let widest = layers.iter().map(|l| l.locals.len()).max().unwrap_or(0);
    sizes.layer_locals = sizes.layer_locals.max(widest);
    let out = super::solve_confirmed(&milp, opts, &mut sizes.solving)?;
    match (out.status, out.solution) {
        (Status::Infeasible, _) => Ok(None),
        (Status::Optimal | Status::Feasible, Some(sol)) => {
            if let Err(why) = milp.check(&sol, crate::milp::tolerance::SOLUTION_CHECK) {
                return Err(RunError::Internal(format!(
                    "HiGHS returned a point that violates the MILP: {why}"
                )));
            }
            let d = AbsDecoder {
                sol: &sol,
                sem,
                u: &u,
                layers: &layers,
            };
            Ok(Some(d.tree(&root)))
        }
        (_, _) => Err(RunError::Internal(format!(
            "the MILP decider is undetermined: {}",
            out.reason.unwrap_or_else(|| "no answer from HiGHS".into())
        ))),
    }
}

/// Decides phi\[m\] on the abstract system M_ab(m) (Definition 13) by MILP,
/// for finite templates; every witness or counterexample is replayed against
/// Definitions 12 and 13 ([`replay_abstract`]).
pub fn check_abstract(
    model: &Model,
    sentence: &Sentence,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    if opts.zero_one_slots || model.explicit_obstacle().is_some() {
        return super::check_abstract_slots(model, sentence, opts);
    }
    let start = Instant::now();
    let (goal, universal) = super::existential_goal(model, sentence)?;
    let m = sentence.agents();
    let mut sem = Semantics::new(model).map_err(|why| {
        RunError::input(format!(
            "the tabulated MILP decider for M_ab(m) cannot take this model: {why}"
        ))
    })?;
    let mut sizes = AbsSizes::default();
    let mut holds = true;
    let mut witnesses = Vec::new();
    for env in sem.initial_envs()? {
        match solve_one(model, &mut sem, &goal, m, env, opts, &mut sizes)? {
            None if !universal => {
                holds = false;
                witnesses.clear();
                break;
            }
            Some(w) if universal => {
                holds = false;
                witnesses = vec![w];
                break;
            }
            Some(w) => witnesses.push(w),
            None => {}
        }
    }
    for w in &witnesses {
        if let Err(why) = replay_abstract(&mut sem, w)? {
            return Err(crate::nis::engine::internal("MILP abstract trace", why));
        }
    }
    let (witness, witness_text) = crate::nis::engine::render_abstract(&sem, &witnesses);
    let mut stats = serde_json::Map::new();
    let mut put = |k: &str, v: Value| {
        stats.insert(k.to_string(), v);
    };
    put("milps", sizes.milps.into());
    put("milp_variables", sizes.variables.into());
    put("milp_binaries", sizes.binaries.into());
    put("milp_constraints", sizes.constraints.into());
    put("round_contexts", sizes.contexts.into());
    put("layer_local_states", sizes.layer_locals.into());
    put("excluded_faults", sizes.faults.into());
    put("total_time_s", start.elapsed().as_secs_f64().into());
    sizes.solving.put_stats(&mut stats);
    Ok(MilpOutcome {
        holds,
        witness,
        witness_text,
        stats,
    })
}
