//! The model's expressions as a checker reads them: scaled to integers,
//! split into cases where TChecker has no conditional.

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

/// The integer range of every exported variable.
pub(super) const INT_RANGE: &str = "-1000000000,1000000000";

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

pub(super) struct Printer<'a> {
    pub(super) model: &'a Model,
    pub(super) scale: BigInt,
    pub(super) target: Target,
    pub(super) warnings: Vec<String>,
    pub(super) notes: Vec<String>,
    /// While printing one TChecker edge: the branch taken at each
    /// conditional met so far (TChecker has no conditional expression, so
    /// an edge with `max`/`min`/`abs`/`clamp`/`if` becomes one edge per case).
    pub(super) cases: Option<Cases>,
}

/// The cases of one edge: `decisions[i]` is the branch of the i-th
/// conditional met while printing (then-branch when true), `conditions` the
/// guards they add (the condition or its negation).
#[derive(Default)]
pub(super) struct Cases {
    pub(super) decisions: Vec<bool>,
    pub(super) met: usize,
    pub(super) conditions: Vec<String>,
}

impl Cases {
    /// The next decision vector in depth-first order (the last then-branch
    /// becomes an else-branch, later decisions are forgotten), or none.
    pub(super) fn next(mut decisions: Vec<bool>) -> Option<Vec<bool>> {
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

    /// The name of slot `slot`: a variable of V, or (in a query, slots of
    /// [`crate::timed::front::model::StateScope`]) an agent's clock or
    /// locality in UPPAAL's `process.name` form. The global time has no
    /// counterpart in the export. Clocks are not scaled: a query that
    /// compares one while V is scaled is refused.
    fn state_name(&self, slot: usize) -> Result<String, RunError> {
        use crate::timed::front::model::StateScope;
        let m = self.model;
        if slot < m.vars.len() {
            return Ok(m.vars[slot].name.clone());
        }
        for (a, agent) in m.agents.iter().enumerate() {
            if slot == StateScope::clock_slot(m, a) {
                if !self.scale.is_one() {
                    return Err(self.unsupported("a clock beside V scaled to integers"));
                }
                return Ok(format!("P_{}.c", agent.name));
            }
            for (l, name) in agent.localities.iter().enumerate() {
                if slot == StateScope::locality_slot(m, a, l) {
                    return Ok(format!("P_{}.{name}", agent.name));
                }
            }
        }
        Err(self.unsupported("the global time `time`"))
    }

    /// A numerical expression of a query (`max`/`min` queries).
    pub(super) fn number(&mut self, e: &TExpr) -> Result<String, RunError> {
        self.num(e)
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
            TKind::Var(slot) => self.state_name(*slot)?,
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

    pub(super) fn boolean(&mut self, e: &TExpr) -> Result<String, RunError> {
        let int_bools = self.target == Target::Tchecker;
        Ok(match &e.kind {
            TKind::Const(Value::Bool(b)) => match (b, int_bools) {
                (true, true) => "1".into(),
                (false, true) => "0".into(),
                (b, false) => b.to_string(),
            },
            TKind::Var(slot) if int_bools => format!("({} == 1)", self.state_name(*slot)?),
            TKind::Var(slot) => self.state_name(*slot)?,
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

pub(super) fn init_text(p: &Printer, v: &Value) -> String {
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
pub(super) fn assignments(
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
