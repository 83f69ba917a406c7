//! Export to the PRISM language (read by PRISM and Storm).
//!
//! Concrete S(n): one module per agent (`robot_1_2`, variables renamed
//! `v_i_j`) and the environment (`v_E`), with one command per local state
//! and enabled command, faults already multiplied in. Asynchronous actions
//! are unlabelled; agent-environment action `a` of agent (i, j) is the label
//! `a_i_j`, shared with the environment's first enabled command; a
//! global-synchronous action is one label shared by every module. States
//! without an enabled action get Storm's and PRISM's default self-loop.
//! Abstract (or any explicit) models: one module with a state index.

use crate::lang::types::Builtin;
use crate::lang::{num, BinOp, Rat, TExpr, TKind, UnOp, Value};
use crate::swarm::decide::mdp::Mdp;
use crate::swarm::front::model::{GlobalVar, Model, Template, LABEL_BASE};
use crate::swarm::front::syntax::ActionType;
use crate::swarm::semantics::local::{Dist, LocalSpace};
use crate::swarm::Loaded;
use std::fmt::Write;

fn var_name(t: &Template, var: usize, suffix: &str) -> String {
    format!("{}{suffix}", t.vars[var].name)
}

fn value_text(t: &Template, var: usize, x: i64) -> String {
    if t.vars[var].is_bool {
        (x != 0).to_string()
    } else {
        x.to_string()
    }
}

fn guard(t: &Template, s: &[i64], suffix: &str) -> String {
    (0..t.vars.len())
        .filter(|&v| !t.is_projected(v))
        .map(|v| {
            let n = var_name(t, v, suffix);
            if t.vars[v].is_bool {
                if s[v] != 0 {
                    n
                } else {
                    format!("!{n}")
                }
            } else {
                format!("{n}={}", s[v])
            }
        })
        .collect::<Vec<_>>()
        .join(" & ")
}

fn prob_text(p: &Rat) -> String {
    num::display(p)
}

