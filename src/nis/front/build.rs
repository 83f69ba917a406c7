//! From the declarations as written to the checked [`Model`]: resolves types,
//! enumerations and names, loads the networks, checks every expression's type
//! and where the engine functions may appear.

use super::model::*;
use super::rules::{Kinds, Names};
use super::scope::NetShape;
use super::syntax::{RawBlock, RawInit, RawModel, RawNamed, RawNet};
use crate::lang::{
    error_at, eval_const, resolve_type, Constants, DeclType, EnumTable, Expr, LangResult, Source,
    SourceError, Span, Value,
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

/// Checks a parsed model: networks, enumerations, variables, then every
/// expression of the template, the named agents, the environment and the
/// labels.
pub fn build(source: &Source, raw: RawModel, nets: &NetworkSource) -> LangResult<Model> {
    let mut enums = EnumTable::default();
    let consts = raw.constants;
    if raw.agent.is_none() && raw.named.is_empty() {
        return Err(error_at(
            source,
            Span::new(0, 0),
            "the model declares no `agent` template and no `named agent`",
        ));
    }
    undeclared_overrides(&raw.nets, &nets.overrides)?;
    let (networks, shapes) = load_networks(source, &raw.nets, nets)?;
    let env_block = raw.env.as_ref().map(|(_, b)| b.clone()).unwrap_or_default();
    let env_kinds = env_enumeration(source, &env_block, &mut enums)?;
    let evars = variables(source, &env_block, &consts, &mut enums)?;
    if let Some(v) = evars
        .iter()
        .find(|v| v.ty.ty() == crate::lang::Ty::Enum(env_kinds.0))
    {
        return Err(error_at(
            source,
            v.span,
            "a variable of the environment cannot have the environment's actions as its values",
        ));
    }
    check_variables(source, &[], &evars, &consts, &enums)?;
    let ext = RefCell::new(Vec::new());
    let parts = Parts {
        source,
        consts: &consts,
        shapes: &shapes,
        evars: &evars,
        ext: &ext,
        env_kinds: &env_kinds,
    };
    let (template, tkinds) = match &raw.agent {
        Some((name, span, block)) => parts.agent((name, *span), block, None, &mut enums)?,
        None => inert_template(source, &evars, &env_kinds, &mut enums)?,
    };
    let named = parts.named_agents(&raw.named, template.action_enum, &mut enums)?;
    let names = Names {
        source,
        consts: &consts,
        enums: &enums,
        kinds: &tkinds,
        tvars: &template.vars,
        evars: &evars,
        shapes: &shapes,
        ext: &ext,
        named: &named,
        performed_enum: template.action_enum,
    };
    let env = environment(&names, &env_block)?;
    let labels = names.labels(&raw.labels, raw.agent.is_some())?;
    let constants = consts
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    Ok(Model {
        source: source.clone(),
        constants,
        networks,
        template,
        parameterised: raw.agent.is_some(),
        named,
        env,
        labels,
        ext: ext.into_inner(),
    })
}

/// What every agent block is checked against: the declarations outside it.
#[derive(Clone, Copy)]
struct Parts<'a> {
    source: &'a Source,
    consts: &'a Constants,
    shapes: &'a [NetShape],
    evars: &'a [VarDecl],
    ext: &'a RefCell<Vec<ExtFn>>,
    env_kinds: &'a (usize, Vec<String>),
}

