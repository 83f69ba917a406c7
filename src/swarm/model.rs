//! The typed swarm model: templates (Definition 4), the environment, action
//! types, the fault profile (Definition 12) and labels, with every name
//! resolved and every constant probability sum checked exactly.

use super::syntax::{
    ActionType, Alt, Assign, AssignKind, FaultBlock, ModuleSyntax, SwarmSyntax, VarSyntax,
};
use crate::lang::{
    check, check_as, error_at, eval_const, resolve_type, Constants, DeclType, EnumTable,
    LangResult, Rat, Scope, Source, Span, Symbol, TExpr, TKind, Ty, Value,
};
use num_traits::{One, Zero};
use std::collections::HashMap;

/// A bounded integer or Boolean variable (Booleans are 0/1).
#[derive(Clone, Debug)]
pub struct VarInfo {
    pub name: String,
    pub lo: i64,
    pub hi: i64,
    pub init: i64,
    pub is_bool: bool,
}

#[derive(Clone, Debug)]
pub enum UpdateKind {
    Set(TExpr),
    Invert,
    Up,
    Down,
}

#[derive(Clone, Debug)]
pub struct Update {
    pub slot: usize,
    pub kind: UpdateKind,
}

/// One probabilistic branch `p : updates`.
#[derive(Clone, Debug)]
pub struct Branch {
    pub prob: TExpr,
    pub updates: Vec<Update>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Command {
    pub action: usize,
    pub guard: TExpr,
    pub branches: Vec<Branch>,
    pub span: Span,
}

/// A line of the fault profile: when the acting agent performs `action`
/// (`None`: any) in a state satisfying `guard`, the branch distribution is
/// multiplied into the action's distribution (Definition 12).
#[derive(Clone, Debug)]
pub struct FaultRule {
    pub action: Option<usize>,
    pub guard: TExpr,
    pub branches: Vec<Branch>,
    pub span: Span,
}

/// An agent template or the environment. `vars` ends with the hidden
/// variables the construction adds (`faulty`, `injected`, `mode`).
#[derive(Clone, Debug)]
pub struct Template {
    pub name: String,
    pub vars: Vec<VarInfo>,
    /// Number of user-declared variables (a prefix of `vars`).
    pub user_vars: usize,
    /// Definition 13's `faulty`/`injected` exist but nothing reads them: they
    /// stay false in every local state (projected away) and are not shown.
    pub flags_projected: bool,
    pub commands: Vec<Command>,
    pub faults: Vec<FaultRule>,
}

#[derive(Clone, Debug)]
pub struct Action {
    pub name: String,
    pub ty: ActionType,
}

/// A swarm model ready for the semantics. Action 0 is the unnamed `[]` action.
#[derive(Clone, Debug)]
pub struct Model {
    pub source: Source,
    pub actions: Vec<Action>,
    pub templates: Vec<Template>,
    pub env: Template,
    pub labels: Vec<(String, TExpr)>,
    /// The variables the labels read; label slots index this list.
    pub label_refs: Vec<GlobalVar>,
    pub consts: Constants,
    /// Whether a fault profile was given (Definition 13's extra Booleans exist).
    pub faulty: bool,
    /// Whether the local states track `faulty`/`injected` (Definition 13).
    /// Off when no label or property reads them: the flags would only split
    /// local states that behave alike (27 instead of 14 on the foraging robot).
    pub track_flags: bool,
    /// Definition 15's faultiness probability, if the construction is on.
    pub faulty_fraction: Option<Rat>,
}

/// A state variable seen from labels and properties: variable `var` of agent
/// `agent` (0-based) of template `template`, or of the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlobalVar {
    Agent {
        template: usize,
        agent: usize,
        var: usize,
    },
    Env {
        var: usize,
    },
    /// Definition 15's `starting`: the environment is in its state after `g`.
    Starting,
}

/// Slots at or above this index are labels.
pub const LABEL_BASE: usize = 1 << 24;

/// Names of labels and properties: `v_i_j`, `v_E`, labels, atoms, constants.
pub struct GlobalScope<'a> {
    pub model: &'a Model,
    pub refs: std::cell::RefCell<Vec<GlobalVar>>,
}

impl GlobalScope<'_> {
    fn slot(&self, g: GlobalVar) -> usize {
        let mut refs = self.refs.borrow_mut();
        match refs.iter().position(|r| *r == g) {
            Some(i) => i,
            None => {
                refs.push(g);
                refs.len() - 1
            }
        }
    }

    fn var_ty(v: &VarInfo) -> Ty {
        if v.is_bool {
            Ty::Bool
        } else {
            Ty::Int
        }
    }
}

/// The encoded name of a label inside a property (`"l"` becomes `_l_`, same length).
pub fn label_ident(name: &str) -> String {
    format!("_{name}_")
}