fn dist_text(t: &Template, sp: &LocalSpace, s: &[i64], d: &Dist, suffix: &str) -> String {
    (0..d.targets.len())
        .map(|i| {
            let n = &sp.states[d.targets[i] as usize];
            let assigns: Vec<String> = (0..t.vars.len())
                .filter(|&v| n[v] != s[v])
                .map(|v| format!("({}'={})", var_name(t, v, suffix), value_text(t, v, n[v])))
                .collect();
            let upd = if assigns.is_empty() {
                "true".to_string()
            } else {
                assigns.join("&")
            };
            format!("{}:{upd}", prob_text(&d.exact[i]))
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The module's variables; `with_init` gives each its initial value (off
/// when an `init ... endinit` block says which states are initial).
fn declare(out: &mut String, t: &Template, suffix: &str, with_init: bool) {
    for (v, info) in t.vars.iter().enumerate() {
        if t.is_projected(v) {
            // Definition 13's flags, projected away: nothing reads them.
            continue;
        }
        let name = var_name(t, v, suffix);
        let ty = if info.is_bool {
            "bool".to_string()
        } else {
            format!("[{}..{}]", info.lo, info.hi)
        };
        let init = match (with_init, info.is_bool) {
            (false, _) => String::new(),
            (true, true) => format!(" init {}", info.init != 0),
            (true, false) => format!(" init {}", info.init),
        };
        let _ = writeln!(out, "  {name} : {ty}{init};");
    }
}

pub(super) fn action_label(model: &Model, a: usize, suffix: &str) -> String {
    match model.actions[a].ty {
        ActionType::Asynchronous => String::new(),
        ActionType::AgentEnvironment => format!("{}{suffix}", model.actions[a].name),
        ActionType::GlobalSynchronous => model.actions[a].name.clone(),
    }
}

/// The concrete system S(counts) in the PRISM language.
pub fn prism_concrete(l: &Loaded, counts: &[usize]) -> String {
    let m = &l.model;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// S({}) of {}, exported by mavis {}",
        counts
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        l.source.name(),
        env!("CARGO_PKG_VERSION")
    );
    out.push_str("mdp\n\n");
    let mut ae_labels: Vec<Vec<String>> = vec![Vec::new(); m.actions.len()];
    for (i, &n) in counts.iter().enumerate() {
        for j in 0..n {
            let suffix = format!("_{}_{}", i + 1, j + 1);
            agent_module(&mut out, l, i, &suffix, true);
            for (a, labels) in ae_labels.iter_mut().enumerate() {
                if m.actions[a].ty == ActionType::AgentEnvironment {
                    labels.push(action_label(m, a, &suffix));
                }
            }
        }
    }
    env_module(&mut out, l, &ae_labels, true);
    labels_text(&mut out, m);
    out
}

/// The module of one concrete agent of template `i`: a command per local
/// state and enabled command (a global-synchronous action only with its
/// first enabled command).
pub(super) fn agent_module(out: &mut String, l: &Loaded, i: usize, suffix: &str, with_init: bool) {
    let (m, t, sp) = (&l.model, &l.model.templates[i], &l.sys.agents[i]);
    let _ = writeln!(out, "module {}{suffix}", t.name);
    declare(out, t, suffix, with_init);
    for (s, moves) in sp.moves.iter().enumerate() {
        let st = &sp.states[s];
        for (k, mv) in moves.iter().enumerate() {
            if m.actions[mv.action].ty == ActionType::GlobalSynchronous
                && moves[..k].iter().any(|x| x.action == mv.action)
            {
                continue;
            }
            let d = &sp.dists[mv.dist as usize];
            let _ = writeln!(
                out,
                "  [{}] {} -> {};",
                action_label(m, mv.action, suffix),
                guard(t, st, suffix),
                dist_text(t, sp, st, d, suffix)
            );
        }
    }
    out.push_str("endmodule\n\n");
}

/// The environment's module: per local state its asynchronous commands, and
/// the first enabled command of every other action, once per label of
/// `ae_labels[action]` for an agent-environment action (each label is one
/// agent, or one abstract move, it synchronises with).
pub(super) fn env_module(out: &mut String, l: &Loaded, ae_labels: &[Vec<String>], with_init: bool) {
    let (m, env, sp) = (&l.model, &l.model.env, &l.sys.env);
    let _ = writeln!(out, "module {}", env.name);
    declare(out, env, "_E", with_init);
    for (s, moves) in sp.moves.iter().enumerate() {
        let st = &sp.states[s];
        for (k, mv) in moves.iter().enumerate() {
            let ty = m.actions[mv.action].ty;
            if ty != ActionType::Asynchronous && moves[..k].iter().any(|x| x.action == mv.action) {
                continue;
            }
            let d = &sp.dists[mv.dist as usize];
            let body = format!(
                "{} -> {}",
                guard(env, st, "_E"),
                dist_text(env, sp, st, d, "_E")
            );
            match ty {
                ActionType::Asynchronous => {
                    let _ = writeln!(out, "  [] {body};");
                }
                ActionType::GlobalSynchronous => {
                    let _ = writeln!(out, "  [{}] {body};", m.actions[mv.action].name);
                }
                ActionType::AgentEnvironment => {
                    for label in &ae_labels[mv.action] {
                        let _ = writeln!(out, "  [{label}] {body};");
                    }
                }
            }
        }
    }
    out.push_str("endmodule\n\n");
}

/// The model's labels in PRISM syntax.
pub(super) fn labels_text(out: &mut String, m: &Model) {
    for (name, t) in &m.labels {
        let _ = writeln!(
            out,
            "label \"{name}\" = {};",
            expr_text(m, &m.label_refs, t)
        );
    }
}

fn ref_name(m: &Model, r: GlobalVar) -> String {
    match r {
        GlobalVar::Agent {
            template,
            agent,
            var,
        } => format!(
            "{}_{}_{}",
            m.templates[template].vars[var].name,
            template + 1,
            agent + 1
        ),
        GlobalVar::Env { var } => format!("{}_E", m.env.vars[var].name),
        GlobalVar::Starting => "(mode_E=1)".into(),
    }
}

/// A checked expression in PRISM syntax.
pub fn expr_text(m: &Model, refs: &[GlobalVar], e: &TExpr) -> String {
    let t = |x: &TExpr| expr_text(m, refs, x);
    match &e.kind {
        TKind::Const(Value::Num(r)) => format!("({})", num::display(r)),
        TKind::Const(v) => v.to_string(),
        TKind::Var(s) if *s >= LABEL_BASE => format!("\"{}\"", m.labels[s - LABEL_BASE].0),
        TKind::Var(s) => ref_name(m, refs[*s]),
        TKind::Unary(UnOp::Neg, a) => format!("-({})", t(a)),
        TKind::Unary(UnOp::Not, a) => format!("!({})", t(a)),
        TKind::Binary(op, a, b) => {
            let sym = if *op == BinOp::Eq { "=" } else { op.symbol() };
            format!("({} {sym} {})", t(a), t(b))
        }
        TKind::If(c, a, b) => format!("({} ? {} : {})", t(c), t(a), t(b)),
        TKind::Builtin(b, args) => {
            let a: Vec<String> = args.iter().map(t).collect();
            match b {
                Builtin::Min => format!("min({})", a.join(", ")),
                Builtin::Max => format!("max({})", a.join(", ")),
                Builtin::Clamp => format!("min(max({}, {}), {})", a[0], a[1], a[2]),
                Builtin::Abs => format!("max({0}, -({0}))", a[0]),
                Builtin::Floor => format!("floor({})", a[0]),
                Builtin::Ceil => format!("ceil({})", a[0]),
                Builtin::Mod => format!("mod({}, {})", a[0], a[1]),
            }
        }
        TKind::Ext(..) => "false".into(),
    }
}

/// `lo <= s <= hi` in PRISM.
fn prism_interval(lo: usize, hi: usize) -> String {
    if lo == hi {
        format!("s={lo}")
    } else {
        format!("(s>={lo} & s<={hi})")
    }
}

/// A balanced, parenthesised disjunction of index intervals: its nesting
/// depth is log2 of the number of intervals, so a parser that recurses per
/// operator (Storm stops at depth 10,000) reads any label.
fn prism_disjunction(parts: &[(usize, usize)], out: &mut String) {
    match parts.len() {
        0 => out.push_str("false"),
        1 => out.push_str(&prism_interval(parts[0].0, parts[0].1)),
        n => {
            out.push('(');
            prism_disjunction(&parts[..n / 2], out);
            out.push_str(" | ");
            prism_disjunction(&parts[n / 2..], out);
            out.push(')');
        }
    }
}

/// The states where `truth` holds, as a PRISM expression over `s`.
pub fn prism_states_expression(truth: &[bool]) -> String {
    let states: Vec<usize> = (0..truth.len()).filter(|&s| truth[s]).collect();
    let mut out = String::new();
    prism_disjunction(&super::jani_explicit::runs(&states), &mut out);
    out
}

/// Any explored MDP as a one-module PRISM model (state index `s`), written
/// to `w` state by state; used for the abstract model. Several initial
/// states become an `init` block.
pub fn write_prism_explicit(
    mdp: &Mdp,
    labels: &[(String, Vec<bool>)],
    comment: &str,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    writeln!(
        w,
        "// {comment}, exported by mavis {}",
        env!("CARGO_PKG_VERSION")
    )?;
    w.write_all(b"mdp\n\nmodule M\n")?;
    let n = mdp.num_states();
    writeln!(w, "  s : [0..{}];", n.saturating_sub(1).max(1))?;
    let mut line = String::new();
    for s in 0..n {
        for c in mdp.choices(s) {
            line.clear();
            let _ = write!(line, "  [] s={s} -> ");
            for (i, e) in mdp.entries(c).enumerate() {
                if i > 0 {
                    line.push_str(" + ");
                }
                match &mdp.exact {
                    Some(x) => line.push_str(&num::display(&x[e])),
                    None => {
                        let _ = write!(line, "{:?}", mdp.probs[e]);
                    }
                }
                let _ = write!(line, ":(s'={})", mdp.targets[e]);
            }
            line.push_str(";\n");
            w.write_all(line.as_bytes())?;
        }
    }
    w.write_all(b"endmodule\n\n")?;
    let init: Vec<String> = mdp.initial.iter().map(|i| format!("s={i}")).collect();
    writeln!(w, "init {} endinit\n", init.join(" | "))?;
    for (name, truth) in labels {
        writeln!(w, "label \"{name}\" = {};", prism_states_expression(truth))?;
    }
    Ok(())
}

/// [`write_prism_explicit`] into a string.
pub fn prism_explicit(mdp: &Mdp, labels: &[(String, Vec<bool>)], comment: &str) -> String {
    let mut out = Vec::new();
    write_prism_explicit(mdp, labels, comment, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the writer emits UTF-8")
}
