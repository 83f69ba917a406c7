//! One round of S(n) (Definition 5) as MILP constraints: per agent the
//! action binaries under the protocol (one binary per agent and action, so
//! the size is linear in n), the environment's action, `performed(a)` as an
//! OR of the agents' binaries, the guarded update cases by big-M, and the new
//! percept through a network copy whose bounds come from the new state's
//! variable bounds (propagated step by step).

use super::expr::{one_hot, Ctx, Enc, Val};
use super::options::milp_error;
use super::ranges::range_checks;
use super::slots::SlotBudget;
use super::state::{AgentState, Joint, Round, State};
use crate::lang::{DeclType, TExpr};
use crate::milp::{constant, not, LinExpr, Linear};
use crate::nis::front::model::{Observation, ProtocolCase, Template, UpdateCase, VarDecl};
use crate::report::RunError;

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
        let ctx = Ctx::of(&slots);
        self.boolean(expr, &ctx)
    }

    /// Environment labels are read on the environment's state alone.
    pub fn env_label(&mut self, expr: &TExpr, env: &[Val]) -> Result<LinExpr, RunError> {
        let slots = Self::env_slots(env, None);
        let ctx = Ctx::of(&slots);
        self.boolean(expr, &ctx)
    }

    /// One-hot action binaries allowed by the protocol cases (cases add up).
    pub(super) fn choose_action(
        &mut self,
        name: &str,
        (cases, actions): (&[ProtocolCase], usize),
        slots: &[Option<Val>],
    ) -> Result<Vec<LinExpr>, RunError> {
        let enabled = self.enabled_actions(name, cases, actions, slots)?;
        self.pick_action(name, &enabled, LinExpr::constant(1.0))
    }

    /// [`Enc::choose_action`] with the choice pinned to `action` (a part
    /// of a choice split, [`super::split`]): the row "`action` is enabled"
    /// (infeasible where the protocol never enables it, so the part has
    /// no run).
    fn pinned_action(
        &mut self,
        name: &str,
        (cases, actions): (&[ProtocolCase], usize),
        slots: &[Option<Val>],
        action: usize,
    ) -> Result<Vec<LinExpr>, RunError> {
        let enabled = self.enabled_actions(name, cases, actions, slots)?;
        if constant(&enabled[action]) != Some(1.0) {
            let e = enabled[action].clone();
            self.milp.le(&format!("{name}.pinned"), 1.0, e);
        }
        Ok(one_hot(action, actions))
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
        let ctx = Ctx::of(slots);
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
            out.push(self.milp.or("or", enabling));
        }
        if out.iter().all(|x| constant(x) == Some(0.0)) {
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
        let live: Vec<usize> = (0..enabled.len())
            .filter(|&a| constant(&enabled[a]) != Some(0.0))
            .collect();
        if let [only] = live[..] {
            // One action can be enabled: it is taken whenever the agent acts.
            let mut out = vec![LinExpr::constant(0.0); enabled.len()];
            if constant(&enabled[only]) != Some(1.0) {
                self.milp.le(
                    &format!("{name}.prot{only}"),
                    total.clone(),
                    enabled[only].clone(),
                );
            }
            out[only] = total;
            return Ok(out);
        }
        let mut out = Vec::with_capacity(enabled.len());
        for (a, e) in enabled.iter().enumerate() {
            if constant(e) == Some(0.0) {
                out.push(LinExpr::constant(0.0));
                continue;
            }
            let x = self.milp.binary(&format!("{name}.{a}"));
            self.milp.le(&format!("{name}.prot{a}"), x, e.clone());
            out.push(x.into());
        }
        self.milp
            .eq(&format!("{name}.one"), LinExpr::sum(out.clone()), total);
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
                    .eq(&format!("{name}.one"), LinExpr::sum(bits.clone()), 1.0);
                Val::Enum(bits)
            }
            DeclType::Int { .. } => Val::Num(self.milp.integer(name, hull.0, hull.1).into()),
            DeclType::Real { .. } => Val::Num(self.milp.continuous(name, hull.0, hull.1).into()),
        })
    }

    /// The first update case whose guard holds assigns; no case: no change.
    /// With `guard` (a slot's active flag) the range checks count only where it is 1.
    pub(super) fn update(
        &mut self,
        name: &str,
        (cases, decls): (&[UpdateCase], &[VarDecl]),
        old: &[Val],
        ctx: &Ctx,
        guard: Option<&LinExpr>,
    ) -> Result<Vec<Val>, RunError> {
        // fire[j]: case j is the first whose guard holds; the last entry: none holds.
        let guards: Vec<&TExpr> = cases.iter().map(|c| &c.guard).collect();
        let fire = match self.first_match_by_sets(&guards, ctx) {
            Some(fire) => fire,
            None => {
                let mut fire = Vec::new();
                let mut none_before = LinExpr::constant(1.0);
                for c in cases {
                    let g = self.boolean(&c.guard, ctx)?;
                    fire.push(self.milp.and("and", vec![g.clone(), none_before.clone()]));
                    none_before = self.milp.and("and", vec![none_before, not(g)]);
                }
                fire.push(none_before);
                fire
            }
        };
        let mut next = Vec::with_capacity(decls.len());
        for (v, decl) in decls.iter().enumerate() {
            let mut options: Vec<(LinExpr, Val)> = Vec::new();
            // Where each option's value is written (none: the old value kept).
            let mut spans: Vec<Option<crate::lang::Span>> = Vec::new();
            for (j, f) in fire.iter().enumerate() {
                if constant(f) == Some(0.0) {
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
            next.push(self.merge(&var_name, decl, options, &spans, guard)?);
        }
        Ok(next)
    }

    /// The value selected by exactly one of the 0/1 conditions.
    fn merge(
        &mut self,
        name: &str,
        decl: &VarDecl,
        options: Vec<(LinExpr, Val)>,
        spans: &[Option<crate::lang::Span>],
        guard: Option<&LinExpr>,
    ) -> Result<Val, RunError> {
        let numbers = options
            .iter()
            .zip(spans)
            .filter_map(|((c, v), span)| match v {
                Val::Num(x) => Some((c, x, *span)),
                _ => None,
            });
        let found = range_checks(&self.milp, name, decl, numbers, guard);
        self.range_checks.extend(found);
        let first = parts(&options[0].1);
        if options.len() == 1 || options.iter().all(|(_, v)| parts(v) == first) {
            return Ok(options[0].1.clone());
        }
        // The conditions are exclusive and one holds, so a component whose
        // options are all constants is exactly sum_j c_j * cond_j: no
        // binary, no big-M, and a member no option takes is the constant 0
        // (the observation's `if` on it folds away).
        if let Val::Num(_) = options[0].1 {
            self.merge_number(name, decl, &options)
        } else {
            self.merge_members(name, decl, &options)
        }
    }

    /// [`Enc::merge`] of a number: a fresh variable within the options'
    /// hull, equal to the selected option.
    fn merge_number(
        &mut self,
        name: &str,
        decl: &VarDecl,
        options: &[(LinExpr, Val)],
    ) -> Result<Val, RunError> {
        let mut hull = (f64::INFINITY, f64::NEG_INFINITY);
        for (_, v) in options {
            let (l, h) = self
                .milp
                .finite_bounds(&parts(v)[0], &format!("the update of `{}`", decl.name))
                .map_err(milp_error)?;
            hull = (hull.0.min(l), hull.1.max(h));
        }
        let y = self.fresh(name, decl, hull)?;
        let ye = parts(&y).remove(0);
        match constant_parts(options, 0) {
            Some(cs) => self
                .milp
                .eq(&format!("{name}.sum"), ye, sum_of(options, &cs)),
            None => self.select_part(name, options, 0, &ye)?,
        }
        Ok(y)
    }

    /// `y` equals component `i` of the option whose condition holds: one
    /// indicator constraint per option (the conditions are exclusive).
    fn select_part(
        &mut self,
        name: &str,
        options: &[(LinExpr, Val)],
        i: usize,
        y: &LinExpr,
    ) -> Result<(), RunError> {
        for (cond, v) in options {
            let xi = parts(v).remove(i);
            self.milp
                .implies(name, cond, &Linear::eq(y.clone(), xi))
                .map_err(milp_error)?;
        }
        Ok(())
    }

    /// [`Enc::merge`] of a Boolean or enumeration value, member by member
    /// (one 0/1 per member).
    fn merge_members(
        &mut self,
        name: &str,
        decl: &VarDecl,
        options: &[(LinExpr, Val)],
    ) -> Result<Val, RunError> {
        let width = parts(&options[0].1).len();
        let mut ys = Vec::with_capacity(width);
        let mut fresh = false;
        for i in 0..width {
            match constant_parts(options, i) {
                Some(cs) => ys.push(sum_of(options, &cs)),
                None => {
                    fresh = true;
                    let yi: LinExpr = self.milp.binary(&format!("{name}={i}")).into();
                    self.select_part(name, options, i, &yi)?;
                    ys.push(yi);
                }
            }
        }
        if fresh && width > 1 {
            self.milp
                .eq(&format!("{name}.one"), LinExpr::sum(ys.clone()), 1.0);
        }
        Ok(match decl.ty {
            DeclType::Enum { .. } => Val::Enum(ys),
            _ => Val::Bool(ys.remove(0)),
        })
    }

    /// The outputs of the network of an `argmax` leaf at `ctx` (none for
    /// the other observations).
    pub(super) fn leaf_outputs(
        &mut self,
        obs: &Observation,
        ctx: &Ctx,
    ) -> Result<Vec<LinExpr>, RunError> {
        match obs {
            Observation::Argmax { net, inputs, .. } => self.network(*net, inputs, ctx),
            _ => Ok(Vec::new()),
        }
    }

    /// The percept (one-hot) chosen by the observation tree; at `argmax`
    /// leaves any maximal output may be chosen (ties: every maximal percept).
    pub(super) fn observe(
        &mut self,
        obs: &Observation,
        percepts_len: usize,
        ctx: &Ctx,
    ) -> Result<Vec<LinExpr>, RunError> {
        match obs {
            Observation::If(cond, then, otherwise) => {
                let c = self.boolean(cond, ctx)?;
                if let Some(x) = constant(&c) {
                    let branch = if x > 0.5 { then } else { otherwise };
                    return self.observe(branch, percepts_len, ctx);
                }
                let pa = self.observe(then, percepts_len, ctx)?;
                let pb = self.observe(otherwise, percepts_len, ctx)?;
                Ok(self.if_then_else(&c, pa, pb))
            }
            Observation::Argmax { percepts, .. } => {
                let outs = self.leaf_outputs(obs, ctx)?;
                let chosen = self.maximal_outputs(&outs)?;
                let mut out = vec![LinExpr::constant(0.0); percepts_len];
                for (o, c) in chosen.into_iter().enumerate() {
                    out[percepts[o]] = out[percepts[o]].clone() + c;
                }
                Ok(out)
            }
            Observation::Expr(e) => self.enumv(e, ctx),
        }
    }

    /// One-hot choice of a maximal output (ties: any maximal one).
    fn maximal_outputs(&mut self, outs: &[LinExpr]) -> Result<Vec<LinExpr>, RunError> {
        if outs.iter().all(|o| o.is_constant()) {
            // Constant outputs (the f64 evaluation): a choice among the
            // exactly maximal ones only, as the semantics' tie rule.
            let vals: Vec<f64> = outs.iter().map(LinExpr::constant_part).collect();
            let best = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let top: Vec<usize> = (0..vals.len()).filter(|&i| vals[i] == best).collect();
            if top.len() == 1 {
                return Ok(one_hot(top[0], outs.len()));
            }
            let name = self.aux(&format!("{}.tie", self.prefix));
            let mut c = vec![LinExpr::constant(0.0); outs.len()];
            for &i in &top {
                c[i] = self.milp.binary(&format!("{name}.{i}")).into();
            }
            self.milp.eq(&name, LinExpr::sum(c.clone()), 1.0);
            return Ok(c);
        }
        let name = self.aux(&format!("{}.argmax", self.prefix));
        if self.argmax_margin > 0.0 {
            return self
                .milp
                .argmax_strict(&name, outs, self.argmax_margin)
                .map_err(milp_error);
        }
        self.milp.argmax(&name, outs).map_err(milp_error)
    }

    /// Adds the successor of state `from` (one round of Definition 5). With
    /// `zero_one`, the slots of the zero-one agent move too (Definition 13,
    /// [`super::slots`]): their actions are performed as well.
    pub fn round(
        &mut self,
        from: &State,
        tag: &str,
        zero_one: Option<&mut SlotBudget>,
    ) -> Result<(Round, State), RunError> {
        let model = self.model;
        let t = &model.template;
        let mut actions = Vec::with_capacity(from.agents.len());
        for (i, a) in from.agents.iter().enumerate() {
            let slots = self.agent_slots(a, None, None, None);
            let name = format!("{tag}.a{}.act", i + 1);
            actions.push(self.choose_action(&name, (&t.protocol, t.actions.len()), &slots)?);
        }
        let env_slots = self.env_slots_named(&from.env, None, &from.named, None);
        let env_rules = (&model.env.protocol[..], model.env.actions.len());
        let env_name = format!("{tag}.env.act");
        let env_action = match self.env_pins.get(from.depth) {
            Some(&pin) => self.pinned_action(&env_name, env_rules, &env_slots, pin)?,
            None => self.choose_action(&env_name, env_rules, &env_slots)?,
        };
        let named_actions = self.named_actions(&from.named, tag)?;
        let mut budget = zero_one;
        let choices = match budget.as_deref_mut() {
            Some(b) => self.slot_choices(b, &from.zero_one, tag)?,
            None => Vec::new(),
        };
        let mut performed = Vec::with_capacity(t.actions.len());
        for a in 0..t.actions.len() {
            let by: Vec<LinExpr> = actions
                .iter()
                .map(|x| x[a].clone())
                .chain(choices.iter().map(|c| c.action[a].clone()))
                .collect();
            performed.push(self.milp.or("or", by));
        }
        let joint = Joint {
            env_action: &env_action,
            performed: &performed,
            named: &from.named,
            named_actions: &named_actions,
        };
        let env = self.env_update(&from.env, &joint, tag, None)?;
        let named = self.named_successors(&joint, &env, tag, None)?;
        let mut agents = Vec::with_capacity(from.agents.len());
        for (i, a) in from.agents.iter().enumerate() {
            self.prefix = format!("{tag}.a{}", i + 1);
            let name = self.prefix.clone();
            let private = self.agent_update(&name, a, &actions[i], &joint, None)?;
            agents.push(if self.skip_observation {
                AgentState {
                    private,
                    percept: a.percept.clone(),
                }
            } else {
                self.observed(private, a, &env)?
            });
        }
        let slots = match budget {
            Some(_) => self.slot_successors(&from.zero_one, &choices, &joint, &env, tag)?,
            None => Vec::new(),
        };
        Ok((
            Round {
                actions,
                env_action,
                zero_one: choices,
                named: named_actions,
            },
            State {
                agents,
                env,
                zero_one: slots,
                named,
                depth: from.depth + 1,
            },
        ))
    }

    /// The environment's update (Definition 2's tr_e) under the round's joint choices.
    /// With `guard` the range checks count only where it is 1.
    pub(super) fn env_update(
        &mut self,
        env: &[Val],
        joint: &Joint,
        tag: &str,
        guard: Option<&LinExpr>,
    ) -> Result<Vec<Val>, RunError> {
        let model = self.model;
        self.prefix = format!("{tag}.env");
        let slots = self.env_slots_named(
            env,
            Some(joint.env_action),
            joint.named,
            Some(joint.named_actions),
        );
        let ctx = joint.ctx(&slots);
        let rules = (&model.env.update[..], &model.env.vars[..]);
        self.update(&format!("{tag}.env"), rules, env, &ctx, guard)
    }

    /// An agent's private update (Definition 1's tr_t) under its action and
    /// the round's joint choices.
    pub(super) fn agent_update(
        &mut self,
        name: &str,
        a: &AgentState,
        action: &[LinExpr],
        joint: &Joint,
        guard: Option<&LinExpr>,
    ) -> Result<Vec<Val>, RunError> {
        let model = self.model;
        self.update_of(&model.template, name, a, action, joint, guard)
    }

    /// The private update of template `t` (the parameterised one or a named
    /// agent's) under its action and the round's joint choices.
    pub(super) fn update_of(
        &mut self,
        t: &Template,
        name: &str,
        a: &AgentState,
        action: &[LinExpr],
        joint: &Joint,
        guard: Option<&LinExpr>,
    ) -> Result<Vec<Val>, RunError> {
        let slots = self.agent_slots(a, Some(action), Some(joint.env_action), None);
        let ctx = joint.ctx(&slots);
        self.update(name, (&t.update, &t.vars), &a.private, &ctx, guard)
    }

    /// The local state after an update: the new private state and the
    /// percept observed at it and the new environment state.
    pub(super) fn observed(
        &mut self,
        private: Vec<Val>,
        before: &AgentState,
        env: &[Val],
    ) -> Result<AgentState, RunError> {
        let model = self.model;
        self.observed_by(&model.template, private, before, env)
    }

    /// [`Enc::observed`] for template `t` (a named agent's, or the parameterised one).
    pub(super) fn observed_by(
        &mut self,
        t: &Template,
        private: Vec<Val>,
        before: &AgentState,
        env: &[Val],
    ) -> Result<AgentState, RunError> {
        let inter = AgentState {
            private,
            percept: before.percept.clone(),
        };
        let slots = self.agent_slots(&inter, None, None, Some(env));
        let ctx = Ctx::of(&slots);
        let percept = self.observe(&t.observe, t.percepts.len(), &ctx)?;
        Ok(AgentState {
            private: inter.private,
            percept,
        })
    }
}

/// A value as its 0/1 or numeric components (one per enumeration member).
fn parts(v: &Val) -> Vec<LinExpr> {
    match v {
        Val::Num(x) | Val::Bool(x) => vec![x.clone()],
        Val::Enum(xs) => xs.clone(),
    }
}

/// Component `i` of every option, if all of them are constants.
fn constant_parts(options: &[(LinExpr, Val)], i: usize) -> Option<Vec<f64>> {
    options
        .iter()
        .map(|(_, v)| constant(&parts(v)[i]))
        .collect()
}

/// sum_j cs\[j\] * cond_j over the options' exclusive conditions.
fn sum_of(options: &[(LinExpr, Val)], cs: &[f64]) -> LinExpr {
    let mut e = LinExpr::constant(0.0);
    for ((cond, _), &c) in options.iter().zip(cs) {
        if c != 0.0 {
            e += cond.clone() * c;
        }
    }
    e
}
