//! The concrete system S(n1, n2, ...) of Definitions 6-8: one local state per
//! agent and one for the environment, packed into words.

use super::local::{Dist, LocalSpace, LocalSystem};
use crate::lang::Rat;
use crate::swarm::decide::mdp::{Semantics, Successors};
use crate::swarm::front::model::{GlobalVar, Model};
use crate::swarm::front::syntax::ActionType;
use num_traits::One;

/// Bit fields of a packed state.
#[derive(Clone, Debug, Default)]
pub struct Packer {
    fields: Vec<(usize, u32, u32)>,
    pub words: usize,
}

pub fn bits_for(values: usize) -> u32 {
    (usize::BITS - values.saturating_sub(1).leading_zeros()).max(1)
}

impl Packer {
    /// Adds a field holding values below `values`; returns its index.
    pub fn field(&mut self, values: usize) -> usize {
        let bits = bits_for(values);
        let (mut word, mut shift) = match self.fields.last() {
            Some(&(w, s, b)) => (w, s + b),
            None => (0, 0),
        };
        if shift + bits > 64 {
            word += 1;
            shift = 0;
        }
        self.fields.push((word, shift, bits));
        self.words = word + 1;
        self.fields.len() - 1
    }

    pub fn fields_len(&self) -> usize {
        self.fields.len()
    }

    pub fn get(&self, state: &[u64], f: usize) -> u32 {
        let (w, s, b) = self.fields[f];
        ((state[w] >> s) & ((1u64 << b) - 1)) as u32
    }

    pub fn set(&self, state: &mut [u64], f: usize, v: u32) {
        let (w, s, b) = self.fields[f];
        let mask = ((1u64 << b) - 1) << s;
        state[w] = (state[w] & !mask) | ((v as u64) << s);
    }
}

/// The fields of the agents of each template (`counts[t]` of template t,
/// template 0 first), then the environment's: the layout of S(n) and of the
/// counting abstraction's concrete agents. Returns the packer and each
/// agent's template.
pub(super) fn agent_fields(sys: &LocalSystem, counts: &[usize]) -> (Packer, Vec<usize>) {
    let mut packer = Packer::default();
    let mut template_of = Vec::new();
    for (t, &n) in counts.iter().enumerate() {
        for _ in 0..n {
            packer.field(sys.agents[t].states.len());
            template_of.push(t);
        }
    }
    packer.field(sys.env.states.len());
    (packer, template_of)
}

/// The concrete agents of a packed state as laid out by [`agent_fields`]
/// (agent k in field k, the environment in the field after the last
/// agent): their moves are shared by S(n) and the counting abstraction.
pub(super) struct AgentFields<'a> {
    pub model: &'a Model,
    pub sys: &'a LocalSystem,
    pub packer: &'a Packer,
    /// The number of agents of each template.
    pub counts: &'a [usize],
    pub template_of: &'a [usize],
}

