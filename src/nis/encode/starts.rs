//! Definition 8's "from every initial state" for models that are not
//! finite (real-valued variables, an interval of initial values).
//!
//! The initial environment state is part of the MILP ([`super::initial`]).
//! Every state variable after it is bounded by propagation from its bounds
//! (the update hulls of [`super::round`]), so each network copy gets finite
//! input bounds.
//! Solutions of such models are decoded to f64 states and replayed through
//! [`crate::nis::witness::replay::real`], never through the finite semantics.
//!
//! For a universal sentence one MILP over all initial states finds a
//! counterexample from any of them; over an interval of initial states that
//! MILP is split into MILPs over sub-boxes when it stalls ([`super::split`]).
//! An existential sentence needs "for every initial state some path": it is
//! decided per initial state when I_e is finite, and by covering
//! ([`super::cover`]) when I_e contains a real interval.

use super::box_proof::{decide_existential, prove_universal, BoxAnswer, Layers};
use super::concrete::{Concrete, F64};
use super::cover::{check_every_start, cover, solve_from};
use super::decide::{decide, pinned};
use super::falsify::falsify_universal;
use super::initial::{Start, StartVar};
use super::options::MilpOptions;
use super::split;
use super::stats::{BoxStats, RealStats, Sizes};
use crate::lang::{num, DeclType, Value};
use crate::nis::front::core::Core;
use crate::nis::front::model::{InitPercept, InitSpec, Model};
use crate::nis::witness::replay::real::{replay_real, RealTree};
use crate::nis::witness::shown::Witness;
use crate::nis::witness::{internal, trace::real_trace};
use crate::report::RunError;

/// The finite initial sets as a list of starts (all variables fixed), or
/// `None` when some initial set is a real interval.
pub fn finite_starts(model: &Model) -> Option<Vec<Vec<StartVar>>> {
    let mut combos: Vec<Vec<StartVar>> = vec![Vec::new()];
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
                    c.push(StartVar::Fixed(x.clone()));
                    c
                })
            })
            .collect();
    }
    Some(combos)
}

/// What [`decide_f64`] found: verdict, trees to replay, what splitting or
/// covering did.
pub struct RealAnswer {
    pub holds: bool,
    pub trees: Vec<RealTree>,
    pub extra: RealStats,
}

/// Decides an existential goal (or the dual of a universal sentence) on
/// M(n), or on M_ab(m) with `zero_one`, for a model that is not finite
/// (see the module documentation).
pub fn decide_f64(
    model: &Model,
    goal: &Core,
    universal: bool,
    (n, m): (usize, usize),
    zero_one: bool,
    opts: &MilpOptions,
    sizes: &mut Sizes,
) -> Result<RealAnswer, RunError> {
    let mut extra = RealStats::default();
    if universal && !zero_one {
        if let Some(found) = searched_first(model, goal, (n, m), opts, sizes, &mut extra)? {
            return Ok(RealAnswer {
                holds: found.is_none(),
                trees: found.into_iter().collect(),
                extra,
            });
        }
    }
    if universal && split::splits(model, goal, &opts.split) {
        let s = split::decide_split(model, goal, (n, m), zero_one, opts, sizes)?;
        extra.split = Some(s.stats);
        return Ok(RealAnswer {
            holds: s.counterexample.is_none(),
            trees: s.counterexample.into_iter().collect(),
            extra,
        });
    }
    let starts = if universal {
        vec![vec![StartVar::Free; model.env.vars.len()]]
    } else if let Some(s) = finite_starts(model).filter(|_| !ties_first(model, zero_one)) {
        s
    } else {
        if !model.named.is_empty() {
            return Err(RunError::input(
                "the MILP decider does not yet cover an initial interval with witnesses of named agents: an existential sentence on this model needs initial values from a finite list (or a universal sentence)",
            ));
        }
        let by_boxes = match zero_one {
            false => witnessed_by_boxes(model, goal, (n, m), opts, sizes, &mut extra)?,
            true => BoxAnswer::Open,
        };
        if by_boxes != BoxAnswer::Open {
            if let BoxAnswer::Fails(point) = &by_boxes {
                let vars = model.env.vars.iter().map(|v| v.name.clone());
                extra.uncovered = Some(vars.zip(point.iter().copied()).collect());
            }
            return Ok(RealAnswer {
                holds: by_boxes == BoxAnswer::Holds,
                trees: Vec::new(),
                extra,
            });
        }
        let c = cover(model, goal, (n, m), zero_one, opts, sizes)?;
        extra.cover_rounds = Some(c.rounds);
        extra.uncovered = c.uncovered.map(|b| {
            let vars = model.env.vars.iter();
            vars.zip(b).map(|(v, x)| (v.name.clone(), x)).collect()
        });
        return Ok(RealAnswer {
            holds: c.holds,
            trees: c.witnesses,
            extra,
        });
    };
    let d = decide(starts, universal, |start| {
        solve_from(model, goal, (n, m), zero_one, &start, opts, sizes)
    })?;
    if !d.started && !universal {
        return Err(RunError::input("the environment has no initial state"));
    }
    Ok(RealAnswer {
        holds: d.holds,
        trees: d.witnesses,
        extra,
    })
}

