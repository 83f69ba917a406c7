//! Existential sentences over an interval of initial environment states.
//!
//! Definition 8 asks phi to hold from EVERY initial state: "for every initial
//! environment state b, some witness tree". One MILP cannot quantify that way
//! over a continuum, so the decider covers the initial set
//! counterexample-guided. With witnesses W found so far, one MILP asks for an
//! initial state from which NONE of them is valid (each witness, with its
//! actions and percepts fixed, is re-run from the free initial state; its
//! validity is an exact 0/1 expression: every action enabled by the
//! protocol, every percept a possible observation, every literal true).
//! Infeasible: W covers the initial set and the sentence holds. Otherwise the
//! uncovered state b* is fixed and the ordinary witness MILP is solved there:
//! infeasible means the sentence fails from b*; a witness is added to W.
//! There are finitely many witness shapes, so the loop ends; a cap guards
//! against numerical stalls. Where the two MILPs disagree within the
//! solver's tolerances (see [`cover`]) the answer is undetermined (verdict
//! unknown, exit 3), never a verdict.

use super::concrete::{values, Concrete, F64};
use super::confirm::solve_confirmed;
use super::decide::{check_runs, solution, solve, Answer};
use super::expr::{one_hot, Ctx, Enc, Val};
use super::initial::{Start, StartVar};
use super::options::MilpOptions;
use super::slots::SlotUnrolling;
use super::state::{which, AgentState, Joint, State};
use super::stats::Sizes;
use crate::lang::{num, DeclType, Value};
use crate::milp::{not, LinExpr};
use crate::nis::front::core::Core;
use crate::nis::front::model::{InitPercept, Model, Observation, ProtocolCase};
use crate::nis::witness::replay::real::{RealMove, RealTree};
use crate::report::RunError;

/// Most covering rounds before the decider gives up (undetermined).
pub const MAX_COVER_ROUNDS: usize = 64;

/// The result of a covering: the verdict, the witnesses (when it holds) and
/// an initial environment state without a witness (when it fails).
pub struct Covering {
    pub holds: bool,
    pub witnesses: Vec<RealTree>,
    pub uncovered: Option<Vec<f64>>,
    pub rounds: usize,
}