impl Scope for GlobalScope<'_> {
    fn lookup(&self, name: &str) -> Option<Symbol> {
        let m = self.model;
        if let Some(v) = m.consts.get(name) {
            return Some(Symbol::Const(v.clone()));
        }
        if let Some(i) = m.labels.iter().position(|(l, _)| label_ident(l) == name) {
            return Some(Symbol::Var {
                slot: LABEL_BASE + i,
                ty: Ty::Bool,
            });
        }
        let atom = |n: &str| format!("{n}_1_1");
        match name {
            "faulty" | "injected" if m.faulty => return self.lookup(&atom(name)),
            "starting" if m.faulty_fraction.is_some() => {
                return Some(Symbol::Var {
                    slot: self.slot(GlobalVar::Starting),
                    ty: Ty::Bool,
                })
            }
            _ => {}
        }
        if let Some(base) = name.strip_suffix("_E") {
            let var = m.env.vars.iter().position(|v| v.name == base)?;
            let ty = Self::var_ty(&m.env.vars[var]);
            return Some(Symbol::Var {
                slot: self.slot(GlobalVar::Env { var }),
                ty,
            });
        }
        let mut parts = name.rsplitn(3, '_');
        let agent: usize = parts.next()?.parse().ok()?;
        let template: usize = parts.next()?.parse().ok()?;
        let base = parts.next()?;
        if agent == 0 || template == 0 || template > m.templates.len() {
            return None;
        }
        let t = &m.templates[template - 1];
        let var = t.vars.iter().position(|v| v.name == base)?;
        let ty = Self::var_ty(&t.vars[var]);
        let g = GlobalVar::Agent {
            template: template - 1,
            agent: agent - 1,
            var,
        };
        Some(Symbol::Var {
            slot: self.slot(g),
            ty,
        })
    }
}

/// Names inside one module: its own variables, then constants.
struct LocalScope<'a> {
    vars: &'a [VarInfo],
    consts: &'a Constants,
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

/// Options of the faulty constructions.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub faulty_fraction: Option<Rat>,
    /// Track Definition 13's flags even when no label or property reads them.
    pub keep_fault_flags: bool,
}

