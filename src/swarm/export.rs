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

fn declare(out: &mut String, t: &Template, suffix: &str) {
    for (v, info) in t.vars.iter().enumerate() {
        if t.is_projected(v) {
            // Definition 13's flags, projected away: nothing reads them.
            continue;
        }
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
    prism_disjunction(&super::jani::runs(&states), &mut out);
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
    use crate::report::Report;
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
    // Explore first: a refused or stopped export leaves no file behind.
    let explored = match (format, &counts) {
        (Format::Prism, Some(_)) => None,
        (_, c) => Some(super::run::explore_model(
            &l,
            c.as_deref(),
            threshold,
            true,
            EXPORT_MAX_STATES,
            deadline,
        )?),
    };
    let mut sink = Sink::open(output)?;
    let written = match &explored {
        None => {
            use std::io::Write as _;
            let c = counts.as_deref().unwrap_or_default();
            sink.write_all(prism_concrete(&l, c).as_bytes())
        }
        Some((mdp, labels)) if format == Format::Prism => {
            let what = format!("{what}, {} states", mdp.num_states());
            write_prism_explicit(mdp, labels, &what, &mut sink)
        }
        Some((mdp, labels)) => {
            let what = format!("{what} of {}, {} states", l.source.name(), mdp.num_states());
            super::jani::write_jani(mdp, labels, &what, &mut sink)
        }
    };
    written.map_err(|e| sink.error(e))?;
    let mut r = Report::new("swarm", "export");
    r.model = crate::report::ModelRef::from_path(&inputs.model).ok();
    r.results = serde_json::json!({ "exported": what, "bytes": sink.bytes });
    match output {
        Some(path) => {
            sink.finish()?;
            r.text = format!("wrote {what} to {}\n", path.display());
        }
        None => r.output = Some(String::from_utf8_lossy(&sink.finish()?).into_owned()),
    }
    Ok(r)
}

/// The most states `export` explores (the text is streamed; the explored
/// model with its exact probabilities stays in memory).
pub const EXPORT_MAX_STATES: usize = 5_000_000;

/// Where an export goes: a file written as it is produced, or memory (for
/// standard output), counting the bytes.
struct Sink {
    file: Option<(std::io::BufWriter<std::fs::File>, std::path::PathBuf)>,
    memory: Vec<u8>,
    bytes: usize,
}

impl Sink {
    fn open(output: Option<&std::path::Path>) -> Result<Self, crate::report::RunError> {
        let file = match output {
            Some(path) => {
                let f = std::fs::File::create(path).map_err(|e| {
                    crate::report::RunError::input(format!("cannot write {}: {e}", path.display()))
                })?;
                Some((std::io::BufWriter::new(f), path.to_path_buf()))
            }
            None => None,
        };
        Ok(Sink {
            file,
            memory: Vec::new(),
            bytes: 0,
        })
    }

    fn error(&self, e: std::io::Error) -> crate::report::RunError {
        match &self.file {
            Some((_, path)) => {
                crate::report::RunError::input(format!("cannot write {}: {e}", path.display()))
            }
            None => crate::report::RunError::Internal(format!("export: {e}")),
        }
    }

    /// Flushes the file; returns what was kept in memory.
    fn finish(mut self) -> Result<Vec<u8>, crate::report::RunError> {
        use std::io::Write as _;
        if let Some((mut f, path)) = self.file.take() {
            f.flush().map_err(|e| {
                crate::report::RunError::input(format!("cannot write {}: {e}", path.display()))
            })?;
        }
        Ok(std::mem::take(&mut self.memory))
    }
}

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = match &mut self.file {
            Some((f, _)) => f.write(buf)?,
            None => self.memory.write(buf)?,
        };
        self.bytes += n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some((f, _)) => f.flush(),
            None => Ok(()),
        }
    }
}