impl Parts<'_> {
    /// One agent block (the parameterised template or a named agent's) as a
    /// template, with its enumerations.
    /// `performed`: the enumeration `performed(a)` names in the block (the
    /// template's actions; `None` for the template itself, its own).
    fn agent(
        &self,
        (name, span): (&str, Span),
        block: &RawBlock,
        performed: Option<usize>,
        enums: &mut EnumTable,
    ) -> LangResult<(Template, Kinds)> {
        let source = self.source;
        let missing =
            |what: &str| error_at(source, span, format!("agent `{name}` declares no `{what}`"));
        let kinds = enumerations(source, block, self.env_kinds, self.consts, enums, &missing)?;
        let tvars = variables(source, block, self.consts, enums)?;
        check_variables(source, &tvars, self.evars, self.consts, enums)?;
        let names = Names {
            source,
            consts: self.consts,
            enums,
            kinds: &kinds,
            tvars: &tvars,
            evars: self.evars,
            shapes: self.shapes,
            ext: self.ext,
            named: &[],
            performed_enum: performed.unwrap_or(kinds.action_enum),
        };
        let t = template(&names, name.to_string(), block, &missing)?;
        Ok((t, kinds))
    }

    /// `named agent a, b { .. }`: one template per declaration, one named
    /// agent per name; names unique and distinct from every other name.
    fn named_agents(
        &self,
        raw: &[RawNamed],
        performed: usize,
        enums: &mut EnumTable,
    ) -> LangResult<Vec<NamedAgent>> {
        let mut out: Vec<NamedAgent> = Vec::new();
        for group in raw {
            let (first, first_span) = &group.names[0];
            let at = (first.as_str(), *first_span);
            let shared = group.params.iter().all(Vec::is_empty);
            let mut template = None;
            if shared {
                template = Some(self.agent(at, &group.block, Some(performed), enums)?.0);
            }
            for ((name, span), params) in group.names.iter().zip(&group.params) {
                let template = match &template {
                    Some(t) => t.clone(),
                    None => self.agent_with(group, (name, *span), params, performed, enums)?,
                };
                let taken = out.iter().any(|a| a.name == *name)
                    || self.evars.iter().any(|v| v.name == *name)
                    || self.consts.get(name).is_some()
                    || enums.member(name).is_some();
                if taken {
                    return Err(error_at(
                        self.source,
                        *span,
                        format!("the name `{name}` is already declared"),
                    ));
                }
                out.push(NamedAgent {
                    name: name.clone(),
                    span: *span,
                    template: Template {
                        name: name.clone(),
                        ..template
                    },
                });
            }
        }
        Ok(out)
    }

    /// A named agent's template under its own parameters (`ownship(side =
    /// 1)`): the block checked with them as constants. Every name of the
    /// declaration gives the same parameters (its enumerations repeat, so
    /// they are one type across the names).
    fn agent_with(
        &self,
        group: &RawNamed,
        (name, span): (&str, Span),
        params: &[(String, Span, Expr)],
        performed: usize,
        enums: &mut EnumTable,
    ) -> LangResult<Template> {
        let wanted: Vec<&str> = group.params[0].iter().map(|(n, ..)| n.as_str()).collect();
        let given: Vec<&str> = params.iter().map(|(n, ..)| n.as_str()).collect();
        if wanted != given {
            return Err(error_at(
                self.source,
                span,
                format!(
                    "`{name}` must give the same parameters as `{}`, in the same order: ({})",
                    group.names[0].0,
                    wanted.join(", ")
                ),
            ));
        }
        let mut consts = self.consts.clone();
        for (p, pspan, e) in params {
            let v = eval_const(self.source, e, self.consts)?;
            consts.define_local(self.source, p, *pspan, v)?;
        }
        let parts = Parts {
            consts: &consts,
            ..*self
        };
        Ok(parts
            .agent((name, span), &group.block, Some(performed), enums)?
            .0)
    }
}

