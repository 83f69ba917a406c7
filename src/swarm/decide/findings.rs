//! What the checks record as they go: a property's verdict from its value,
//! the undecided ones, the sizes, and the witnesses (replayed through the
//! semantics before they are recorded).

use super::mdp::{Mdp, Stop};
use super::outcome::{
    Answer, CheckOutcome, ModelStats, Probability, PropertyOutcome, Witness, WitnessNote,
    WitnessStep,
};
use super::procedure::{stop_message, Explored};
use super::property::{self, Sem, Values};
use crate::report::{Expired, RunError, Verdict};
use crate::swarm::front::props::{Path, Properties, Property};

/// The sizes of an explored model and the times.
pub(super) fn model_stats(ex: &Explored, check_s: f64) -> ModelStats {
    ModelStats {
        states: ex.mdp.num_states(),
        choices: ex.mdp.num_choices(),
        transitions: ex.mdp.num_transitions(),
        build_s: ex.build_s,
        check_s,
    }
}

/// Whether the value meets the property's bound (exactly when it can).
pub(super) fn verdict_of(prop: &Property, v: &Probability) -> Option<Verdict> {
    // A certified interval without an exact value: the comparison holds on
    // a half-line, so it holds (or fails) on the whole interval when it
    // does at both ends; otherwise the bound lies inside it: unknown.
    if let (None, Some((lo, hi))) = (&v.exact, v.bounds) {
        let at = |x: f64| property::meets(prop, x, None);
        return Some(match (at(lo)?, at(hi)?) {
            (true, true) => Verdict::Holds,
            (false, false) => Verdict::Violated,
            _ => Verdict::Unknown,
        });
    }
    property::meets(prop, v.f64, v.exact.as_ref()).map(Verdict::from_bool)
}

/// A property left undecided, with the reason.
pub(super) fn unknown(p: &Property, reason: &str) -> PropertyOutcome {
    PropertyOutcome {
        property: p.text.clone(),
        opt: p.opt,
        word: p.word(),
        verdict: Some(Verdict::Unknown),
        answer: Answer::Unknown {
            reason: reason.to_string(),
        },
    }
}

/// The properties from the `done`-th on, left undecided by the deadline.
pub(super) fn unknown_from(out: &mut CheckOutcome, props: &Properties, done: usize, e: Expired) {
    let reason = format!("{e} before this property was computed");
    out.warnings.push(reason.clone());
    out.stats.timed_out = true;
    out.properties
        .extend(props.props[done..].iter().map(|p| unknown(p, &reason)));
}

/// Every property undecided because exploring `what` stopped; the states
/// explored so far go into the statistics.
pub(super) fn stopped_exploring(
    out: &mut CheckOutcome,
    props: &Properties,
    stop: &Stop,
    what: &str,
) {
    let reason = format!("{what}: {}", stop_message(stop));
    if let Stop::TimedOut(n) = stop {
        out.stats.states_explored = Some(*n as u64);
        out.stats.timed_out = true;
    }
    out.warnings.push(reason.clone());
    out.properties
        .extend(props.props.iter().map(|p| unknown(p, &reason)));
}

/// The witness of `p` from its values `v`, replayed through the semantics.
pub(super) fn witness(
    sem: &Sem,
    mdp: &Mdp,
    p: &Property,
    truth: &[Vec<bool>],
    v: &Values,
    out: &mut CheckOutcome,
) -> Result<(), RunError> {
    let Path::Until {
        phi,
        steps: Some(steps),
        ..
    } = &p.path
    else {
        out.warnings.push(format!(
            "{}: witnesses are given for step-bounded F and U properties",
            p.text
        ));
        return Ok(());
    };
    let Some(path) = &v.witness else {
        out.witnesses.push(WitnessNote::Unreachable {
            property: p.text.clone(),
            steps: *steps,
        });
        return Ok(());
    };
    let all = vec![true; mdp.num_states()];
    let allowed = if phi.is_some() { &truth[1] } else { &all };
    let probability = property::replay(sem, mdp, path, &truth[0], allowed, *steps)
        .map_err(|e| RunError::Internal(format!("the witness does not replay: {e}")))?;
    let steps = path
        .iter()
        .map(|s| WitnessStep {
            action: sem.describe_label(mdp.choice_label[s.choice]),
            probability: s.prob,
            state: sem.describe_state(mdp.states.get(s.state)),
        })
        .collect();
    out.witnesses.push(WitnessNote::Path(Witness {
        property: p.text.clone(),
        probability,
        columns: sem.columns(),
        initial: sem.describe_state(mdp.states.get(mdp.initial[0])),
        steps,
    }));
    Ok(())
}
