//! The parameterised abstraction: the agents the property names stay
//! concrete; the others are counted per local state exactly below a
//! threshold t and as "t or more" beyond. t = 1 is the set abstraction
//! (which local states are occupied): a move out of an occupied state has an
//! "it stays occupied" and an "it empties" variant. Every concrete size is
//! simulated, so Pmax bounds sup over n and Pmin bounds inf over n. With
//! initial counts 1..h and t = h + 1 nothing saturates and the model is the
//! exact symmetry quotient of S(1..h) (the cutoff; see docs/swarm.md).

use super::concrete::{AgentFields, Packer, DEADLOCK};
use super::local::{Dist, LocalSystem};
use crate::lang::Rat;
use crate::swarm::decide::mdp::{Semantics, Successors};
use crate::swarm::front::model::{GlobalVar, Model};
use crate::swarm::front::syntax::ActionType;
use num_traits::One;

/// Choice labels of abstract moves have this bit set.
const ABSTRACT: u32 = 1 << 31;

pub struct Counting<'a> {
    pub model: &'a Model,
    pub sys: &'a LocalSystem,
    /// Concrete agents per template (those the property names).
    pub concrete: Vec<usize>,
    /// Counts run over 0..=t, t meaning "t or more".
    pub t: u32,
    /// Initial count of each template's initial local state (one list per template).
    pub init_counts: Vec<Vec<u32>>,
    packer: Packer,
    template_of: Vec<usize>,
    /// First count field of each template.
    count_field: Vec<usize>,
    max_local: usize,
}

impl<'a> Counting<'a> {
    pub fn new(
        model: &'a Model,
        sys: &'a LocalSystem,
        concrete: &[usize],
        t: u32,
        init_counts: Vec<Vec<u32>>,
    ) -> Self {
        let (mut packer, template_of) = super::concrete::agent_fields(sys, concrete);
        let mut count_field = Vec::new();
        for sp in &sys.agents {
            count_field.push(packer.fields_len());
            for _ in 0..sp.states.len() {
                packer.field(t as usize + 1);
            }
        }
        let max_local = sys.agents.iter().map(|a| a.states.len()).max().unwrap_or(1);
        Counting {
            model,
            sys,
            concrete: concrete.to_vec(),
            t,
            init_counts,
            packer,
            template_of,
            count_field,
            max_local,
        }
    }

    fn n_conc(&self) -> usize {
        self.template_of.len()
    }

    fn env_local(&self, state: &[u64]) -> u32 {
        self.packer.get(state, self.n_conc())
    }

    fn count(&self, state: &[u64], template: usize, s: usize) -> u32 {
        self.packer.get(state, self.count_field[template] + s)
    }

    fn set_count(&self, state: &mut [u64], template: usize, s: usize, c: u32) {
        self.packer.set(state, self.count_field[template] + s, c)
    }

    fn inc(&self, c: u32, by: u32) -> u32 {
        (c + by).min(self.t)
    }

    /// Entries for: abstract agent of `template` leaving `s` (count already
    /// set in `base`) by `d`, optionally with the environment moving by `de`.
    fn abstract_move(
        &self,
        base: &[u64],
        template: usize,
        d: &Dist,
        env: Option<&Dist>,
        exact: bool,
        out: &mut Successors,
    ) {
        let n = self.n_conc();
        let mut state = base.to_vec();
        let env_outcomes: Vec<(Option<u32>, f64, Option<Rat>)> = match env {
            None => vec![(None, 1.0, exact.then(Rat::one))],
            Some(de) => (0..de.targets.len())
                .map(|j| {
                    (
                        Some(de.targets[j]),
                        de.probs[j],
                        exact.then(|| de.exact[j].clone()),
                    )
                })
                .collect(),
        };
        for i in 0..d.targets.len() {
            let t = d.targets[i] as usize;
            for (e, pe, qe) in &env_outcomes {
                state.copy_from_slice(base);
                let c = self.count(&state, template, t);
                self.set_count(&mut state, template, t, self.inc(c, 1));
                if let Some(e) = e {
                    self.packer.set(&mut state, n, *e);
                }
                let q = qe.as_ref().map(|q| q * &d.exact[i]);
                out.entry(&state, d.probs[i] * pe, q);
            }
        }
    }

    fn describe_local(&self, template: usize, s: usize) -> String {
        super::local::describe(
            &self.model.templates[template],
            &self.sys.agents[template].states[s],
        )
    }

