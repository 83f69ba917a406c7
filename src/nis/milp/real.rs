//! The MILP decider on models that are not finite (real-valued private or
//! environment variables, or an interval of initial environment values).
//!
//! The unrolling is the same as for finite models; what differs is the start
//! and the replay. The initial environment state (Definition 2's I_e) is
//! part of the MILP: a point is a constant, a list a one-hot choice, an
//! interval a continuous (or integer) variable with the interval as bounds.
//! Every state variable after it is bounded by propagation from those bounds
//! (the update hulls of `unroll`), so each network copy gets finite input
//! bounds. Solutions are decoded to f64 states and replayed through
//! [`crate::nis::replay_real`], never through the finite semantics.
//!
//! Definition 8 asks a formula to hold from EVERY initial state. For a
//! universal sentence one MILP over all initial states finds a counterexample
//! from any of them. An existential sentence needs "for every initial state
//! some path": it is decided per initial state when I_e is finite, and by
//! covering ([`super::cover`]) when I_e contains a real interval.

use super::encode::{milp_error, one_hot, value_val, Val};
use super::formula::{Encoded, Unrolling};
use super::unroll::{AgentState, State};
use super::{enum_len, Enc, MilpOptions, MilpOutcome, Sizes};
use crate::lang::{num, DeclType, Value};
use crate::milp::{LinExpr, Solution, Status};
use crate::nis::checker::{Core, WitnessTree};
use crate::nis::model::{InitSpec, Model, VarDecl};
use crate::nis::replay_real::{self, RealLocal, RealMove, RealState, RealTree};
use crate::report::RunError;
use serde_json::{json, Value as Json};

/// How the initial environment enters one MILP: per variable either fixed
/// to one value of its initial set or left to the solver within the set.
#[derive(Clone)]
pub(super) enum Start {
    Fixed(Value),
    Free,
}

impl Enc<'_> {
    /// S(n)'s initial states (Definition 4): every agent at iota_t, the
    /// environment at the given start (free variables range over their
    /// initial set); `init COND` becomes a constraint. With `zero_one =
    /// Some(children)`, the initial states of S_ab(n) (Definition 13): the
    /// zero-one agent is the one active slot {iota_t} ([`super::slots`]),
    /// each slot with that many child positions.
    pub(super) fn real_initial(
        &mut self,
        n: usize,
        zero_one: Option<usize>,
        start: &[Start],
    ) -> Result<Option<State>, RunError> {
        let model = self.model;
        let t = &model.template;
        let agent = AgentState {
            private: t
                .init
                .iter()
                .zip(&t.vars)
                .map(|(v, d)| value_val(v, enum_len(&d.ty)))
                .collect(),
            percept: one_hot(t.init_percept, t.percepts.len()),
        };
        let mut env = Vec::new();
        for ((v, spec), s) in model.env.vars.iter().zip(&model.env.init).zip(start) {
            let k = enum_len(&v.ty);
            env.push(match (s, spec) {
                (Start::Fixed(x), _) => value_val(x, k),
                (Start::Free, InitSpec::Point(x)) => value_val(x, k),
                (Start::Free, InitSpec::Range(lo, hi)) => {
                    let (lo, hi) = (num::to_f64(lo), num::to_f64(hi));
                    let name = format!("s0.env.{}", v.name);
                    let x = match v.ty {
                        DeclType::Real { .. } => self.milp.continuous(&name, lo, hi),
                        _ => self.milp.integer(&name, lo.ceil(), hi.floor()),
                    };
                    Val::Num(x.map_err(milp_error)?.into())
                }
                (Start::Free, InitSpec::List(xs)) => {
                    let pick: Vec<LinExpr> = (0..xs.len())
                        .map(|i| self.milp.binary(&format!("s0.env.{}={i}", v.name)).into())
                        .collect();
                    self.milp
                        .eq(
                            &format!("s0.env.{}.one", v.name),
                            LinExpr::sum(pick.clone()),
                            1.0,
                        )
                        .map_err(milp_error)?;
                    choose(xs, &pick, k)
                }
            });
        }
        if let Some(f) = &model.env.init_filter {
            let mut slots: Vec<Option<Val>> = env.iter().cloned().map(Some).collect();
            slots.push(None);
            let ctx = super::encode::Ctx {
                slots: &slots,
                performed: None,
                env_action: None,
            };
            let ok = self.boolean(f, &ctx)?;
            match super::encode::constant(&ok) {
                Some(c) if c < 0.5 => return Ok(None),
                Some(_) => {}
                None => self.milp.ge("s0.env.init", ok, 1.0).map_err(milp_error)?,
            }
        }
        let zero_one = if let Some(children) = zero_one {
            self.branching = children;
            self.slot_count = 1;
            vec![super::slots::Slot {
                active: LinExpr::constant(1.0),
                local: agent.clone(),
            }]
        } else {
            Vec::new()
        };
        Ok(Some(State {
            agents: vec![agent; n],
            env,
            zero_one,
        }))
    }
}

