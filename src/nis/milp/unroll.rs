//! One round of S(n) (Definition 5) as MILP constraints: per agent the
//! action binaries under the protocol (one binary per agent and action, so
//! the size is linear in n), the environment's action, `performed(a)` as an
//! OR of the agents' binaries, the guarded update cases by big-M, and the new
//! percept through a network copy whose bounds come from the new state's
//! variable bounds (propagated step by step).

use super::encode::{milp_error, not, one_hot, Ctx, Val};
use super::Enc;
use crate::lang::{DeclType, TExpr, TKind};
use crate::milp::{LinExpr, Sense};
use crate::nis::model::{ExtFn, ProtocolCase, UpdateCase, VarDecl};
use crate::report::RunError;

/// One agent's local state: private variables and the percept (one-hot).
#[derive(Clone, Debug)]
pub struct AgentState {
    pub private: Vec<Val>,
    pub percept: Vec<LinExpr>,
}

/// A global state of the unrolling: the agents, the environment and, in
/// M_ab(m), the slots of the zero-one agent ([`super::slots`]; empty in M(n)).
#[derive(Clone, Debug)]
pub struct State {
    pub agents: Vec<AgentState>,
    pub env: Vec<Val>,
    pub zero_one: Vec<super::slots::Slot>,
}

/// The joint action of one round: per agent one-hot actions, the
/// environment's, and per slot of the successor's zero-one agent its parent
/// slot and action.
#[derive(Clone, Debug)]
pub struct Round {
    pub from: usize,
    pub actions: Vec<Vec<LinExpr>>,
    pub env_action: Vec<LinExpr>,
    pub zero_one: Vec<super::slots::SlotChoice>,
}

