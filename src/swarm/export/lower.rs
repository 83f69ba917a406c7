//! The swarm in the intermediate form of [`super`]: S(n) and the counting
//! abstraction as networks of modules, an explored model as [`Explicit`].

use super::{Atom, CmpOp, Command, Dest, Explicit, Expr, Init, Module, Network, Prob, Sync, Val};
use super::{Query, QueryPath, RewardEntry, RewardStructure, Runs, Var, VarType};
use crate::lang::{TExpr, TKind, Value};
use crate::swarm::decide::mdp::Mdp;
use crate::swarm::decide::reward::RewardVectors;
use crate::swarm::front::load::Loaded;
use crate::swarm::front::model::{GlobalVar, Model, Template, LABEL_BASE};
use crate::swarm::front::props::{Path, Properties};
use crate::swarm::front::syntax::ActionType;
use crate::swarm::semantics::local::{Dist, LocalSpace};

/// The action of command `a` in the module with `suffix`: none for an
/// asynchronous action, one per agent (or abstract move) for an
/// agent-environment action, one for all for a global-synchronous one.
/// With action rewards, a named asynchronous action is `a{suffix}` too (no
/// other module has it, so it synchronises with nothing), so that rewards can
/// name it; `[]` stays silent.
fn action_label(model: &Model, a: usize, suffix: &str) -> String {
    match model.actions[a].ty {
        ActionType::Asynchronous if a > 0 && has_action_rewards(model) => {
            format!("{}{suffix}", model.actions[a].name)
        }
        ActionType::Asynchronous => String::new(),
        ActionType::AgentEnvironment => format!("{}{suffix}", model.actions[a].name),
        ActionType::GlobalSynchronous => model.actions[a].name.clone(),
    }
}

fn var_name(t: &Template, v: usize, suffix: &str) -> String {
    format!("{}{suffix}", t.vars[v].name)
}

/// The variables of `t` that are written (Definition 13's flags projected
/// away are not: nothing reads them and they never change).
fn shown(t: &Template) -> impl Iterator<Item = usize> + '_ {
    (0..t.vars.len()).filter(|&v| !t.is_projected(v))
}

/// `v = x` as a compact condition.
fn is(t: &Template, v: usize, suffix: &str, x: i64) -> Atom {
    match t.vars[v].is_bool {
        true => Atom::Bool(var_name(t, v, suffix), x != 0),
        false => Atom::Cmp(var_name(t, v, suffix), CmpOp::Eq, x),
    }
}

fn declare(t: &Template, suffix: &str) -> Vec<Var> {
    shown(t)
        .map(|v| {
            let info = &t.vars[v];
            let ty = match info.is_bool {
                true => VarType::Bool,
                false => VarType::Int(info.lo, info.hi),
            };
            Var {
                name: var_name(t, v, suffix),
                ty,
                init: Init::Value(info.init),
            }
        })
        .collect()
}

/// The destinations of `d` from local state `s`: the variables that change.
fn dests(t: &Template, sp: &LocalSpace, s: &[i64], d: &Dist, suffix: &str) -> Vec<Dest> {
    (0..d.targets.len())
        .map(|i| {
            let n = &sp.states[d.targets[i] as usize];
            let assigns = shown(t)
                .filter(|&v| n[v] != s[v])
                .map(|v| {
                    let val = match t.vars[v].is_bool {
                        true => Val::Bool(n[v] != 0),
                        false => Val::Int(n[v]),
                    };
                    (var_name(t, v, suffix), val)
                })
                .collect();
            Dest {
                prob: Prob::Exact(d.exact[i].clone()),
                assigns,
            }
        })
        .collect()
}

/// One command per local state and enabled command of a module; a
/// global-synchronous action (and, in the environment, any synchronised
/// one) only with its first enabled command. `push` gets the action.
fn commands(
    m: &Model,
    t: &Template,
    sp: &LocalSpace,
    suffix: &str,
    env: bool,
    mut push: impl FnMut(usize, Command),
) {
    for (s, moves) in sp.moves.iter().enumerate() {
        let st = &sp.states[s];
        for (k, mv) in moves.iter().enumerate() {
            let ty = m.actions[mv.action].ty;
            let first_only =
                ty == ActionType::GlobalSynchronous || (env && ty != ActionType::Asynchronous);
            if first_only && moves[..k].iter().any(|x| x.action == mv.action) {
                continue;
            }
            let d = &sp.dists[mv.dist as usize];
            push(
                mv.action,
                Command {
                    action: String::new(),
                    act: Some(mv.action),
                    guard: shown(t).map(|v| is(t, v, suffix, st[v])).collect(),
                    dests: dests(t, sp, st, d, suffix),
                },
            );
        }
    }
}

