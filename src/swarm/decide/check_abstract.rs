//! `mavis swarm check --abstract`: the abstraction for every size at once,
//! the cutoff where it applies, and the concrete values of S(1..3) when
//! neither proves a property.
//!
//! *Why the abstraction bounds every size, step-bounded or not.* Let A be
//! the counting abstraction ([`crate::swarm::semantics::counting`]) and
//! S(n) the concrete system of Definition 8 with n >= m agents, m those the
//! property names. Map a global state g of S(n) to a(g): the named agents'
//! states, the environment's, and per template the counts of the other
//! agents per local state (exact below the threshold t, "t or more" from
//! it; t = 1 is the set of occupied states). Every action of the global
//! protocol P_n(g) (Definition 6) with its distribution t_n(g, act, .)
//! (Definition 7) has a choice of A at a(g) whose distribution is the image
//! of t_n(g, act, .) under a: a move of a counted agent from local state s
//! is matched by "others stay" when another counted agent is in s in g, by
//! "it was the last" otherwise; the environment and named agents move as in
//! S(n); a global-synchronous action maps every occupied state. Labels read
//! only the named agents and the environment, so a keeps them. Given an
//! adversary of S(n) (Definition 3), the adversary of A that, after an
//! abstract path, takes the matched choices with the weights the concrete
//! adversary gives the concrete paths of that image, gives every set of
//! abstract paths the probability the concrete one gives its preimage (by
//! induction on the length of paths). The events F, U and G, bounded or
//! not, are sets of paths determined by the labels, so each concrete
//! probability is one of A's: Pmax on A is at least sup over n of Pmax on
//! S(n), and Pmin on A at most inf over n (Definition 11 asks for every n).
//! Nothing here counts steps, so the bound is as sound for unbounded
//! properties; for those mavis uses the sound end of the certified
//! interval (the upper for Pmax, the lower for Pmin).
//!
//! *Rewards.* A reward structure's items read only what labels read (the
//! named agents and the environment) and the action taken, which a keeps
//! and the matched choice carries, so every path of S(n) earns what its
//! image earns in A; the same adversary correspondence gives every expected
//! reward of S(n) (F, C<=k, I=k, an infinite one included) as one of A's:
//! Rmax on A bounds sup over n from above, Rmin on A inf over n from below.
//! `C<=k` and `I=k` look k steps ahead, so the cutoff below gives their
//! exact optimum over n as it does for step-bounded probabilities.
//!
//! The cutoff does not carry over: it rests on a path of h steps moving at
//! most h agents, and an unbounded path may move them all. So an unbounded
//! property the bound does not prove is unknown for all n, reported with the
//! values of the concrete sizes.

use super::findings::{model_stats, stopped_exploring, unknown_from, verdict_of, witness};
use super::mdp::Stop;
use super::outcome::{Answer, Beyond, CheckOutcome, Cutoff, Probability, PropertyOutcome};
use super::procedure::{
    check_threshold, cutoff_applies, explore_and_label, explore_and_label_to, init_counts,
    initial_abstract_states, named_agents, stop_message, CheckOptions,
};
use super::property::{self, Sem, Values};
use crate::report::meter::Meter;
use crate::report::{RunContext, RunError, Verdict};
use crate::swarm::front::load::Loaded;
use crate::swarm::front::props::{Properties, Property};
use crate::swarm::semantics::concrete::Concrete;
use crate::swarm::semantics::counting::{check_deterministic, Counting};
use std::time::Instant;

