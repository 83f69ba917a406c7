//! `mavis swarm check --abstract`: the abstraction for every size at once,
//! the cutoff where it applies, and the concrete values of S(1..3) when
//! neither proves a property.

use super::check_common::{
    check_threshold, cutoff_applies, explore_and_label, explore_and_label_to, init_counts,
    initial_abstract_states, named_agents, show, sizes, stop_message, stopped_exploring,
    unknown_from, verdict_of, witness, CheckOptions, Outcome,
};
use crate::lang::{num, Rat};
use crate::report::{Report, RunContext, RunError, Verdict};
use crate::swarm::decide::mdp::Stop;
use crate::swarm::decide::property::{self, Sem, Values};
use crate::swarm::front::props::{Opt, Properties, Property};
use crate::swarm::semantics::concrete::Concrete;
use crate::swarm::semantics::counting::{check_deterministic, Counting};
use crate::swarm::Loaded;
use serde_json::{json, Value as Json};
use std::time::Instant;

pub(super) fn check_abstract(
    l: &Loaded,
    props: &Properties,
    t: u32,
    opts: &CheckOptions,
    ctx: &RunContext,
    report: &mut Report,
) -> Result<Vec<Outcome>, RunError> {
    check_threshold(t, l.model.templates.len(), opts.max_states)?;
    check_deterministic(&l.model, &l.sys).map_err(RunError::input)?;
    let named = named_agents(l, &props.refs);
    let sem = Sem::Counting(Counting::new(
        &l.model,
        &l.sys,
        &named,
        t,
        init_counts(&named, t),
    ));
    let ex = match explore_and_label(l, &sem, props, opts.exact, opts.max_states, ctx) {
        Ok(ex) => ex,
        Err(stop) => {
            return Ok(abstraction_stopped(
                l, props, &stop, opts, ctx, &named, report,
            ))
        }
    };
    let answers = AbstractAnswers {
        l,
        props,
        opts,
        ctx,
        named: &named,
        t,
    };
    let t1 = Instant::now();
    let mut out = Vec::new();
    for (i, p) in props.props.iter().enumerate() {
        let v = match ex.compute(props, i, opts, ctx, 0) {
            Ok(v) => v,
            Err(e) => {
                out.extend(unknown_from(report, props, i, e));
                break;
            }
        };
        if opts.witness && ex.mdp.initial.len() == 1 {
            witness(l, &sem, &ex.mdp, p, &ex.truth[i], &v, report)?;
        }
        out.push(answers.outcome(p, &v));
    }
    sizes(report, &ex, t1.elapsed().as_secs_f64(), ctx.quiet());
    Ok(out)
}

/// What the answers of one abstract check read: the model, the
/// properties, the options, the named agents and the threshold.
struct AbstractAnswers<'a> {
    l: &'a Loaded,
    props: &'a Properties,
    opts: &'a CheckOptions,
    ctx: &'a RunContext,
    named: &'a [usize],
    t: u32,
}

impl AbstractAnswers<'_> {
    /// The answer for property `p` from its values `v` on the abstraction:
    /// proven by the abstract bound, else by the cutoff where it applies,
    /// else unknown with the concrete values.
    fn outcome(&self, p: &Property, v: &Values) -> Outcome {
        let AbstractAnswers {
            l,
            props,
            opts,
            ctx,
            t,
            ..
        } = *self;
        let (f, e, _) = property::over_initials(v, p.opt);
        let side = if p.opt == Opt::Max {
            "sup over n <="
        } else {
            "inf over n >="
        };
        let mut j = json!({"property": p.text, "mode": "abstract", "threshold": t, "abstract_bound": f, "abstract_bound_exact": e.as_ref().map(num::display)});
        let proven = property::meets(p, f, e.as_ref());
        let (verdict, result) = match proven {
            None => (
                None,
                format!("{} {side} {}", p.opt.word(), show(f, e.as_ref())),
            ),
            Some(true) => (
                Some(Verdict::Holds),
                format!(
                    "HOLDS for every size ({} {side} {})",
                    p.opt.word(),
                    show(f, e.as_ref())
                ),
            ),
            Some(false) => match cutoff(l, props, p, opts, ctx, self.named) {
                Some((cf, ce, per_n)) => {
                    j["cutoff"] = json!({"value": cf, "exact": ce.as_ref().map(num::display), "per_n": per_n});
                    let v = verdict_of(p, cf, ce.as_ref()).expect("bounded");
                    (Some(v), format!("{} for every size by the cutoff (exact {} over n = {}; abstract bound {})", v.word(), p.opt.word(), show(cf, ce.as_ref()), show(f, e.as_ref())))
                }
                None => {
                    let conc = concrete_values(l, props, p, opts, ctx);
                    j["concrete"] = json!(conc
                        .iter()
                        .map(|(n, v)| json!({"agents": n, "value": v}))
                        .collect::<Vec<_>>());
                    let shown: Vec<String> =
                        conc.iter().map(|(n, v)| format!("n={n}: {v}")).collect();
                    (
                        Some(Verdict::Unknown),
                        format!(
                            "UNKNOWN: abstract {} {side} {} does not prove it; concrete {}",
                            p.opt.word(),
                            show(f, e.as_ref()),
                            shown.join(", ")
                        ),
                    )
                }
            },
        };
        j["verdict"] = json!(verdict);
        Outcome {
            text: p.text.clone(),
            verdict,
            result,
            json: j,
        }
    }
}