impl AgentFields<'_> {
    /// Definition 7's choices of one agent: an asynchronous action alone, or
    /// an agent-environment action with the environment's first matching
    /// update; one choice each, labelled by the agent and the action.
    pub fn agent_choices(&self, state: &[u64], exact: bool, out: &mut Successors) {
        let n = self.template_of.len();
        let na = self.model.actions.len();
        let env = &self.sys.env;
        let e = self.packer.get(state, n);
        for (k, &t) in self.template_of.iter().enumerate() {
            let sp = &self.sys.agents[t];
            let s = self.packer.get(state, k);
            for mv in &sp.moves[s as usize] {
                let d = &sp.dists[mv.dist as usize];
                match self.model.actions[mv.action].ty {
                    ActionType::Asynchronous => product(self.packer, state, &[(k, d)], exact, out),
                    ActionType::AgentEnvironment => match env.first(e, mv.action) {
                        Some(de) => product(
                            self.packer,
                            state,
                            &[(k, d), (n, &env.dists[de as usize])],
                            exact,
                            out,
                        ),
                        None => continue,
                    },
                    ActionType::GlobalSynchronous => continue,
                }
                out.end_choice(label(k, mv.action, na));
            }
        }
    }

    /// Values of the referenced variables (the agents' and the
    /// environment's) in a packed state.
    pub fn observe(&self, state: &[u64], refs: &[GlobalVar], out: &mut Vec<f64>) {
        let env = &self.sys.env.states[self.packer.get(state, self.template_of.len()) as usize];
        out.clear();
        for r in refs {
            out.push(match *r {
                GlobalVar::Agent {
                    template,
                    agent,
                    var,
                } => {
                    assert!(agent < self.counts[template], "checked before exploring");
                    let k = self.counts[..template].iter().sum::<usize>() + agent;
                    self.sys.agents[template].states[self.packer.get(state, k) as usize][var] as f64
                }
                GlobalVar::Env { var } => env[var] as f64,
                GlobalVar::Starting => {
                    let m = self.model.mode_var().expect("Definition 15 on");
                    f64::from(u8::from(env[m] == 1))
                }
            });
        }
    }

    /// The environment's asynchronous actions, one choice each.
    pub fn environment_choices(&self, state: &[u64], exact: bool, out: &mut Successors) {
        let n = self.template_of.len();
        let na = self.model.actions.len();
        let env = &self.sys.env;
        let e = self.packer.get(state, n);
        for mv in &env.moves[e as usize] {
            if self.model.actions[mv.action].ty == ActionType::Asynchronous {
                let d = &env.dists[mv.dist as usize];
                product(self.packer, state, &[(n, d)], exact, out);
                out.end_choice(label(n, mv.action, na));
            }
        }
    }
}

/// Encodes a choice label: who moved and by which action.
pub fn label(actor: usize, action: usize, actions: usize) -> u32 {
    (actor * actions + action) as u32
}

/// The successors of `base` under independent local distributions `parts`
/// (field, distribution): their product, each combination once with the
/// product of its probabilities (and exactly, with `exact`). Stops when
/// `out` overflows. Shared by the concrete and the counting semantics.
pub(super) fn product(
    packer: &Packer,
    base: &[u64],
    parts: &[(usize, &Dist)],
    exact: bool,
    out: &mut Successors,
) {
    // Enumerate the product of independent local distributions.
    let mut idx = vec![0usize; parts.len()];
    let mut state = base.to_vec();
    loop {
        let mut p = 1.0;
        let mut q = exact.then(Rat::one);
        for (i, (field, d)) in parts.iter().enumerate() {
            packer.set(&mut state, *field, d.targets[idx[i]]);
            p *= d.probs[idx[i]];
            if let Some(q) = &mut q {
                *q *= &d.exact[idx[i]];
            }
        }
        out.entry(&state, p, q);
        if out.overflow {
            // Too many successors to hold: exploration stops on this.
            return;
        }
        let mut i = 0;
        loop {
            if i == parts.len() {
                return;
            }
            idx[i] += 1;
            if idx[i] < parts[i].1.targets.len() {
                break;
            }
            idx[i] = 0;
            i += 1;
        }
    }
}

/// The label of the self-loop added to states without enabled actions.
pub const DEADLOCK: u32 = u32::MAX;

/// S(n1, ..., nk) for a model.
pub struct Concrete<'a> {
    pub model: &'a Model,
    pub sys: &'a LocalSystem,
    pub counts: Vec<usize>,
    /// Template of each agent, agents of template 0 first.
    pub template_of: Vec<usize>,
    pub packer: Packer,
}

impl<'a> Concrete<'a> {
    pub fn new(model: &'a Model, sys: &'a LocalSystem, counts: &[usize]) -> Self {
        let (packer, template_of) = agent_fields(sys, counts);
        Concrete {
            model,
            sys,
            counts: counts.to_vec(),
            template_of,
            packer,
        }
    }

    pub fn agents(&self) -> usize {
        self.template_of.len()
    }

    pub fn env_local(&self, state: &[u64]) -> u32 {
        self.packer.get(state, self.agents())
    }

