//! From the declarations as written to the checked [`Model`]: resolves types,
//! enumerations and names, loads the networks, checks every expression's type
//! and where the engine functions may appear.

use super::model::*;
use super::scope::{Allow, NetShape, NisScope};
use super::syntax::{RawBlock, RawInit, RawModel, RawProtocolCase, RawUpdateCase};
use crate::lang::{
    check, error_at, eval_const, resolve_type, BinOp, DeclType, EnumTable, Expr, ExprKind,
    LangResult, Source, Span, TExpr, TKind, Ty, UnOp, Value,
};
use crate::nn::Network;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where the networks of a model come from.
pub struct NetworkSource<'a> {
    /// Directory the model's relative network paths start from.
    pub base_dir: PathBuf,
    /// `--network NAME=PATH` overrides.
    pub overrides: HashMap<String, PathBuf>,
    /// Networks given in memory (tests, benches), by name; win over files.
    pub in_memory: HashMap<String, Network>,
    /// Reads a network file.
    pub load: &'a dyn Fn(&Path) -> Result<Network, String>,
}

pub fn build(source: &Source, raw: RawModel, nets: &NetworkSource) -> LangResult<Model> {
    let mut enums = EnumTable::default();
    let consts = raw.constants;
    let Some((agent_name, agent_span, agent)) = raw.agent else {
        return Err(error_at(
            source,
            Span::new(0, 0),
            "the model declares no `agent` template",
        ));
    };
    let err = |span: Span, msg: String| error_at(source, span, msg);

    // Networks.
    let mut networks = Vec::new();
    let mut shapes = Vec::new();
    for rn in &raw.nets {
        if networks.iter().any(|n: &NetDecl| n.name == rn.name) {
            return Err(err(
                rn.span,
                format!("network `{}` is declared twice", rn.name),
            ));
        }
        let path = match nets.overrides.get(&rn.name) {
            Some(p) => p.clone(),
            None => nets.base_dir.join(&rn.path),
        };
        let network = match nets.in_memory.get(&rn.name) {
            Some(n) => n.clone(),
            None => (nets.load)(&path).map_err(|e| {
                let message = format!(
                    "cannot load network `{}` from {}: {e}",
                    rn.name,
                    path.display()
                );
                if nets.overrides.contains_key(&rn.name) {
                    // The file came from `--network`: point there, not at the
                    // model's `net` line, which names another file.
                    let given = format!("--network {}={}", rn.name, path.display());
                    let at = "--network ".len() + rn.name.len() + 1;
                    let cli = Source::new("<command line>", given.clone());
                    error_at(&cli, Span::new(at, given.len()), message)
                } else {
                    err(rn.path_span, message)
                }
            })?,
        };
        if !rn.outputs.is_empty() && rn.outputs.len() != network.output_size() {
            return Err(err(
                rn.span,
                format!(
                    "network `{}` has {} output(s) but {} output name(s) are declared",
                    rn.name,
                    network.output_size(),
                    rn.outputs.len()
                ),
            ));
        }
        shapes.push(NetShape {
            name: rn.name.clone(),
            inputs: network.input_size(),
            outputs: network.output_size(),
            output_names: rn.outputs.iter().map(|(n, _)| n.clone()).collect(),
        });
        networks.push(NetDecl {
            name: rn.name.clone(),
            path,
            network,
            outputs: rn.outputs.iter().map(|(n, _)| n.clone()).collect(),
        });
    }

    // Enumerations: percepts, agent actions, environment actions.
    let Some((pty, pty_span, pinit, pinit_span)) = agent.percept.clone() else {
        return Err(err(
            agent_span,
            format!("agent `{agent_name}` declares no `percept`"),
        ));
    };
    let percept_ty = resolve_type(source, &pty, pty_span, &consts, &mut enums)?;
    let DeclType::Enum {
        id: percept_enum,
        values: percepts,
    } = percept_ty
    else {
        return Err(err(
            pty_span,
            "the percept must be an enumeration `{a, b, ...}`".into(),
        ));
    };
    let init_percept = percepts
        .iter()
        .position(|p| *p == pinit)
        .ok_or_else(|| err(pinit_span, format!("`{pinit}` is not a percept")))?;
    let Some((acts, acts_span)) = agent.actions.clone() else {
        return Err(err(
            agent_span,
            format!("agent `{agent_name}` declares no `actions`"),
        ));
    };
    if acts.is_empty() {
        return Err(err(acts_span, "the set of actions is empty".into()));
    }
    let action_enum = enums.add(source, None, &acts)?;
    let actions: Vec<String> = acts.iter().map(|(n, _)| n.clone()).collect();
    let env_block = raw.env.as_ref().map(|(_, b)| b.clone()).unwrap_or_default();
    let env_acts = match &env_block.actions {
        Some((list, span)) if list.is_empty() => {
            return Err(err(*span, "the set of actions is empty".into()))
        }
        Some((list, _)) => list.clone(),
        None => vec![("env_idle".to_string(), Span::default())],
    };
    let env_action_enum = enums.add(source, None, &env_acts)?;
    let env_actions: Vec<String> = env_acts.iter().map(|(n, _)| n.clone()).collect();

    // Variables.
    let resolve_vars = |block: &RawBlock, enums: &mut EnumTable| -> LangResult<Vec<VarDecl>> {
        let mut out: Vec<VarDecl> = Vec::new();
        for v in &block.vars {
            let ty = resolve_type(source, &v.ty, v.ty_span, &consts, enums)?;
            out.push(VarDecl {
                name: v.name.clone(),
                ty,
                span: v.span,
            });
        }
        Ok(out)
    };
    let tvars = resolve_vars(&agent, &mut enums)?;
    let evars = resolve_vars(&env_block, &mut enums)?;
    for v in tvars.iter().chain(&evars) {
        if let DeclType::Real { lo, hi } | DeclType::Int { lo, hi } = &v.ty {
            if lo.is_none() || hi.is_none() {
                return Err(err(
                    v.span,
                    format!("`{}` needs bounds, as in `real[0..4]` or `[0..4]`: the MILP encoding needs finite bounds", v.name),
                ));
            }
        }
    }
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for v in tvars.iter().chain(&evars) {
        if ["percept", "action", "env_action"].contains(&v.name.as_str()) {
            return Err(err(v.span, format!("`{}` is a reserved name", v.name)));
        }
        if seen.insert(v.name.as_str(), v.span).is_some()
            || consts.get(&v.name).is_some()
            || enums.member(&v.name).is_some()
        {
            return Err(err(
                v.span,
                format!("the name `{}` is already declared", v.name),
            ));
        }
    }
    let slots = AgentSlots {
        private: tvars.len(),
        env_vars: evars.len(),
    };
    let eslots = EnvSlots { vars: evars.len() };
    let ext = RefCell::new(Vec::new());
    let ty_of = |v: &VarDecl| v.ty.ty();
    let agent_scope = |include_env: bool, allow: Allow| {
        let mut vars = HashMap::new();
        for (i, v) in tvars.iter().enumerate() {
            vars.insert(v.name.clone(), (i, ty_of(v)));
        }
        vars.insert(
            "percept".to_string(),
            (slots.percept(), Ty::Enum(percept_enum)),
        );
        if allow.performed {
            vars.insert(
                "action".to_string(),
                (slots.action(), Ty::Enum(action_enum)),
            );
            vars.insert(
                "env_action".to_string(),
                (slots.env_action(), Ty::Enum(env_action_enum)),
            );
        }
        if include_env {
            for (i, v) in evars.iter().enumerate() {
                vars.insert(v.name.clone(), (slots.env_var(i), ty_of(v)));
            }
        }
        NisScope {
            consts: &consts,
            enums: &enums,
            vars,
            nets: &shapes,
            ext: &ext,
            allow,
            agent_actions: Some(action_enum),
            env_actions: Some(env_action_enum),
            percept_enum: Some(percept_enum),
        }
    };
    let env_scope = |allow: Allow| {
        let mut vars = HashMap::new();
        for (i, v) in evars.iter().enumerate() {
            vars.insert(v.name.clone(), (i, ty_of(v)));
        }
        if allow.performed {
            vars.insert(
                "env_action".to_string(),
                (eslots.action(), Ty::Enum(env_action_enum)),
            );
        }
        NisScope {
            consts: &consts,
            enums: &enums,
            vars,
            nets: &shapes,
            ext: &ext,
            allow,
            agent_actions: Some(action_enum),
            env_actions: Some(env_action_enum),
            percept_enum: Some(percept_enum),
        }
    };

    // Template initial state.
    let mut init = Vec::new();
    for (raw, v) in agent.vars.iter().zip(&tvars) {
        let RawInit::Point(e) = &raw.init else {
            return Err(err(
                raw.span,
                format!(
                    "template variable `{}` needs an initial value: `= EXPR`",
                    v.name
                ),
            ));
        };
        let value = eval_const(source, e, &consts_and_enums(&consts, &enums))?;
        init.push(fit(source, e.span, v, value)?);
    }

    // Observation.
    let Some(obs_raw) = &agent.observe else {
        return Err(err(
            agent_span,
            format!("agent `{agent_name}` declares no `observe`"),
        ));
    };
    let observe = check(
        source,
        obs_raw,
        &agent_scope(
            true,
            Allow {
                performed: false,
                networks: true,
            },
        ),
    )?;
    if observe.ty != Ty::Enum(percept_enum) {
        return Err(err(obs_raw.span, "`observe` must give a percept".into()));
    }
    check_observation(source, &observe, &ext.borrow(), true)?;

    // Protocol and update of the template.
    // A bare percept or action name in a Boolean position of a guard means
    // `percept = name` / `action = name` / `env_action = name`.
    let guard_sugar = |t: &Expr, scope: &NisScope, ctx: &[(usize, &str)]| -> LangResult<TExpr> {
        let sugared = sugar(t, &enums, ctx);
        let checked = check(source, &sugared, scope)?;
        if checked.ty != Ty::Bool {
            return Err(err(
                t.span,
                "a guard must be a condition, a percept or an action".into(),
            ));
        }
        Ok(checked)
    };
    let protocol_cases = |cases: &[RawProtocolCase],
                          scope: &NisScope,
                          sugar: &[(usize, &str)],
                          enum_id: usize,
                          names: &[String]|
     -> LangResult<Vec<ProtocolCase>> {
        let mut out = Vec::new();
        for c in cases {
            let g = guard_sugar(&c.guard, scope, sugar)?;
            let mut acts = Vec::new();
            for (a, aspan) in &c.actions {
                match enums.member(a) {
                    Some(Value::Enum(id, i)) if id == enum_id => acts.push(i),
                    _ => {
                        return Err(err(
                            *aspan,
                            format!("`{a}` is not one of the actions {{{}}}", names.join(", ")),
                        ))
                    }
                }
            }
            if acts.is_empty() {
                return Err(err(
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
    };
    let update_cases = |cases: &[RawUpdateCase],
                        scope: &NisScope,
                        sugar: &[(usize, &str)],
                        vars: &[VarDecl]|
     -> LangResult<Vec<UpdateCase>> {
        let mut out = Vec::new();
        for c in cases {
            let g = guard_sugar(&c.guard, scope, sugar)?;
            let mut assigns = Vec::new();
            for (name, nspan, e) in &c.assigns {
                let Some(slot) = vars.iter().position(|v| v.name == *name) else {
                    return Err(err(
                        *nspan,
                        format!("`{name}` is not a variable this block may assign"),
                    ));
                };
                if assigns.iter().any(|(s, _)| *s == slot) {
                    return Err(err(
                        *nspan,
                        format!("`{name}` is assigned twice in one case"),
                    ));
                }
                let t = check(source, e, scope)?;
                let want = vars[slot].ty.ty();
                let ok = t.ty == want || (want == Ty::Real && t.ty == Ty::Int);
                if !ok {
                    return Err(err(
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
    };
    let none = Allow::default();
    let upd = Allow {
        performed: true,
        networks: false,
    };
    let tscope_prot = agent_scope(false, none);
    let Some(tprot) = &agent.protocol else {
        return Err(err(
            agent_span,
            format!("agent `{agent_name}` declares no `protocol`"),
        ));
    };
    let percept_sugar = [(percept_enum, "percept")];
    let protocol = protocol_cases(tprot, &tscope_prot, &percept_sugar, action_enum, &actions)?;
    let tscope_upd = agent_scope(false, upd);
    let update_sugar = [
        (action_enum, "action"),
        (env_action_enum, "env_action"),
        (percept_enum, "percept"),
    ];
    let update = match &agent.update {
        Some(u) => update_cases(u, &tscope_upd, &update_sugar, &tvars)?,
        None => Vec::new(),
    };

    // Environment.
    let escope_prot = env_scope(none);
    let eprotocol = match &env_block.protocol {
        Some(cases) => protocol_cases(cases, &escope_prot, &[], env_action_enum, &env_actions)?,
        None => vec![ProtocolCase {
            guard: TExpr {
                kind: TKind::Const(Value::Bool(true)),
                ty: Ty::Bool,
                span: Span::default(),
            },
            actions: (0..env_actions.len()).collect(),
            span: Span::default(),
        }],
    };
    let escope_upd = env_scope(upd);
    let eupdate = match &env_block.update {
        Some(u) => update_cases(u, &escope_upd, &[(env_action_enum, "env_action")], &evars)?,
        None => Vec::new(),
    };
    let ce = consts_and_enums(&consts, &enums);
    let mut einit = Vec::new();
    for (raw, v) in env_block.vars.iter().zip(&evars) {
        let spec = match &raw.init {
            RawInit::None => {
                return Err(err(raw.span, format!("environment variable `{}` needs initial values: `= v`, `in {{a, b}}` or `in [lo..hi]`", v.name)))
            }
            RawInit::Point(e) => InitSpec::Point(fit(source, e.span, v, eval_const(source, e, &ce)?)?),
            RawInit::List(es) => {
                let mut vals = Vec::new();
                for e in es {
                    vals.push(fit(source, e.span, v, eval_const(source, e, &ce)?)?);
                }
                InitSpec::List(vals)
            }
            RawInit::Range(lo, hi) => {
                let l = fit(source, lo.span, v, eval_const(source, lo, &ce)?)?;
                let h = fit(source, hi.span, v, eval_const(source, hi, &ce)?)?;
                match (l, h) {
                    (Value::Num(l), Value::Num(h)) if l <= h => InitSpec::Range(l, h),
                    _ => return Err(err(lo.span.to(hi.span), "an initial range needs numbers lo <= hi".into())),
                }
            }
        };
        einit.push(spec);
    }
    let init_filter = match &env_block.init_filter {
        Some(e) => Some(crate::lang::check_as(
            source,
            e,
            &env_scope(none),
            Ty::Bool,
        )?),
        None => None,
    };

    // Labels over the template's local state.
    let mut labels: Vec<Label> = Vec::new();
    let lscope = agent_scope(false, none);
    for (name, span, e) in &raw.labels {
        if labels.iter().any(|l| l.name == *name) {
            return Err(err(*span, format!("label `{name}` is declared twice")));
        }
        let t = crate::lang::check_as(source, e, &lscope, Ty::Bool)?;
        labels.push(Label {
            name: name.clone(),
            expr: t,
            span: *span,
        });
    }

    let ext = ext.into_inner();
    let constants = consts
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    Ok(Model {
        source: source.clone(),
        constants,
        networks,
        template: Template {
            name: agent_name,
            vars: tvars,
            init,
            percept_enum,
            percepts,
            init_percept,
            action_enum,
            actions,
            observe,
            protocol,
            update,
            slots,
        },
        env: Environment {
            vars: evars,
            init: einit,
            init_filter,
            action_enum: env_action_enum,
            actions: env_actions,
            protocol: eprotocol,
            update: eupdate,
            slots: eslots,
        },
        labels,
        ext,
    })
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

/// Constants plus enumeration members, for initial values.
fn consts_and_enums<'a>(
    consts: &'a crate::lang::Constants,
    enums: &'a EnumTable,
) -> ConstEnumScope<'a> {
    ConstEnumScope { consts, enums }
}

struct ConstEnumScope<'a> {
    consts: &'a crate::lang::Constants,
    enums: &'a EnumTable,
}

impl crate::lang::Scope for ConstEnumScope<'_> {
    fn lookup(&self, name: &str) -> Option<crate::lang::Symbol> {
        self.consts
            .get(name)
            .cloned()
            .or_else(|| self.enums.member(name))
            .map(crate::lang::Symbol::Const)
    }
}

/// Checks a value against a variable's declared type (integers widen to reals).
fn fit(source: &Source, span: Span, v: &VarDecl, value: Value) -> LangResult<Value> {
    if v.ty.contains(&value) {
        return Ok(value);
    }
    Err(error_at(
        source,
        span,
        format!(
            "the value {value} is outside the type {} of `{}`",
            v.ty.describe(),
            v.name
        ),
    ))
}

/// `argmax` only at percept positions (the root or `if` branches), network
/// vectors only inside `argmax`, and no network in a condition.
fn check_observation(
    source: &Source,
    e: &TExpr,
    ext: &[ExtFn],
    percept_position: bool,
) -> LangResult<()> {
    match &e.kind {
        TKind::If(c, a, b) if percept_position => {
            check_observation(source, c, ext, false)?;
            check_observation(source, a, ext, true)?;
            check_observation(source, b, ext, true)
        }
        TKind::Ext(id, args) => match &ext[*id] {
            ExtFn::Argmax { .. } => {
                if !percept_position {
                    return Err(error_at(source, e.span, "`argmax` gives a percept; use it as the value of `observe` or of an `if` branch"));
                }
                match &args[0].kind {
                    TKind::Ext(_, inputs) => inputs.iter().try_for_each(|i| check_observation(source, i, ext, false)),
                    _ => Ok(()),
                }
            }
            ExtFn::NetVector { .. } => Err(error_at(
                source,
                e.span,
                "a network call gives a vector: use it inside `argmax(...)`, or declare `outputs (..)` names to compare single outputs",
            )),
            _ => args.iter().try_for_each(|a| check_observation(source, a, ext, false)),
        },
        TKind::Const(_) | TKind::Var(_) => Ok(()),
        TKind::Unary(_, a) => check_observation(source, a, ext, false),
        TKind::Binary(_, a, b) => {
            check_observation(source, a, ext, false)?;
            check_observation(source, b, ext, false)
        }
        TKind::If(c, a, b) => {
            check_observation(source, c, ext, false)?;
            check_observation(source, a, ext, false)?;
            check_observation(source, b, ext, false)
        }
        TKind::Builtin(_, args) => args.iter().try_for_each(|a| check_observation(source, a, ext, false)),
    }
}