    pub fn describe_label(&self, l: u32) -> String {
        if l == DEADLOCK {
            return "(no action enabled: stays)".into();
        }
        let na = self.model.actions.len() as u32;
        let name = |a: u32| match self.model.actions[a as usize].name.as_str() {
            "" => "[]".to_string(),
            x => x.to_string(),
        };
        if l & ABSTRACT != 0 {
            let l = l & !ABSTRACT;
            let action = l % na;
            let rest = l / na;
            let variant = rest % 2;
            let rest = rest / 2;
            let template = rest as usize % self.model.templates.len();
            let s = rest as usize / self.model.templates.len();
            let how = if variant == 0 {
                "others stay"
            } else {
                "it was the last"
            };
            return format!(
                "a {} in ({}), {how}: {}",
                self.model.templates[template].name,
                self.describe_local(template, s),
                name(action)
            );
        }
        let (actor, action) = ((l / na) as usize, l % na);
        let who = if actor < self.n_conc() {
            format!(
                "{} {} (concrete)",
                self.model.templates[self.template_of[actor]].name,
                actor + 1
            )
        } else if actor == self.n_conc() {
            "environment".into()
        } else {
            "all".into()
        };
        format!("{who}: {}", name(action))
    }

    pub fn columns(&self) -> Vec<String> {
        let mut out: Vec<String> = (0..self.n_conc())
            .map(|k| {
                format!(
                    "{} {}",
                    self.model.templates[self.template_of[k]].name,
                    k + 1
                )
            })
            .collect();
        out.push(self.model.env.name.clone());
        for t in &self.model.templates {
            out.push(format!("{} (counted)", t.name));
        }
        out
    }

    pub fn describe_state(&self, state: &[u64]) -> Vec<String> {
        let mut out: Vec<String> = (0..self.n_conc())
            .map(|k| self.describe_local(self.template_of[k], self.packer.get(state, k) as usize))
            .collect();
        out.push(super::local::describe(
            &self.model.env,
            &self.sys.env.states[self.env_local(state) as usize],
        ));
        for (i, sp) in self.sys.agents.iter().enumerate() {
            let parts: Vec<String> = (0..sp.states.len())
                .filter_map(|s| {
                    let c = self.count(state, i, s);
                    (c > 0).then(|| {
                        let n = if c == self.t {
                            format!(">={c}")
                        } else {
                            c.to_string()
                        };
                        format!("{n}x({})", self.describe_local(i, s))
                    })
                })
                .collect();
            out.push(parts.join("; "));
        }
        out
    }

    /// Values of the referenced variables (concrete agents and environment).
    pub fn observe(&self, state: &[u64], refs: &[GlobalVar], out: &mut Vec<f64>) {
        self.concrete_fields().observe(state, refs, out)
    }

    fn abstract_label(&self, template: usize, s: usize, variant: u32, action: usize) -> u32 {
        let nt = self.model.templates.len() as u32;
        let na = self.model.actions.len() as u32;
        ABSTRACT | ((((s as u32) * nt + template as u32) * 2 + variant) * na + action as u32)
    }

    /// Whether every abstract move can be labelled in 31 bits.
    pub fn labels_fit(&self) -> bool {
        (self.max_local as u64)
            * (self.model.templates.len() as u64)
            * 2
            * (self.model.actions.len() as u64)
            < (1u64 << 31)
    }
}

impl Semantics for Counting<'_> {
    fn words(&self) -> usize {
        self.packer.words
    }

    fn initial_states(&self) -> Vec<Vec<u64>> {
        let mut out = vec![vec![0u64; self.packer.words]];
        for (i, counts) in self.init_counts.iter().enumerate() {
            let mut next = Vec::new();
            for s in &out {
                for &c in counts {
                    let mut s = s.clone();
                    self.set_count(&mut s, i, 0, c);
                    next.push(s);
                }
            }
            out = next;
        }
        out
    }

    fn successors(&self, state: &[u64], exact: bool, out: &mut Successors) {
        let mut base = state.to_vec();
        let fields = self.concrete_fields();
        fields.agent_choices(state, exact, out);
        self.counted_moves(state, &mut base, exact, out);
        fields.environment_choices(state, exact, out);
        self.global_synchronous(state, exact, out);
        if out.choices() == 0 {
            out.entry(state, 1.0, exact.then(Rat::one));
            out.end_choice(DEADLOCK);
        }
    }
}

