//! `mavis swarm sweep`: the seed's Figure 2, max p against the step bound k
//! and a swept constant (the fault probability pf): the rows, one bounded
//! value iteration per constant value giving every k at once. The report,
//! CSV and plots are drawn by `crate::swarm::verbs::sweep`.

use super::bounded::bounded_until;
use super::mdp::Mdp;
use super::mdp::Stop;
use super::property::{self, Sem};
use super::reward::RewardVectors;
use super::reward_eval::evaluate_rewards;
use crate::lang::{num, Rat, Source, Span, Value};
use crate::report::meter::Meter;
use crate::report::{Deadline, RunError};
use crate::swarm::front::load::{load, load_props, Inputs};
use crate::swarm::front::model::Model;
use crate::swarm::front::props::{parse_property_sources, Opt, Path, Properties, Property};
use crate::swarm::semantics::concrete::Concrete;
use crate::swarm::semantics::counting::{check_deterministic, Counting};

/// The most values one `--sweep` range may have (each is one model build and check).
pub const MAX_SWEEP_VALUES: u32 = 10_000;

/// The width of the certified interval of an unbounded row (`check`'s
/// default `--precision`).
pub const SWEEP_PRECISION: f64 = 1e-6;

/// The largest step bound `--k` accepts.
pub const MAX_SWEEP_K: usize = 100_000;

/// `pf=0:0.1:1`: a constant and its values, exactly.
pub fn parse_range(text: &str) -> Result<(String, Vec<Rat>), String> {
    let (name, range) = text.split_once('=').ok_or("expected NAME=START:STEP:END")?;
    let parts: Vec<&str> = range.split(':').collect();
    let read = |s: &str| match crate::lang::parse_value_text(s)? {
        Value::Num(r) => Ok(r),
        other => Err(format!("`{other}` is not a number")),
    };
    let values = match parts.as_slice() {
        [single] => vec![read(single)?],
        [a, step, b] => {
            let (a, step, b) = (read(a)?, read(step)?, read(b)?);
            if step <= Rat::default() || a > b {
                return Err("the range needs START <= END and a positive STEP".into());
            }
            // Counted exactly before any value is made: a range is never cut short.
            let count = ((&b - &a) / &step).floor().to_integer() + 1;
            if count > MAX_SWEEP_VALUES.into() {
                return Err(format!(
                    "the range has {count} values; the limit is {MAX_SWEEP_VALUES}"
                ));
            }
            let mut v = Vec::new();
            let mut x = a;
            while x <= b {
                v.push(x.clone());
                x += &step;
            }
            v
        }
        _ => return Err("expected NAME=START:STEP:END or NAME=VALUE".into()),
    };
    Ok((name.trim().to_string(), values))
}

/// `8..20`
pub fn parse_k(text: &str) -> Result<(usize, usize), String> {
    let (a, b) = text.split_once("..").ok_or("expected LO..HI")?;
    let (a, b): (usize, usize) = (
        a.trim().parse().map_err(|_| "bad LO")?,
        b.trim().parse().map_err(|_| "bad HI")?,
    );
    if a == 0 || a > b || b > MAX_SWEEP_K {
        return Err(format!("expected 1 <= LO <= HI <= {MAX_SWEEP_K}"));
    }
    Ok((a, b))
}

pub struct SweepOptions {
    pub swept: (String, Vec<Rat>),
    pub ks: (usize, usize),
    pub agents: Option<Vec<usize>>,
    pub threshold: u32,
    pub max_states: usize,
    /// Threads of the value iteration (`--threads`).
    pub threads: usize,
}

/// What a row's `p` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// The optimum at the given size.
    AtSize,
    /// The exact optimum over every size n, by the cutoff (docs/swarm.md).
    ExactOverN,
    /// The abstraction's bound on the optimum over every n (the cutoff does
    /// not apply, or did not fit).
    Bound,
}

/// One row of the sweep table.
#[derive(Clone, Debug)]
pub struct Row {
    /// The swept constant's value.
    pub value: Rat,
    pub k: usize,
    /// The value shown and plotted (see `kind`).
    pub p: f64,
    pub kind: RowKind,
    /// Over all n: the abstraction's bound (beside an exact `p` too).
    pub bound: Option<f64>,
}

/// The sweep table as far as it was computed.
pub struct SweepTable {
    pub rows: Vec<Row>,
    pub opt: Opt,
    /// An expected reward (`R`), not a probability.
    pub reward: bool,
    /// The property's text.
    pub prop: String,
    /// Warnings for the report, each with the index of its swept value.
    pub notes: Vec<(usize, String)>,
}