/// The value picked by one-hot `pick` among `xs`.
fn choose(xs: &[Value], pick: &[LinExpr], k: usize) -> Val {
    let vals: Vec<Val> = xs.iter().map(|x| value_val(x, k)).collect();
    match &vals[0] {
        Val::Enum(_) => Val::Enum(
            (0..k)
                .map(|j| {
                    LinExpr::sum(vals.iter().zip(pick).map(|(v, p)| match v {
                        Val::Enum(bits) => p.clone() * bits[j].constant_part(),
                        _ => LinExpr::constant(0.0),
                    }))
                })
                .collect(),
        ),
        first => {
            let sum = LinExpr::sum(vals.iter().zip(pick).map(|(v, p)| match v {
                Val::Num(c) | Val::Bool(c) => p.clone() * c.constant_part(),
                Val::Enum(_) => LinExpr::constant(0.0),
            }));
            if matches!(first, Val::Bool(_)) {
                Val::Bool(sum)
            } else {
                Val::Num(sum)
            }
        }
    }
}

/// The finite initial sets as a list of starts (all variables fixed), or
/// `None` when some initial set is a real interval.
fn finite_starts(model: &Model) -> Option<Vec<Vec<Start>>> {
    let mut combos: Vec<Vec<Start>> = vec![Vec::new()];
    for (v, spec) in model.env.vars.iter().zip(&model.env.init) {
        let values: Vec<Value> = match spec {
            InitSpec::Point(x) => vec![x.clone()],
            InitSpec::List(xs) => xs.clone(),
            InitSpec::Range(lo, hi) if lo == hi => vec![Value::Num(lo.clone())],
            InitSpec::Range(lo, hi) if matches!(v.ty, DeclType::Int { .. }) => {
                let (lo, hi) = (num::to_i64(&lo.ceil())?, num::to_i64(&hi.floor())?);
                (lo..=hi).map(|i| Value::Num(num::int(i))).collect()
            }
            InitSpec::Range(..) => return None,
        };
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |x| {
                    let mut c = c.clone();
                    c.push(Start::Fixed(x.clone()));
                    c
                })
            })
            .collect();
    }
    Some(combos)
}