    fn space(&self, k: usize) -> &LocalSpace {
        &self.sys.agents[self.template_of[k]]
    }

    /// Global index of agent `agent` (0-based) of template `template`.
    pub fn agent_index(&self, template: usize, agent: usize) -> Option<usize> {
        if agent >= *self.counts.get(template)? {
            return None;
        }
        Some(self.counts[..template].iter().sum::<usize>() + agent)
    }

    /// Who performed a labelled choice, and the action, for witness tables.
    pub fn describe_label(&self, l: u32) -> String {
        if l == DEADLOCK {
            return "(no action enabled: stays)".into();
        }
        let a = self.model.actions.len();
        let (actor, action) = (l as usize / a, l as usize % a);
        let name = match self.model.actions[action].name.as_str() {
            "" => "[]",
            n => n,
        };
        let n = self.agents();
        let who = if actor < n {
            let t = self.template_of[actor];
            let j = actor - self.counts[..t].iter().sum::<usize>();
            format!("{} {}", self.model.templates[t].name, j + 1)
        } else if actor == n {
            "environment".to_string()
        } else {
            "all".to_string()
        };
        format!("{who}: {name}")
    }

    /// One cell per agent and one for the environment.
    pub fn describe_state(&self, state: &[u64]) -> Vec<String> {
        let mut out: Vec<String> = (0..self.agents())
            .map(|k| {
                let t = self.template_of[k];
                super::local::describe(
                    &self.model.templates[t],
                    &self.space(k).states[self.packer.get(state, k) as usize],
                )
            })
            .collect();
        out.push(super::local::describe(
            &self.model.env,
            &self.sys.env.states[self.env_local(state) as usize],
        ));
        out
    }

    pub fn columns(&self) -> Vec<String> {
        let mut out: Vec<String> = (0..self.agents())
            .map(|k| {
                let t = self.template_of[k];
                let j = k - self.counts[..t].iter().sum::<usize>();
                format!("{} {}", self.model.templates[t].name, j + 1)
            })
            .collect();
        out.push(self.model.env.name.clone());
        out
    }
}

impl Semantics for Concrete<'_> {
    fn words(&self) -> usize {
        self.packer.words
    }

    fn initial_states(&self) -> Vec<Vec<u64>> {
        // Local state 0 is each template's initial state.
        vec![vec![0u64; self.packer.words]]
    }

    fn successors(&self, state: &[u64], exact: bool, out: &mut Successors) {
        let n = self.agents();
        let na = self.model.actions.len();
        let env = &self.sys.env;
        let e = self.env_local(state);
        let fields = self.fields();
        fields.agent_choices(state, exact, out);
        fields.environment_choices(state, exact, out);
        for (a, act) in self.model.actions.iter().enumerate() {
            if act.ty != ActionType::GlobalSynchronous {
                continue;
            }
            let Some(de) = env.first(e, a) else { continue };
            let mut parts = Vec::with_capacity(n + 1);
            for k in 0..n {
                let sp = self.space(k);
                match sp.first(self.packer.get(state, k), a) {
                    Some(d) => parts.push((k, &sp.dists[d as usize])),
                    None => break,
                }
            }
            if parts.len() < n {
                continue;
            }
            parts.push((n, &env.dists[de as usize]));
            product(&self.packer, state, &parts, exact, out);
            out.end_choice(label(n + 1, a, na));
        }
        if out.choices() == 0 {
            out.entry(state, 1.0, exact.then(Rat::one));
            out.end_choice(DEADLOCK);
        }
    }
}

impl Concrete<'_> {
    /// Values of the referenced variables in a packed state.
    pub fn observe(&self, state: &[u64], refs: &[GlobalVar], out: &mut Vec<f64>) {
        self.fields().observe(state, refs, out)
    }

    fn fields(&self) -> AgentFields<'_> {
        AgentFields {
            model: self.model,
            sys: self.sys,
            packer: &self.packer,
            counts: &self.counts,
            template_of: &self.template_of,
        }
    }
}