impl SweepTable {
    /// `Pmax`, `Pmin`, `Rmax` or `Rmin`.
    pub fn word(&self) -> &'static str {
        match (self.reward, self.opt) {
            (false, o) => o.word(),
            (true, Opt::Max) => "Rmax",
            (true, Opt::Min) => "Rmin",
        }
    }
}

impl Default for SweepTable {
    fn default() -> Self {
        SweepTable {
            rows: Vec::new(),
            opt: Opt::Max,
            reward: false,
            prop: String::new(),
            notes: Vec::new(),
        }
    }
}

/// The property with the constant `k` defined as `k` (the model is a copy).
fn property_at(base: &Model, text: &str, k: usize) -> Result<(Properties, Model), RunError> {
    let mut m = base.clone();
    let src = m.source.clone();
    m.consts
        .define(&src, "k", Span::default(), Value::Num(num::int(k as i64)))?;
    let props = parse_property_sources(&[Source::new("<--prop>", text.to_string())], &m)?;
    Ok((props, m))
}

/// One row to compute: its k, the step bound the property has at that k and
/// the target and allowed sets it has there; `general` for every property
/// but a step-bounded `P[ F ]` or `P[ U ]` (those share one value iteration).
struct Cell {
    k: usize,
    steps: usize,
    sets: Vec<Vec<bool>>,
    general: Option<General>,
}

/// A row decided as `check` decides it: the property read at the row's k
/// and, for `R`, its reward structure's values.
struct General {
    prop: Property,
    rewards: Option<RewardVectors>,
}

/// Every row's cell: the property is read again at each k, so the bound, the
/// target and the allowed states are those of that k (no `k + const` guess).
fn cells(
    base: &Model,
    text: &str,
    sem: &Sem,
    mdp: &Mdp,
    ks: (usize, usize),
    deadline: Deadline,
) -> Result<Vec<Cell>, RunError> {
    let mut out = Vec::new();
    for k in ks.0..=ks.1 {
        deadline.check()?;
        let (props, m) = property_at(base, text, k)?;
        let p = props.props.first().expect("parser requires one");
        let f = property::path_formulas(&p.path);
        let mut sets = property::evaluate_formulas(sem, mdp, &m, &props.refs, &f).truth;
        let general = match (&p.path, p.reward) {
            (
                Path::Until {
                    phi,
                    steps: Some(_),
                    ..
                },
                None,
            ) => {
                if phi.is_none() {
                    sets.push(vec![true; mdp.num_states()]);
                }
                None
            }
            (_, r) => Some(General {
                prop: p.clone(),
                rewards: r
                    .map(|i| evaluate_rewards(sem, mdp, &m, &m.label_refs, &m.rewards[i], false))
                    .transpose()
                    .map_err(RunError::input)?,
            }),
        };
        out.push(Cell {
            k,
            steps: p.path.steps().unwrap_or(0),
            sets,
            general,
        });
    }
    Ok(out)
}

/// The semantics a sweep explores: S(agents), or the abstraction.
fn semantics<'a>(
    l: &'a crate::swarm::front::load::Loaded,
    props: &Properties,
    o: &SweepOptions,
) -> Result<Sem<'a>, RunError> {
    Ok(match &o.agents {
        Some(a) => Sem::Concrete(Concrete::new(
            &l.model,
            &l.sys,
            &super::procedure::counts_for(l, a)?,
        )),
        None => {
            check_deterministic(&l.model, &l.sys).map_err(RunError::input)?;
            let named = vec![0; l.model.templates.len()];
            if props
                .refs
                .iter()
                .any(|r| matches!(r, crate::swarm::front::model::GlobalVar::Agent { .. }))
            {
                return Err(RunError::input(
                    "sweep over all sizes needs a property over the environment only",
                ));
            }
            super::procedure::check_threshold(o.threshold, l.model.templates.len(), o.max_states)?;
            let counts = named.iter().map(|_| (1..=o.threshold).collect()).collect();
            Sem::Counting(Counting::new(&l.model, &l.sys, &named, o.threshold, counts))
        }
    })
}