impl Enc<'_> {
    /// Slots of an agent expression (see `AgentSlots`); unreadable slots are `None`.
    pub(super) fn agent_slots(
        &self,
        a: &AgentState,
        action: Option<&[LinExpr]>,
        env_action: Option<&[LinExpr]>,
        env: Option<&[Val]>,
    ) -> Vec<Option<Val>> {
        let mut slots: Vec<Option<Val>> = a.private.iter().cloned().map(Some).collect();
        slots.push(Some(Val::Enum(a.percept.clone())));
        slots.push(action.map(|x| Val::Enum(x.to_vec())));
        slots.push(env_action.map(|x| Val::Enum(x.to_vec())));
        let env_vars = self.model.env.vars.len();
        match env {
            Some(e) => slots.extend(e.iter().cloned().map(Some)),
            None => slots.extend(std::iter::repeat_n(None, env_vars)),
        }
        slots
    }

    pub(super) fn env_slots(env: &[Val], action: Option<&[LinExpr]>) -> Vec<Option<Val>> {
        let mut slots: Vec<Option<Val>> = env.iter().cloned().map(Some).collect();
        slots.push(action.map(|x| Val::Enum(x.to_vec())));
        slots
    }

    /// Labels are read on an agent's local state alone.
    pub fn label(&mut self, expr: &TExpr, a: &AgentState) -> Result<LinExpr, RunError> {
        let slots = self.agent_slots(a, None, None, None);
        let ctx = Ctx {
            slots: &slots,
            performed: None,
            env_action: None,
        };
        self.boolean(expr, &ctx)
    }

    /// One-hot action binaries allowed by the protocol cases (cases add up).
    fn choose_action(
        &mut self,
        name: &str,
        cases: &[ProtocolCase],
        actions: usize,
        slots: &[Option<Val>],
    ) -> Result<Vec<LinExpr>, RunError> {
        let enabled = self.enabled_actions(name, cases, actions, slots)?;
        self.pick_action(name, &enabled, LinExpr::constant(1.0))
    }

    /// Per action the 0/1 expression "the protocol enables it at `slots`";
    /// an error when no action can be enabled.
    pub(super) fn enabled_actions(
        &mut self,
        name: &str,
        cases: &[ProtocolCase],
        actions: usize,
        slots: &[Option<Val>],
    ) -> Result<Vec<LinExpr>, RunError> {
        let ctx = Ctx {
            slots,
            performed: None,
            env_action: None,
        };
        let mut guards = Vec::new();
        for c in cases {
            guards.push(self.boolean(&c.guard, &ctx)?);
        }
        let mut out = Vec::with_capacity(actions);
        for a in 0..actions {
            let enabling: Vec<LinExpr> = cases
                .iter()
                .zip(&guards)
                .filter(|(c, _)| c.actions.contains(&a))
                .map(|(_, g)| g.clone())
                .collect();
            out.push(self.or(enabling)?);
        }
        if out.iter().all(|x| super::encode::constant(x) == Some(0.0)) {
            return Err(RunError::input(format!(
                "the protocol enables no action at a reachable state ({name})"
            )));
        }
        Ok(out)
    }

    /// One-hot action binaries under `enabled`, summing to `total` (1 for
    /// an agent, the active flag for a slot of the zero-one agent).
    pub(super) fn pick_action(
        &mut self,
        name: &str,
        enabled: &[LinExpr],
        total: LinExpr,
    ) -> Result<Vec<LinExpr>, RunError> {
        let mut out = Vec::with_capacity(enabled.len());
        for (a, e) in enabled.iter().enumerate() {
            if super::encode::constant(e) == Some(0.0) {
                out.push(LinExpr::constant(0.0));
                continue;
            }
            let x = self.milp.binary(&format!("{name}.{a}"));
            self.milp
                .le(&format!("{name}.prot{a}"), x, e.clone())
                .map_err(milp_error)?;
            out.push(x.into());
        }
        self.milp
            .eq(&format!("{name}.one"), LinExpr::sum(out.clone()), total)
            .map_err(milp_error)?;
        Ok(out)
    }

    /// A fresh state variable of a declared type, bounded by `hull` (the
    /// bounds of the values it may take). The hull is not clipped to the
    /// declared range: a value beyond it must stay possible so that the
    /// range check ([`super::ranges::RangeCheck`]) can find it; when that check
    /// passes no run leaves the range and the hull only loosens bounds.
    fn fresh(&mut self, name: &str, decl: &VarDecl, hull: (f64, f64)) -> Result<Val, RunError> {
        Ok(match &decl.ty {
            DeclType::Bool => Val::Bool(self.milp.binary(name).into()),
            DeclType::Enum { values, .. } => {
                let bits: Vec<LinExpr> = (0..values.len())
                    .map(|i| LinExpr::from(self.milp.binary(&format!("{name}={i}"))))
                    .collect();
                self.milp
                    .eq(&format!("{name}.one"), LinExpr::sum(bits.clone()), 1.0)
                    .map_err(milp_error)?;
                Val::Enum(bits)
            }
            DeclType::Int { .. } => Val::Num(
                self.milp
                    .integer(name, hull.0, hull.1)
                    .map_err(milp_error)?
                    .into(),
            ),
            DeclType::Real { .. } => Val::Num(
                self.milp
                    .continuous(name, hull.0, hull.1)
                    .map_err(milp_error)?
                    .into(),
            ),
        })
    }

    /// The first update case whose guard holds assigns; no case: no change.
    pub(super) fn update(
        &mut self,
        name: &str,
        cases: &[UpdateCase],
        decls: &[VarDecl],
        old: &[Val],
        ctx: &Ctx,
    ) -> Result<Vec<Val>, RunError> {
        // fire[j]: case j is the first whose guard holds; the last entry: none holds.
        let mut fire = Vec::new();
        let mut none_before = LinExpr::constant(1.0);
        for c in cases {
            let g = self.boolean(&c.guard, ctx)?;
            fire.push(self.and(vec![g.clone(), none_before.clone()])?);
            none_before = self.and(vec![none_before, not(g)])?;
        }
        fire.push(none_before);
        let mut next = Vec::with_capacity(decls.len());
        for (v, decl) in decls.iter().enumerate() {
            let mut options: Vec<(LinExpr, Val)> = Vec::new();
            // Where each option's value is written (none: the old value kept).
            let mut spans: Vec<Option<crate::lang::Span>> = Vec::new();
            for (j, f) in fire.iter().enumerate() {
                if super::encode::constant(f) == Some(0.0) {
                    continue;
                }
                let assigned = cases
                    .get(j)
                    .and_then(|c| c.assigns.iter().find(|(s, _)| *s == v));
                let value = match assigned {
                    None => old[v].clone(),
                    Some((_, e)) => match &decl.ty {
                        DeclType::Bool => Val::Bool(self.boolean(e, ctx)?),
                        DeclType::Enum { .. } => Val::Enum(self.enumv(e, ctx)?),
                        _ => Val::Num(self.num(e, ctx)?),
                    },
                };
                options.push((f.clone(), value));
                spans.push(assigned.map(|(_, e)| e.span));
            }
            let var_name = format!("{name}.{}", decl.name);
            self.record_range_checks(&var_name, decl, &options, &spans)?;
            next.push(self.merge(&var_name, decl, options)?);
        }
        Ok(next)
    }

    /// The value selected by exactly one of the 0/1 conditions.
    fn merge(
        &mut self,
        name: &str,
        decl: &VarDecl,
        options: Vec<(LinExpr, Val)>,
    ) -> Result<Val, RunError> {
        let parts = |v: &Val| -> Vec<LinExpr> {
            match v {
                Val::Num(x) | Val::Bool(x) => vec![x.clone()],
                Val::Enum(xs) => xs.clone(),
            }
        };
        let first = parts(&options[0].1);
        if options.len() == 1 || options.iter().all(|(_, v)| parts(v) == first) {
            return Ok(options[0].1.clone());
        }
        let mut hull = (f64::INFINITY, f64::NEG_INFINITY);
        if let Val::Num(_) = options[0].1 {
            for (_, v) in &options {
                let (l, h) = self
                    .milp
                    .finite_bounds(&parts(v)[0], &format!("the update of `{}`", decl.name))
                    .map_err(milp_error)?;
                hull = (hull.0.min(l), hull.1.max(h));
            }
        }
        let y = self.fresh(name, decl, hull)?;
        let ys = parts(&y);
        for (cond, v) in &options {
            for (yi, xi) in ys.iter().zip(parts(v)) {
                self.implies(name, cond, yi.clone(), Sense::Eq, xi)?;
            }
        }
        Ok(y)
    }

    /// The percept (one-hot) chosen by the observation tree; at `argmax`
    /// leaves any maximal output may be chosen (ties: every maximal percept).
    pub(super) fn observe(&mut self, e: &TExpr, ctx: &Ctx) -> Result<Vec<LinExpr>, RunError> {
        match &e.kind {
            TKind::If(c, a, b) => {
                let c = self.boolean(c, ctx)?;
                if let Some(x) = super::encode::constant(&c) {
                    return self.observe(if x > 0.5 { a } else { b }, ctx);
                }
                let (pa, pb) = (self.observe(a, ctx)?, self.observe(b, ctx)?);
                let mut out = Vec::new();
                for (x, y) in pa.into_iter().zip(pb) {
                    let l = self.and(vec![c.clone(), x])?;
                    let r = self.and(vec![not(c.clone()), y])?;
                    out.push(self.or(vec![l, r])?);
                }
                Ok(out)
            }
            TKind::Ext(id, args) if matches!(self.model.ext[*id], ExtFn::Argmax { .. }) => {
                let ExtFn::Argmax { percepts } = self.model.ext[*id].clone() else {
                    return Err(RunError::Internal("argmax changed kind".into()));
                };
                let net = match args.first().map(|a| &a.kind) {
                    Some(TKind::Ext(n, inputs)) => match self.model.ext[*n] {
                        ExtFn::NetVector { net } => Some((net, inputs)),
                        _ => None,
                    },
                    _ => None,
                };
                let Some((net, inputs)) = net else {
                    return Err(RunError::input("`argmax` needs a network call"));
                };
                let outs = self.network(net, inputs, ctx)?;
                let size = self.model.template.percepts.len();
                let chosen: Vec<LinExpr> = if outs.iter().all(|o| o.is_constant()) {
                    // Constant outputs (the f64 evaluation): a choice among the
                    // exactly maximal ones only, as the semantics' tie rule.
                    let vals: Vec<f64> = outs.iter().map(LinExpr::constant_part).collect();
                    let best = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let top: Vec<usize> = (0..vals.len()).filter(|&i| vals[i] == best).collect();
                    if top.len() == 1 {
                        one_hot(top[0], outs.len())
                    } else {
                        let name = self.aux(&format!("{}.tie", self.prefix));
                        let mut c = vec![LinExpr::constant(0.0); outs.len()];
                        for &i in &top {
                            c[i] = self.milp.binary(&format!("{name}.{i}")).into();
                        }
                        self.milp
                            .eq(&name, LinExpr::sum(c.clone()), 1.0)
                            .map_err(milp_error)?;
                        c
                    }
                } else {
                    let name = self.aux(&format!("{}.argmax", self.prefix));
                    self.milp
                        .argmax(&name, &outs)
                        .map_err(milp_error)?
                        .into_iter()
                        .map(LinExpr::from)
                        .collect()
                };
                let mut out = vec![LinExpr::constant(0.0); size];
                for (o, c) in chosen.into_iter().enumerate() {
                    out[percepts[o]] = out[percepts[o]].clone() + c;
                }
                Ok(out)
            }
            _ => self.enumv(e, ctx),
        }
    }

    /// Adds the successor of state `from` (one round of Definition 5).
    pub fn round(&mut self, from: &State, tag: &str) -> Result<(Round, State), RunError> {
        let model = self.model;
        let t = &model.template;
        let mut actions = Vec::with_capacity(from.agents.len());
        for (i, a) in from.agents.iter().enumerate() {
            let slots = self.agent_slots(a, None, None, None);
            let name = format!("{tag}.a{}.act", i + 1);
            actions.push(self.choose_action(&name, &t.protocol, t.actions.len(), &slots)?);
        }
        let env_slots = Self::env_slots(&from.env, None);
        let env_action = self.choose_action(
            &format!("{tag}.env.act"),
            &model.env.protocol,
            model.env.actions.len(),
            &env_slots,
        )?;
        let zero_one = self.slot_choices(&from.zero_one, tag)?;
        let mut performed = Vec::with_capacity(t.actions.len());
        for a in 0..t.actions.len() {
            let by: Vec<LinExpr> = actions
                .iter()
                .map(|x| x[a].clone())
                .chain(zero_one.iter().map(|c| c.action[a].clone()))
                .collect();
            performed.push(self.or(by)?);
        }
        self.prefix = format!("{tag}.env");
        let slots = Self::env_slots(&from.env, Some(&env_action));
        let ctx = Ctx {
            slots: &slots,
            performed: Some(&performed),
            env_action: Some(&env_action),
        };
        let env = self.update(
            &format!("{tag}.env"),
            &model.env.update,
            &model.env.vars,
            &from.env,
            &ctx,
        )?;
        let mut agents = Vec::with_capacity(from.agents.len());
        for (i, a) in from.agents.iter().enumerate() {
            self.prefix = format!("{tag}.a{}", i + 1);
            let slots = self.agent_slots(a, Some(&actions[i]), Some(&env_action), None);
            let ctx = Ctx {
                slots: &slots,
                performed: Some(&performed),
                env_action: Some(&env_action),
            };
            let name = self.prefix.clone();
            let private = self.update(&name, &t.update, &t.vars, &a.private, &ctx)?;
            // Observation of (prv', per) and the new environment state.
            let inter = AgentState {
                private,
                percept: a.percept.clone(),
            };
            let slots = self.agent_slots(&inter, None, None, Some(&env));
            let ctx = Ctx {
                slots: &slots,
                performed: None,
                env_action: None,
            };
            let percept = self.observe(&t.observe, &ctx)?;
            agents.push(AgentState {
                private: inter.private,
                percept,
            });
        }
        let slots = self.slot_successors(
            &from.zero_one,
            &zero_one,
            &performed,
            &env_action,
            &env,
            tag,
        )?;
        Ok((
            Round {
                from: 0,
                actions,
                env_action,
                zero_one,
            },
            State {
                agents,
                env,
                zero_one: slots,
            },
        ))
    }
}
