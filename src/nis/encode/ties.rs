//! Argmax near-ties of finite models.
//!
//! The MILP's argmax lets the chosen output be any output that is maximal up
//! to HiGHS's feasibility tolerance; the exact semantics evaluates the
//! network in f64 and keeps only the outputs equal to the maximum. Where two
//! outputs differ by less than the tolerance (a tie in real arithmetic that
//! f64 rounding breaks, as 0.1 x + 0.2 x against 0.3 x), a solution can take
//! a percept the semantics does not allow. That is a tolerance-level
//! difference, not a wrong encoding, and such a solution is no witness: the
//! (private values, previous percept, environment values, percept) it used
//! is cut off at every agent and step of the unrolling and the MILP is
//! solved again, so the verdict is the exact semantics' own. A percept that
//! is not even within [`tolerance::REPLAY_TIE`] of the maximum is left to
//! the replay, which reports it as an internal error.

use super::expr::{Enc, Val};
use super::state::{code, which, AgentState, Round, State};
use super::unrolling::Unrolled;
use crate::milp::{constant, not, tolerance, LinExpr, Solution};
use crate::nis::semantics::{EnvId, SemResult, Semantics};
use crate::report::RunError;

/// Most near-tie cuts one MILP gets before the decider gives up (exit 3).
pub const MAX_TIE_CUTS: usize = 32;

/// A percept a solution took where the f64 network only nearly ties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NearTie {
    /// `None`: an agent of the template; `Some(j)`: named agent `j`.
    who: Option<usize>,
    private: Vec<i64>,
    previous: usize,
    env: Vec<i64>,
    percept: usize,
}

/// The first percept of the solution that the exact semantics does not
/// allow but a near-tie does (`None` when every percept is allowed, or when
/// a disallowed one is no near-tie: the replay then reports it).
pub fn find(
    sem: &mut Semantics,
    sol: &Solution,
    tree: &Unrolled<State, Round>,
) -> SemResult<Option<NearTie>> {
    for (s, to) in tree.states.iter().enumerate() {
        let Some(step) = &tree.steps[s] else { continue };
        let from = &tree.states[step.from];
        let env: Vec<i64> = to.env.iter().map(|v| code(sol, v)).collect();
        let mut full = env.clone();
        for a in &to.named {
            full.extend(a.private.iter().map(|v| code(sol, v)));
            full.push(which(sol, &a.percept) as i64);
        }
        let env_id = sem.env_id(full);
        for (a, agent) in to.agents.iter().enumerate() {
            let seen = (sol, &from.agents[a], agent);
            if let Some(tie) = near_tie(sem, env_id, seen)? {
                return Ok(Some(NearTie { env, ..tie }));
            }
        }
        for (j, agent) in to.named.iter().enumerate() {
            let sub = sem.named_semantics(j);
            let own = sub.env_id(env.clone());
            if let Some(tie) = near_tie(sub, own, (sol, &from.named[j], agent))? {
                let who = Some(j);
                return Ok(Some(NearTie { who, env, ..tie }));
            }
        }
    }
    Ok(None)
}

/// The near-tie of one agent's observation from `before` to `after` at
/// environment state `env` of `sem` (its `env` field left empty).
fn near_tie(
    sem: &mut Semantics,
    env: EnvId,
    (sol, before, after): (&Solution, &AgentState, &AgentState),
) -> SemResult<Option<NearTie>> {
    let private: Vec<i64> = after.private.iter().map(|v| code(sol, v)).collect();
    let previous = which(sol, &before.percept);
    let percept = which(sol, &after.percept);
    let intermediate = sem.with_percept(&private, previous);
    if sem.observe(intermediate, env)? >> percept & 1 == 1 {
        return Ok(None);
    }
    let near = sem.observe_within(intermediate, env, tolerance::REPLAY_TIE)?;
    Ok((near >> percept & 1 == 1).then_some(NearTie {
        who: None,
        private,
        previous,
        env: Vec::new(),
        percept,
    }))
}

impl Enc<'_> {
    /// 0/1: the value `v` has the code `c` (finite models: integral numbers,
    /// Booleans, enumerations).
    fn has_code(&mut self, v: &Val, c: i64) -> Result<LinExpr, RunError> {
        Ok(match v {
            Val::Num(e) => {
                let c = c as f64;
                let below = self.le_zero(e.clone() - c)?;
                let above = self.le_zero(LinExpr::constant(c) - e.clone())?;
                self.milp.and("tie.eq", vec![below, above])
            }
            Val::Bool(e) if c != 0 => e.clone(),
            Val::Bool(e) => not(e.clone()),
            Val::Enum(xs) => xs[c as usize].clone(),
        })
    }

    /// Forbids `tie`'s percept at its values for every agent and step of
    /// `tree`; returns the number of rows added.
    pub fn cut_near_tie(
        &mut self,
        tree: &Unrolled<State, Round>,
        tie: &NearTie,
    ) -> Result<usize, RunError> {
        let mut rows = 0;
        for (s, to) in tree.states.iter().enumerate() {
            let Some(step) = &tree.steps[s] else { continue };
            let from = &tree.states[step.from];
            let (before, after) = match tie.who {
                None => (&from.agents[..], &to.agents[..]),
                Some(j) => (&from.named[j..=j], &to.named[j..=j]),
            };
            for (a, agent) in after.iter().enumerate() {
                let mut conds = vec![
                    before[a].percept[tie.previous].clone(),
                    agent.percept[tie.percept].clone(),
                ];
                for (v, &c) in agent.private.iter().zip(&tie.private) {
                    conds.push(self.has_code(v, c)?);
                }
                for (v, &c) in to.env.iter().zip(&tie.env) {
                    conds.push(self.has_code(v, c)?);
                }
                let all = self.milp.and("tie.all", conds);
                if constant(&all) == Some(0.0) {
                    continue;
                }
                let who = tie.who.map_or(String::new(), |j| format!("n{j}"));
                self.milp.le(&format!("tie.s{s}{who}a{a}"), all, 0.0);
                rows += 1;
            }
        }
        Ok(rows)
    }
}
