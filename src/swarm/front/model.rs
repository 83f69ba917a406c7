//! The typed swarm model: templates (Definition 4), the environment, action
//! types, the fault profile (Definition 12) and labels, with every name
//! resolved and every constant probability sum checked exactly. It is built
//! from the syntax by [`super::build`] (modules by `build_module.rs`).

use super::syntax::ActionType;
use crate::lang::{Constants, Rat, Scope, Source, Span, Symbol, TExpr, Ty};

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
    /// The reward structures; their expressions read `label_refs` too.
    pub rewards: Vec<Rewards>,
    /// The variables the labels and rewards read; their slots index this list.
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

/// A reward structure (PRISM's `rewards "name" ... endrewards`): at every
/// step the state rewards of the state left and the action rewards of the
/// action taken are earned, each item's value summed where its guard holds.
#[derive(Clone, Debug)]
pub struct Rewards {
    pub name: String,
    pub items: Vec<RewardItem>,
}

#[derive(Clone, Debug)]
pub struct RewardItem {
    /// `None` for a state reward, else the action (0 is `[]`).
    pub action: Option<usize>,
    pub guard: TExpr,
    pub value: TExpr,
    pub span: Span,
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

    pub(super) fn var_ty(v: &VarInfo) -> Ty {
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

impl GlobalVar {
    /// Whether the variable is a Boolean (Definition 15's `starting` is).
    pub fn is_bool(&self, model: &Model) -> bool {
        match *self {
            GlobalVar::Agent { template, var, .. } => model.templates[template].vars[var].is_bool,
            GlobalVar::Env { var } => model.env.vars[var].is_bool,
            GlobalVar::Starting => true,
        }
    }
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
    /// Definition 15's environment variable `mode`, with a faulty fraction.
    pub fn mode_var(&self) -> Option<usize> {
        self.env.vars.iter().position(|v| v.name == "mode")
    }

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
