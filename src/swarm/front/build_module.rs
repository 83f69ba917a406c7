//! Building one module of a swarm model (a template or the environment):
//! its variables, commands, branches and updates, with every constant
//! probability sum checked exactly.

use super::model::{Branch, Command, GlobalScope, Template, Update, UpdateKind, VarInfo};
use super::syntax::{Alt, Assign, AssignKind, ModuleSyntax, VarSyntax};
use crate::lang::{
    check, check_as, error_at, eval_const, resolve_type, Constants, DeclType, EnumTable,
    LangResult, Rat, Scope, Source, Span, Symbol, TExpr, TKind, Ty, Value,
};
use num_traits::{One, Zero};
use std::collections::HashMap;

/// Names inside one module: its own variables, then constants.
pub(super) struct LocalScope<'a> {
    pub(super) vars: &'a [VarInfo],
    pub(super) consts: &'a Constants,
}

impl Scope for LocalScope<'_> {
    fn lookup(&self, name: &str) -> Option<Symbol> {
        if let Some(slot) = self.vars.iter().position(|v| v.name == name) {
            return Some(Symbol::Var {
                slot,
                ty: GlobalScope::var_ty(&self.vars[slot]),
            });
        }
        self.consts.lookup(name)
    }
}

pub(super) fn build_module(
    source: &Source,
    m: &ModuleSyntax,
    actions: &HashMap<String, usize>,
    consts: &Constants,
    is_env: bool,
) -> LangResult<Template> {
    let mut vars: Vec<VarInfo> = Vec::new();
    let mut enums = EnumTable::default();
    for v in &m.vars {
        if vars.iter().any(|w| w.name == v.name) {
            return Err(error_at(
                source,
                v.span,
                format!(
                    "variable `{}` is declared twice in module `{}`",
                    v.name, m.name
                ),
            ));
        }
        vars.push(build_var(source, v, consts, &mut enums)?);
    }
    let mut commands = Vec::new();
    for c in &m.commands {
        let action = match &c.action {
            None => 0,
            Some((name, span)) => *actions.get(name).ok_or_else(|| {
                error_at(source, *span, format!("unknown action `{name}`: declare it in `asynchronous`, `agentEnvironment` or `globalSynchronous`"))
            })?,
        };
        let _ = is_env;
        let scope = LocalScope {
            vars: &vars,
            consts,
        };
        let guard = check_as(source, &c.guard, &scope, Ty::Bool)?;
        let branches = build_branches(source, &c.alts, &vars, consts, c.span)?;
        commands.push(Command {
            action,
            guard,
            branches,
            span: c.span,
        });
    }
    Ok(Template {
        name: m.name.clone(),
        user_vars: vars.len(),
        flags_projected: false,
        vars,
        commands,
        faults: Vec::new(),
    })
}

/// A declared variable: its bounds from its type, its checked initial value.
pub(super) fn build_var(
    source: &Source,
    v: &VarSyntax,
    consts: &Constants,
    enums: &mut EnumTable,
) -> LangResult<VarInfo> {
    let ty = resolve_type(source, &v.ty, v.ty_span, consts, enums)?;
    let (lo, hi, is_bool) = match &ty {
        DeclType::Bool => (0, 1, true),
        DeclType::Int {
            lo: Some(l),
            hi: Some(h),
        } => (
            int_of(source, v.ty_span, &Value::Num(l.clone()))?,
            int_of(source, v.ty_span, &Value::Num(h.clone()))?,
            false,
        ),
        _ => {
            return Err(error_at(
                source,
                v.ty_span,
                format!(
                    "variable `{}` needs a bounded integer type `[lo..hi]` or `bool`",
                    v.name
                ),
            ))
        }
    };
    let init = match &v.init {
        Some(e) => {
            let val = eval_const(source, e, consts)?;
            if is_bool != matches!(val, Value::Bool(_)) {
                return Err(error_at(
                    source,
                    e.span,
                    format!(
                        "`{}` is {} but its initial value is {val}",
                        v.name,
                        ty.describe()
                    ),
                ));
            }
            let i = int_of(source, e.span, &val)?;
            if i < lo || i > hi {
                return Err(error_at(
                    source,
                    e.span,
                    format!(
                        "initial value {val} of `{}` is outside {}",
                        v.name,
                        ty.describe()
                    ),
                ));
            }
            i
        }
        None => lo,
    };
    Ok(VarInfo {
        name: v.name.clone(),
        lo,
        hi,
        init,
        is_bool,
    })
}