impl Enc<'_> {
    /// 0/1: the protocol `cases` enable `action` at `slots`.
    fn enables(
        &mut self,
        cases: &[ProtocolCase],
        action: usize,
        slots: &[Option<Val>],
    ) -> Result<LinExpr, RunError> {
        let ctx = Ctx::of(slots);
        let mut gs = Vec::new();
        for c in cases.iter().filter(|c| c.actions.contains(&action)) {
            gs.push(self.boolean(&c.guard, &ctx)?);
        }
        Ok(self.milp.or("or", gs))
    }

    /// 0/1: percept `p` is a possible value of the observation tree `e`
    /// (at `argmax` leaves: some output of `p` is at least every other).
    fn can_observe(&mut self, obs: &Observation, p: usize, ctx: &Ctx) -> Result<LinExpr, RunError> {
        match obs {
            Observation::If(cond, then, otherwise) => {
                let c = self.boolean(cond, ctx)?;
                let (x, y) = (
                    self.can_observe(then, p, ctx)?,
                    self.can_observe(otherwise, p, ctx)?,
                );
                let mut chosen = self.if_then_else(&c, vec![x], vec![y]);
                Ok(chosen.pop().unwrap_or_default())
            }
            Observation::Argmax { percepts, .. } => {
                let outs = self.leaf_outputs(obs, ctx)?;
                let mut options = Vec::new();
                for o in (0..outs.len()).filter(|&o| percepts[o] == p) {
                    let mut wins = Vec::new();
                    for j in (0..outs.len()).filter(|&j| j != o) {
                        wins.push(self.le_zero(outs[j].clone() - outs[o].clone())?);
                    }
                    options.push(self.milp.and("and", wins));
                }
                Ok(self.milp.or("or", options))
            }
            Observation::Expr(e) => Ok(self.enumv(e, ctx)?[p].clone()),
        }
    }

    /// 0/1: the fixed witness `tree` is valid from the (variable) state `at`.
    fn valid(&mut self, tree: &RealTree, at: &State, tag: &str) -> Result<LinExpr, RunError> {
        let mut conds = Vec::new();
        for &(label, agent, negated) in &tree.obligations {
            let expr = &self.model.labels[label].expr;
            let h = match agent {
                Some(a) => self.label(expr, &at.agents[a])?,
                None => self.env_label(expr, &at.env)?,
            };
            conds.push(if negated { not(h) } else { h });
        }
        for (i, (mv, child)) in tree.children.iter().enumerate() {
            let percepts: Vec<usize> = child.state.agents.iter().map(|a| a.percept).collect();
            let read = percepts_read(self.model, child);
            let tag = format!("{tag}.{i}");
            let (ok, next) = self.fixed_round(at, mv, read.then_some(&percepts[..]), &tag)?;
            conds.push(ok);
            conds.push(self.valid(child, &next, &tag)?);
        }
        Ok(self.milp.and("and", conds))
    }

    /// One round (Definition 5) with every choice fixed: its validity and
    /// the successor. With `percepts` `None` the successor's observation is
    /// not encoded (nothing reads it, see [`percepts_read`]): the agents
    /// keep their old percepts, as in the witness MILP's unobserved rounds.
    fn fixed_round(
        &mut self,
        from: &State,
        mv: &RealMove,
        percepts: Option<&[usize]>,
        tag: &str,
    ) -> Result<(LinExpr, State), RunError> {
        let model = self.model;
        let t = &model.template;
        let mut conds = Vec::new();
        for (a, &act) in from.agents.iter().zip(&mv.actions) {
            let slots = self.agent_slots(a, None, None, None);
            conds.push(self.enables(&t.protocol, act, &slots)?);
        }
        let slots = Self::env_slots(&from.env, None);
        conds.push(self.enables(&model.env.protocol, mv.env_action, &slots)?);
        let actions: Vec<Vec<LinExpr>> = mv
            .actions
            .iter()
            .map(|&a| one_hot(a, t.actions.len()))
            .collect();
        let env_action = one_hot(mv.env_action, model.env.actions.len());
        let performed: Vec<LinExpr> = (0..t.actions.len())
            .map(|a| LinExpr::constant(f64::from(u8::from(mv.actions.contains(&a)))))
            .collect();
        let joint = Joint {
            env_action: &env_action,
            performed: &performed,
            named: &[],
            named_actions: &[],
        };
        let env = self.env_update(&from.env, &joint, tag, None)?;
        let mut agents = Vec::new();
        for (i, a) in from.agents.iter().enumerate() {
            self.prefix = format!("{tag}.a{}", i + 1);
            let name = self.prefix.clone();
            let private = self.agent_update(&name, a, &actions[i], &joint, None)?;
            let inter = AgentState {
                private,
                percept: a.percept.clone(),
            };
            let Some(percepts) = percepts else {
                agents.push(inter);
                continue;
            };
            let slots = self.agent_slots(&inter, None, None, Some(&env));
            let ctx = Ctx::of(&slots);
            conds.push(self.can_observe(&t.observe, percepts[i], &ctx)?);
            agents.push(AgentState {
                private: inter.private,
                percept: one_hot(percepts[i], t.percepts.len()),
            });
        }
        Ok((
            self.milp.and("and", conds),
            State {
                agents,
                env,
                zero_one: Vec::new(),
                named: Vec::new(),
                depth: from.depth + 1,
            },
        ))
    }
}

/// Whether anything reads the agents' percepts at the witness node `t`: a
/// next step (whose protocols read them), a literal of an agent's label, or
/// (with named agents) an environment label. As in [`super::formula::reads_percepts`],
/// the witness MILP does not encode an observation nothing reads, and the
/// decoder fills that percept in from an f64 observation whose ties within
/// the replay's tolerance may pick a percept the exact 0/1 encoding would
/// not (CI's seed 20261201 found such a leaf at `x = 0` under
/// `if x = 0 then p1 else argmax(..)`): such a percept must not count.
fn percepts_read(model: &Model, t: &RealTree) -> bool {
    !model.named.is_empty()
        || !t.children.is_empty()
        || t.obligations.iter().any(|&(_, agent, _)| agent.is_some())
}

/// Same actions, obligations, first percepts (each tied first percept is its
/// own initial state) and read percepts everywhere (values may differ).
fn same_shape(model: &Model, a: &RealTree, b: &RealTree) -> bool {
    same_below(model, a, b, true)
}

fn same_below(model: &Model, a: &RealTree, b: &RealTree, root: bool) -> bool {
    let percepts = |t: &RealTree| t.state.agents.iter().map(|l| l.percept).collect::<Vec<_>>();
    let read = root || percepts_read(model, a) || percepts_read(model, b);
    a.obligations == b.obligations
        && (!read || percepts(a) == percepts(b))
        && a.children.len() == b.children.len()
        && a.children
            .iter()
            .zip(&b.children)
            .all(|((ma, ca), (mb, cb))| ma == mb && same_below(model, ca, cb, false))
}

