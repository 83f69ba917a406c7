//! From the written model to a checked [`Model`]: constants evaluated, names
//! resolved, expressions type-checked, and the MAPT restrictions validated
//! (acyclic localities with a unique initial and final locality, `a <= b <= E`,
//! and the liveness condition of the notes). Every failure is located.

use super::ast::{AgentAst, LExpr, ModelAst, TransitionAst, VarKind};
use super::model::{Agent, Model, NamedQuery, Transition, Var, VarScope};
use crate::lang::{
    check, error_at, eval_const, num, Constants, ErrorExt, LangResult, Scope, TExpr, Ty, Value,
};
use std::collections::{HashMap, HashSet};

/// Checks and validates a parsed model; `overrides` replace constants (`--set`).
pub fn build_model(ast: &ModelAst, overrides: HashMap<String, Value>) -> LangResult<Model> {
    let mut consts = Constants::with_overrides(overrides);
    for (name, e) in &ast.consts {
        let v = eval_const(&e.source, &e.expr, &consts)?;
        consts.define(&name.loc.source, &name.text, name.loc.span, v)?;
    }
    let vars = build_vars(ast, &consts)?;
    let mut agents: Vec<Agent> = Vec::new();
    for a in &ast.agents {
        if agents.iter().any(|b| b.name == a.name.text) {
            return Err(error_at(
                &a.name.loc.source,
                a.name.loc.span,
                format!("agent `{}` is declared twice", a.name.text),
            ));
        }
        let agent = build_agent(a, &vars, &consts)?;
        agents.push(agent);
    }
    if agents.is_empty() {
        let src = crate::lang::Source::new("<model>", "");
        return Err(error_at(
            &src,
            Default::default(),
            "the model declares no agent",
        ));
    }
    let mut queries: Vec<NamedQuery> = Vec::new();
    for q in &ast.queries {
        if queries.iter().any(|o| o.name == q.name.text) {
            return Err(error_at(
                &q.name.loc.source,
                q.name.loc.span,
                format!("query `{}` is declared twice", q.name.text),
            ));
        }
        queries.push(NamedQuery {
            name: q.name.text.clone(),
            formula: q.formula.clone(),
        });
    }
    Ok(Model {
        vars,
        agents,
        queries,
        consts,
    })
}

/// The variables of V, each typed by its declared kind, which its initial
/// value must match (an `int` starts at an integer); names are unique and
/// `time` is reserved (queries read the elapsed time by that name).
fn build_vars(ast: &ModelAst, consts: &Constants) -> LangResult<Vec<Var>> {
    let mut vars: Vec<Var> = Vec::new();
    for v in &ast.vars {
        if vars.iter().any(|w| w.name == v.name.text) || v.name.text == "time" {
            return Err(error_at(
                &v.name.loc.source,
                v.name.loc.span,
                format!(
                    "variable `{}` is declared twice (or uses the reserved name `time`)",
                    v.name.text
                ),
            ));
        }
        let init = eval_const(&v.init.source, &v.init.expr, consts)?;
        let ty = match (v.kind, &init) {
            (VarKind::Bool, Value::Bool(_)) => Ty::Bool,
            (VarKind::Int, Value::Num(r)) if r.is_integer() => Ty::Int,
            (VarKind::Real, Value::Num(_)) => Ty::Real,
            _ => {
                return Err(error_at(
                    &v.init.source,
                    v.init.expr.span,
                    format!(
                        "`{}` is declared {} but its initial value is {init}",
                        v.name.text,
                        v.kind.keyword()
                    ),
                ))
            }
        };
        vars.push(Var {
            name: v.name.text.clone(),
            ty,
            init,
        });
    }
    Ok(vars)
}

/// A natural-number timing constant.
fn natural(e: &LExpr, consts: &Constants, what: &str) -> LangResult<u64> {
    let v = eval_const(&e.source, &e.expr, consts)?;
    match v.as_num().and_then(num::to_i64) {
        Some(n) if n >= 0 => Ok(n as u64),
        _ => Err(error_at(
            &e.source,
            e.expr.span,
            format!("{what} must be a natural number, found {v}"),
        )),
    }
}