/// The module of concrete agent `suffix` of template `i`.
fn agent_module(l: &Loaded, i: usize, suffix: &str) -> Module {
    let (m, t) = (&l.model, &l.model.templates[i]);
    let mut cs = Vec::new();
    commands(m, t, &l.sys.agents[i], suffix, false, |a, mut c| {
        c.action = action_label(m, a, suffix);
        cs.push(c);
    });
    Module {
        name: format!("{}{suffix}", t.name),
        vars: declare(t, suffix),
        commands: cs,
    }
}

/// The environment's module: its asynchronous commands, and the first
/// enabled command of every other action, once per synchronisation of
/// that action in `syncs[action]` (each one agent, or one abstract move).
fn env_module(l: &Loaded, syncs: &[Vec<(usize, String)>]) -> Module {
    let m = &l.model;
    let mut cs = Vec::new();
    commands(m, &m.env, &l.sys.env, "_E", true, |a, mut c| {
        match m.actions[a].ty {
            ActionType::Asynchronous => {
                c.action = action_label(m, a, "_E");
                cs.push(c);
            }
            ActionType::GlobalSynchronous => {
                c.action = m.actions[a].name.clone();
                cs.push(c);
            }
            ActionType::AgentEnvironment => {
                for (_, label) in &syncs[a] {
                    let mut c = c.clone();
                    c.action = label.clone();
                    cs.push(c);
                }
            }
        }
    });
    Module {
        name: m.env.name.clone(),
        vars: declare(&m.env, "_E"),
        commands: cs,
    }
}

/// The concrete agents, `counts[i]` of template `i`, each with its suffix `_{i+1}_{j+1}`.
fn concrete_agents(counts: &[usize]) -> Vec<(usize, String)> {
    (0..counts.len())
        .flat_map(|i| (0..counts[i]).map(move |j| (i, format!("_{}_{}", i + 1, j + 1))))
        .collect()
}