/// An initial value as a model value of its declared type.
fn as_value(ty: &DeclType, x: f64) -> Result<Value, RunError> {
    Ok(match ty {
        DeclType::Bool => Value::Bool(x != 0.0),
        DeclType::Enum { id, .. } => Value::Enum(*id, x as usize),
        _ => Value::Num(
            num::from_f64(x)
                .ok_or_else(|| RunError::Internal("a non-finite initial value".into()))?,
        ),
    })
}

/// Decides an existential core formula from every initial state of an
/// initial set that contains a real interval (see the module documentation).
///
/// Two MILPs judge a witness's validity at a point: the covering MILP with
/// the initial state free, and the witness MILP with it fixed (its first
/// step folded to constants). They agree except within HiGHS's tolerances of
/// the border of the states a witness covers. A point found there is
/// [`RunError::Undetermined`]: the witness MILP finds a witness of a shape
/// already found, or the point, as decoded, is not an initial state.
pub fn cover(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    zero_one: bool,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Covering, RunError> {
    let free = Start::Vars(vec![StartVar::Free; model.env.vars.len()]);
    check_every_start(model, goal, (n, m), zero_one, &free, opts, sizes)?;
    let witness_from = |start: &[StartVar], pin: FirstPercepts, sizes: &mut Sizes| match pin {
        Some(pin) => solve_pinned(model, goal, (n, m), start, pin, opts, sizes),
        None => solve_from(model, goal, (n, m), zero_one, start, opts, sizes),
    };
    let observed = !zero_one && model.template.init_percept == InitPercept::Observed;
    cover_with(model, n, observed, opts, sizes, witness_from)
}

/// The template agents' first percepts at an uncovered initial state, when
/// they are observed (`= observe`): on an argmax tie each tied percept is
/// its own initial state (Definition 4), and each needs a witness.
type FirstPercepts = Option<Vec<usize>>;

/// The witness MILP of M(n) from a fixed start with the agents' first
/// percepts pinned to `pin`.
fn solve_pinned(
    model: &Model,
    goal: &Core,
    nm: (usize, usize),
    start: &[StartVar],
    pin: Vec<usize>,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer<RealTree>, RunError> {
    let start = Start::Vars(start.to_vec());
    let mut u = Concrete::new(model, opts, nm, start, F64);
    u.enc.first_percepts = Some(pin);
    solve(&mut u, goal, opts, sizes)
}

/// The covering loop of [`cover`], the witness MILP from a fixed start
/// (and, with `observed`, the agents' first percepts) given as
/// `witness_from`.
fn cover_with(
    model: &Model,
    n: usize,
    observed: bool,
    opts: &MilpOptions,
    sizes: &mut Sizes,
    mut witness_from: impl FnMut(
        &[StartVar],
        FirstPercepts,
        &mut Sizes,
    ) -> Result<Answer<RealTree>, RunError>,
) -> Result<Covering, RunError> {
    let free = Start::Vars(vec![StartVar::Free; model.env.vars.len()]);
    let mut found: Vec<RealTree> = Vec::new();
    for round in 1..=MAX_COVER_ROUNDS {
        let Some((b, pin)) = uncovered_start(model, n, observed, &free, &found, opts, sizes)?
        else {
            return Ok(Covering {
                holds: true,
                witnesses: found,
                uncovered: None,
                rounds: round,
            });
        };
        // The witness MILP from the uncovered point, fixed.
        let fixed = fixed_start(model, &b)?;
        match witness_from(&fixed, pin, sizes)? {
            Answer::NoStart => return Err(off_the_initial_set(&b)),
            Answer::Infeasible => {
                return Ok(Covering {
                    holds: false,
                    witnesses: Vec::new(),
                    uncovered: Some(b),
                    rounds: round,
                })
            }
            Answer::Witness(t) => {
                if let Some(i) = found.iter().position(|f| same_shape(model, f, &t)) {
                    return Err(no_progress(&b, i));
                }
                found.push(t);
            }
        }
    }
    Err(RunError::Undetermined(format!(
        "the MILP decider is undetermined: the initial set was not covered after {MAX_COVER_ROUNDS} witnesses"
    )))
}

/// Checks the unrolling from the free initial state once: the witness MILPs
/// check declared ranges from their own initial state only, and leaving a
/// range from ANY initial state is a model error.
pub fn check_every_start(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    zero_one: bool,
    free: &Start,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<(), RunError> {
    if zero_one {
        let b = crate::nis::explicit::branching::zero_one_branching(model);
        let mut u = SlotUnrolling::new(model, n, free.clone(), b, opts);
        return check_runs(&mut u, goal, opts, sizes);
    }
    let mut u = Concrete::new(model, opts, (n, m), free.clone(), F64);
    check_runs(&mut u, goal, opts, sizes)
}

/// An initial environment state from which none of the witnesses `found` is
/// valid (the covering MILP), in f64; `None` when they cover the initial set.
/// With `observed` (M(n), first percepts observed) an initial state is the
/// environment's and each agent's first percept, any possible observation
/// there (on a tie the solver's choice): a witness is valid from it only if
/// its first percepts are those, so every tied percept needs its own.
fn uncovered_start(
    model: &Model,
    n: usize,
    observed: bool,
    free: &Start,
    found: &[RealTree],
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Option<(Vec<f64>, FirstPercepts)>, RunError> {
    let mut enc = Enc::new(model, opts.encode.clone());
    let Some(init) = enc.initial(n, free)? else {
        return Err(RunError::input("the environment has no initial state"));
    };
    for (i, t) in found.iter().enumerate() {
        // A witness of M_ab(m) is concretized in its own number of agents.
        let agents = match observed {
            true => init.agents.clone(),
            false => vec![init.agents[0].clone(); t.state.agents.len()],
        };
        let at = State {
            agents,
            env: init.env.clone(),
            zero_one: Vec::new(),
            named: Vec::new(),
            depth: 0,
        };
        let mut v = enc.valid(t, &at, &format!("w{i}"))?;
        if observed {
            let mut same = vec![v];
            for (a, l) in at.agents.iter().zip(&t.state.agents) {
                same.push(a.percept[l.percept].clone());
            }
            v = enc.milp.and(&format!("w{i}.first"), same);
        }
        enc.milp.le(&format!("w{i}.fails"), v, 0.0);
    }
    sizes.milps += 1;
    let out = solve_confirmed(&enc.milp, &opts.solve, &mut sizes.solving)?;
    Ok(solution(out, opts)?.map(|sol| {
        let pin = observed.then(|| {
            init.agents
                .iter()
                .map(|a| which(&sol, &a.percept))
                .collect()
        });
        (values(&sol, &init.env, &model.env.vars), pin)
    }))
}

/// The start that fixes every environment variable to its value in `b`.
fn fixed_start(model: &Model, b: &[f64]) -> Result<Vec<StartVar>, RunError> {
    b.iter()
        .zip(&model.env.vars)
        .map(|(&x, d)| as_value(&d.ty, x).map(StartVar::Fixed))
        .collect()
}

/// The covering MILP's point `b` satisfies the initial condition only up to
/// HiGHS's feasibility tolerance: as decoded it is not an initial state.
fn off_the_initial_set(b: &[f64]) -> RunError {
    RunError::Undetermined(format!(
        "the covering of the initial set is undetermined at {b:?}: the covering MILP chose it as an initial state without a witness, but as decoded it fails the initial condition; it lies within the solver's tolerances of the border of the initial set"
    ))
}

/// From `b` the witness MILP found a witness of the shape of witness `i`,
/// which the covering MILP called invalid there: `b` lies within the
/// solver's tolerances of the border of the initial states that witness
/// covers, and the covering would find it again.
fn no_progress(b: &[f64], i: usize) -> RunError {
    RunError::Undetermined(format!(
        "the covering of the initial set is undetermined at {b:?}: the covering MILP found no witness valid there, yet from that point the witness MILP finds one of the shape of witness {}; the point lies within the solver's tolerances of the border of the initial states that witness covers",
        i + 1
    ))
}

/// The f64 witness from one start: M(n) (`zero_one` false), or M_ab(m)
/// concretized in some M(n') ([`super::concretize`]).
///
/// On M_ab(m) a small MILP is tried first in which every slot has ONE child
/// (the zero-one agent then moves like a single agent: a subset of the
/// abstract runs, so its solutions are abstract runs too); only when it
/// has none is the full encoding with B children per slot solved. Runs
/// needing few extra agents (most witnesses and counterexamples) are found
/// at the cost of a MILP linear in the depth.
pub fn solve_from(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    zero_one: bool,
    start: &[StartVar],
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Answer<RealTree>, RunError> {
    let start = Start::Vars(start.to_vec());
    if !zero_one {
        let mut u = Concrete::new(model, opts, (n, m), start, F64);
        return solve(&mut u, goal, opts, sizes);
    }
    let b = crate::nis::explicit::branching::zero_one_branching(model);
    if b > 1 {
        let mut u = SlotUnrolling::new(model, m, start.clone(), 1, opts);
        if let Answer::Witness(t) = solve(&mut u, goal, opts, sizes)? {
            return Ok(Answer::Witness(t));
        }
    }
    let mut u = SlotUnrolling::new(model, m, start, b, opts);
    solve(&mut u, goal, opts, sizes)
}

#[cfg(test)]
#[path = "cover_tests.rs"]
mod tests;
