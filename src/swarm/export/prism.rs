//! The PRISM language printer of the intermediate form (read by PRISM and
//! Storm). PRISM synchronises modules by action name, so a [`Network`]'s
//! synchronisation vectors are implicit; initial values go with the
//! declarations, or into an `init ... endinit` block when some variable
//! starts anywhere or under a condition. States without an enabled
//! command get PRISM's and Storm's default self-loop.

use super::RewardStructure;
use super::VarType;
use super::{Atom, CmpOp, Command, Dest, Explicit, Expr, Init, Module, Network, Prob, Val, Var};
use crate::lang::types::Builtin;
use crate::lang::{num, BinOp, UnOp, Value};
use std::fmt::Write as _;
use std::io::Write;

fn header(what: &str, w: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        w,
        "// {what}, exported by mavis {}",
        env!("CARGO_PKG_VERSION")
    )?;
    w.write_all(b"mdp\n\n")
}

/// Writes a network of modules to `w`.
pub fn write_network(n: &Network, w: &mut dyn Write) -> std::io::Result<()> {
    header(&n.what, w)?;
    let vars = || n.modules.iter().flat_map(|m| &m.vars);
    let init_block = vars().any(|v| !matches!(v.init, Init::Value(_)));
    for m in &n.modules {
        w.write_all(module(m, !init_block).as_bytes())?;
    }
    if init_block {
        let parts: Vec<String> = vars().map(initial).collect();
        writeln!(w, "init\n  {}\nendinit\n", parts.join(" & "))?;
    }
    labels(&n.labels, w)?;
    rewards(&n.rewards, w)
}

fn rewards(rewards: &[RewardStructure], w: &mut dyn Write) -> std::io::Result<()> {
    for r in rewards {
        let mut text = format!("\nrewards \"{}\"\n", r.name);
        for i in &r.items {
            text.push_str("  ");
            if let Some(a) = &i.action {
                let _ = write!(text, "[{a}] ");
            }
            expr(&i.guard, &mut text);
            text.push_str(" : ");
            expr(&i.value, &mut text);
            text.push_str(";\n");
        }
        text.push_str("endrewards\n");
        w.write_all(text.as_bytes())?;
    }
    Ok(())
}

/// A network's PRISM text (tests).
pub fn network_text(n: &Network) -> String {
    let mut out = Vec::new();
    write_network(n, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the printer writes UTF-8")
}

fn labels(labels: &[(String, Expr)], w: &mut dyn Write) -> std::io::Result<()> {
    for (name, e) in labels {
        let mut text = String::new();
        expr(e, &mut text);
        writeln!(w, "label \"{name}\" = {text};")?;
    }
    Ok(())
}

/// The reward structures of an explored model: a state reward per distinct
/// value over its states, an action reward per choice place `ck` and value.
fn explicit_rewards(x: &Explicit, w: &mut dyn Write) -> std::io::Result<()> {
    for r in &x.rewards {
        writeln!(w, "\nrewards \"{}\"", r.name)?;
        let mut text = String::new();
        for (v, runs) in &r.state {
            text.push_str("  ");
            disjunction(runs, &mut text);
            let _ = writeln!(text, " : {};", value(v));
        }
        for (k, v, runs) in &r.action {
            let _ = write!(text, "  [c{k}] ");
            disjunction(runs, &mut text);
            let _ = writeln!(text, " : {};", value(v));
        }
        w.write_all(text.as_bytes())?;
        w.write_all(b"endrewards\n")?;
    }
    Ok(())
}

fn value(v: &Prob) -> String {
    match v {
        Prob::Exact(p) => num::display(p),
        Prob::Float(p) => format!("{p:?}"),
    }
}

fn module(m: &Module, with_init: bool) -> String {
    let mut out = format!("module {}\n", m.name);
    for v in &m.vars {
        declare(v, with_init, &mut out);
    }
    for c in &m.commands {
        command(c, &mut out);
    }
    out.push_str("endmodule\n\n");
    out
}

fn declare(v: &Var, with_init: bool, out: &mut String) {
    let _ = write!(out, "  {} : ", v.name);
    match v.ty {
        VarType::Bool => out.push_str("bool"),
        VarType::Int(lo, hi) => {
            let _ = write!(out, "[{lo}..{hi}]");
        }
    }
    if let (true, Init::Value(x)) = (with_init, &v.init) {
        match v.ty {
            VarType::Bool => {
                let _ = write!(out, " init {}", *x != 0);
            }
            VarType::Int(..) => {
                let _ = write!(out, " init {x}");
            }
        }
    }
    out.push_str(";\n");
}

/// A variable's part of the `init` block.
fn initial(v: &Var) -> String {
    match (&v.init, v.ty) {
        (Init::Value(x), VarType::Bool) => atom(&Atom::Bool(v.name.clone(), *x != 0)),
        (Init::Value(x), VarType::Int(..)) => atom(&Atom::Cmp(v.name.clone(), CmpOp::Eq, *x)),
        (Init::Any, _) => "true".into(),
        (Init::Where(a), _) => atom(a),
    }
}

fn atom(a: &Atom) -> String {
    match a {
        Atom::Bool(v, true) => v.clone(),
        Atom::Bool(v, false) => format!("!{v}"),
        Atom::Cmp(v, op, x) => {
            let sym = match op {
                CmpOp::Eq => "=",
                CmpOp::Ge => ">=",
                CmpOp::Le => "<=",
            };
            format!("{v}{sym}{x}")
        }
    }
}

fn command(c: &Command, out: &mut String) {
    let guard: Vec<String> = c.guard.iter().map(atom).collect();
    let _ = write!(out, "  [{}] {} -> ", c.action, guard.join(" & "));
    for (i, d) in c.dests.iter().enumerate() {
        if i > 0 {
            out.push_str(" + ");
        }
        dest(d, out);
    }
    out.push_str(";\n");
}

fn dest(d: &Dest, out: &mut String) {
    match &d.prob {
        Prob::Exact(p) => out.push_str(&num::display(p)),
        Prob::Float(p) => {
            let _ = write!(out, "{p:?}");
        }
    }
    out.push(':');
    if d.assigns.is_empty() {
        out.push_str("true");
    }
    for (i, (v, val)) in d.assigns.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        let _ = match val {
            Val::Int(x) => write!(out, "({v}'={x})"),
            Val::Bool(b) => write!(out, "({v}'={b})"),
            Val::Decrement => write!(out, "({v}'={v}-1)"),
            Val::IncrementUpTo(t) => write!(out, "({v}'=min({v}+1,{t}))"),
        };
    }
}