pub(super) fn is_constant(t: &TExpr) -> bool {
    match &t.kind {
        TKind::Const(_) => true,
        TKind::Var(_) => false,
        TKind::Unary(_, a) => is_constant(a),
        TKind::Binary(_, a, b) => is_constant(a) && is_constant(b),
        TKind::If(c, a, b) => is_constant(c) && is_constant(a) && is_constant(b),
        TKind::Builtin(_, args) | TKind::Ext(_, args) => args.iter().all(is_constant),
    }
}

/// Checks the branches of a command or fault line; constant probabilities
/// must be non-negative and sum to exactly 1.
pub(super) fn build_branches(
    source: &Source,
    alts: &[Alt],
    vars: &[VarInfo],
    consts: &Constants,
    span: Span,
) -> LangResult<Vec<Branch>> {
    let scope = LocalScope { vars, consts };
    let mut out = Vec::new();
    let mut sum = Some(Rat::zero());
    for a in alts {
        let prob = match &a.prob {
            Some(e) => check_as(source, e, &scope, Ty::Real)?,
            None if alts.len() == 1 => TExpr {
                kind: TKind::Const(Value::Num(Rat::one())),
                ty: Ty::Int,
                span: a.span,
            },
            None => {
                return Err(error_at(
                    source,
                    a.span,
                    "every branch of a probabilistic choice needs a probability `p : ...`",
                ))
            }
        };
        if is_constant(&prob) {
            let v = crate::lang::eval(&prob, &Vec::<Value>::new())
                .map_err(|e| error_at(source, e.span, e.message))?;
            let p = v.as_num().cloned().unwrap_or_default();
            if p < Rat::zero() || p > Rat::one() {
                return Err(error_at(
                    source,
                    prob.span,
                    format!(
                        "probability {} is outside [0, 1]",
                        crate::lang::num::display(&p)
                    ),
                ));
            }
            sum = sum.map(|s| s + p);
        } else {
            sum = None;
        }
        let updates = build_updates(source, &a.assigns, vars, &scope)?;
        out.push(Branch {
            prob,
            updates,
            span: a.span,
        });
    }
    if let Some(s) = sum {
        if !s.is_one() {
            return Err(error_at(
                source,
                span,
                format!(
                    "the probabilities sum to {}, not 1",
                    crate::lang::num::display(&s)
                ),
            ));
        }
    }
    let _ = check;
    Ok(out)
}

/// The updates of one branch: each variable assigned at most once, each
/// fault applicable to its variable's type.
pub(super) fn build_updates(
    source: &Source,
    assigns: &[Assign],
    vars: &[VarInfo],
    scope: &LocalScope,
) -> LangResult<Vec<Update>> {
    let mut updates: Vec<Update> = Vec::new();
    for asg in assigns {
        let slot = vars
            .iter()
            .position(|v| v.name == asg.var)
            .ok_or_else(|| error_at(source, asg.span, format!("unknown variable `{}`", asg.var)))?;
        if updates.iter().any(|u| u.slot == slot) {
            return Err(error_at(
                source,
                asg.span,
                format!("`{}` is assigned twice in one update", asg.var),
            ));
        }
        let v = &vars[slot];
        let kind = match &asg.kind {
            AssignKind::Set(e) => UpdateKind::Set(check_as(
                source,
                e,
                scope,
                if v.is_bool { Ty::Bool } else { Ty::Int },
            )?),
            AssignKind::Invert if v.is_bool => UpdateKind::Invert,
            AssignKind::Up if !v.is_bool => UpdateKind::Up,
            AssignKind::Down if !v.is_bool => UpdateKind::Down,
            _ => {
                return Err(error_at(
                    source,
                    asg.span,
                    format!(
                        "this fault does not apply to `{}` ({})",
                        v.name,
                        if v.is_bool { "bool" } else { "int" }
                    ),
                ))
            }
        };
        updates.push(Update { slot, kind });
    }
    Ok(updates)
}

/// An integer (or a Boolean as 0/1) from a constant value.
pub(super) fn int_of(source: &Source, span: Span, v: &Value) -> LangResult<i64> {
    match v {
        Value::Num(r) => crate::lang::num::to_i64(r)
            .ok_or_else(|| error_at(source, span, format!("expected an integer, found {v}"))),
        Value::Bool(b) => Ok(i64::from(*b)),
        _ => Err(error_at(
            source,
            span,
            format!("expected an integer or bool, found {v}"),
        )),
    }
}