/// What a universal sentence on M(n) gets before any MILP: the quick
/// proof by boxes, the falsifier, the proof by boxes path by path. `None`:
/// nothing decided; `Some(None)`: proved; `Some(Some(tree))`: a
/// counterexample that replays.
fn searched_first(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    opts: &MilpOptions,
    sizes: &mut Sizes,
    extra: &mut RealStats,
) -> Result<Option<Option<RealTree>>, RunError> {
    // Where the bounds propagated through the MILP's unrolling alone pin
    // the dual to false (VENMAS's query up to k = 6), the MILP decides with
    // no binary in milliseconds: nothing to search.
    if opts.falsify.samples == 0 || bounds_decide(model, goal, (n, m), opts)? {
        return Ok(None);
    }
    if proved_by_boxes(model, goal, n, (opts, Layers::Merged), extra) {
        return Ok(Some(None));
    }
    if let Some(tree) = falsified(model, goal, (n, m), opts, sizes, extra)? {
        return Ok(Some(Some(tree)));
    }
    let paths = (opts, Layers::MergedThenPaths);
    Ok(proved_by_boxes(model, goal, n, paths, extra).then_some(None))
}

/// Whether the template agents' first percept is observed on M(n): a tie
/// there is several initial states (Definition 4), which the witness MILP
/// from one environment state would choose among (right for a
/// counterexample, not for "from every initial state"), so an existential
/// sentence is decided by covering ([`super::cover`]), which asks for a
/// witness per first percept, also over a finite list of starts.
fn ties_first(model: &Model, zero_one: bool) -> bool {
    !zero_one && model.template.init_percept == InitPercept::Observed
}

/// Falsify first: a counterexample of M(n) found by simulation
/// ([`falsify_universal`]) that replays, after the check that no run from
/// any initial state leaves a declared range (which the MILP would have
/// made); `None` when none is found (or `opts.falsify` is off).
fn falsified(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    opts: &MilpOptions,
    sizes: &mut Sizes,
    extra: &mut RealStats,
) -> Result<Option<RealTree>, RunError> {
    if opts.falsify.samples == 0 || goal.has_universal() {
        return Ok(None);
    }
    let free = vec![StartVar::Free; model.env.vars.len()];
    let deadline = &opts.solve.deadline;
    let (tree, mut stats) = falsify_universal(model, goal, n, &opts.falsify, deadline);
    let replayed = tree.filter(|t| {
        let ok = replay_real(model, t).is_ok();
        stats.unreplayed += usize::from(!ok);
        ok
    });
    extra.falsify = Some(stats);
    let Some(tree) = replayed else {
        return Ok(None);
    };
    check_every_start(model, goal, (n, m), false, &Start::Vars(free), opts, sizes)?;
    Ok(Some(tree))
}

/// Prove first ([`super::box_proof`]): the dual `goal` fails on every run
/// of the box semantics, so the universal sentence holds and no MILP is
/// solved; off with the falsifier (`--falsify-samples 0`, the MILP alone).
fn proved_by_boxes(
    model: &Model,
    goal: &Core,
    n: usize,
    (opts, layers): (&MilpOptions, Layers),
    extra: &mut RealStats,
) -> bool {
    let f = &opts.falsify;
    if f.samples == 0 || f.box_states == 0 {
        return false;
    }
    let mut stats = extra.boxes.take().unwrap_or_default();
    let proved = prove_universal(
        model,
        goal,
        n,
        (f, layers),
        &opts.solve.deadline,
        &mut stats,
    );
    extra.boxes = Some(stats);
    proved
}

/// Prove first for an existential sentence over an initial interval
/// ([`super::box_witness`]): every box has moves along which the goal
/// holds from each of its states, or some initial state has no run on
/// which it holds ([`BoxAnswer`]). The runs of the whole initial set are
/// checked first for updates that leave their declared range, as the
/// covering does, so a model error is still an error.
fn witnessed_by_boxes(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    opts: &MilpOptions,
    sizes: &mut Sizes,
    extra: &mut RealStats,
) -> Result<BoxAnswer, RunError> {
    let f = &opts.falsify;
    if f.samples == 0 || f.box_states == 0 {
        return Ok(BoxAnswer::Open);
    }
    let free = Start::Vars(vec![StartVar::Free; model.env.vars.len()]);
    check_every_start(model, goal, (n, m), false, &free, opts, sizes)?;
    let mut stats = BoxStats::default();
    let (answer, sampled) = decide_existential(model, goal, n, f, &opts.solve.deadline, &mut stats);
    extra.boxes = Some(stats);
    extra.falsify = sampled;
    Ok(answer)
}

/// Whether the bounds propagated through the MILP's unrolling (encoded
/// without OBBT, which costs milliseconds; nothing solved) pin the dual
/// goal to false from every initial state.
fn bounds_decide(
    model: &Model,
    goal: &Core,
    (n, m): (usize, usize),
    opts: &MilpOptions,
) -> Result<bool, RunError> {
    let mut plain = opts.clone();
    plain.encode.obbt_budget = std::time::Duration::ZERO;
    let start = Start::Vars(vec![StartVar::Free; model.env.vars.len()]);
    pinned(&mut Concrete::new(model, &plain, (n, m), start, F64), goal)
}

/// Replays the decoded trees (a tree that does not replay is an internal
/// error, exit 3); the first is the witness, shown as the finite decider shows its traces.
pub fn replay_f64(
    model: &Model,
    trees: &[RealTree],
    counterexample: bool,
) -> Result<Option<Witness>, RunError> {
    let mut traces = Vec::new();
    for t in trees {
        match replay_real(model, t) {
            Ok(b) => traces.push(b),
            Err(why) => return Err(internal("MILP trace (f64 replay)", why)),
        }
    }
    Ok(real_trace(model, &traces, counterexample).map(Witness::Trace))
}