fn build_agent(a: &AgentAst, vars: &[Var], consts: &Constants) -> LangResult<Agent> {
    let scope = VarScope { vars, consts };
    let agent_err = |msg: String| error_at(&a.name.loc.source, a.name.loc.span, msg);
    let period = natural(&a.period, consts, "the period")?;
    if period == 0 {
        return Err(error_at(
            &a.period.source,
            a.period.expr.span,
            "the period must be positive",
        ));
    }
    let init_clock = match &a.clock {
        Some(e) => natural(e, consts, "the initial clock value")?,
        None => 0,
    };
    let (localities, transitions) = build_transitions(a, period, &scope)?;
    if localities.is_empty() {
        return Err(agent_err(format!(
            "agent `{}` has no locality: declare one with `locality NAME;`",
            a.name.text
        )));
    }
    let n = localities.len();
    let mut outgoing = vec![Vec::new(); n];
    let mut incoming = vec![0usize; n];
    for (i, t) in transitions.iter().enumerate() {
        outgoing[t.from].push(i);
        incoming[t.to] += 1;
    }
    let sources: Vec<usize> = (0..n).filter(|&l| incoming[l] == 0).collect();
    let sinks: Vec<usize> = (0..n).filter(|&l| outgoing[l].is_empty()).collect();
    check_acyclic(a, &transitions, &outgoing, n)?;
    let (initial, final_loc) = initial_and_final(a, &localities, &sources, &sinks)?;
    let deadline: Vec<u64> = (0..n)
        .map(|l| {
            if l == final_loc {
                period
            } else {
                outgoing[l]
                    .iter()
                    .map(|&t| transitions[t].upper)
                    .max()
                    .unwrap_or(0)
            }
        })
        .collect();
    check_liveness(a, &transitions, &deadline, &localities, final_loc, period)?;
    if init_clock > deadline[initial] {
        let e = a
            .clock
            .as_ref()
            .expect("a positive initial clock was written");
        return Err(error_at(
            &e.source,
            e.expr.span,
            format!(
                "liveness violated in agent `{}`: the initial clock {init_clock} is after the last deadline {} of the initial locality `{}`",
                a.name.text, deadline[initial], localities[initial]
            ),
        ));
    }
    let downstream_cuts = downstream_cuts(&transitions, &outgoing);
    Ok(Agent {
        name: a.name.text.clone(),
        period,
        init_clock,
        localities,
        initial,
        final_loc,
        transitions,
        outgoing,
        deadline,
        downstream_cuts,
    })
}

/// The localities of an agent (declared ones first, then in order of use) and
/// its checked transitions.
fn build_transitions(
    a: &AgentAst,
    period: u64,
    scope: &VarScope,
) -> LangResult<(Vec<String>, Vec<Transition>)> {
    let mut localities: Vec<String> = Vec::new();
    let index = |name: &str, localities: &mut Vec<String>| -> usize {
        match localities.iter().position(|l| l == name) {
            Some(i) => i,
            None => {
                localities.push(name.to_string());
                localities.len() - 1
            }
        }
    };
    for l in &a.localities {
        index(&l.text, &mut localities);
    }
    let mut transitions = Vec::new();
    for t in &a.transitions {
        let from = index(&t.from.text, &mut localities);
        let to = index(&t.to.text, &mut localities);
        transitions.push(build_transition(t, a, period, from, to, scope)?);
    }
    Ok((localities, transitions))
}