pub(super) fn check_abstract(
    l: &Loaded,
    props: &Properties,
    t: u32,
    opts: &CheckOptions,
    ctx: &RunContext,
    out: &mut CheckOutcome,
) -> Result<(), RunError> {
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
    let answers = AbstractAnswers {
        l,
        props,
        opts,
        ctx,
        named: &named,
        t,
    };
    let ex = match explore_and_label(l, &sem, props, opts.exact, opts.max_states, ctx) {
        Ok(ex) => ex,
        Err(stop) => {
            answers.abstraction_stopped(&stop, out);
            return Ok(());
        }
    };
    if let Some(why) = ex.reward_error() {
        return Err(RunError::input(why));
    }
    let t1 = Instant::now();
    let checking = super::procedure::checking_meter(props, ctx);
    let meter = checking.meter();
    for (i, p) in props.props.iter().enumerate() {
        meter.set_level(i as u64);
        let v = match ex.compute(props, i, opts, (ctx, &meter), 0) {
            Ok(v) => v,
            Err(e) => {
                // The properties from i on are unknown, not done.
                meter.timed_out();
                unknown_from(out, props, i, e);
                break;
            }
        };
        if opts.witness && ex.mdp.initial.len() == 1 {
            witness(&sem, &ex.mdp, p, &ex.truth[i], &v, out)?;
        }
        out.properties.push(answers.outcome(p, &v));
        meter.set_level(i as u64 + 1);
    }
    drop(checking);
    out.stats.model = Some(model_stats(&ex, t1.elapsed().as_secs_f64()));
    Ok(())
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
    fn outcome(&self, p: &Property, v: &Values) -> PropertyOutcome {
        let bound = Probability::of(v, property::over_initials(v, p.opt).2);
        let (verdict, beyond) = match verdict_of(p, &bound) {
            // A query: the exact optimum over every size where the cutoff gives it.
            None => (None, self.cutoff(p).map_or(Beyond::Nothing, Beyond::Cutoff)),
            Some(Verdict::Holds) => (Some(Verdict::Holds), Beyond::Nothing),
            Some(_) => match self.cutoff(p) {
                Some(c) => (verdict_of(p, &c.value), Beyond::Cutoff(c)),
                None => (
                    Some(Verdict::Unknown),
                    Beyond::Sizes(self.concrete_values(p)),
                ),
            },
        };
        PropertyOutcome {
            property: p.text.clone(),
            opt: p.opt,
            word: p.word(),
            verdict,
            answer: Answer::AllSizes {
                threshold: self.t,
                bound,
                beyond,
            },
        }
    }

    /// The abstraction could not be built: each property is answered by the
    /// cutoff where it applies, else left unknown with the reason.
    fn abstraction_stopped(&self, stop: &Stop, out: &mut CheckOutcome) {
        let first = out.properties.len();
        stopped_exploring(out, self.props, stop, "the abstraction");
        if matches!(stop, Stop::TimedOut(_)) {
            return;
        }
        for (i, p) in self.props.props.iter().enumerate() {
            let Some(cutoff) = self.cutoff(p) else {
                continue;
            };
            out.properties[first + i] = PropertyOutcome {
                property: p.text.clone(),
                opt: p.opt,
                word: p.word(),
                verdict: verdict_of(p, &cutoff.value),
                answer: Answer::ByCutoff {
                    abstraction: stop_message(stop),
                    cutoff,
                },
            };
        }
    }

    /// The cutoff (docs/swarm.md): with only asynchronous and
    /// agent-environment actions, h steps move at most h counted agents, so
    /// S(m + h) and every larger size agree on an h-step property, and the
    /// exact symmetric quotients of S(m+1..m+h) give the supremum and
    /// infimum over all n.
    fn cutoff(&self, p: &Property) -> Option<Cutoff> {
        let AbstractAnswers {
            l,
            props,
            opts,
            ctx,
            named,
            ..
        } = *self;
        if !cutoff_applies(l) || l.model.faulty_fraction.is_some() {
            return None;
        }
        // Unbounded properties have no cutoff: a path may move every agent.
        let h = u32::try_from(p.path.steps()?).ok()?;
        if initial_abstract_states(h.max(1), named.len()) > (opts.max_states / 4) as u128 {
            return None;
        }
        let one = Properties {
            props: vec![p.clone()],
            refs: props.refs.clone(),
            phases: props.phases.clone(),
        };
        let counts: Vec<Vec<u32>> = init_counts(named, h.max(1));
        let sem = Sem::Counting(Counting::new(&l.model, &l.sys, named, h.max(1) + 1, counts));
        let budget = opts.max_states / 4;
        let ex =
            explore_and_label_to(l, &sem, &one, opts.exact, budget, ctx, Some(h as usize)).ok()?;
        let asked = property::Asked {
            mdp: &ex.mdp,
            prop: p,
            truth: &ex.truth[0],
            rewards: ex.reward(0),
            phases: None,
        };
        let how = property::Numerics {
            exact: opts.exact,
            witness: false,
            threads: ctx.threads,
            precision: opts.precision,
        };
        let v = property::compute(&asked, how, (ctx.deadline(), &Meter::none())).ok()?;
        Some(Cutoff {
            value: Probability::of(&v, property::over_initials(&v, p.opt).2),
            per_n: v.f64s.clone(),
        })
    }

    /// Pmax/Pmin on S(n) for n = 1, 2, 3 agents per template, as far as they fit.
    fn concrete_values(&self, p: &Property) -> Vec<(usize, f64)> {
        let AbstractAnswers {
            l,
            props,
            opts,
            ctx,
            ..
        } = *self;
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
                phases: props.phases.clone(),
            };
            let Ok(ex) = explore_and_label(l, &sem, &one, false, opts.max_states / 10, ctx) else {
                break;
            };
            let asked = property::Asked {
                mdp: &ex.mdp,
                prop: p,
                truth: &ex.truth[0],
                rewards: ex.reward(0),
                phases: ex.phases.as_ref().map(|ph| (ph, n * counts.len() + 2)),
            };
            let how = property::Numerics {
                threads: ctx.threads,
                precision: opts.precision,
                ..property::Numerics::F64
            };
            let Ok(v) = property::compute(&asked, how, (ctx.deadline(), &Meter::none())) else {
                break;
            };
            out.push((n, v.f64s[0]));
        }
        out
    }
}
