//! The checks of a model's rules once its names are known: the scopes
//! expressions are checked in (template, environment, labels), guards with
//! their sugar, protocol and update cases, the typed observation.

use super::model::*;
use super::scope::{Allow, NetShape, NisScope};
use super::syntax::{RawProtocolCase, RawUpdateCase};
use crate::lang::{
    check, check_as, error_at, BinOp, Constants, EnumTable, Expr, ExprKind, LangResult, Source,
    Span, TExpr, TKind, Ty, UnOp, Value,
};
use std::cell::RefCell;
use std::collections::HashMap;

/// The enumerations of a model: percepts, agent actions, environment actions.
pub struct Kinds {
    pub percept_enum: usize,
    pub percepts: Vec<String>,
    pub init_percept: InitPercept,
    pub action_enum: usize,
    pub actions: Vec<String>,
    pub env_action_enum: usize,
    pub env_actions: Vec<String>,
}

/// Everything declared before the rules are checked, and the engine
/// functions the checked expressions call (filled while checking).
pub struct Names<'a> {
    pub source: &'a Source,
    pub consts: &'a Constants,
    pub enums: &'a EnumTable,
    pub kinds: &'a Kinds,
    pub tvars: &'a [VarDecl],
    pub evars: &'a [VarDecl],
    pub shapes: &'a [NetShape],
    pub ext: &'a RefCell<Vec<ExtFn>>,
    /// The named agents, whose state (and, in updates, actions) the
    /// environment reads as `NAME.var`, `NAME.percept`, `NAME.action`.
    pub named: &'a [NamedAgent],
    /// The actions `performed(a)` names: the parameterised template's (in a
    /// named agent's block too).
    pub performed_enum: usize,
}

/// No engine function; `performed` (updates); networks (`observe`).
const NONE: Allow = Allow {
    performed: false,
    networks: false,
};
const UPDATE: Allow = Allow {
    performed: true,
    networks: false,
};
const OBSERVE: Allow = Allow {
    performed: false,
    networks: true,
};

