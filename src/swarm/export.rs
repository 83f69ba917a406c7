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

use super::local::{Dist, LocalSpace};
use super::mdp::Mdp;
use super::model::{GlobalVar, Model, Template, LABEL_BASE};
use super::syntax::ActionType;
use super::Loaded;
use crate::lang::types::Builtin;
use crate::lang::{num, BinOp, Rat, TExpr, TKind, UnOp, Value};
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

fn declare(out: &mut String, t: &Template, suffix: &str) {
    for (v, info) in t.vars.iter().enumerate() {
        let name = var_name(t, v, suffix);
        if info.is_bool {
            let _ = writeln!(out, "  {name} : bool init {};", info.init != 0);
        } else {
            let _ = writeln!(
                out,
                "  {name} : [{}..{}] init {};",
                info.lo, info.hi, info.init
            );
        }
    }
}

fn action_label(model: &Model, a: usize, suffix: &str) -> String {
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
    let mut ae_agents: Vec<String> = Vec::new();
    for (i, t) in m.templates.iter().enumerate() {
        let sp = &l.sys.agents[i];
        for j in 0..counts[i] {
            let suffix = format!("_{}_{}", i + 1, j + 1);
            let _ = writeln!(out, "module {}{suffix}", t.name);
            declare(&mut out, t, &suffix);
            for (s, moves) in sp.moves.iter().enumerate() {
                let st = &sp.states[s];
                for (k, mv) in moves.iter().enumerate() {
                    // Global-synchronous actions use the first enabled command.
                    if m.actions[mv.action].ty == ActionType::GlobalSynchronous
                        && moves[..k].iter().any(|x| x.action == mv.action)
                    {
                        continue;
                    }
                    let d = &sp.dists[mv.dist as usize];
                    let _ = writeln!(
                        out,
                        "  [{}] {} -> {};",
                        action_label(m, mv.action, &suffix),
                        guard(t, st, &suffix),
                        dist_text(t, sp, st, d, &suffix)
                    );
                }
            }
            out.push_str("endmodule\n\n");
            ae_agents.push(suffix);
        }
    }
    let env = &m.env;
    let sp = &l.sys.env;
    let _ = writeln!(out, "module {}", env.name);
    declare(&mut out, env, "_E");
    for (s, moves) in sp.moves.iter().enumerate() {
        let st = &sp.states[s];
        for (k, mv) in moves.iter().enumerate() {
            let ty = m.actions[mv.action].ty;
            let d = &sp.dists[mv.dist as usize];
            let body = format!(
                "{} -> {}",
                guard(env, st, "_E"),
                dist_text(env, sp, st, d, "_E")
            );
            if ty != ActionType::Asynchronous && moves[..k].iter().any(|x| x.action == mv.action) {
                continue;
            }
            match ty {
                ActionType::Asynchronous => {
                    let _ = writeln!(out, "  [] {body};");
                }
                ActionType::GlobalSynchronous => {
                    let _ = writeln!(out, "  [{}] {body};", m.actions[mv.action].name);
                }
                ActionType::AgentEnvironment => {
                    for suffix in &ae_agents {
                        let _ = writeln!(out, "  [{}{suffix}] {body};", m.actions[mv.action].name);
                    }
                }
            }
        }
    }
    out.push_str("endmodule\n\n");
    for (name, t) in &m.labels {
        let _ = writeln!(
            out,
            "label \"{name}\" = {};",
            expr_text(m, &m.label_refs, t)
        );
    }
    out
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

/// Any explored MDP as a one-module PRISM model (state index `s`); used for
/// the abstract model. Several initial states become an `init` block.
pub fn prism_explicit(mdp: &Mdp, labels: &[(String, Vec<bool>)], comment: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// {comment}, exported by mavis {}",
        env!("CARGO_PKG_VERSION")
    );
    out.push_str("mdp\n\nmodule M\n");
    let n = mdp.num_states();
    let _ = writeln!(out, "  s : [0..{}];", n.saturating_sub(1).max(1));
    for s in 0..n {
        for c in mdp.choices(s) {
            let parts: Vec<String> = mdp
                .entries(c)
                .map(|e| {
                    let p = match &mdp.exact {
                        Some(x) => num::display(&x[e]),
                        None => format!("{:?}", mdp.probs[e]),
                    };
                    format!("{p}:(s'={})", mdp.targets[e])
                })
                .collect();
            let _ = writeln!(out, "  [] s={s} -> {};", parts.join(" + "));
        }
    }
    out.push_str("endmodule\n\n");
    let init: Vec<String> = mdp.initial.iter().map(|i| format!("s={i}")).collect();
    let _ = writeln!(out, "init {} endinit\n", init.join(" | "));
    for (name, truth) in labels {
        let states: Vec<String> = (0..n)
            .filter(|&s| truth[s])
            .map(|s| format!("s={s}"))
            .collect();
        let body = if states.is_empty() {
            "false".to_string()
        } else {
            states.join(" | ")
        };
        let _ = writeln!(out, "label \"{name}\" = {body};");
    }
    out
}

/// The target language of `mavis swarm export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The PRISM language, module per agent (concrete) or one module (abstract).
    Prism,
    /// JANI (JSON), flat: one automaton over the explored state index.
    Jani,
}

/// `mavis swarm export`: writes the model text to `output` (or returns it in the report).
pub fn export(
    inputs: &super::Inputs,
    agents: Option<&[usize]>,
    threshold: u32,
    format: Format,
    output: Option<&std::path::Path>,
    deadline: crate::report::Deadline,
) -> Result<crate::report::Report, crate::report::RunError> {
    use crate::report::{Report, RunError};
    let l = super::load(inputs)?;
    let counts = match agents {
        Some(a) => Some(super::run::counts_for(&l, a)?),
        None => None,
    };
    let what = match &counts {
        Some(c) => format!(
            "S({})",
            c.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("the abstract model (threshold {threshold})"),
    };
    let text = match (format, &counts) {
        (Format::Prism, Some(c)) => prism_concrete(&l, c),
        (Format::Prism, None) => {
            let (mdp, labels) =
                super::run::explore_model(&l, None, threshold, true, 5_000_000, deadline)?;
            let what = format!("{what}, {} states", mdp.num_states());
            prism_explicit(&mdp, &labels, &what)
        }
        (Format::Jani, c) => {
            let (mdp, labels) =
                super::run::explore_model(&l, c.as_deref(), threshold, true, 5_000_000, deadline)?;
            let what = format!("{what} of {}, {} states", l.source.name(), mdp.num_states());
            let mut text = serde_json::to_string(&super::jani::jani_explicit(&mdp, &labels, &what))
                .map_err(|e| RunError::Internal(format!("JANI serialisation: {e}")))?;
            text.push('\n');
            text
        }
    };
    let mut r = Report::new("swarm", "export");
    r.model = crate::report::ModelRef::from_path(&inputs.model).ok();
    r.results = serde_json::json!({ "exported": what, "bytes": text.len() });
    match output {
        Some(path) => {
            std::fs::write(path, &text)
                .map_err(|e| RunError::input(format!("cannot write {}: {e}", path.display())))?;
            r.text = format!("wrote {what} to {}\n", path.display());
        }
        None => r.output = Some(text),
    }
    Ok(r)
}