/// The abstraction could not be built: each property is answered by the
/// cutoff where it applies, else left unknown with the reason.
fn abstraction_stopped(
    l: &Loaded,
    props: &Properties,
    stop: &Stop,
    opts: &CheckOptions,
    ctx: &RunContext,
    named: &[usize],
    report: &mut Report,
) -> Vec<Outcome> {
    let mut out = stopped_exploring(report, props, stop, "the abstraction");
    if matches!(stop, Stop::TimedOut(_)) {
        return out;
    }
    for (i, p) in props.props.iter().enumerate() {
        let Some((cf, ce, per_n)) = cutoff(l, props, p, opts, ctx, named) else {
            continue;
        };
        let verdict = verdict_of(p, cf, ce.as_ref());
        let head = verdict.map_or(String::new(), |v| format!("{} for every size: ", v.word()));
        out[i] = Outcome {
            text: p.text.clone(),
            verdict,
            result: format!(
                "{head}{} over every n = {} by the cutoff (the abstraction: {})",
                p.opt.word(),
                show(cf, ce.as_ref()),
                stop_message(stop)
            ),
            json: json!({"property": p.text, "mode": "abstract", "abstraction": stop_message(stop), "cutoff": {"value": cf, "exact": ce.as_ref().map(num::display), "per_n": per_n}, "verdict": verdict}),
        };
    }
    out
}

/// The cutoff (docs/swarm.md): with only asynchronous and agent-environment
/// actions, h steps move at most h counted agents, so S(m + h) and every
/// larger size agree on an h-step property, and the exact symmetric
/// quotients of S(m+1..m+h) give the supremum and infimum over all n.
fn cutoff(
    l: &Loaded,
    props: &Properties,
    p: &Property,
    opts: &CheckOptions,
    ctx: &RunContext,
    named: &[usize],
) -> Option<(f64, Option<Rat>, Vec<Json>)> {
    if !cutoff_applies(l) || l.model.faulty_fraction.is_some() {
        return None;
    }
    let h = u32::try_from(p.path.steps()).ok()?;
    if initial_abstract_states(h.max(1), named.len()) > (opts.max_states / 4) as u128 {
        return None;
    }
    let one = Properties {
        props: vec![p.clone()],
        refs: props.refs.clone(),
    };
    let counts: Vec<Vec<u32>> = init_counts(named, h.max(1));
    let sem = Sem::Counting(Counting::new(&l.model, &l.sys, named, h.max(1) + 1, counts));
    let ex = explore_and_label_to(
        l,
        &sem,
        &one,
        opts.exact,
        opts.max_states / 4,
        ctx,
        Some(h as usize),
    )
    .ok()?;
    let v = property::compute(
        &ex.mdp,
        p,
        &ex.truth[0],
        opts.exact,
        false,
        None,
        0,
        ctx.deadline(),
        ctx.threads,
    )
    .ok()?;
    let (f, e, _) = property::over_initials(&v, p.opt);
    let per_n: Vec<Json> = v.f64s.iter().map(|x| json!(x)).collect();
    Some((f, e, per_n))
}

/// Pmax/Pmin on S(n) for n = 1, 2, 3 agents per template, as far as they fit.
fn concrete_values(
    l: &Loaded,
    props: &Properties,
    p: &Property,
    opts: &CheckOptions,
    ctx: &RunContext,
) -> Vec<(usize, f64)> {
    let named = named_agents(l, &props.refs);
    let mut out = Vec::new();
    for n in 1..=3usize {
        if named.iter().any(|&m| m > n) {
            continue;
        }
        let counts = vec![n; l.model.templates.len()];
        let sem = Sem::Concrete(Concrete::new(&l.model, &l.sys, &counts));
        let one = Properties {
            props: vec![p.clone()],
            refs: props.refs.clone(),
        };
        let Ok(ex) = explore_and_label(l, &sem, &one, false, opts.max_states / 10, ctx) else {
            break;
        };
        let Ok(v) = property::compute(
            &ex.mdp,
            p,
            &ex.truth[0],
            false,
            false,
            ex.phases.as_ref(),
            n * counts.len() + 2,
            ctx.deadline(),
            ctx.threads,
        ) else {
            break;
        };
        out.push((n, v.f64s[0]));
    }
    out
}