/// The unique initial locality (no incoming transition) and the unique final
/// one (no outgoing transition) of an agent.
fn initial_and_final(
    a: &AgentAst,
    localities: &[String],
    sources: &[usize],
    sinks: &[usize],
) -> LangResult<(usize, usize)> {
    let agent_err = |msg: String| error_at(&a.name.loc.source, a.name.loc.span, msg);
    let names = |ls: &[usize]| {
        ls.iter()
            .map(|&l| format!("`{}`", localities[l]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if sources.len() != 1 {
        return Err(agent_err(format!(
            "agent `{}` must have a unique initial locality (one without incoming transitions), found {}",
            a.name.text,
            names(sources)
        )));
    }
    if sinks.len() != 1 {
        return Err(agent_err(format!(
            "agent `{}` must have a unique final locality (one without outgoing transitions), found {}",
            a.name.text,
            names(sinks)
        )));
    }
    Ok((sources[0], sinks[0]))
}

/// One transition: its bounds (`a <= b <= E`), its guard (Boolean) and its
/// updates, type-checked in the agent's scope.
fn build_transition(
    t: &TransitionAst,
    a: &AgentAst,
    period: u64,
    from: usize,
    to: usize,
    scope: &VarScope,
) -> LangResult<Transition> {
    let lower = natural(&t.lower, scope.consts, "a lower bound")?;
    let upper = natural(&t.upper, scope.consts, "an upper bound")?;
    if lower > upper {
        return Err(error_at(
            &t.lower.source,
            t.lower.expr.span.to(t.upper.expr.span),
            format!("the interval [{lower}, {upper}] is empty: a <= b is required"),
        ));
    }
    if upper > period {
        return Err(error_at(
            &t.upper.source,
            t.upper.expr.span,
            format!(
                "the upper bound {upper} exceeds the period E = {period} of agent `{}`",
                a.name.text
            ),
        ));
    }
    let guard = match &t.guard {
        Some(g) => {
            let c = check(&g.source, &g.expr, scope)?;
            if c.ty != Ty::Bool {
                return Err(error_at(
                    &g.source,
                    g.expr.span,
                    "a guard must be a Boolean expression",
                ));
            }
            Some(c)
        }
        None => None,
    };
    Ok(Transition {
        from,
        to,
        lower,
        upper,
        guard,
        updates: build_updates(t, scope)?,
        loc: t.loc.clone(),
    })
}

/// The updates of a transition: each target a variable of V assigned once,
/// with an expression of its type (an integer may go to a real).
fn build_updates(t: &TransitionAst, scope: &VarScope) -> LangResult<Vec<(usize, TExpr)>> {
    let mut updates = Vec::new();
    let mut assigned = HashSet::new();
    for (target, e) in &t.updates {
        let slot = match scope.lookup(&target.text) {
            Some(crate::lang::Symbol::Var { slot, .. }) => slot,
            _ => {
                return Err(error_at(
                    &target.loc.source,
                    target.loc.span,
                    format!("`{}` is not a variable of V", target.text),
                ))
            }
        };
        if !assigned.insert(slot) {
            return Err(error_at(
                &target.loc.source,
                target.loc.span,
                format!("`{}` is assigned twice in one transition", target.text),
            ));
        }
        let c = check(&e.source, &e.expr, scope)?;
        let want = scope.vars[slot].ty;
        let ok = c.ty == want || (want == Ty::Real && c.ty == Ty::Int);
        if !ok {
            return Err(error_at(
                &e.source,
                e.expr.span,
                format!(
                    "`{}` is {} but this expression is {}",
                    target.text,
                    want.name(),
                    c.ty.name()
                ),
            ));
        }
        updates.push((slot, c));
    }
    Ok(updates)
}

/// Liveness (the notes): a transition enters its target no later than the
/// target can be left (its last deadline, or E for the final locality).
fn check_liveness(
    a: &AgentAst,
    transitions: &[Transition],
    deadline: &[u64],
    localities: &[String],
    final_loc: usize,
    period: u64,
) -> LangResult<()> {
    for t in transitions {
        if t.upper > deadline[t.to] {
            let what = if t.to == final_loc {
                format!("the period E = {}", period)
            } else {
                format!(
                    "the last deadline {} of its outgoing transitions",
                    deadline[t.to]
                )
            };
            return Err(error_at(
                &t.loc.source,
                t.loc.span,
                format!(
                    "liveness violated in agent `{}`: this transition may enter locality `{}` at time {}, after {what}; the agent would block time",
                    a.name.text, localities[t.to], t.upper
                ),
            )
            .into_help("lower this upper bound or give the target locality a later transition"));
        }
    }
    Ok(())
}

/// [`Agent::downstream_cuts`]: for each locality, the upper bounds of the
/// transitions leaving the localities reachable from it by one or more
/// transitions; empty for every locality when no deadline decreases (no
/// transition leaves a locality earlier than one entering it may arrive),
/// since then the seed's zones are exact as they are.
fn downstream_cuts(transitions: &[Transition], outgoing: &[Vec<usize>]) -> Vec<Vec<u64>> {
    let n = outgoing.len();
    let decreasing = transitions.iter().any(|tin| {
        outgoing[tin.to]
            .iter()
            .any(|&o| transitions[o].upper < tin.upper)
    });
    if !decreasing {
        return vec![Vec::new(); n];
    }
    // Localities reachable from l in one or more steps, by depth-first search
    // (the localities form a DAG of a few dozen nodes: no sharing needed).
    (0..n)
        .map(|l| {
            let mut seen = vec![false; n];
            let mut stack: Vec<usize> = outgoing[l].iter().map(|&t| transitions[t].to).collect();
            let mut cuts = Vec::new();
            while let Some(m) = stack.pop() {
                if std::mem::replace(&mut seen[m], true) {
                    continue;
                }
                for &t in &outgoing[m] {
                    cuts.push(transitions[t].upper);
                    stack.push(transitions[t].to);
                }
            }
            cuts.sort_unstable();
            cuts.dedup();
            cuts
        })
        .collect()
}

/// Depth-first search for a cycle; the error points at a transition on it.
fn check_acyclic(
    a: &AgentAst,
    transitions: &[Transition],
    outgoing: &[Vec<usize>],
    n: usize,
) -> LangResult<()> {
    // 0 unvisited, 1 on the stack, 2 done.
    let mut color = vec![0u8; n];
    for start in 0..n {
        if color[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        color[start] = 1;
        while let Some(&mut (l, ref mut next)) = stack.last_mut() {
            if let Some(&t) = outgoing[l].get(*next) {
                *next += 1;
                let to = transitions[t].to;
                match color[to] {
                    0 => {
                        color[to] = 1;
                        stack.push((to, 0));
                    }
                    1 => {
                        let tr = &transitions[t];
                        return Err(error_at(
                            &tr.loc.source,
                            tr.loc.span,
                            format!(
                                "the localities of agent `{}` are not a DAG: this transition closes a cycle",
                                a.name.text
                            ),
                        ));
                    }
                    _ => {}
                }
            } else {
                color[l] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}