/// Writes an explored model as one module over the state index `s`, state
/// by state; several initial states become an `init` block.
pub fn write_explicit(x: &Explicit, w: &mut dyn Write) -> std::io::Result<()> {
    let mdp = x.mdp;
    header(&x.what, w)?;
    w.write_all(b"module M\n")?;
    let n = mdp.num_states();
    let mut line = String::new();
    let s = Var {
        name: "s".into(),
        ty: VarType::Int(0, n.saturating_sub(1).max(1) as i64),
        init: Init::Any,
    };
    declare(&s, false, &mut line);
    // An action reward names the choice it is earned on: with any, the
    // k-th choice of a state is the action `ck` (one module: no partner).
    let named = x.rewards.iter().any(|r| !r.action.is_empty());
    for state in 0..n {
        for c in mdp.choices(state) {
            let mut cmd = super::lower::explicit_command(mdp, state, c);
            if named {
                cmd.action = format!("c{}", c - mdp.choices(state).start);
            }
            command(&cmd, &mut line);
            w.write_all(line.as_bytes())?;
            line.clear();
        }
    }
    w.write_all(line.as_bytes())?;
    w.write_all(b"endmodule\n\n")?;
    let init: Vec<String> = mdp.initial.iter().map(|i| format!("s={i}")).collect();
    writeln!(w, "init {} endinit\n", init.join(" | "))?;
    for (name, runs) in &x.labels {
        let mut text = String::new();
        disjunction(runs, &mut text);
        writeln!(w, "label \"{name}\" = {text};")?;
    }
    explicit_rewards(x, w)
}