/// Computes the rows of the swept values `which` (indices, in order) into
/// `table`, stopping at `deadline` ([`RunError::TimedOut`], with the rows
/// of the values done kept). One model per swept value; rows whose target
/// and allowed sets agree share one value iteration, read at each row's own
/// step bound. `meter` counts the values done.
pub fn sweep_rows(
    inputs: &Inputs,
    o: &SweepOptions,
    (deadline, meter): (Deadline, &Meter),
    table: &mut SweepTable,
    which: &[usize],
) -> Result<(), RunError> {
    let (name, values) = &o.swept;
    let text = inputs.prop_texts.first().cloned().unwrap_or_default();
    for (done, &index) in which.iter().enumerate() {
        meter.set(done as u64);
        let v = &values[index];
        deadline.check()?;
        let (l, base, props) = load_at(inputs, o, v)?;
        let p = props.props.first().expect("parser requires one");
        table.prop = p.text.clone();
        table.opt = p.opt;
        if p.reward.is_some() && l.model.faulty_fraction.is_some() {
            return Err(RunError::input(
                "a reward property with --faulty-fraction: Definition 16's phase is checked for probabilities only",
            ));
        }
        table.reward = p.reward.is_some();
        let sem = semantics(&l, &props, o)?;
        let mdp = match super::procedure::build_for(
            &l,
            &sem,
            &props,
            false,
            o.max_states,
            deadline.at(),
            None,
        ) {
            Ok(mdp) => mdp,
            Err(Stop::TimedOut(_)) => return Err(deadline.check().unwrap_err().into()),
            Err(stop) => return Err(RunError::Limit(super::procedure::stop_message(&stop))),
        };
        let cells = cells(&base, &text, &sem, &mdp, o.ks, deadline)?;
        if cells
            .windows(2)
            .all(|w| w[0].steps == w[1].steps && w[0].sets == w[1].sets)
        {
            table.notes.push((
                index,
                format!(
                    "the property does not depend on k: every row for {name}={} has the same value",
                    num::to_f64(v)
                ),
            ));
        }
        let values = cell_values(&mdp, &cells, p.opt, deadline, o.threads)?;
        let exact = match &o.agents {
            Some(_) => None,
            None => cutoff_values(&l, &base, &text, &cells, p.opt, o, deadline)?,
        };
        if o.agents.is_none() && exact.is_none() {
            table.notes.push((
                index,
                format!(
                    "{name}={}: the cutoff {}; the rows are the abstraction's bounds",
                    num::to_f64(v),
                    if super::procedure::cutoff_applies(&l) {
                        "did not fit in a quarter of --max-states"
                    } else {
                        "does not apply (global-synchronous actions)"
                    }
                ),
            ));
        }
        let at_size = o.agents.is_some();
        push_rows(table, v, &cells, values, exact.as_deref(), at_size);
    }
    meter.set(which.len() as u64);
    Ok(())
}

/// The model at swept value `v` (with `k` defined as the largest bound),
/// the model without `k` (for reading the property again at each k), and
/// the property.
fn load_at(
    inputs: &Inputs,
    o: &SweepOptions,
    v: &Rat,
) -> Result<(crate::swarm::front::load::Loaded, Model, Properties), RunError> {
    let name = &o.swept.0;
    let mut inp = inputs.clone();
    inp.sets.retain(|(n, _)| n != name);
    inp.sets.push((name.clone(), Value::Num(v.clone())));
    let mut l = load(&inp)?;
    let mut base = l.model.clone();
    let src = l.source.clone();
    let hi = Value::Num(num::int(o.ks.1 as i64));
    l.model.consts.define(&src, "k", Span::default(), hi)?;
    let props: Properties = load_props(&inp, &mut l)?;
    base.set_flag_tracking(l.model.track_flags);
    Ok((l, base, props))
}

/// The rows of swept value `v`, one per cell: the value at the size asked
/// (`at_size`), else the exact value over n where the cutoff gave one
/// (`exact`), else the abstraction's bound.
fn push_rows(
    table: &mut SweepTable,
    v: &Rat,
    cells: &[Cell],
    values: Vec<f64>,
    exact: Option<&[f64]>,
    at_size: bool,
) {
    for (i, (c, x)) in cells.iter().zip(values).enumerate() {
        let (p, kind, bound) = match (at_size, exact) {
            (true, _) => (x, RowKind::AtSize, None),
            (false, Some(e)) => (e[i], RowKind::ExactOverN, Some(x)),
            (false, None) => (x, RowKind::Bound, Some(x)),
        };
        table.rows.push(Row {
            value: v.clone(),
            k: c.k,
            p,
            kind,
            bound,
        });
    }
}

