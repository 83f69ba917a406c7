//! `swarm check`'s procedure: the properties on S(n), or for every size
//! ([`super::check_abstract`]), as a [`CheckOutcome`]; witnesses are
//! replayed through the semantics before they are put in it.

use super::check_abstract::check_abstract;
use super::findings::{model_stats, stopped_exploring, unknown_from, verdict_of, witness};
use super::outcome::{Answer, CheckOutcome, Probability, PropertyOutcome};
use super::procedure::{counts_for, explore_and_label, CheckOptions};
use super::property::Sem;
use crate::report::{RunContext, RunError};
use crate::swarm::front::load::Loaded;
use crate::swarm::front::model::GlobalVar;
use crate::swarm::front::props::Properties;
use crate::swarm::semantics::concrete::Concrete;
use std::time::Instant;

/// Checks `props` on S(n) (`opts.agents`) or for every size (`opts.threshold`).
pub fn check(
    l: &Loaded,
    props: &Properties,
    opts: &CheckOptions,
    ctx: &RunContext,
) -> Result<CheckOutcome, RunError> {
    let mut out = CheckOutcome::default();
    if l.model.faulty {
        out.stats.fault_flags = Some(if l.model.track_flags {
            "tracked"
        } else {
            "projected away (nothing reads them; --fault-flags keeps them)"
        });
    }
    if l.model.faulty_fraction.is_some() && props.props.iter().any(|p| p.path.steps().is_none()) {
        return Err(RunError::input("an unbounded property with --faulty-fraction: Definition 16's phase is checked for step-bounded properties only"));
    }
    if l.model.faulty_fraction.is_some() && props.props.iter().any(|p| p.reward.is_some()) {
        return Err(RunError::input("a reward property with --faulty-fraction: Definition 16's phase is checked for probabilities only"));
    }
    if opts.exact && opts.threshold.is_some() && l.model.faulty_fraction.is_some() {
        return Err(RunError::input("--exact with --faulty-fraction needs a concrete size (--agents n): the abstract initialisation phase has cycles"));
    }
    match (&opts.agents, opts.threshold) {
        (Some(a), None) => check_concrete(l, props, &counts_for(l, a)?, opts, ctx, &mut out)?,
        (None, Some(t)) => check_abstract(l, props, t, opts, ctx, &mut out)?,
        (Some(_), Some(_)) => {
            return Err(RunError::input(
                "give either --agents n or --abstract, not both",
            ))
        }
        (None, None) => {
            return Err(RunError::input(
                "give --agents n (a concrete size) or --abstract (all sizes)",
            ))
        }
    }
    if ctx.timed_out() && !out.stats.timed_out {
        // The cutoff and the concrete sizes of an undecided abstract bound
        // stop quietly at the deadline: say so.
        out.stats.timed_out = true;
        out.warnings.push("the time-out was reached".into());
    }
    Ok(out)
}

/// Refuses a label or property that names an agent S(counts) does not have.
fn agents_exist(c: &Concrete, props: &Properties, counts: &[usize]) -> Result<(), RunError> {
    for r in &props.refs {
        if let GlobalVar::Agent {
            template, agent, ..
        } = r
        {
            if c.agent_index(*template, *agent).is_none() {
                return Err(RunError::input(format!(
                    "a label or property names agent {} of template {} but --agents gives {}",
                    agent + 1,
                    template + 1,
                    counts[*template]
                )));
            }
        }
    }
    Ok(())
}

fn check_concrete(
    l: &Loaded,
    props: &Properties,
    counts: &[usize],
    opts: &CheckOptions,
    ctx: &RunContext,
    out: &mut CheckOutcome,
) -> Result<(), RunError> {
    let concrete = Concrete::new(&l.model, &l.sys, counts);
    agents_exist(&concrete, props, counts)?;
    let sem = Sem::Concrete(concrete);
    let ex = match explore_and_label(l, &sem, props, opts.exact, opts.max_states, ctx) {
        Ok(ex) => ex,
        Err(stop) => {
            stopped_exploring(out, props, &stop, "the system");
            return Ok(());
        }
    };
    if let Some(why) = ex.reward_error() {
        return Err(RunError::input(why));
    }
    let t1 = Instant::now();
    let rounds = counts.iter().sum::<usize>() + 2;
    let checking = super::procedure::checking_meter(props, ctx);
    let meter = checking.meter();
    for (i, p) in props.props.iter().enumerate() {
        meter.set_level(i as u64);
        let v = match ex.compute(props, i, opts, (ctx, &meter), rounds) {
            Ok(v) => v,
            Err(e) => {
                // The properties from i on are unknown, not done.
                meter.timed_out();
                unknown_from(out, props, i, e);
                break;
            }
        };
        let value = Probability::of(&v, 0);
        if opts.witness {
            witness(&sem, &ex.mdp, p, &ex.truth[i], &v, out)?;
        }
        out.properties.push(PropertyOutcome {
            property: p.text.clone(),
            opt: p.opt,
            word: p.word(),
            verdict: verdict_of(p, &value),
            answer: Answer::AtSize {
                agents: counts.to_vec(),
                value,
            },
        });
        meter.set_level(i as u64 + 1);
    }
    drop(checking);
    out.stats.model = Some(model_stats(&ex, t1.elapsed().as_secs_f64()));
    Ok(())
}
