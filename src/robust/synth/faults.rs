//! Transient faults (the seed's application, Section 6): disturbances that occur at
//! most once every T steps. The fault clock is a counter in the product automaton:
//! (q, c) with c steps to wait before the next fault may strike; after a fault c = T - 1.
//! T = 1 is the original automaton. The trade-off: the achieved bound against T.

use super::{omega, reach};
use crate::report::{Deadline, RunError};
use crate::robust::front::{Automaton, Metric, NewMove, Objective, StateNames};

/// The product automaton A_T; state q*T + c.
pub fn with_period(a: &Automaton, period: usize) -> Automaton {
    let t = period.max(1);
    let n = a.len();
    let node = |q: u32, c: usize| q * t as u32 + c as u32;
    let mut states = StateNames::with_capacity(n * t, 0);
    let mut moves = Vec::with_capacity(n * t);
    let mut gamma = Vec::with_capacity(n * t);
    for q in 0..n {
        for c in 0..t {
            if t == 1 {
                states.push(&a.states[q]);
            } else {
                states.push(&format!("{}@{c}", &a.states[q]));
            }
            gamma.push(a.gamma[q]);
            moves.push(
                a.moves[q]
                    .iter()
                    .map(|m| NewMove {
                        input: m.input,
                        nominal: node(m.nominal, c.saturating_sub(1)),
                        disturbed: if c == 0 {
                            a.moves
                                .disturbed(m)
                                .iter()
                                .map(|&(x, s)| (x, node(s, t - 1)))
                                .collect()
                        } else {
                            Vec::new()
                        },
                    })
                    .collect(),
            );
        }
    }
    let lift = |f: &[u32]| -> Vec<u32> {
        f.iter()
            .flat_map(|&q| (0..t).map(move |c| node(q, c)))
            .collect()
    };
    let objective = match &a.objective {
        Objective::Reach(f) => Objective::Reach(lift(f)),
        Objective::Buchi(f) => Objective::Buchi(lift(f)),
        Objective::GenBuchi(fs) => Objective::GenBuchi(fs.iter().map(|f| lift(f)).collect()),
        Objective::Parity(p) => Objective::Parity((0..n * t).map(|v| p[v / t]).collect()),
    };
    Automaton {
        name: a.name.clone(),
        states,
        metric: Metric::Lifted {
            base: Box::new(a.metric.clone()),
            k: t,
        },
        init: node(a.init, 0),
        inputs: a.inputs.clone(),
        disturbances: a.disturbances.clone(),
        moves: moves.into(),
        gamma,
        gamma_declared: a.gamma_declared,
        objective,
    }
}

/// One row of the trade-off table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FaultRow {
    pub period: usize,
    /// The optimal bound (opt*(q0) or the least inflation radius); None if unachievable.
    pub bound: Option<f64>,
    pub sigma: Option<f64>,
    pub states: usize,
}

/// The bound for every period in `periods`.
pub fn tradeoff(
    a: &Automaton,
    periods: impl IntoIterator<Item = usize>,
) -> Result<Vec<FaultRow>, String> {
    let mut rows = Vec::new();
    tradeoff_until(a, periods, Deadline::NONE, &mut rows).map_err(|e| match e {
        RunError::Internal(why) => why,
        other => format!("{other:?}"),
    })?;
    Ok(rows)
}

/// [`tradeoff`] into `rows`, giving up at `deadline` with the rows of the
/// periods solved so far kept.
pub fn tradeoff_until(
    a: &Automaton,
    periods: impl IntoIterator<Item = usize>,
    deadline: Deadline,
    rows: &mut Vec<FaultRow>,
) -> Result<(), RunError> {
    for t in periods {
        deadline.check()?;
        let p = with_period(a, t);
        let (bound, sigma) = match &p.objective {
            Objective::Reach(f) => {
                let s = reach::solve(&p, f);
                (Some(s.opt[p.init as usize]), Some(s.sigma))
            }
            _ => match omega::solve_until(&p, deadline)? {
                Some(s) => (Some(s.radius), Some(s.sigma)),
                None => (None, None),
            },
        };
        rows.push(FaultRow {
            period: t,
            bound,
            sigma,
            states: p.len(),
        });
    }
    Ok(())
}