/// The value of every cell on `mdp` (optimum over its initial states): rows
/// whose target and allowed sets agree share one value iteration, read at
/// each row's own step bound.
fn cell_values(
    mdp: &Mdp,
    cells: &[Cell],
    opt: Opt,
    deadline: Deadline,
    threads: usize,
) -> Result<Vec<f64>, RunError> {
    let mut values = vec![0.0; cells.len()];
    let mut done = vec![false; cells.len()];
    for (i, c) in cells.iter().enumerate() {
        if let Some(g) = &c.general {
            let asked = property::Asked {
                mdp,
                prop: &g.prop,
                truth: &c.sets,
                rewards: g.rewards.as_ref(),
                phases: None,
            };
            let how = property::Numerics {
                threads,
                precision: SWEEP_PRECISION,
                ..property::Numerics::F64
            };
            let v = property::compute(&asked, how, (deadline, &Meter::none()))?;
            // An interval's sound end: a row over every size is a bound.
            let best = property::over_initials(&v, opt).2;
            values[i] = match (&v.bounds, opt) {
                (Some(b), Opt::Max) => b[best].1,
                (Some(b), Opt::Min) => b[best].0,
                (None, _) => v.f64s[best],
            };
            done[i] = true;
        }
    }
    for i in 0..cells.len() {
        if done[i] {
            continue;
        }
        let group: Vec<usize> = (i..cells.len())
            .filter(|&j| !done[j] && cells[j].sets == cells[i].sets)
            .collect();
        let most = group.iter().map(|&j| cells[j].steps).max().unwrap_or(0);
        let (target, allowed) = (&cells[i].sets[0], &cells[i].sets[1]);
        let run = bounded_until::<f64>(
            mdp,
            target,
            allowed,
            most,
            opt,
            true,
            (deadline, &Meter::none()),
            threads,
        )?;
        for j in group {
            let vals = property::Values {
                f64s: mdp
                    .initial
                    .iter()
                    .map(|&s| run.history[cells[j].steps][s as usize])
                    .collect(),
                exact: None,
                witness: None,
                bounds: None,
                method: property::Method::Bounded,
            };
            values[j] = property::over_initials(&vals, opt).0;
            done[j] = true;
        }
    }
    Ok(values)
}

/// The exact optimum over every size of each cell, by the cutoff: with only
/// asynchronous and agent-environment actions, the counting quotient of
/// S(1..h) (threshold h + 1, explored h steps deep, h the largest step bound
/// of the cells) has, at its initial states, every value a property of at
/// most h steps takes over all n. `None` when the cutoff does not apply or
/// does not fit in a quarter of `--max-states` (as in `check`).
fn cutoff_values(
    l: &crate::swarm::front::load::Loaded,
    base: &Model,
    text: &str,
    cells: &[Cell],
    opt: Opt,
    o: &SweepOptions,
    deadline: Deadline,
) -> Result<Option<Vec<f64>>, RunError> {
    if !super::procedure::cutoff_applies(l) || l.model.faulty_fraction.is_some() {
        return Ok(None);
    }
    // Unbounded properties have no cutoff: a path may move every agent.
    if cells.iter().any(|c| {
        c.general
            .as_ref()
            .is_some_and(|g| g.prop.path.steps().is_none())
    }) {
        return Ok(None);
    }
    let h = cells.iter().map(|c| c.steps).max().unwrap_or(0).max(1);
    let Ok(h32) = u32::try_from(h) else {
        return Ok(None);
    };
    let budget = o.max_states / 4;
    if super::procedure::initial_abstract_states(h32, l.model.templates.len()) > budget as u128 {
        return Ok(None);
    }
    let named = vec![0; l.model.templates.len()];
    let counts = super::procedure::init_counts(&named, h32);
    let sem = Sem::Counting(Counting::new(&l.model, &l.sys, &named, h32 + 1, counts));
    let mdp = match property::build_to_depth(&sem, false, budget, deadline.at(), h) {
        Ok(mdp) => mdp,
        Err(Stop::TimedOut(_)) => return Err(deadline.check().unwrap_err().into()),
        Err(_) => return Ok(None),
    };
    let ks = (cells[0].k, cells[cells.len() - 1].k);
    let cut = self::cells(base, text, &sem, &mdp, ks, deadline)?;
    Ok(Some(cell_values(&mdp, &cut, opt, deadline, o.threads)?))
}