impl Names<'_> {
    fn err(&self, span: Span, msg: String) -> Box<crate::lang::SourceError> {
        error_at(self.source, span, msg)
    }

    fn scope(&self, vars: HashMap<String, (usize, Ty)>, allow: Allow) -> NisScope<'_> {
        NisScope {
            consts: self.consts,
            enums: self.enums,
            vars,
            nets: self.shapes,
            ext: self.ext,
            allow,
            agent_actions: Some(self.performed_enum),
            env_actions: Some(self.kinds.env_action_enum),
            percept_enum: Some(self.kinds.percept_enum),
        }
    }

    /// The scope of template expressions (slots as [`AgentSlots`]); the
    /// environment variables only where `include_env`.
    fn agent_scope(&self, include_env: bool, allow: Allow) -> NisScope<'_> {
        let k = self.kinds;
        let slots = AgentSlots {
            private: self.tvars.len(),
            env_vars: self.evars.len(),
        };
        let mut vars = HashMap::new();
        for (i, v) in self.tvars.iter().enumerate() {
            vars.insert(v.name.clone(), (i, v.ty.ty()));
        }
        vars.insert(
            "percept".to_string(),
            (slots.percept(), Ty::Enum(k.percept_enum)),
        );
        if allow.performed {
            vars.insert(
                "action".to_string(),
                (slots.action(), Ty::Enum(k.action_enum)),
            );
            vars.insert(
                "env_action".to_string(),
                (slots.env_action(), Ty::Enum(k.env_action_enum)),
            );
        }
        if include_env {
            for (i, v) in self.evars.iter().enumerate() {
                vars.insert(v.name.clone(), (slots.env_var(i), v.ty.ty()));
            }
        }
        self.scope(vars, allow)
    }

    /// The scope of environment expressions (slots as [`EnvSlots`]): its
    /// variables, its action in updates, and every named agent's variables
    /// and percept (its action in updates) as `NAME.x`.
    fn env_scope(&self, allow: Allow) -> NisScope<'_> {
        let eslots = EnvSlots {
            vars: self.evars.len(),
            named: self.named.iter().map(|a| a.template.vars.len()).collect(),
        };
        let mut vars = HashMap::new();
        for (i, v) in self.evars.iter().enumerate() {
            vars.insert(v.name.clone(), (i, v.ty.ty()));
        }
        if allow.performed {
            vars.insert(
                "env_action".to_string(),
                (eslots.action(), Ty::Enum(self.kinds.env_action_enum)),
            );
        }
        for (j, a) in self.named.iter().enumerate() {
            let (base, t) = (eslots.named_base(j), &a.template);
            for (i, v) in t.vars.iter().enumerate() {
                vars.insert(format!("{}.{}", a.name, v.name), (base + i, v.ty.ty()));
            }
            let percept = (base + t.vars.len(), Ty::Enum(t.percept_enum));
            vars.insert(format!("{}.percept", a.name), percept);
            if allow.performed {
                let action = (base + t.vars.len() + 1, Ty::Enum(t.action_enum));
                vars.insert(format!("{}.action", a.name), action);
            }
        }
        self.scope(vars, allow)
    }

    /// A guard: a condition, where a bare percept or action name in a
    /// Boolean position means `percept = name` / `action = name` /
    /// `env_action = name`.
    fn guard(&self, t: &Expr, scope: &NisScope, ctx: &[(usize, &str)]) -> LangResult<TExpr> {
        let sugared = sugar(t, self.enums, ctx);
        let checked = check(self.source, &sugared, scope)?;
        if checked.ty != Ty::Bool {
            return Err(self.err(
                t.span,
                "a guard must be a condition, a percept or an action".into(),
            ));
        }
        Ok(checked)
    }

    fn protocol_cases(
        &self,
        cases: &[RawProtocolCase],
        scope: &NisScope,
        sugar: &[(usize, &str)],
        (enum_id, names): (usize, &[String]),
    ) -> LangResult<Vec<ProtocolCase>> {
        let mut out = Vec::new();
        for c in cases {
            let g = self.guard(&c.guard, scope, sugar)?;
            let mut acts = Vec::new();
            for (a, aspan) in &c.actions {
                match self.enums.member(a) {
                    Some(Value::Enum(id, i)) if id == enum_id => acts.push(i),
                    _ => {
                        return Err(self.err(
                            *aspan,
                            format!("`{a}` is not one of the actions {{{}}}", names.join(", ")),
                        ))
                    }
                }
            }
            if acts.is_empty() {
                return Err(self.err(
                    c.span,
                    "an empty protocol case: every case must enable at least one action".into(),
                ));
            }
            out.push(ProtocolCase {
                guard: g,
                actions: acts,
                span: c.span,
            });
        }
        Ok(out)
    }

    fn update_cases(
        &self,
        cases: &[RawUpdateCase],
        scope: &NisScope,
        sugar: &[(usize, &str)],
        vars: &[VarDecl],
    ) -> LangResult<Vec<UpdateCase>> {
        let mut out = Vec::new();
        for c in cases {
            let g = self.guard(&c.guard, scope, sugar)?;
            let mut assigns = Vec::new();
            for (name, nspan, e) in &c.assigns {
                let Some(slot) = vars.iter().position(|v| v.name == *name) else {
                    return Err(self.err(
                        *nspan,
                        format!("`{name}` is not a variable this block may assign"),
                    ));
                };
                if assigns.iter().any(|(s, _)| *s == slot) {
                    return Err(self.err(*nspan, format!("`{name}` is assigned twice in one case")));
                }
                let t = check(self.source, e, scope)?;
                let want = vars[slot].ty.ty();
                let ok = t.ty == want || (want == Ty::Real && t.ty == Ty::Int);
                if !ok {
                    return Err(self.err(
                        e.span,
                        format!(
                            "`{name}` has type {} but the value does not",
                            vars[slot].ty.describe()
                        ),
                    ));
                }
                assigns.push((slot, t));
            }
            out.push(UpdateCase {
                guard: g,
                assigns,
                span: c.span,
            });
        }
        Ok(out)
    }

    /// obs_t: a percept-valued expression over the local and the
    /// environment state, typed as an [`Observation`].
    pub fn observation(&self, raw: &Expr) -> LangResult<Observation> {
        let observe = check(self.source, raw, &self.agent_scope(true, OBSERVE))?;
        if observe.ty != Ty::Enum(self.kinds.percept_enum) {
            return Err(self.err(raw.span, "`observe` must give a percept".into()));
        }
        if self.kinds.init_percept == InitPercept::Observed {
            let percept = self.tvars.len();
            if let Some(span) = first_read(&observe, percept) {
                return Err(self.err(
                    span,
                    "the first percept is observed (`= observe`), so the observation cannot read `percept`: there is no earlier one".into(),
                ));
            }
        }
        observation(self.source, observe, &self.ext.borrow())
    }

    /// prot_t: guards over the local state (a bare percept name is sugar).
    pub fn template_protocol(&self, cases: &[RawProtocolCase]) -> LangResult<Vec<ProtocolCase>> {
        let k = self.kinds;
        let scope = self.agent_scope(false, NONE);
        let sugar = [(k.percept_enum, "percept")];
        self.protocol_cases(cases, &scope, &sugar, (k.action_enum, &k.actions))
    }

    /// tr_t: guarded cases over the local state, the actions and `performed`.
    pub fn template_update(&self, cases: &[RawUpdateCase]) -> LangResult<Vec<UpdateCase>> {
        let k = self.kinds;
        let scope = self.agent_scope(false, UPDATE);
        let sugar = [
            (k.action_enum, "action"),
            (k.env_action_enum, "env_action"),
            (k.percept_enum, "percept"),
        ];
        self.update_cases(cases, &scope, &sugar, self.tvars)
    }

    /// prot_e; without a `protocol`, every environment action is always enabled.
    pub fn env_protocol(&self, cases: Option<&[RawProtocolCase]>) -> LangResult<Vec<ProtocolCase>> {
        let k = self.kinds;
        let scope = self.env_scope(NONE);
        Ok(match cases {
            Some(cases) => {
                self.protocol_cases(cases, &scope, &[], (k.env_action_enum, &k.env_actions))?
            }
            None => vec![ProtocolCase {
                guard: TExpr {
                    kind: TKind::Const(Value::Bool(true)),
                    ty: Ty::Bool,
                    span: Span::default(),
                },
                actions: (0..k.env_actions.len()).collect(),
                span: Span::default(),
            }],
        })
    }

    /// tr_e: guarded cases over the environment state, its action and `performed`.
    pub fn env_update(&self, cases: &[RawUpdateCase]) -> LangResult<Vec<UpdateCase>> {
        let scope = self.env_scope(UPDATE);
        let sugar = [(self.kinds.env_action_enum, "env_action")];
        self.update_cases(cases, &scope, &sugar, self.evars)
    }

    /// `init COND;` over the environment variables.
    pub fn env_condition(&self, e: &Expr) -> LangResult<TExpr> {
        check_as(self.source, e, &self.env_scope(NONE), Ty::Bool)
    }

    /// The labels (Definition 3): conditions over the template's local
    /// state, or, when that does not read them, over the environment's state.
    /// A label reads one or the other: agents' labels are indexed in
    /// formulas and the environment's are not.
    /// Without a parameterised template every label is the environment's
    /// (named agents' state is read there).
    pub fn labels(
        &self,
        raw: &[(String, Span, Expr)],
        parameterised: bool,
    ) -> LangResult<Vec<Label>> {
        let mut labels: Vec<Label> = Vec::new();
        let agent = self.agent_scope(false, NONE);
        let env = self.env_scope(NONE);
        for (name, span, e) in raw {
            if labels.iter().any(|l| l.name == *name) {
                return Err(self.err(*span, format!("label `{name}` is declared twice")));
            }
            let as_agent = match parameterised {
                true => check_as(self.source, e, &agent, Ty::Bool),
                false => check_as(self.source, e, &env, Ty::Bool),
            };
            let (expr, subject) = match as_agent {
                Ok(t) if !parameterised => (t, LabelSubject::Environment),
                Ok(t) => (t, LabelSubject::Agent),
                Err(agent_err) => match check_as(self.source, e, &env, Ty::Bool) {
                    Ok(t) => (t, LabelSubject::Environment),
                    Err(_) if self.reads_both(e) => {
                        return Err(self.err(
                            *span,
                            format!("label `{name}` reads both an agent's local state and the environment's; a label is about one of them"),
                        ))
                    }
                    Err(_) => return Err(agent_err),
                },
            };
            labels.push(Label {
                name: name.clone(),
                expr,
                span: *span,
                subject,
            });
        }
        Ok(labels)
    }

    /// True when `e` names a template variable (or `percept`) and an environment variable.
    fn reads_both(&self, e: &Expr) -> bool {
        fn collect(e: &Expr, out: &mut Vec<String>) {
            if let ExprKind::Ident(n) = &e.kind {
                out.push(n.clone());
            }
            e.children().into_iter().for_each(|c| collect(c, out));
        }
        let mut names = Vec::new();
        collect(e, &mut names);
        let local = |n: &String| n == "percept" || self.tvars.iter().any(|v| v.name == *n);
        let global = |n: &String| self.evars.iter().any(|v| v.name == *n);
        names.iter().any(local) && names.iter().any(global)
    }
}