/// Per action, the agent-environment synchronisations of the concrete
/// agents: (the agent's module, the action's name).
fn agent_syncs(m: &Model, agents: &[(usize, String)]) -> Vec<Vec<(usize, String)>> {
    (0..m.actions.len())
        .map(|a| match m.actions[a].ty {
            ActionType::AgentEnvironment => agents
                .iter()
                .enumerate()
                .map(|(k, (_, suffix))| (k, action_label(m, a, suffix)))
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The network of `modules` (the environment appended last) with its
/// synchronisations: an agent-environment action joins its module and the
/// environment; a global-synchronous action joins all.
fn network(
    l: &Loaded,
    what: String,
    mut modules: Vec<Module>,
    syncs: Vec<Vec<(usize, String)>>,
) -> Network {
    let m = &l.model;
    modules.push(env_module(l, &syncs));
    let n = modules.len();
    let mut out = Vec::new();
    for (a, labels) in m.actions.iter().zip(&syncs) {
        match a.ty {
            ActionType::Asynchronous => {}
            ActionType::GlobalSynchronous => out.push(Sync {
                action: a.name.clone(),
                modules: (0..n).collect(),
            }),
            ActionType::AgentEnvironment => out.extend(labels.iter().map(|(owner, name)| Sync {
                action: name.clone(),
                modules: vec![*owner, n - 1],
            })),
        }
    }
    let rewards = rewards(m, &modules);
    Network {
        what,
        modules,
        syncs: out,
        labels: labels(m),
        rewards,
        queries: Vec::new(),
    }
}

/// Whether some reward structure has an action reward.
fn has_action_rewards(m: &Model) -> bool {
    m.rewards
        .iter()
        .any(|r| r.items.iter().any(|i| i.action.is_some()))
}

/// The reward structures over the network: an action reward once per
/// action of the network its model action became (each agent's, or
/// each abstract move's), in the order the modules first have them.
fn rewards(m: &Model, modules: &[Module]) -> Vec<RewardStructure> {
    let mut names: Vec<Vec<String>> = vec![Vec::new(); m.actions.len()];
    for c in modules.iter().flat_map(|md| &md.commands) {
        if let Some(a) = c.act {
            if !names[a].contains(&c.action) {
                names[a].push(c.action.clone());
            }
        }
    }
    m.rewards
        .iter()
        .map(|r| RewardStructure {
            name: r.name.clone(),
            items: r
                .items
                .iter()
                .flat_map(|i| {
                    let actions: Vec<Option<String>> = match i.action {
                        None => vec![None],
                        Some(a) => names[a].iter().cloned().map(Some).collect(),
                    };
                    actions.into_iter().map(|action| RewardEntry {
                        action,
                        guard: expr(m, &i.guard),
                        value: expr(m, &i.value),
                    })
                })
                .collect(),
        })
        .collect()
}

/// The concrete system S(counts).
pub fn concrete(l: &Loaded, counts: &[usize]) -> Network {
    let agents = concrete_agents(counts);
    let syncs = agent_syncs(&l.model, &agents);
    let modules = agents
        .iter()
        .map(|(i, suffix)| agent_module(l, *i, suffix))
        .collect();
    let sizes: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
    let what = format!("S({}) of {}", sizes.join(", "), l.source.name());
    network(l, what, modules, syncs)
}

/// The count variable of template `i`'s local state `s`.
fn count(i: usize, s: usize) -> String {
    format!("c{}_{s}", i + 1)
}

/// The destinations of a counted move from `s`: `leave` takes one agent
/// out of `s` first; each target gains one, up to `t` ("t or more").
fn counted_dests(i: usize, s: usize, d: &Dist, leave: bool, t: u32) -> Vec<Dest> {
    (0..d.targets.len())
        .map(|k| {
            let x = d.targets[k] as usize;
            let gain = (count(i, x), Val::IncrementUpTo(t));
            let assigns = match (leave, x == s) {
                // Out of s and back in: no change.
                (true, true) => vec![],
                (true, false) => vec![(count(i, s), Val::Decrement), gain],
                (false, _) => vec![gain],
            };
            Dest {
                prob: Prob::Exact(d.exact[k].clone()),
                assigns,
            }
        })
        .collect()
}

/// The `counts` module (index `owner`): a variable per template and local
/// state, and every command of a counted local state twice, as in
/// [`crate::swarm::semantics::counting`]: "others stay" (count = t) and "it
/// was the last" or a plain move (count >= 1). Initially 1..t agents are in
/// the initial local state 0 (0..t beside concrete agents), none elsewhere.
fn counts_module(
    l: &Loaded,
    named: &[usize],
    t: u32,
    owner: usize,
    syncs: &mut [Vec<(usize, String)>],
) -> Module {
    let m = &l.model;
    let mut vars = Vec::new();
    let mut cs = Vec::new();
    for (i, sp) in l.sys.agents.iter().enumerate() {
        for s in 0..sp.states.len() {
            let init = match (s, named[i] > 0) {
                (0, true) => Init::Any,
                (0, false) => Init::Where(Atom::Cmp(count(i, s), CmpOp::Ge, 1)),
                _ => Init::Value(0),
            };
            vars.push(Var {
                name: count(i, s),
                ty: VarType::Int(0, i64::from(t)),
                init,
            });
        }
    }
    for (i, sp) in l.sys.agents.iter().enumerate() {
        for (s, moves) in sp.moves.iter().enumerate() {
            for (k, mv) in moves.iter().enumerate() {
                let d = &sp.dists[mv.dist as usize];
                for (variant, op, bound) in
                    [("stay", CmpOp::Eq, i64::from(t)), ("last", CmpOp::Ge, 1)]
                {
                    let action =
                        action_label(m, mv.action, &format!("_c{}_{s}_{k}_{variant}", i + 1));
                    if !action.is_empty() {
                        syncs[mv.action].push((owner, action.clone()));
                    }
                    cs.push(Command {
                        action,
                        act: Some(mv.action),
                        guard: vec![Atom::Cmp(count(i, s), op, bound)],
                        dests: counted_dests(i, s, d, variant == "last", t),
                    });
                }
            }
        }
    }
    Module {
        name: "counts".into(),
        vars,
        commands: cs,
    }
}

/// The counting abstraction at threshold `t` (t = 1: the set abstraction)
/// with the agents `named` concrete per template, or `None` when the model
/// has global-synchronous actions (they map every count at once).
pub fn abstraction(l: &Loaded, named: &[usize], t: u32) -> Option<Network> {
    let m = &l.model;
    if m.actions
        .iter()
        .any(|a| a.ty == ActionType::GlobalSynchronous)
    {
        return None;
    }
    let agents = concrete_agents(named);
    let mut syncs = agent_syncs(m, &agents);
    let mut modules: Vec<Module> = agents
        .iter()
        .map(|(i, suffix)| agent_module(l, *i, suffix))
        .collect();
    modules.push(counts_module(l, named, t, agents.len(), &mut syncs));
    let what = format!("the abstraction (threshold {t}) of {}", l.source.name());
    Some(network(l, what, modules, syncs))
}

/// The model's labels; a label another reads is kept by name.
fn labels(m: &Model) -> Vec<(String, Expr)> {
    m.labels
        .iter()
        .map(|(name, e)| (name.clone(), expr(m, e)))
        .collect()
}

/// A global variable's name in the exports.
fn ref_expr(m: &Model, r: GlobalVar) -> Expr {
    match r {
        GlobalVar::Agent {
            template,
            agent,
            var,
        } => Expr::Var(format!(
            "{}_{}_{}",
            m.templates[template].vars[var].name,
            template + 1,
            agent + 1
        )),
        GlobalVar::Env { var } => Expr::Var(format!("{}_E", m.env.vars[var].name)),
        GlobalVar::Starting => Expr::Atom(Atom::Cmp("mode_E".into(), CmpOp::Eq, 1)),
    }
}

/// A label's checked expression (slots index the model's label refs).
fn expr(m: &Model, e: &TExpr) -> Expr {
    expr_over(m, &m.label_refs, e)
}

/// A checked expression whose slots below `LABEL_BASE` index `refs` (a
/// label's: the model's label refs; a property's: the properties' refs).
fn expr_over(m: &Model, refs: &[GlobalVar], e: &TExpr) -> Expr {
    let t = |x: &TExpr| Box::new(expr_over(m, refs, x));
    match &e.kind {
        TKind::Const(v) => Expr::Lit(v.clone()),
        TKind::Var(s) if *s >= LABEL_BASE => {
            let (name, l) = &m.labels[s - LABEL_BASE];
            Expr::Label(name.clone(), Box::new(expr(m, l)))
        }
        TKind::Var(s) => ref_expr(m, refs[*s]),
        TKind::Unary(op, a) => Expr::Unary(*op, t(a)),
        TKind::Binary(op, a, b) => Expr::Binary(*op, t(a), t(b)),
        TKind::If(c, a, b) => Expr::If(t(c), t(a), t(b)),
        TKind::Builtin(b, args) => {
            Expr::Builtin(*b, args.iter().map(|a| expr_over(m, refs, a)).collect())
        }
        TKind::Ext(..) => Expr::Lit(Value::Bool(false)),
    }
}

/// The properties over the network's names, for the printers.
pub fn queries(m: &Model, props: &Properties) -> Vec<Query> {
    let e = |x: &TExpr| expr_over(m, &props.refs, x);
    props
        .props
        .iter()
        .map(|p| Query {
            text: p.text.clone(),
            opt: p.opt,
            bound: p.bound.clone(),
            reward: p.reward.map(|r| m.rewards[r].name.clone()),
            path: match &p.path {
                Path::Until { phi, psi, steps } => QueryPath::Until {
                    phi: phi.as_ref().map(e),
                    psi: e(psi),
                    steps: *steps,
                },
                Path::Globally { phi, steps } => QueryPath::Globally {
                    phi: e(phi),
                    steps: *steps,
                },
                Path::Next { phi } => QueryPath::Next { phi: e(phi) },
                Path::Cumulative { steps } => QueryPath::Cumulative { steps: *steps },
                Path::Instant { steps } => QueryPath::Instant { steps: *steps },
            },
        })
        .collect()
}

/// The states where `truth` holds.
fn states(truth: &[bool]) -> Runs {
    let set: Vec<usize> = (0..truth.len()).filter(|&s| truth[s]).collect();
    super::runs(&set)
}

/// An explored model with its labels' truth at every state and its
/// reward structures' values.
pub fn explicit<'a>(
    mdp: &'a Mdp,
    labels: &[(String, Vec<bool>)],
    rewards: &'a [(String, RewardVectors)],
    what: String,
) -> Explicit<'a> {
    Explicit {
        what,
        mdp,
        labels: labels
            .iter()
            .map(|(n, truth)| (n.clone(), states(truth)))
            .collect(),
        rewards: rewards
            .iter()
            .map(|(n, v)| super::explicit_rewards::group(mdp, n, v))
            .collect(),
    }
}

/// Choice `c` of state `state` as a command over the state index `s`.
pub fn explicit_command(mdp: &Mdp, state: usize, c: usize) -> Command {
    let dests = mdp
        .entries(c)
        .map(|e| Dest {
            prob: match &mdp.exact {
                Some(x) => Prob::Exact(x[e].clone()),
                None => Prob::Float(mdp.probs[e]),
            },
            assigns: vec![("s".into(), Val::Int(i64::from(mdp.targets[e])))],
        })
        .collect();
    Command {
        action: String::new(),
        act: None,
        guard: vec![Atom::Cmp("s".into(), CmpOp::Eq, state as i64)],
        dests,
    }
}