/// The template of a model without a parameterised `agent`: one percept, one
/// action, no variables. Such a model is checked with no copies of it
/// (n = 0), so it never acts; it only keeps every decider's layout.
fn inert_template(
    source: &Source,
    evars: &[VarDecl],
    env_kinds: &(usize, Vec<String>),
    enums: &mut EnumTable,
) -> LangResult<(Template, Kinds)> {
    // Names no identifier can spell, so they clash with nothing.
    let percept_enum = enums.add(source, None, &[("-percept".into(), Span::default())])?;
    let action_enum = enums.add(source, None, &[("-action".into(), Span::default())])?;
    let kinds = Kinds {
        percept_enum,
        percepts: vec!["-".into()],
        init_percept: InitPercept::Given(0),
        action_enum,
        actions: vec!["-".into()],
        env_action_enum: env_kinds.0,
        env_actions: env_kinds.1.clone(),
    };
    let constant = |v: Value, ty: crate::lang::Ty| crate::lang::TExpr {
        kind: crate::lang::TKind::Const(v),
        ty,
        span: Span::default(),
    };
    let template = Template {
        name: "-".into(),
        vars: Vec::new(),
        init: Vec::new(),
        percept_enum,
        percepts: kinds.percepts.clone(),
        init_percept: kinds.init_percept,
        action_enum,
        actions: kinds.actions.clone(),
        observe: Observation::Expr(constant(
            Value::Enum(percept_enum, 0),
            crate::lang::Ty::Enum(percept_enum),
        )),
        protocol: vec![ProtocolCase {
            guard: constant(Value::Bool(true), crate::lang::Ty::Bool),
            actions: vec![0],
            span: Span::default(),
        }],
        update: Vec::new(),
        slots: AgentSlots {
            private: 0,
            env_vars: evars.len(),
        },
    };
    Ok((template, kinds))
}

/// The agent template (Definition 1): its initial state, observation,
/// protocol and update, checked in that order.
fn template(
    names: &Names,
    name: String,
    agent: &RawBlock,
    missing: &dyn Fn(&str) -> Box<SourceError>,
) -> LangResult<Template> {
    let init = template_init(names, agent)?;
    let observe = names.observation(agent.observe.as_ref().ok_or_else(|| missing("observe"))?)?;
    let protocol =
        names.template_protocol(agent.protocol.as_ref().ok_or_else(|| missing("protocol"))?)?;
    let update = match &agent.update {
        Some(u) => names.template_update(u)?,
        None => Vec::new(),
    };
    let kinds = names.kinds;
    Ok(Template {
        name,
        vars: names.tvars.to_vec(),
        init,
        percept_enum: kinds.percept_enum,
        percepts: kinds.percepts.clone(),
        init_percept: kinds.init_percept,
        action_enum: kinds.action_enum,
        actions: kinds.actions.clone(),
        observe,
        protocol,
        update,
        slots: AgentSlots {
            private: names.tvars.len(),
            env_vars: names.evars.len(),
        },
    })
}

/// The environment (Definition 2): its protocol, update, initial values
/// and initial condition, checked in that order.
fn environment(names: &Names, env_block: &RawBlock) -> LangResult<Environment> {
    let protocol = names.env_protocol(env_block.protocol.as_deref())?;
    let update = match &env_block.update {
        Some(u) => names.env_update(u)?,
        None => Vec::new(),
    };
    let init = env_init(names, env_block)?;
    let init_filter = match &env_block.init_filter {
        Some(e) => Some(names.env_condition(e)?),
        None => None,
    };
    Ok(Environment {
        vars: names.evars.to_vec(),
        init,
        init_filter,
        action_enum: names.kinds.env_action_enum,
        actions: names.kinds.env_actions.clone(),
        protocol,
        update,
        slots: EnvSlots {
            vars: names.evars.len(),
            named: names.named.iter().map(|a| a.template.vars.len()).collect(),
        },
    })
}

/// Loads the declared networks (in-memory ones win over files, `--network`
/// overrides over the model's paths) and their shapes for the checker.
/// A `--network NAME=PATH` whose NAME the model does not declare: refused
/// before any network file is read (the model's or the given one), located
/// on the command line at NAME. Of several, the first by name.
fn undeclared_overrides(raw: &[RawNet], overrides: &HashMap<String, PathBuf>) -> LangResult<()> {
    let mut names: Vec<&String> = overrides.keys().collect();
    names.sort();
    let Some(name) = names
        .into_iter()
        .find(|k| !raw.iter().any(|n| &n.name == *k))
    else {
        return Ok(());
    };
    let given = format!("--network {name}={}", overrides[name].display());
    let at = "--network ".len();
    let declared: Vec<String> = raw.iter().map(|n| format!("`{}`", n.name)).collect();
    let declares = if declared.is_empty() {
        "no network at all".to_string()
    } else {
        declared.join(", ")
    };
    let cli = Source::new("<command line>", given.clone());
    Err(error_at(
        &cli,
        Span::new(at, at + name.len()),
        format!("the model declares no network `{name}` (it declares {declares})"),
    ))
}