/// Rewrites bare enumeration members in Boolean positions into `var = member`.
fn sugar(e: &Expr, enums: &EnumTable, ctx: &[(usize, &str)]) -> Expr {
    let span = e.span;
    match &e.kind {
        ExprKind::Ident(name) => {
            if let Some(Value::Enum(id, _)) = enums.member(name) {
                if let Some((_, var)) = ctx.iter().find(|(eid, _)| *eid == id) {
                    let lhs = Expr::new(ExprKind::Ident(var.to_string()), span);
                    return Expr::new(
                        ExprKind::Binary(BinOp::Eq, Box::new(lhs), Box::new(e.clone())),
                        span,
                    );
                }
            }
            e.clone()
        }
        ExprKind::Unary(UnOp::Not, a) => Expr::new(
            ExprKind::Unary(UnOp::Not, Box::new(sugar(a, enums, ctx))),
            span,
        ),
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies | BinOp::Iff), a, b) => {
            Expr::new(
                ExprKind::Binary(
                    *op,
                    Box::new(sugar(a, enums, ctx)),
                    Box::new(sugar(b, enums, ctx)),
                ),
                span,
            )
        }
        _ => e.clone(),
    }
}

/// The typed observation of a checked `observe` expression: `if` at percept
/// positions, `argmax(net(..), ..)` leaves, other leaves plain expressions.
/// `argmax` is allowed only at percept positions, network vectors only inside
/// `argmax`, and no network in a condition.
fn observation(source: &Source, e: TExpr, ext: &[ExtFn]) -> LangResult<Observation> {
    match e.kind {
        TKind::If(c, a, b) => {
            no_network_vector(source, &c, ext)?;
            Ok(Observation::If(
                *c,
                Box::new(observation(source, *a, ext)?),
                Box::new(observation(source, *b, ext)?),
            ))
        }
        TKind::Ext(id, args) if matches!(ext[id], ExtFn::Argmax { .. }) => {
            let ExtFn::Argmax { percepts } = &ext[id] else {
                unreachable!("matched above")
            };
            let call = args.into_iter().next().map(|a| a.kind);
            let Some(TKind::Ext(n, inputs)) = call else {
                return Err(error_at(source, e.span, "`argmax` needs a network call"));
            };
            let ExtFn::NetVector { net } = ext[n] else {
                return Err(error_at(source, e.span, "`argmax` needs a network call"));
            };
            inputs
                .iter()
                .try_for_each(|i| no_network_vector(source, i, ext))?;
            Ok(Observation::Argmax {
                net,
                inputs,
                percepts: percepts.clone(),
                span: e.span,
            })
        }
        kind => {
            let e = TExpr { kind, ..e };
            no_network_vector(source, &e, ext)?;
            Ok(Observation::Expr(e))
        }
    }
}

