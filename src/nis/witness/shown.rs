//! The witness of one NIS check as a value: which shape it has (a trace, a
//! refutation of `<<G>> X^k phi`, an abstract trace concretized in M(n)),
//! each already replayed through the semantics. The deciders return it; the
//! verb layer renders it with [`Witness::json`] or [`Witness::text`].

use super::{refutation_text, Trace};
use serde_json::Value;

/// A replayed witness or counterexample, as a decider found it.
#[derive(Clone, Debug)]
pub enum Witness {
    /// A trace of M(n), M(0) or M_ab(m): a witness, a counterexample, a
    /// strategy, or an abstract trace (the trace's `kind` says which).
    Trace(Trace),
    /// A refutation of `<<G>> X^k phi` from an initial state: every move of
    /// the coalition, answered by the others, reaches the negated goal.
    Refutation(Trace),
    /// The abstract trace of M_ab(m) found by the slot encoding, replayed in
    /// M(n) (agents m+1..n follow the zero-one agent; with n = m, agents
    /// 1..m perform every action of the zero-one agent).
    Concretized {
        trace: Trace,
        /// m, the indexed agents.
        indexed: usize,
        /// n, the agents of the concrete system it was replayed in.
        agents: usize,
    },
}

impl Witness {
    /// A strategic tree: a refutation, said as such, or a strategy.
    pub fn strategic(trace: Trace, refutation: bool) -> Witness {
        if refutation {
            Witness::Refutation(trace)
        } else {
            Witness::Trace(trace)
        }
    }

    /// The JSON form (the report's `witness`).
    pub fn json(&self) -> Value {
        match self {
            Witness::Trace(t) | Witness::Refutation(t) => t.render().0,
            Witness::Concretized { trace, agents, .. } => {
                let mut json = trace.render().0;
                if let Value::Object(o) = &mut json {
                    o.insert("concretized_in".into(), format!("M({agents})").into());
                }
                json
            }
        }
    }

    /// The text form: one step table per branch, after what the trace is.
    pub fn text(&self) -> String {
        match self {
            Witness::Trace(t) => t.render().1,
            Witness::Refutation(t) => refutation_text(&t.render().1),
            Witness::Concretized {
                trace,
                indexed: m,
                agents: n,
            } => {
                let (m, n) = (*m, *n);
                let who = if n == m + 1 {
                    format!("agent {n} follows the zero-one agent")
                } else if n > m {
                    format!("agents {}..{n} follow the zero-one agent", m + 1)
                } else {
                    format!("agents 1..{m} perform every action of the zero-one agent")
                };
                format!(
                    "the abstract trace of M_ab({m}), concretized in M({n}) ({who}):\n{}",
                    trace.render().1
                )
            }
        }
    }
}
