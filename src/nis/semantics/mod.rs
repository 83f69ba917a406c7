//! The semantics of NIS (Definitions 1-6 of Kouvaros et al.; the zero-one
//! abstraction, Definitions 12 and 13), below every decider: the
//! template's and environment's functions on finite states, evaluated
//! exactly and cached (here, with protocols and transitions in [`step`],
//! observation in [`observation`], labels in [`labels`], named agents in
//! [`named`]); the same functions in f64 with tolerance-aware truth for
//! real-valued models ([`real`], [`real_named`], [`real_truth`]); the systems
//! the explicit deciders search, S(n) ([`concrete`]) and S_ab(m)
//! ([`abstraction`], its steps by outcome in [`zero_one_step`]) behind one
//! interface ([`system`]); and M(0) as a game of the named agents ([`game`]).
//!
//! Local states are numbered by a mixed-radix code over the template's
//! finite local-state space L_t = Prv_t x Per_t, so abstract states (sets of
//! local states) are bitsets over these numbers. Named agents are part of
//! the environment's state and action.

use crate::lang::{error_at, num, DeclType, SourceError, Value};
use crate::nis::front::model::{InitSpec, Model, Template};
use crate::report::Deadline;
use num_bigint::BigInt;
use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

pub mod abstraction;
pub mod concrete;
mod exact;
pub mod game;
mod labels;
pub mod named;
mod observation;
pub mod real;
pub mod real_box;
pub mod real_named;
pub mod real_sim;
pub mod real_truth;
pub mod rules;
mod step;
pub mod system;
pub mod zero_one_step;

/// A template local state by number (see [`LocalSpace`]).
pub type LocalId = u32;
/// An environment state by number (interned on first sight).
pub type EnvId = u32;
/// A set of actions as bits.
pub type ActionMask = u64;

/// Errors of evaluation are located in the model.
pub type SemResult<T> = Result<T, Box<SourceError>>;

/// Numbering of the template's finite local states: private variables in
/// declaration order, then the percept, as a mixed-radix number.
#[derive(Clone, Debug)]
pub struct LocalSpace {
    /// (lowest code, number of values) per private variable, then the percepts.
    pub digits: Vec<(i64, u64)>,
    pub size: u64,
}

/// Explicit search refuses local-state spaces beyond this many states.
pub const MAX_LOCAL_STATES: u64 = 1 << 22;

impl LocalSpace {
    pub fn new(template: &Template) -> Result<Self, String> {
        let mut digits = Vec::new();
        for v in &template.vars {
            let (lo, hi) = v
                .finite_domain()
                .ok_or_else(|| format!("`{}` has no finite domain", v.name))?;
            // In i128: a range such as [-2^63..2^63-1] has 2^64 values, which
            // neither i64 nor u64 holds (it wrapped to 0, then `% 0` panicked).
            let values = i128::from(hi) - i128::from(lo) + 1;
            let values = u64::try_from(values)
                .ok()
                .filter(|n| (1..=MAX_LOCAL_STATES).contains(n))
                .ok_or_else(|| {
                    format!(
                        "`{}` takes {values} values, more than the {MAX_LOCAL_STATES} local states explicit search allows",
                        v.name
                    )
                })?;
            digits.push((lo, values));
        }
        digits.push((0, template.percepts.len() as u64));
        let mut size: u64 = 1;
        for &(_, n) in &digits {
            size = size.checked_mul(n).filter(|s| *s <= MAX_LOCAL_STATES).ok_or_else(|| {
                format!("the template has more than {MAX_LOCAL_STATES} local states; too many for explicit search")
            })?;
        }
        Ok(LocalSpace { digits, size })
    }

    pub fn encode(&self, codes: &[i64]) -> LocalId {
        let mut id: u64 = 0;
        for (&c, &(lo, n)) in codes.iter().zip(&self.digits) {
            id = id * n + (c - lo) as u64;
        }
        id as LocalId
    }

    pub fn decode(&self, id: LocalId) -> Vec<i64> {
        let mut rest = id as u64;
        let mut out = vec![0; self.digits.len()];
        for (i, &(lo, n)) in self.digits.iter().enumerate().rev() {
            out[i] = lo + (rest % n) as i64;
            rest /= n;
        }
        out
    }
}

/// The value a code stands for in a declared type.
pub fn code_value(ty: &DeclType, code: i64) -> Value {
    match ty {
        DeclType::Bool => Value::Bool(code != 0),
        DeclType::Enum { id, .. } => Value::Enum(*id, code as usize),
        _ => Value::Num(num::int(code)),
    }
}

/// The code of a value of a finite type (None when it is not an integer).
pub fn value_code(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Enum(_, i) => Some(*i as i64),
        Value::Num(r) => num::to_i64(r),
    }
}

