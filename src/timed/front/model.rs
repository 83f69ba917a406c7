//! The checked model: a G-MAPT (seed, Definition 2.1) whose agents passed the
//! MAPT restrictions of [`crate::timed::front::build`]. Timing constants are natural
//! numbers; the shared variable V is a vector of exact values.

use super::ast::Loc;
use crate::lang::{Constants, Scope, Symbol, TExpr, Ty, Value};

/// One component of the shared variable V.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Ty,
    pub init: Value,
}

/// A transition `(l, f, [a, b], l')` of the seed, with an optional guard on V.
/// The updates are simultaneous: every right-hand side reads the old V.
#[derive(Clone, Debug)]
pub struct Transition {
    pub from: usize,
    pub to: usize,
    pub lower: u64,
    pub upper: u64,
    pub guard: Option<TExpr>,
    pub updates: Vec<(usize, TExpr)>,
    pub loc: Loc,
}

/// Agent `A_i = (L_i, C_i, T_i, E_i)` with its initial clock value.
#[derive(Clone, Debug)]
pub struct Agent {
    pub name: String,
    pub period: u64,
    pub init_clock: u64,
    pub localities: Vec<String>,
    pub initial: usize,
    pub final_loc: usize,
    pub transitions: Vec<Transition>,
    /// `l•`: indices of the transitions leaving each locality.
    pub outgoing: Vec<Vec<usize>>,
    /// The last instant at which each locality can still be left: the largest
    /// upper bound of its outgoing transitions, or E at the final locality.
    pub deadline: Vec<u64>,
    /// Extra stopping points of the accelerated semantics, per locality: the
    /// upper bounds of the transitions of every locality reachable from it,
    /// sorted. Empty unless the agent's deadlines decrease somewhere (see
    /// [`Model::acceleration_obstacle`] and `semantics::Semantics::zone_jump`).
    pub downstream_cuts: Vec<Vec<u64>>,
}

impl Agent {
    /// `from -> to [a, b]`, how a transition is named in traces.
    pub fn transition_label(&self, t: usize) -> String {
        let tr = &self.transitions[t];
        format!(
            "{} -> {} [{}, {}]",
            self.localities[tr.from], self.localities[tr.to], tr.lower, tr.upper
        )
    }

    pub fn locality_index(&self, name: &str) -> Option<usize> {
        self.localities.iter().position(|l| l == name)
    }
}

#[derive(Clone, Debug)]
pub struct NamedQuery {
    pub name: String,
    pub formula: Loc,
}

/// A checked and validated model.
#[derive(Clone, Debug)]
pub struct Model {
    pub vars: Vec<Var>,
    pub agents: Vec<Agent>,
    pub queries: Vec<NamedQuery>,
    pub consts: Constants,
}

impl Model {
    pub fn var_index(&self, name: &str) -> Option<usize> {
        let bare = name.strip_prefix("V.").unwrap_or(name);
        self.vars.iter().position(|v| v.name == bare)
    }

    pub fn agent_index(&self, name: &str) -> Option<usize> {
        self.agents.iter().position(|a| a.name == name)
    }

    /// Whether the seed's accelerated semantics is exact for this model
    /// as written (the monotone-deadline reading of its Constraint 1, see
    /// the notes): every transition leaving a locality has an upper bound at
    /// least that of every transition entering it. Returns the first
    /// offending (agent, entering, leaving) triple; such agents get
    /// [`Agent::downstream_cuts`], which make the acceleration exact again.
    pub fn acceleration_obstacle(&self) -> Option<(usize, usize, usize)> {
        for (i, agent) in self.agents.iter().enumerate() {
            for (t_in, tin) in agent.transitions.iter().enumerate() {
                for &t_out in &agent.outgoing[tin.to] {
                    if agent.transitions[t_out].upper < tin.upper {
                        return Some((i, t_in, t_out));
                    }
                }
            }
        }
        None
    }
}

/// Names inside transitions: components of V (`x` or `V.x`) and constants.
pub struct VarScope<'a> {
    pub vars: &'a [Var],
    pub consts: &'a Constants,
}

impl Scope for VarScope<'_> {
    fn lookup(&self, name: &str) -> Option<Symbol> {
        let bare = name.strip_prefix("V.").unwrap_or(name);
        if let Some(slot) = self.vars.iter().position(|v| v.name == bare) {
            return Some(Symbol::Var {
                slot,
                ty: self.vars[slot].ty,
            });
        }
        self.consts.lookup(name)
    }
}

/// Slots of the state environment used by queries and heuristics, after the
/// components of V: one clock per agent, one flag per (agent, locality), then time.
pub struct StateScope<'a> {
    pub model: &'a Model,
}

impl StateScope<'_> {
    pub fn clock_slot(model: &Model, agent: usize) -> usize {
        model.vars.len() + agent
    }

    pub fn locality_slot(model: &Model, agent: usize, loc: usize) -> usize {
        let before: usize = model.agents[..agent]
            .iter()
            .map(|a| a.localities.len())
            .sum();
        model.vars.len() + model.agents.len() + before + loc
    }

    pub fn time_slot(model: &Model) -> usize {
        let locs: usize = model.agents.iter().map(|a| a.localities.len()).sum();
        model.vars.len() + model.agents.len() + locs
    }
}

impl Scope for StateScope<'_> {
    fn lookup(&self, name: &str) -> Option<Symbol> {
        let m = self.model;
        if let Some((agent, loc)) = name.split_once('@') {
            let a = m.agent_index(agent)?;
            let l = m.agents[a].locality_index(loc)?;
            return Some(Symbol::Var {
                slot: Self::locality_slot(m, a, l),
                ty: Ty::Bool,
            });
        }
        if let Some((agent, field)) = name.split_once('.') {
            if let (Some(a), "clock" | "c") = (m.agent_index(agent), field) {
                return Some(Symbol::Var {
                    slot: Self::clock_slot(m, a),
                    ty: Ty::Int,
                });
            }
        }
        if name == "time" && m.var_index("time").is_none() {
            return Some(Symbol::Var {
                slot: Self::time_slot(m),
                ty: Ty::Int,
            });
        }
        VarScope {
            vars: &m.vars,
            consts: &m.consts,
        }
        .lookup(name)
    }
}