/// What one MILP answered: nothing, or the decoded tree (of M(n); on
/// M_ab(m), with `zero_one`, the abstract tree concretized in some M(n'),
/// [`super::concretize`]).
///
/// On M_ab(m) a small MILP is tried first in which every slot has ONE child
/// (the zero-one agent then moves like a single agent: a subset of the
/// abstract runs, so its solutions are abstract runs too); only when it
/// has none is the full encoding with B children per slot solved. Runs
/// needing few extra agents (most witnesses and counterexamples) are found
/// at the cost of a MILP linear in the depth.
pub(super) fn solve_start(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    zero_one: bool,
    start: &[Start],
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Option<RealTree>, RunError> {
    if !zero_one {
        return solve_one_start(model, goal, (n, m), None, start, opts, sizes);
    }
    let b = crate::nis::branching::zero_one_branching(model);
    if b > 1 {
        if let Some(t) = solve_one_start(model, goal, (n, m), Some(1), start, opts, sizes)? {
            return Ok(Some(t));
        }
    }
    solve_one_start(model, goal, (n, m), Some(b), start, opts, sizes)
}

fn solve_one_start(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    zero_one: Option<usize>,
    start: &[Start],
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<Option<RealTree>, RunError> {
    let mut enc = Enc::new(model, opts.encode.clone());
    enc.max_slots = opts.max_slots;
    let Some(init) = enc.real_initial(n, zero_one, start)? else {
        return Ok(None);
    };
    let mut u = Unrolling {
        states: vec![init],
        rounds: vec![None],
    };
    let root = enc.formula(goal, goal.root, 0, &mut u)?;
    let holds = root.value();
    sizes.milps += 1;
    if super::encode::constant(&holds) == Some(0.0) {
        return Ok(None);
    }
    super::ranges::check_ranges(&enc, &opts.solve)?;
    enc.milp.ge("goal", holds, 1.0).map_err(milp_error)?;
    if opts.symmetry_breaking {
        sizes.symmetry_rows += enc.break_symmetry(&u, m)?;
    }
    let st = enc.milp.stats();
    sizes.variables = sizes.variables.max(st.variables);
    sizes.binaries = sizes.binaries.max(st.binaries);
    sizes.integers = sizes.integers.max(st.integers);
    sizes.constraints = sizes.constraints.max(st.constraints);
    sizes.network_copies = sizes.network_copies.max(enc.network_copies);
    sizes.network_binaries = sizes.network_binaries.max(enc.network_binaries);
    sizes.slots = sizes.slots.max(enc.slot_count);
    let out = super::solve_confirmed(&enc.milp, opts, &mut sizes.solving)?;
    match (out.status, out.solution) {
        (Status::Infeasible, _) => Ok(None),
        (Status::Optimal | Status::Feasible, Some(sol)) => {
            if let Err(why) = enc.milp.check(&sol, crate::milp::tolerance::SOLUTION_CHECK) {
                return Err(RunError::Internal(format!(
                    "HiGHS returned a point that violates the MILP: {why}"
                )));
            }
            if zero_one.is_some() {
                let t = super::concretize::decode_abstract(model, &sol, &u, &root);
                return super::concretize::concretize(&t).map(Some);
            }
            Ok(Some(decode_tree(model, &sol, &u, &root)))
        }
        _ => Err(RunError::Internal(format!(
            "the MILP decider is undetermined: {}",
            out.reason.unwrap_or_else(|| "no answer from HiGHS".into())
        ))),
    }
}

pub(super) fn which(sol: &Solution, v: &[LinExpr]) -> usize {
    (0..v.len())
        .max_by(|&a, &b| sol.eval(&v[a]).total_cmp(&sol.eval(&v[b])))
        .unwrap_or(0)
}

/// A state value in f64: integers and Booleans rounded (they are integral
/// variables), enumerations their index, reals as the solver has them.
pub(super) fn value(sol: &Solution, v: &Val, ty: &DeclType) -> f64 {
    match (v, ty) {
        (Val::Enum(xs), _) => which(sol, xs) as f64,
        (Val::Num(e), DeclType::Real { .. }) => sol.eval(e),
        (Val::Num(e) | Val::Bool(e), _) => sol.eval(e).round(),
    }
}

/// Declared variables' values in f64.
pub(super) fn values(sol: &Solution, vals: &[Val], decls: &[VarDecl]) -> Vec<f64> {
    vals.iter()
        .zip(decls)
        .map(|(v, d)| value(sol, v, &d.ty))
        .collect()
}

/// One agent's (or slot's) local state in f64.
pub(super) fn decode_local(model: &Model, sol: &Solution, a: &AgentState) -> RealLocal {
    RealLocal {
        private: values(sol, &a.private, &model.template.vars),
        percept: which(sol, &a.percept),
    }
}

pub(super) fn decode_state(model: &Model, sol: &Solution, s: &State) -> RealState {
    RealState {
        agents: s
            .agents
            .iter()
            .map(|a| decode_local(model, sol, a))
            .collect(),
        env: values(sol, &s.env, &model.env.vars),
    }
}

/// The witness tree of the solution along the encoded formula (as `decode`).
fn decode_tree(model: &Model, sol: &Solution, u: &Unrolling, root: &Encoded) -> RealTree {
    let mut t = WitnessTree {
        state: decode_state(model, sol, &u.states[0]),
        obligations: Vec::new(),
        children: Vec::new(),
    };
    root.witness(sol, 0, &mut t, &mut |_, to| {
        let round = u.rounds[to].as_ref().expect("a successor has a round");
        let mv = RealMove {
            actions: round.actions.iter().map(|a| which(sol, a)).collect(),
            env_action: which(sol, &round.env_action),
        };
        (mv, decode_state(model, sol, &u.states[to]))
    });
    t
}

/// What [`check_real`] found: verdict, trees to replay, extra statistics.
pub struct RealAnswer {
    pub holds: bool,
    pub trees: Vec<RealTree>,
    pub extra: serde_json::Map<String, Json>,
}

/// Decides phi\[m\] on M(n) of a model that is not finite (see the module
/// documentation); every witness or counterexample is replayed in f64.
pub fn check_real(
    model: &Model,
    goal: &Core,
    universal: bool,
    (n, m): (usize, usize),
    zero_one: bool,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<RealAnswer, RunError> {
    let mut extra = serde_json::Map::new();
    let starts = if universal {
        vec![vec![Start::Free; model.env.vars.len()]]
    } else if let Some(s) = finite_starts(model) {
        s
    } else {
        let c = super::cover::cover(model, goal, (n, m), zero_one, opts, sizes)?;
        extra.insert("cover_rounds".into(), c.rounds.into());
        if let Some(b) = c.uncovered {
            let shown: serde_json::Map<String, Json> = model
                .env
                .vars
                .iter()
                .zip(&b)
                .map(|(v, &x)| (v.name.clone(), json!(x)))
                .collect();
            extra.insert("initial_env_without_witness".into(), Json::Object(shown));
        }
        return Ok(RealAnswer {
            holds: c.holds,
            trees: c.witnesses,
            extra,
        });
    };
    let mut trees = Vec::new();
    let mut any_start = false;
    for start in &starts {
        let mut probe = Enc::new(model, opts.encode.clone());
        if probe.real_initial(n, None, start)?.is_none() {
            continue;
        }
        any_start = true;
        match solve_start(model, goal, (n, m), zero_one, start, opts, sizes)? {
            None if !universal => {
                return Ok(RealAnswer {
                    holds: false,
                    trees: Vec::new(),
                    extra,
                })
            }
            Some(t) if universal => {
                return Ok(RealAnswer {
                    holds: false,
                    trees: vec![t],
                    extra,
                })
            }
            Some(t) => trees.push(t),
            None => {}
        }
    }
    if !any_start && !universal {
        return Err(RunError::input("the environment has no initial state"));
    }
    Ok(RealAnswer {
        holds: true,
        trees,
        extra,
    })
}

/// Replays the decoded trees (a tree that does not replay is an internal
/// error, exit 3) and renders the first as the finite decider renders its traces.
pub fn replay_and_render(
    model: &Model,
    trees: &[RealTree],
    counterexample: bool,
) -> Result<(Option<Json>, Option<String>), RunError> {
    let mut traces = Vec::new();
    for t in trees {
        match replay_real::replay_real(model, t) {
            Ok(b) => traces.push(b),
            Err(why) => return Err(crate::nis::engine::internal("MILP trace (f64 replay)", why)),
        }
    }
    let Some(first) = traces.first() else {
        return Ok((None, None));
    };
    let what = if counterexample {
        "counterexample"
    } else {
        "witness"
    };
    let json = json!({
        "kind": what,
        "initial_states": traces.len(),
        "branches": first.iter().map(|b| crate::nis::trace_real::json(model, b)).collect::<Vec<_>>(),
    });
    let mut text = String::new();
    for (i, b) in first.iter().enumerate() {
        text.push_str(&format!("{what}, branch {} of {}:\n", i + 1, first.len()));
        text.push_str(
            &crate::nis::trace_real::table(model, b).render(crate::report::TableFormat::Text),
        );
    }
    Ok((Some(json), Some(text)))
}

/// Outcome in the form of the finite path.
pub fn outcome(
    holds: bool,
    witness: (Option<Json>, Option<String>),
    stats: serde_json::Map<String, Json>,
) -> MilpOutcome {
    MilpOutcome {
        holds,
        witness: witness.0,
        witness_text: witness.1,
        stats,
    }
}