/// Exact, cached evaluation of the model's functions on finite states.
pub struct Semantics<'m> {
    pub model: &'m Model,
    /// The template whose local states `space` numbers: the parameterised
    /// one, or a named agent's in that agent's own semantics.
    pub template: &'m Template,
    pub space: LocalSpace,
    /// Each named agent's own semantics (protocol, update, observation).
    named: Vec<Semantics<'m>>,
    env_states: Vec<Vec<i64>>,
    env_index: HashMap<Vec<i64>, EnvId>,
    net_cache: HashMap<(usize, Vec<u64>), Vec<f64>>,
    protocol_cache: HashMap<LocalId, ActionMask>,
    env_protocol_cache: HashMap<EnvId, ActionMask>,
    tr_cache: HashMap<(LocalId, u8, ActionMask, u8), Vec<i64>>,
    env_tr_cache: HashMap<(EnvId, u8, ActionMask), Rc<[EnvId]>>,
    obs_cache: HashMap<(LocalId, EnvId), u64>,
    label_cache: HashMap<LocalId, u64>,
    /// The environment labels by [`EnvId`] (ids are dense), once computed.
    env_label_cache: Vec<Option<u64>>,
    /// Distinct network inputs evaluated so far.
    pub network_evaluations: usize,
    /// The run's deadline, checked inside one state's expansion (a state of
    /// M(20) has millions of joint moves, issue 33 item 6); set by
    /// `Graph::with_deadline`.
    deadline: Deadline,
}

impl<'m> Semantics<'m> {
    /// Fails (with the reason) when the model is not finite.
    pub fn new(model: &'m Model) -> Result<Self, String> {
        if let Some(why) = model.explicit_obstacle() {
            return Err(why);
        }
        let templates =
            std::iter::once(&model.template).chain(model.named.iter().map(|a| &a.template));
        if templates
            .into_iter()
            .any(|t| t.actions.len() > 64 || t.percepts.len() > 64)
            || model.joint_env_actions() > 64
        {
            return Err("explicit search supports at most 64 actions and 64 percepts (and 64 joint actions of the environment and the named agents)".into());
        }
        if model.labels.len() > 64 {
            return Err("explicit search supports at most 64 labels".into());
        }
        let mut sem = Self::of_template(model, &model.template)?;
        for a in &model.named {
            sem.named.push(Self::of_template(model, &a.template)?);
        }
        Ok(sem)
    }

    /// The semantics of one template (no named agents of its own).
    fn of_template(model: &'m Model, template: &'m Template) -> Result<Self, String> {
        Ok(Semantics {
            model,
            template,
            space: LocalSpace::new(template)?,
            named: Vec::new(),
            env_states: Vec::new(),
            env_index: HashMap::default(),
            net_cache: HashMap::default(),
            protocol_cache: HashMap::default(),
            env_protocol_cache: HashMap::default(),
            tr_cache: HashMap::default(),
            env_tr_cache: HashMap::default(),
            obs_cache: HashMap::default(),
            label_cache: HashMap::default(),
            env_label_cache: Vec::new(),
            network_evaluations: 0,
            deadline: Deadline::NONE,
        })
    }

    /// Past `deadline` an expansion stops early; its successors are then
    /// incomplete, and whoever set it discards them (see
    /// `Graph::successors`).
    pub fn set_deadline(&mut self, deadline: Deadline) {
        self.deadline = deadline;
    }

    pub fn deadline(&self) -> Deadline {
        self.deadline
    }

    pub fn env_id(&mut self, codes: Vec<i64>) -> EnvId {
        if let Some(&id) = self.env_index.get(&codes) {
            return id;
        }
        let id = self.env_states.len() as EnvId;
        self.env_states.push(codes.clone());
        self.env_index.insert(codes, id);
        id
    }

    pub fn env_codes(&self, id: EnvId) -> &[i64] {
        &self.env_states[id as usize]
    }

    /// iota_t's private state with the given initial percept (percept 0
    /// when the first percept is observed: the observation does not read it).
    fn initial_private(&self) -> LocalId {
        let t = self.template;
        let mut codes: Vec<i64> = t.init.iter().map(|v| value_code(v).unwrap_or(0)).collect();
        codes.push(t.init_percept.given().unwrap_or(0) as i64);
        self.space.encode(&codes)
    }

    /// The local states an agent may start in with the environment at `env`:
    /// iota_t, or with `percept = observe` iota_t's private state with each
    /// percept obs_t gives there (several on a tie).
    pub fn initial_locals(&mut self, env: EnvId) -> SemResult<Vec<LocalId>> {
        let l = self.initial_private();
        if self.template.init_percept.given().is_some() {
            return Ok(vec![l]);
        }
        let mask = self.observe(l, env)?;
        let prv = self.space.decode(l);
        let prv = &prv[..prv.len() - 1];
        Ok(bits(mask).map(|p| self.with_percept(prv, p)).collect())
    }

