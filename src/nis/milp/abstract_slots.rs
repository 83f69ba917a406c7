//! The MILP decider of M_ab(m) by slots ([`super::slots`]): the decider for
//! templates whose local states cannot be tabulated (and, on request, for
//! finite ones, to cross-check the tabulated encoding). The unrolling,
//! the initial set, the covering of real initial intervals and the solve
//! loop are those of [`super::real`]; every solution is concretized
//! ([`super::concretize`]) and replayed through the concrete semantics.

use super::{real, stats_of, MilpOptions, MilpOutcome, Sizes};
use crate::nis::formula::Sentence;
use crate::nis::model::Model;
use crate::report::RunError;
use serde_json::Value;
use std::time::Instant;

/// Decides phi\[m\] on M_ab(m) (Definitions 12 and 13) with the slot encoding.
/// The statistics name the number of agents of the concrete system in which
/// the counterexample (`counterexample_agents`) or the witnesses
/// (`witness_agents`, the largest) were replayed.
pub fn check_abstract_slots(
    model: &Model,
    sentence: &Sentence,
    opts: &MilpOptions,
) -> Result<MilpOutcome, RunError> {
    let start = Instant::now();
    let (goal, universal) = super::existential_goal(model, sentence)?;
    let m = sentence.agents();
    let mut sizes = Sizes::default();
    let a = real::check_real(model, &goal, universal, (m, m), true, opts, &mut sizes)?;
    let (mut json, text) = real::replay_and_render(model, &a.trees, universal)?;
    let agents = a.trees.iter().map(|t| t.state.agents.len()).max();
    let mut stats = stats_of(&sizes, start);
    stats.extend(a.extra);
    if let Some(n) = agents {
        let key = if universal {
            "counterexample_agents"
        } else {
            "witness_agents"
        };
        stats.insert(key.into(), n.into());
        if let Some(Value::Object(o)) = &mut json {
            o.insert("concretized_in".into(), format!("M({n})").into());
        }
    }
    let text = text.map(|t| {
        let n = agents.unwrap_or(m);
        let who = if n == m + 1 {
            format!("agent {n} follows the zero-one agent")
        } else if n > m {
            format!("agents {}..{n} follow the zero-one agent", m + 1)
        } else {
            format!("agents 1..{m} perform every action of the zero-one agent")
        };
        format!("the abstract trace of M_ab({m}), concretized in M({n}) ({who}):\n{t}")
    });
    Ok(real::outcome(a.holds, (json, text), stats))
}