fn int_of(source: &Source, span: Span, v: &Value) -> LangResult<i64> {
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

/// Resolves a swarm file (and optional faults file) into a [`Model`].
pub fn build_model(
    source: &Source,
    syntax: &SwarmSyntax,
    faults: Option<(&Source, &[FaultBlock])>,
    consts: Constants,
    opts: &BuildOptions,
) -> LangResult<Model> {
    let (mut actions, by_name) = build_actions(source, syntax)?;
    if syntax.agents.is_empty() {
        return Err(error_at(
            source,
            Span::default(),
            "the swarm file declares no `agent module`",
        ));
    }
    let env_syntax = syntax.env.as_ref().ok_or_else(|| {
        error_at(
            source,
            Span::default(),
            "the swarm file declares no `environment module`",
        )
    })?;
    let has_faults = faults.is_some();
    let mut templates = Vec::new();
    for m in &syntax.agents {
        templates.push(build_module(source, m, &by_name, &consts, false)?);
    }
    let mut env = build_module(source, env_syntax, &by_name, &consts, true)?;
    if let Some((fsource, blocks)) = faults {
        add_faults(fsource, blocks, &mut templates, &by_name, &consts)?;
    }
    let hidden_bool = |name: &str| VarInfo {
        name: name.into(),
        lo: 0,
        hi: 1,
        init: 0,
        is_bool: true,
    };
    for t in &mut templates {
        if has_faults {
            t.vars.push(hidden_bool("faulty"));
            t.vars.push(hidden_bool("injected"));
        }
        if opts.faulty_fraction.is_some() {
            t.vars.push(VarInfo {
                name: "mode".into(),
                lo: 0,
                hi: 6,
                init: 0,
                is_bool: false,
            });
        }
    }
    if let Some(p) = &opts.faulty_fraction {
        add_faulty_fraction(source, p, &mut env, &mut actions)?;
    }
    let mut model = Model {
        source: source.clone(),
        actions,
        templates,
        env,
        labels: Vec::new(),
        label_refs: Vec::new(),
        consts,
        faulty: has_faults,
        track_flags: has_faults,
        faulty_fraction: opts.faulty_fraction.clone(),
    };
    add_labels(source, syntax, &mut model)?;
    let track = opts.keep_fault_flags || model.reads_fault_flags(&model.label_refs);
    model.set_flag_tracking(has_faults && track);
    Ok(model)
}

/// The actions (index 0: the empty action) and their indices by name.
fn build_actions(
    source: &Source,
    syntax: &SwarmSyntax,
) -> LangResult<(Vec<Action>, HashMap<String, usize>)> {
    let mut actions = vec![Action {
        name: String::new(),
        ty: ActionType::Asynchronous,
    }];
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (name, span, ty) in &syntax.actions {
        if let Some(&i) = by_name.get(name) {
            let msg = if actions[i].ty == *ty {
                format!("action `{name}` is declared twice")
            } else {
                format!(
                    "action `{name}` is declared with two types: {} and {}",
                    actions[i].ty.keyword(),
                    ty.keyword()
                )
            };
            return Err(error_at(source, *span, msg));
        }
        by_name.insert(name.clone(), actions.len());
        actions.push(Action {
            name: name.clone(),
            ty: *ty,
        });
    }
    Ok((actions, by_name))
}

/// The fault rules of the faults file's blocks, one block per template in order.
fn add_faults(
    fsource: &Source,
    blocks: &[FaultBlock],
    templates: &mut [Template],
    by_name: &HashMap<String, usize>,
    consts: &Constants,
) -> LangResult<()> {
    if blocks.len() > templates.len() {
        return Err(error_at(
            fsource,
            blocks[templates.len()].span,
            format!(
                "the faults file has {} `agent` blocks but the swarm has {} templates",
                blocks.len(),
                templates.len()
            ),
        ));
    }
    for (i, b) in blocks.iter().enumerate() {
        if let Some((name, span)) = &b.template {
            if *name != templates[i].name {
                return Err(error_at(
                    fsource,
                    *span,
                    format!(
                        "block {} is for template `{}`, found `{name}`",
                        i + 1,
                        templates[i].name
                    ),
                ));
            }
        }
        let t = &mut templates[i];
        for line in &b.lines {
            let scope = LocalScope {
                vars: &t.vars,
                consts,
            };
            let action =
                match &line.action {
                    None => None,
                    Some((name, span)) => Some(*by_name.get(name).ok_or_else(|| {
                        error_at(fsource, *span, format!("unknown action `{name}`"))
                    })?),
                };
            let guard = check_as(fsource, &line.guard, &scope, Ty::Bool)?;
            let branches = build_branches(fsource, &line.alts, &t.vars, consts, line.span)?;
            t.faults.push(FaultRule {
                action,
                guard,
                branches,
                span: line.span,
            });
        }
    }
    Ok(())
}

/// The environment's `mode` and the actions of `--faulty-fraction p`.
fn add_faulty_fraction(
    source: &Source,
    p: &Rat,
    env: &mut Template,
    actions: &mut Vec<Action>,
) -> LangResult<()> {
    if p < &Rat::zero() || p > &Rat::one() {
        return Err(error_at(
            source,
            Span::default(),
            "the faulty fraction must lie in [0, 1]",
        ));
    }
    env.vars.push(VarInfo {
        name: "mode".into(),
        lo: 0,
        hi: 2,
        init: 0,
        is_bool: false,
    });
    for (name, ty) in [
        ("ff_init", ActionType::Asynchronous),
        ("ff_g", ActionType::GlobalSynchronous),
        ("ff_g2", ActionType::GlobalSynchronous),
    ] {
        actions.push(Action {
            name: name.into(),
            ty,
        });
    }
    Ok(())
}

/// The labels, checked over the model, and the variables they read.
fn add_labels(source: &Source, syntax: &SwarmSyntax, model: &mut Model) -> LangResult<()> {
    let mut labels: Vec<(String, TExpr)> = Vec::new();
    let scope = GlobalScope {
        model: &*model,
        refs: Default::default(),
    };
    for (name, span, e) in &syntax.labels {
        if labels.iter().any(|(l, _)| l == name) {
            return Err(error_at(
                source,
                *span,
                format!("label `{name}` is declared twice"),
            ));
        }
        labels.push((name.clone(), check_as(source, e, &scope, Ty::Bool)?));
    }
    let refs = scope.refs.into_inner();
    model.labels = labels;
    model.label_refs = refs;
    Ok(())
}

impl Template {
    /// Whether variable `var` is one of Definition 13's flags projected away.
    pub fn is_projected(&self, var: usize) -> bool {
        self.flags_projected
            && var >= self.user_vars
            && matches!(self.vars[var].name.as_str(), "faulty" | "injected")
    }
}

impl Model {
    /// Whether any of `refs` reads an agent's `faulty` or `injected` flag.
    pub fn reads_fault_flags(&self, refs: &[GlobalVar]) -> bool {
        refs.iter().any(|r| match *r {
            GlobalVar::Agent { template, var, .. } => {
                let t = &self.templates[template];
                var >= t.user_vars && matches!(t.vars[var].name.as_str(), "faulty" | "injected")
            }
            _ => false,
        })
    }

    /// Turns the tracking of Definition 13's flags on or off (the local
    /// tables must be rebuilt after a change).
    pub fn set_flag_tracking(&mut self, on: bool) {
        self.track_flags = self.faulty && on;
        let projected = self.faulty && !on;
        for t in &mut self.templates {
            t.flags_projected = projected;
        }
    }
}

fn build_module(
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
fn build_var(
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

fn is_constant(t: &TExpr) -> bool {
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
fn build_branches(
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
fn build_updates(
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
