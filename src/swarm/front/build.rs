//! Building the typed swarm model ([`super::model::Model`]) from its syntax:
//! actions, the environment and templates, the fault profile (Definition 12),
//! the faulty fraction and labels, with every name resolved.

use super::build_module::{build_branches, build_module, LocalScope};
use super::model::{Action, FaultRule, GlobalScope, Model, RewardItem, Rewards, Template, VarInfo};
use super::syntax::{ActionType, FaultBlock, RewardsSyntax, SwarmSyntax};
use crate::lang::{check_as, error_at, Constants, LangResult, Rat, Source, Span, TExpr, Ty};
use num_traits::{One, Zero};
use std::collections::HashMap;

/// Options of the faulty constructions.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub faulty_fraction: Option<Rat>,
    /// Track Definition 13's flags even when no label or property reads them.
    pub keep_fault_flags: bool,
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
        rewards: Vec::new(),
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
pub(super) fn build_actions(
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
pub(super) fn add_faults(
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
pub(super) fn add_faulty_fraction(
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
pub(super) fn add_labels(
    source: &Source,
    syntax: &SwarmSyntax,
    model: &mut Model,
) -> LangResult<()> {
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
    // Rewards read the variables and labels as labels do; their slots
    // follow the labels' in the same list.
    let scope = GlobalScope {
        model: &*model,
        refs: std::cell::RefCell::new(refs),
    };
    let rewards = syntax
        .rewards
        .iter()
        .map(|r| reward_structure(source, r, &scope, &syntax.rewards))
        .collect::<LangResult<Vec<_>>>()?;
    let refs = scope.refs.into_inner();
    model.rewards = rewards;
    model.label_refs = refs;
    Ok(())
}

/// One reward structure, checked: a unique name, known actions, Boolean
/// guards and numeric values.
fn reward_structure(
    source: &Source,
    r: &RewardsSyntax,
    scope: &GlobalScope,
    all: &[RewardsSyntax],
) -> LangResult<Rewards> {
    // The later declaration is the one in error.
    let first = all.iter().find(|o| o.name == r.name);
    if first.is_some_and(|o| !std::ptr::eq(o, r)) {
        return Err(error_at(
            source,
            r.span,
            format!("reward structure `{}` is declared twice", r.name),
        ));
    }
    let actions = &scope.model.actions;
    let mut items = Vec::new();
    for item in &r.items {
        let action = match &item.action {
            None => None,
            Some((name, span)) => match actions.iter().position(|a| a.name == *name) {
                Some(a) => Some(a),
                None => {
                    return Err(error_at(
                        source,
                        *span,
                        format!("action `{name}` of a reward is not declared"),
                    ))
                }
            },
        };
        items.push(RewardItem {
            action,
            guard: check_as(source, &item.guard, scope, Ty::Bool)?,
            value: check_as(source, &item.value, scope, Ty::Real)?,
            span: item.span,
        });
    }
    Ok(Rewards {
        name: r.name.clone(),
        items,
    })
}