impl Counting<'_> {
    /// The concrete agents' part of a state, laid out as in S(n).
    fn concrete_fields(&self) -> AgentFields<'_> {
        AgentFields {
            model: self.model,
            sys: self.sys,
            packer: &self.packer,
            counts: &self.concrete,
            template_of: &self.template_of,
        }
    }

    /// The moves of the counted agents: one per occupied local state and
    /// variant (`base`: scratch space of a state's size).
    fn counted_moves(&self, state: &[u64], base: &mut [u64], exact: bool, out: &mut Successors) {
        let env = &self.sys.env;
        let e = self.env_local(state);
        let ty = |a: usize| self.model.actions[a].ty;
        for (i, sp) in self.sys.agents.iter().enumerate() {
            for s in 0..sp.states.len() {
                let c = self.count(state, i, s);
                if c == 0 {
                    continue;
                }
                let variants: &[(u32, u32)] = if c == self.t {
                    &[(self.t, 0), (self.t - 1, 1)]
                } else {
                    &[(c - 1, 1)]
                };
                for mv in &sp.moves[s] {
                    let d = &sp.dists[mv.dist as usize];
                    let de = match ty(mv.action) {
                        ActionType::Asynchronous => None,
                        ActionType::AgentEnvironment => match env.first(e, mv.action) {
                            Some(de) => Some(&env.dists[de as usize]),
                            None => continue,
                        },
                        ActionType::GlobalSynchronous => continue,
                    };
                    for &(left, variant) in variants {
                        base.copy_from_slice(state);
                        self.set_count(base, i, s, left);
                        self.abstract_move(base, i, d, de, exact, out);
                        out.end_choice(self.abstract_label(i, s, variant, mv.action));
                    }
                }
            }
        }
    }
}

impl Counting<'_> {
    /// Global-synchronous actions move everyone; counted agents need a
    /// deterministic first command (checked by [`check_deterministic`]).
    fn global_synchronous(&self, state: &[u64], exact: bool, out: &mut Successors) {
        let n = self.n_conc();
        let na = self.model.actions.len();
        let env = &self.sys.env;
        let e = self.env_local(state);
        'actions: for (a, act) in self.model.actions.iter().enumerate() {
            if act.ty != ActionType::GlobalSynchronous {
                continue;
            }
            let Some(de) = env.first(e, a) else { continue };
            let mut base = vec![0u64; self.packer.words];
            for (i, sp) in self.sys.agents.iter().enumerate() {
                for s in 0..sp.states.len() {
                    let c = self.count(state, i, s);
                    if c == 0 {
                        continue;
                    }
                    let Some(d) = sp.first(s as u32, a) else {
                        continue 'actions;
                    };
                    let t = sp.dists[d as usize].targets[0] as usize;
                    let old = self.count(&base, i, t);
                    self.set_count(&mut base, i, t, self.inc(old, c));
                }
            }
            // Concrete agents and the environment may be probabilistic.
            let mut parts: Vec<(usize, &Dist)> = Vec::new();
            for k in 0..n {
                let sp = &self.sys.agents[self.template_of[k]];
                match sp.first(self.packer.get(state, k), a) {
                    Some(d) => parts.push((k, &sp.dists[d as usize])),
                    None => continue 'actions,
                }
            }
            parts.push((n, &env.dists[de as usize]));
            super::concrete::product(&self.packer, &base, &parts, exact, out);
            if out.overflow {
                return;
            }
            out.end_choice(super::concrete::label(n + 1, a, na));
        }
    }
}

/// The abstraction maps every counted agent through one update on a
/// global-synchronous action: refuse non-deterministic ones.
pub fn check_deterministic(model: &Model, sys: &LocalSystem) -> Result<(), String> {
    for (i, sp) in sys.agents.iter().enumerate() {
        for (s, moves) in sp.moves.iter().enumerate() {
            for (a, act) in model.actions.iter().enumerate() {
                if act.ty != ActionType::GlobalSynchronous {
                    continue;
                }
                if let Some(m) = moves.iter().find(|m| m.action == a) {
                    if !sp.dists[m.dist as usize].is_deterministic() {
                        return Err(format!(
                            "global-synchronous action `{}` has a non-deterministic update in state ({}) of `{}`; the abstraction needs a deterministic one",
                            act.name,
                            super::local::describe(&model.templates[i], &sp.states[s]),
                            model.templates[i].name
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
