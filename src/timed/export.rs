//! Export to timed-automata checkers (notes, "Relation to timed automata"):
//! each agent becomes an automaton with one clock `c`, invariant
//! `c <= deadline` on each locality (`c <= E` on the final one), one edge per
//! transition guarded `a <= c && c <= b` (and its guard on V), and the reset
//! edge guarded `c == E` setting `c = 0`. Checkers want integer data, so
//! every number of V is multiplied by a scale factor (the least common
//! multiple of the denominators of the model's literals); products and
//! quotients are rescaled, and integer division truncates (reported).
//! TChecker has no conditional expression: an edge with `max`/`min`/`abs`/
//! `clamp`/`if` is printed once per case, each guarded by its conditions.

use crate::lang::types::Builtin;
use crate::lang::{num, BinOp, TExpr, TKind, UnOp, Value};
use crate::report::RunError;
use crate::timed::front::model::Model;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::One;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Uppaal,
    Tchecker,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Uppaal => "uppaal",
            Target::Tchecker => "tchecker",
        }
    }
}

pub struct Exported {
    pub text: String,
    pub scale: BigInt,
    pub warnings: Vec<String>,
}

/// The value of a subexpression without variables (`1/2` is a division of literals).
fn closed_value(e: &TExpr) -> Option<num::Rat> {
    fn closed(e: &TExpr) -> bool {
        match &e.kind {
            TKind::Const(_) => true,
            TKind::Var(_) | TKind::Ext(..) => false,
            TKind::Unary(_, a) => closed(a),
            TKind::Binary(_, a, b) => closed(a) && closed(b),
            TKind::If(c, a, b) => closed(c) && closed(a) && closed(b),
            TKind::Builtin(_, args) => args.iter().all(closed),
        }
    }
    if !closed(e) {
        return None;
    }
    let env: &[Value] = &[];
    crate::lang::eval(e, env).ok()?.as_num().cloned()
}

fn literals(e: &TExpr, out: &mut Vec<num::Rat>) {
    if let Some(r) = closed_value(e) {
        out.push(r);
        return;
    }
    match &e.kind {
        TKind::Const(Value::Num(r)) => out.push(r.clone()),
        TKind::Const(_) | TKind::Var(_) => {}
        TKind::Unary(_, a) => literals(a, out),
        TKind::Binary(_, a, b) => {
            literals(a, out);
            literals(b, out);
        }
        TKind::If(c, a, b) => {
            literals(c, out);
            literals(a, out);
            literals(b, out);
        }
        TKind::Builtin(_, args) | TKind::Ext(_, args) => args.iter().for_each(|a| literals(a, out)),
    }
}

/// The scale factor: lcm of the denominators of initial values and literals.
pub fn scale_factor(model: &Model) -> BigInt {
    let mut lits: Vec<num::Rat> = model
        .vars
        .iter()
        .filter_map(|v| v.init.as_num().cloned())
        .collect();
    for a in &model.agents {
        for t in &a.transitions {
            if let Some(g) = &t.guard {
                literals(g, &mut lits);
            }
            for (_, e) in &t.updates {
                literals(e, &mut lits);
            }
        }
    }
    lits.iter().fold(BigInt::one(), |acc, r| acc.lcm(r.denom()))
}

struct Printer<'a> {
    model: &'a Model,
    scale: BigInt,
    target: Target,
    warnings: Vec<String>,
    /// While printing one TChecker edge: the branch taken at each
    /// conditional met so far (TChecker has no conditional expression, so
    /// an edge with `max`/`min`/`abs`/`clamp`/`if` becomes one edge per case).
    cases: Option<Cases>,
}

/// The cases of one edge: `decisions[i]` is the branch of the i-th
/// conditional met while printing (then-branch when true), `conditions` the
/// guards they add (the condition or its negation).
#[derive(Default)]
struct Cases {
    decisions: Vec<bool>,
    met: usize,
    conditions: Vec<String>,
}