/// An operand inside the observation: neither `argmax` nor a bare network vector.
fn no_network_vector(source: &Source, e: &TExpr, ext: &[ExtFn]) -> LangResult<()> {
    let rec = |a: &TExpr| no_network_vector(source, a, ext);
    match &e.kind {
        TKind::Ext(id, args) => match &ext[*id] {
            ExtFn::Argmax { .. } => Err(error_at(source, e.span, "`argmax` gives a percept; use it as the value of `observe` or of an `if` branch")),
            ExtFn::NetVector { .. } => Err(error_at(
                source,
                e.span,
                "a network call gives a vector: use it inside `argmax(...)`, or declare `outputs (..)` names to compare single outputs",
            )),
            _ => args.iter().try_for_each(rec),
        },
        TKind::Const(_) | TKind::Var(_) => Ok(()),
        TKind::Unary(_, a) => rec(a),
        TKind::Binary(_, a, b) => rec(a).and_then(|()| rec(b)),
        TKind::If(c, a, b) => rec(c).and_then(|()| rec(a)).and_then(|()| rec(b)),
        TKind::Builtin(_, args) => args.iter().try_for_each(rec),
    }
}

/// Where `e` first reads slot `slot`, if it does.
fn first_read(e: &TExpr, slot: usize) -> Option<Span> {
    match &e.kind {
        TKind::Var(s) if *s == slot => Some(e.span),
        TKind::Const(_) | TKind::Var(_) => None,
        TKind::Unary(_, a) => first_read(a, slot),
        TKind::Binary(_, a, b) => first_read(a, slot).or_else(|| first_read(b, slot)),
        TKind::If(c, a, b) => first_read(c, slot)
            .or_else(|| first_read(a, slot))
            .or_else(|| first_read(b, slot)),
        TKind::Builtin(_, args) | TKind::Ext(_, args) => {
            args.iter().find_map(|a| first_read(a, slot))
        }
    }
}