/// An explored model's PRISM text (tests).
pub fn explicit_text(x: &Explicit) -> String {
    let mut out = Vec::new();
    write_explicit(x, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the printer writes UTF-8")
}

/// A label's expression, fully parenthesised.
fn expr(e: &Expr, out: &mut String) {
    let _ = match e {
        Expr::Lit(Value::Num(r)) => write!(out, "({})", num::display(r)),
        Expr::Lit(v) => write!(out, "{v}"),
        Expr::Var(v) => write!(out, "{v}"),
        Expr::Atom(a) => write!(out, "({})", atom(a)),
        Expr::Label(name, _) => write!(out, "\"{name}\""),
        Expr::Unary(op, a) => {
            out.push_str(if *op == UnOp::Neg { "-(" } else { "!(" });
            expr(a, out);
            write!(out, ")")
        }
        Expr::Binary(op, a, b) => {
            let sym = if *op == BinOp::Eq { "=" } else { op.symbol() };
            out.push('(');
            expr(a, out);
            let _ = write!(out, " {sym} ");
            expr(b, out);
            write!(out, ")")
        }
        Expr::If(c, a, b) => {
            out.push('(');
            expr(c, out);
            out.push_str(" ? ");
            expr(a, out);
            out.push_str(" : ");
            expr(b, out);
            write!(out, ")")
        }
        Expr::Builtin(b, args) => {
            builtin(*b, args, out);
            Ok(())
        }
    };
}

fn builtin(b: Builtin, args: &[Expr], out: &mut String) {
    let a: Vec<String> = args
        .iter()
        .map(|x| {
            let mut s = String::new();
            expr(x, &mut s);
            s
        })
        .collect();
    let _ = match b {
        Builtin::Min => write!(out, "min({})", a.join(", ")),
        Builtin::Max => write!(out, "max({})", a.join(", ")),
        Builtin::Clamp => write!(out, "min(max({}, {}), {})", a[0], a[1], a[2]),
        Builtin::Abs => write!(out, "max({0}, -({0}))", a[0]),
        Builtin::Floor => write!(out, "floor({})", a[0]),
        Builtin::Ceil => write!(out, "ceil({})", a[0]),
        Builtin::Mod => write!(out, "mod({}, {})", a[0], a[1]),
    };
}

/// A balanced, parenthesised disjunction of index intervals over `s`.
fn disjunction(parts: &[(usize, usize)], out: &mut String) {
    let _ = match parts {
        [] => write!(out, "false"),
        [(lo, hi)] if lo == hi => write!(out, "s={lo}"),
        [(lo, hi)] => write!(out, "(s>={lo} & s<={hi})"),
        _ => {
            out.push('(');
            disjunction(&parts[..parts.len() / 2], out);
            out.push_str(" | ");
            disjunction(&parts[parts.len() / 2..], out);
            write!(out, ")")
        }
    };
}

/// Writes the properties file of a network: each property the user gave in
/// PRISM's property syntax (what PRISM and Storm read beside the model),
/// the user's text above it as a comment.
pub fn write_queries(queries: &[super::Query], w: &mut dyn Write) -> std::io::Result<()> {
    for q in queries {
        writeln!(w, "// {}", q.text.replace('\n', " "))?;
        writeln!(w, "{};", query(q))?;
    }
    Ok(())
}

/// One property in PRISM syntax: `Pmax=? [ F<=12 "l" ]`, `R{"r"}<=3 [ C<=5 ]`.
fn query(q: &super::Query) -> String {
    use super::QueryPath;
    use crate::swarm::front::props::Opt;
    let mut out = match (&q.reward, q.opt) {
        (None, _) => "P".to_string(),
        (Some(r), _) => format!("R{{\"{r}\"}}"),
    };
    match &q.bound {
        Some((cmp, b)) => {
            let _ = write!(out, "{}{}", cmp.symbol(), num::display(b));
        }
        None => out.push_str(if q.opt == Opt::Max { "max=?" } else { "min=?" }),
    }
    out.push_str(" [ ");
    let text = |e: &Expr| {
        let mut s = String::new();
        expr(e, &mut s);
        s
    };
    let bound = |steps: &Option<usize>| steps.map_or(String::new(), |k| format!("<={k}"));
    let _ = match &q.path {
        QueryPath::Until {
            phi: None,
            psi,
            steps,
        } => {
            write!(out, "F{} {}", bound(steps), text(psi))
        }
        QueryPath::Until {
            phi: Some(phi),
            psi,
            steps,
        } => {
            write!(out, "{} U{} {}", text(phi), bound(steps), text(psi))
        }
        QueryPath::Globally { phi, steps } => write!(out, "G{} {}", bound(steps), text(phi)),
        QueryPath::Next { phi } => write!(out, "X {}", text(phi)),
        QueryPath::Cumulative { steps } => write!(out, "C<={steps}"),
        QueryPath::Instant { steps } => write!(out, "I={steps}"),
    };
    out.push_str(" ]");
    out
}

/// The properties file's text (tests).
pub fn queries_text(queries: &[super::Query]) -> String {
    let mut out = Vec::new();
    write_queries(queries, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the printer writes UTF-8")
}