impl Cases {
    /// The next decision vector in depth-first order (the last then-branch
    /// becomes an else-branch, later decisions are forgotten), or none.
    fn next(mut decisions: Vec<bool>) -> Option<Vec<bool>> {
        while decisions.last() == Some(&false) {
            decisions.pop();
        }
        let last = decisions.last_mut()?;
        *last = false;
        Some(decisions)
    }
}

impl Printer<'_> {
    fn unsupported(&self, what: &str) -> RunError {
        RunError::input(format!(
            "cannot export to {}: {what} has no equivalent there",
            self.target.name()
        ))
    }

    fn ternary(&mut self, c: String, a: String, b: String) -> Result<String, RunError> {
        if self.target != Target::Tchecker {
            return Ok(format!("({c} ? {a} : {b})"));
        }
        let Some(cases) = self.cases.as_mut() else {
            return Err(self.unsupported("a conditional expression outside an edge"));
        };
        if cases.met == cases.decisions.len() {
            cases.decisions.push(true);
        }
        let then = cases.decisions[cases.met];
        cases.met += 1;
        cases.conditions.push(if then {
            format!("({c})")
        } else {
            format!("!({c})")
        });
        Ok(if then { a } else { b })
    }

    fn warn(&mut self, w: &str) {
        if !self.warnings.iter().any(|x| x == w) {
            self.warnings.push(w.to_string());
        }
    }

    /// An integer expression worth `scale * value(e)`.
    fn num(&mut self, e: &TExpr) -> Result<String, RunError> {
        let s = self.scale.clone();
        if let Some(r) = closed_value(e) {
            let v = (r * num::Rat::from_integer(s)).to_integer();
            return Ok(if v < BigInt::from(0) {
                format!("({v})")
            } else {
                v.to_string()
            });
        }
        Ok(match &e.kind {
            TKind::Const(Value::Num(r)) => {
                let v = (r * num::Rat::from_integer(s)).to_integer();
                if v < BigInt::from(0) {
                    format!("({v})")
                } else {
                    v.to_string()
                }
            }
            TKind::Var(slot) => self.model.vars[*slot].name.clone(),
            TKind::Unary(UnOp::Neg, a) => format!("-({})", self.num(a)?),
            TKind::Binary(op, a, b) => {
                let (x, y) = (self.num(a)?, self.num(b)?);
                match op {
                    BinOp::Add => format!("({x} + {y})"),
                    BinOp::Sub => format!("({x} - {y})"),
                    BinOp::Mul if s.is_one() => format!("({x} * {y})"),
                    BinOp::Mul => {
                        self.warn("products are rescaled by an integer division, which truncates");
                        format!("(({x} * {y}) / {s})")
                    }
                    BinOp::Div => {
                        self.warn("division is integer division there, which truncates");
                        format!("(({x} * {s}) / {y})")
                    }
                    _ => return Err(self.unsupported("a Boolean operator in a number")),
                }
            }
            TKind::If(c, a, b) => {
                let (c, a, b) = (self.boolean(c)?, self.num(a)?, self.num(b)?);
                self.ternary(c, a, b)?
            }
            TKind::Builtin(b, args) => {
                let xs = args
                    .iter()
                    .map(|a| self.num(a))
                    .collect::<Result<Vec<_>, _>>()?;
                match b {
                    Builtin::Min | Builtin::Max => {
                        let op = if *b == Builtin::Min { "<" } else { ">" };
                        let mut acc = xs[0].clone();
                        for x in &xs[1..] {
                            acc =
                                self.ternary(format!("{acc} {op} {x}"), acc.clone(), x.clone())?;
                        }
                        acc
                    }
                    Builtin::Abs => self.ternary(
                        format!("{} < 0", xs[0]),
                        format!("-({})", xs[0]),
                        xs[0].clone(),
                    )?,
                    Builtin::Clamp => {
                        let low = self.ternary(
                            format!("{} < {}", xs[0], xs[1]),
                            xs[1].clone(),
                            xs[0].clone(),
                        )?;
                        self.ternary(format!("{low} > {}", xs[2]), xs[2].clone(), low)?
                    }
                    Builtin::Mod if s.is_one() => format!("({} % {})", xs[0], xs[1]),
                    _ => return Err(self.unsupported("`floor`, `ceil` or `mod` on scaled numbers")),
                }
            }
            TKind::Const(_) | TKind::Unary(UnOp::Not, _) => {
                return Err(self.unsupported("a Boolean in a number"))
            }
            TKind::Ext(..) => return Err(self.unsupported("an engine function")),
        })
    }

    fn boolean(&mut self, e: &TExpr) -> Result<String, RunError> {
        let int_bools = self.target == Target::Tchecker;
        Ok(match &e.kind {
            TKind::Const(Value::Bool(b)) => match (b, int_bools) {
                (true, true) => "1".into(),
                (false, true) => "0".into(),
                (b, false) => b.to_string(),
            },
            TKind::Var(slot) if int_bools => format!("({} == 1)", self.model.vars[*slot].name),
            TKind::Var(slot) => self.model.vars[*slot].name.clone(),
            TKind::Unary(UnOp::Not, a) => format!("!({})", self.boolean(a)?),
            TKind::Binary(op, a, b) => {
                use BinOp::*;
                let numeric = a.ty.is_numeric();
                match op {
                    And | Or | Implies | Iff => {
                        let (x, y) = (self.boolean(a)?, self.boolean(b)?);
                        match op {
                            And => format!("({x} && {y})"),
                            Or => format!("({x} || {y})"),
                            Implies => format!("(!({x}) || {y})"),
                            _ => format!("({x} == {y})"),
                        }
                    }
                    Eq | Ne | Lt | Le | Gt | Ge => {
                        let (x, y) = if numeric {
                            (self.num(a)?, self.num(b)?)
                        } else {
                            (self.boolean(a)?, self.boolean(b)?)
                        };
                        format!("({x} {} {y})", if *op == Eq { "==" } else { op.symbol() })
                    }
                    _ => return Err(self.unsupported("arithmetic in a condition")),
                }
            }
            TKind::If(c, a, b) => {
                let (c, a, b) = (self.boolean(c)?, self.boolean(a)?, self.boolean(b)?);
                self.ternary(c, a, b)?
            }
            _ => return Err(self.unsupported("this condition")),
        })
    }

    /// The value a Boolean or number is stored as.
    fn stored(&mut self, is_bool: bool, e: &TExpr) -> Result<String, RunError> {
        if !is_bool {
            return self.num(e);
        }
        if self.target == Target::Tchecker {
            return match &e.kind {
                TKind::Const(Value::Bool(b)) => Ok(u8::from(*b).to_string()),
                TKind::Var(slot) => Ok(self.model.vars[*slot].name.clone()),
                _ => Err(self.unsupported("assigning a Boolean expression")),
            };
        }
        self.boolean(e)
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn init_text(p: &Printer, v: &Value) -> String {
    match v {
        Value::Bool(b) if p.target == Target::Tchecker => u8::from(*b).to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Num(r) => (r * num::Rat::from_integer(p.scale.clone()))
            .to_integer()
            .to_string(),
        Value::Enum(_, i) => i.to_string(),
    }
}

/// The assignments of a transition. Updates are simultaneous, so with more
/// than one the new values go through temporaries first.
fn assignments(
    p: &mut Printer,
    t: &crate::timed::front::model::Transition,
) -> Result<Vec<String>, RunError> {
    let mut direct = Vec::new();
    for (slot, e) in &t.updates {
        let is_bool = p.model.vars[*slot].ty == crate::lang::Ty::Bool;
        direct.push((p.model.vars[*slot].name.clone(), p.stored(is_bool, e)?));
    }
    if direct.len() <= 1 {
        return Ok(direct
            .into_iter()
            .map(|(n, e)| format!("{n} = {e}"))
            .collect());
    }
    let mut out: Vec<String> = direct
        .iter()
        .map(|(n, e)| format!("tmp_{n} = {e}"))
        .collect();
    out.extend(direct.iter().map(|(n, _)| format!("{n} = tmp_{n}")));
    Ok(out)
}

pub fn export(model: &Model, target: Target) -> Result<Exported, RunError> {
    let mut p = Printer {
        model,
        scale: scale_factor(model),
        target,
        warnings: Vec::new(),
        cases: None,
    };
    let text = match target {
        Target::Uppaal => uppaal(&mut p)?,
        Target::Tchecker => tchecker(&mut p)?,
    };
    Ok(Exported {
        text,
        scale: p.scale,
        warnings: p.warnings,
    })
}

const INT_RANGE: &str = "-1000000000,1000000000";

/// The UPPAAL XML: the global declaration of V, one template per agent and
/// the system line naming them.
fn uppaal(p: &mut Printer) -> Result<String, RunError> {
    let m = p.model;
    let decl = uppaal_declaration(p);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE nta PUBLIC '-//Uppaal Team//DTD Flat System 1.1//EN' 'http://www.it.uu.se/research/group/darts/uppaal/flat-1_2.dtd'>\n<nta>\n");
    out.push_str(&format!("  <declaration>{}</declaration>\n", xml(&decl)));
    let mut names = Vec::new();
    for a in &m.agents {
        names.push(format!("P_{}", a.name));
        out.push_str(&uppaal_template(p, a)?);
    }
    out.push_str(&format!(
        "  <system>system {};</system>\n</nta>\n",
        names.join(", ")
    ));
    Ok(out)
}

/// The variables of V with their initial values, each with the temporary
/// that simultaneous assignments go through (see `assignments`).
fn uppaal_declaration(p: &Printer) -> String {
    let mut decl = format!("// exported by mavis; numbers of V scaled by {}\n", p.scale);
    for v in &p.model.vars {
        let init = init_text(p, &v.init);
        if v.ty == crate::lang::Ty::Bool {
            decl.push_str(&format!(
                "bool {} = {init};\nbool tmp_{};\n",
                v.name, v.name
            ));
        } else {
            decl.push_str(&format!(
                "int[{INT_RANGE}] {} = {init};\nint[{INT_RANGE}] tmp_{};\n",
                v.name, v.name
            ));
        }
    }
    decl
}

/// The template of one agent: its clock, one location per locality, a
/// committed start location when the clock does not start at 0, and the
/// edges of its transitions and of its reset.
fn uppaal_template(
    p: &mut Printer,
    a: &crate::timed::front::model::Agent,
) -> Result<String, RunError> {
    let mut out = format!(
        "  <template>\n    <name>P_{}</name>\n    <declaration>clock c;</declaration>\n",
        a.name
    );
    for (l, lname) in a.localities.iter().enumerate() {
        out.push_str(&format!(
            "    <location id=\"{}_{l}\">\n      <name>{lname}</name>\n      <label kind=\"invariant\">{}</label>\n    </location>\n",
            a.name,
            xml(&format!("c <= {}", a.deadline[l]))
        ));
    }
    let start = if a.init_clock > 0 {
        out.push_str(&format!("    <location id=\"{}_start\">\n      <name>start</name>\n      <committed/>\n    </location>\n", a.name));
        format!("{}_start", a.name)
    } else {
        format!("{}_{}", a.name, a.initial)
    };
    out.push_str(&format!("    <init ref=\"{start}\"/>\n"));
    if a.init_clock > 0 {
        out.push_str(&uppaal_edge(
            start.clone(),
            format!("{}_{}", a.name, a.initial),
            String::new(),
            format!("c = {}", a.init_clock),
        ));
    }
    for t in &a.transitions {
        let mut guard = format!("c >= {} && c <= {}", t.lower, t.upper);
        if let Some(g) = &t.guard {
            guard.push_str(&format!(" && {}", p.boolean(g)?));
        }
        let assign = assignments(p, t)?.join(", ");
        out.push_str(&uppaal_edge(
            format!("{}_{}", a.name, t.from),
            format!("{}_{}", a.name, t.to),
            guard,
            assign,
        ));
    }
    out.push_str(&uppaal_edge(
        format!("{}_{}", a.name, a.final_loc),
        format!("{}_{}", a.name, a.initial),
        format!("c == {}", a.period),
        "c = 0".into(),
    ));
    out.push_str("  </template>\n");
    Ok(out)
}

/// One UPPAAL transition; an empty guard or assignment is left out.
fn uppaal_edge(src: String, dst: String, guard: String, assign: String) -> String {
    let mut e =
        format!("    <transition>\n      <source ref=\"{src}\"/>\n      <target ref=\"{dst}\"/>\n");
    if !guard.is_empty() {
        e.push_str(&format!(
            "      <label kind=\"guard\">{}</label>\n",
            xml(&guard)
        ));
    }
    if !assign.is_empty() {
        e.push_str(&format!(
            "      <label kind=\"assignment\">{}</label>\n",
            xml(&assign)
        ));
    }
    e.push_str("    </transition>\n");
    e
}

/// One TChecker edge of `t` in the case chosen by `p.cases`.
fn tchecker_edge(
    p: &mut Printer,
    a: &crate::timed::front::model::Agent,
    t: &crate::timed::front::model::Transition,
) -> Result<String, RunError> {
    let pn = &a.name;
    let mut guard = format!("c_{pn}>={} && c_{pn}<={}", t.lower, t.upper);
    if let Some(g) = &t.guard {
        guard.push_str(&format!(" && {}", p.boolean(g)?));
    }
    let assign = assignments(p, t)?;
    for c in &p
        .cases
        .as_ref()
        .expect("an edge is printed with cases")
        .conditions
    {
        guard.push_str(&format!(" && {c}"));
    }
    let does = if assign.is_empty() {
        String::new()
    } else {
        format!(" : do: {}", assign.join("; "))
    };
    Ok(format!(
        "edge:{pn}:{}:{}:tau{{provided: {guard}{does}}}\n",
        a.localities[t.from], a.localities[t.to]
    ))
}

fn tchecker(p: &mut Printer) -> Result<String, RunError> {
    let m = p.model;
    let mut out = format!(
        "# exported by mavis; numbers of V scaled by {}\nsystem:mapt\nevent:tau\n",
        p.scale
    );
    for v in &m.vars {
        let init = init_text(p, &v.init);
        let range = if v.ty == crate::lang::Ty::Bool {
            "0:1".to_string()
        } else {
            INT_RANGE.replace(',', ":")
        };
        out.push_str(&format!(
            "int:1:{range}:{init}:{}\nint:1:{range}:0:tmp_{}\n",
            v.name, v.name
        ));
    }
    for a in &m.agents {
        let pn = &a.name;
        out.push_str(&format!("\nprocess:{pn}\nclock:1:c_{pn}\n"));
        for (l, lname) in a.localities.iter().enumerate() {
            let initial = if l == a.initial && a.init_clock == 0 {
                "initial: : "
            } else {
                ""
            };
            out.push_str(&format!(
                "location:{pn}:{lname}{{{initial}invariant: c_{pn}<={}}}\n",
                a.deadline[l]
            ));
        }
        if a.init_clock > 0 {
            out.push_str(&format!("location:{pn}:start{{initial: : committed:}}\n"));
            out.push_str(&format!(
                "edge:{pn}:start:{}:tau{{do: c_{pn}={}}}\n",
                a.localities[a.initial], a.init_clock
            ));
        }
        for t in &a.transitions {
            // One edge per case of the conditionals in the guard and updates.
            let mut decisions = Some(Vec::new());
            while let Some(d) = decisions {
                p.cases = Some(Cases {
                    decisions: d,
                    ..Cases::default()
                });
                let edge = tchecker_edge(p, a, t);
                let cases = p.cases.take().expect("set above");
                out.push_str(&edge?);
                decisions = Cases::next(cases.decisions);
            }
        }
        out.push_str(&format!(
            "edge:{pn}:{}:{}:tau{{provided: c_{pn}=={} : do: c_{pn}=0}}\n",
            a.localities[a.final_loc], a.localities[a.initial], a.period
        ));
    }
    Ok(out)
}