fn load_networks(
    source: &Source,
    raw: &[RawNet],
    nets: &NetworkSource,
) -> LangResult<(Vec<NetDecl>, Vec<NetShape>)> {
    let err = |span: Span, msg: String| error_at(source, span, msg);
    let mut networks = Vec::new();
    let mut shapes = Vec::new();
    for rn in raw {
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
    Ok((networks, shapes))
}

/// An agent block's percepts and actions as enumerations (next to the
/// environment's actions, declared once by [`env_enumeration`]).
fn enumerations(
    source: &Source,
    agent: &RawBlock,
    env_kinds: &(usize, Vec<String>),
    consts: &Constants,
    enums: &mut EnumTable,
    missing: &dyn Fn(&str) -> Box<SourceError>,
) -> LangResult<Kinds> {
    let err = |span: Span, msg: String| error_at(source, span, msg);
    let Some((pty, pty_span, pinit, pinit_span)) = agent.percept.clone() else {
        return Err(missing("percept"));
    };
    let percept_ty = resolve_type(source, &pty, pty_span, consts, enums)?;
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
    let init_percept = match percepts.iter().position(|p| *p == pinit) {
        Some(p) => InitPercept::Given(p),
        None if pinit == "observe" => InitPercept::Observed,
        None => {
            return Err(err(
                pinit_span,
                format!("`{pinit}` is not a percept (write a percept, or `observe` for the observation at the initial state)"),
            ))
        }
    };
    let Some((acts, acts_span)) = agent.actions.clone() else {
        return Err(missing("actions"));
    };
    if acts.is_empty() {
        return Err(err(acts_span, "the set of actions is empty".into()));
    }
    let action_enum = enums.add(source, None, &acts)?;
    // A list repeated is one type (two agents with the same percepts); an
    // agent's percepts, its actions and the environment's actions must
    // still be told apart, since a bare name in a guard means one of them.
    if action_enum == percept_enum || action_enum == env_kinds.0 {
        return Err(err(
            acts_span,
            "an agent's actions need names of their own (not its percepts', not the environment's actions')".into(),
        ));
    }
    if percept_enum == env_kinds.0 {
        return Err(err(
            pty_span,
            "an agent's percepts need names of their own (not the environment's actions')".into(),
        ));
    }
    Ok(Kinds {
        percept_enum,
        percepts,
        init_percept,
        action_enum,
        actions: acts.iter().map(|(n, _)| n.clone()).collect(),
        env_action_enum: env_kinds.0,
        env_actions: env_kinds.1.clone(),
    })
}

/// The environment's actions as an enumeration (`env_idle` when it declares
/// none): its id and names.
fn env_enumeration(
    source: &Source,
    env_block: &RawBlock,
    enums: &mut EnumTable,
) -> LangResult<(usize, Vec<String>)> {
    let env_acts = match &env_block.actions {
        Some((list, span)) if list.is_empty() => {
            return Err(error_at(source, *span, "the set of actions is empty"))
        }
        Some((list, _)) => list.clone(),
        None => vec![("env_idle".to_string(), Span::default())],
    };
    let id = enums.add(source, None, &env_acts)?;
    Ok((id, env_acts.into_iter().map(|(n, _)| n).collect()))
}

/// The declared variables of a block with their resolved types.
fn variables(
    source: &Source,
    block: &RawBlock,
    consts: &Constants,
    enums: &mut EnumTable,
) -> LangResult<Vec<VarDecl>> {
    let mut out: Vec<VarDecl> = Vec::new();
    for v in &block.vars {
        let ty = resolve_type(source, &v.ty, v.ty_span, consts, enums)?;
        out.push(VarDecl {
            name: v.name.clone(),
            ty,
            span: v.span,
        });
    }
    Ok(out)
}

/// Numbers need bounds (the MILP encoding needs them); names are unique and
/// not reserved.
fn check_variables(
    source: &Source,
    tvars: &[VarDecl],
    evars: &[VarDecl],
    consts: &Constants,
    enums: &EnumTable,
) -> LangResult<()> {
    let err = |span: Span, msg: String| error_at(source, span, msg);
    for v in tvars.iter().chain(evars) {
        if let DeclType::Real { lo, hi } | DeclType::Int { lo, hi } = &v.ty {
            if lo.is_none() || hi.is_none() {
                return Err(err(
                    v.span,
                    format!("`{}` needs bounds, as in `real[0..4]` or `[0..4]`: the MILP encoding needs finite bounds", v.name),
                ));
            }
            if let Some(b) = [lo, hi]
                .into_iter()
                .flatten()
                .find(|b| !within_milp_range(b))
            {
                return Err(err(
                    v.span,
                    format!(
                        "`{}` has the bound {}, beyond the {MAX_BOUND_TEXT} the MILP encoding allows in magnitude",
                        v.name,
                        crate::lang::num::display(b)
                    ),
                ));
            }
        }
    }
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for v in tvars.iter().chain(evars) {
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
    Ok(())
}

/// The template's initial private state (iota_t).
fn template_init(names: &Names, agent: &RawBlock) -> LangResult<Vec<Value>> {
    let source = names.source;
    let mut init = Vec::new();
    for (raw, v) in agent.vars.iter().zip(names.tvars) {
        let RawInit::Point(e) = &raw.init else {
            return Err(error_at(
                source,
                raw.span,
                format!(
                    "template variable `{}` needs an initial value: `= EXPR`",
                    v.name
                ),
            ));
        };
        let value = eval_const(source, e, &consts_and_enums(names.consts, names.enums))?;
        init.push(fit(source, e.span, v, value)?);
    }
    Ok(init)
}

/// The environment's initial values (I_e): a point, a list or a range per variable.
fn env_init(names: &Names, env_block: &RawBlock) -> LangResult<Vec<InitSpec>> {
    let source = names.source;
    let err = |span: Span, msg: String| error_at(source, span, msg);
    let ce = consts_and_enums(names.consts, names.enums);
    let mut einit = Vec::new();
    for (raw, v) in env_block.vars.iter().zip(names.evars) {
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
    Ok(einit)
}

/// Constants plus enumeration members, for initial values.
pub(super) fn consts_and_enums<'a>(
    consts: &'a crate::lang::Constants,
    enums: &'a EnumTable,
) -> ConstEnumScope<'a> {
    ConstEnumScope { consts, enums }
}

pub(super) struct ConstEnumScope<'a> {
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
pub(super) fn fit(source: &Source, span: Span, v: &VarDecl, value: Value) -> LangResult<Value> {
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

/// Declared variable bounds are refused beyond 10^9 in magnitude. HiGHS
/// refuses matrix entries of 10^15 and more (its `large_matrix_value`; it
/// then fails "while building model") and reads 10^20 as infinite, and the
/// encoding's big-M constants are bound differences times coefficients; f64
/// keeps about 16 digits, so values up to 10^9 keep the 10^-6 resolution the
/// replay compares at, and the big-M rows stay far below 10^15.
const MAX_BOUND: i64 = 1_000_000_000;
const MAX_BOUND_TEXT: &str = "10^9";

fn within_milp_range(b: &crate::lang::Rat) -> bool {
    let limit = crate::lang::Rat::from_integer(MAX_BOUND.into());
    *b <= limit && *b >= -limit
}