    /// The environment's initial states I_e (a finite product, filtered by `init`).
    pub fn initial_envs(&mut self) -> SemResult<Vec<EnvId>> {
        let model = self.model;
        let env = &model.env;
        let mut combos: Vec<Vec<i64>> = vec![Vec::new()];
        for spec in &env.init {
            let values: Vec<i64> = match spec {
                InitSpec::Point(v) => vec![value_code(v).unwrap_or(0)],
                InitSpec::List(vs) => vs.iter().map(|v| value_code(v).unwrap_or(0)).collect(),
                InitSpec::Range(lo, hi) => {
                    let (lo, hi) = (
                        num::to_i64(&lo.ceil()).unwrap_or(0),
                        num::to_i64(&hi.floor()).unwrap_or(0),
                    );
                    (lo..=hi).collect()
                }
            };
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    values.iter().map(move |&v| {
                        let mut c = c.clone();
                        c.push(v);
                        c
                    })
                })
                .collect();
        }
        let mut out = Vec::new();
        let mut full = Vec::new();
        for c in combos {
            full.extend(self.with_named_initials(c)?);
        }
        for c in full {
            if let Some(filter) = &env.init_filter {
                let slots = self.env_slots(&c, 0);
                if !self.eval_bool(filter, slots, 0, 0)? {
                    continue;
                }
            }
            let id = self.env_id(c);
            if !out.contains(&id) {
                out.push(id);
            }
        }
        if out.is_empty() {
            return Err(error_at(
                &self.model.source,
                crate::lang::Span::default(),
                "the environment has no initial state",
            ));
        }
        Ok(out)
    }

    /// Slots of an agent expression: private state, percept, action, env action, env variables.
    fn agent_slots(
        &self,
        local: &[i64],
        action: usize,
        env_action: usize,
        env: Option<&[i64]>,
    ) -> Vec<Value> {
        let t = self.template;
        let mut slots: Vec<Value> = local
            .iter()
            .zip(&t.vars)
            .map(|(&c, v)| code_value(&v.ty, c))
            .collect();
        slots.push(Value::Enum(t.percept_enum, local[t.vars.len()] as usize));
        slots.push(Value::Enum(t.action_enum, action));
        slots.push(Value::Enum(self.model.env.action_enum, env_action));
        if let Some(env) = env {
            for (&c, v) in env.iter().zip(&self.model.env.vars) {
                slots.push(code_value(&v.ty, c));
            }
        }
        slots
    }

    /// The local state (prv, per) as a number.
    pub fn with_percept(&self, prv: &[i64], percept: usize) -> LocalId {
        let mut codes = prv.to_vec();
        codes.push(percept as i64);
        self.space.encode(&codes)
    }

    pub fn percept_of(&self, l: LocalId) -> usize {
        *self.space.decode(l).last().unwrap_or(&0) as usize
    }

    /// `h=3 volunteer`.
    pub fn describe_local(&self, l: LocalId) -> String {
        let codes = self.space.decode(l);
        let t = self.template;
        let mut parts: Vec<String> = t
            .vars
            .iter()
            .zip(&codes)
            .map(|(v, &c)| format!("{}={}", v.name, show_code(&v.ty, c)))
            .collect();
        parts.push(t.percepts[codes[t.vars.len()] as usize].clone());
        parts.join(" ")
    }

    /// `t=1`, with named agents `t=1 | ownship: v=2 COC`.
    pub fn describe_env(&self, e: EnvId) -> String {
        let env = &self.model.env;
        let mut parts: Vec<String> = env
            .vars
            .iter()
            .zip(self.env_codes(e))
            .map(|(v, &c)| format!("{}={}", v.name, show_code(&v.ty, c)))
            .collect();
        if parts.is_empty() {
            parts.push("-".into());
        }
        for (j, a) in self.model.named.iter().enumerate() {
            let local = self.named[j].describe_local(self.named_local(e, j));
            parts.push(format!("| {}: {local}", a.name));
        }
        parts.join(" ")
    }

    /// Counts of distinct inputs the networks were evaluated on (the named
    /// agents' own semantics included).
    pub fn cache_sizes(&self) -> usize {
        let named: usize = self.named.iter().map(Semantics::cache_sizes).sum();
        self.net_cache.len() + named
    }
}

/// A code as the user wrote it: `true`, `volunteer`, `3`.
pub fn show_code(ty: &DeclType, code: i64) -> String {
    match ty {
        DeclType::Bool => (code != 0).to_string(),
        DeclType::Enum { values, .. } => values
            .get(code as usize)
            .cloned()
            .unwrap_or_else(|| code.to_string()),
        _ => BigInt::from(code).to_string(),
    }
}

/// Iterates the bits of a mask, lowest first.
pub fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let i = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(i)
    })
}
