//! The MILP encoding of the abstract system S_ab(m) (Definition 13 of
//! Kouvaros et al., IJCAI 2024) for finite templates: m concrete agents, the
//! zero-one agent (Definition 12) and the environment, unrolled step by step.
//!
//! The template's local-state space is finite here, so each component is
//! encoded over template local states rather than over variable values:
//! - a concrete agent at a step is a one-hot vector over local states, and
//!   its move a one-hot vector over (local state, action) pairs;
//! - the zero-one agent at a step is one "present" binary per local state,
//!   and its move one "taken" binary per (local state, enabled action) pair:
//!   a taken pair needs its state present, every present state takes at
//!   least one action (several are allowed: Definition 12's prot_zo), and
//!   the next present set is exactly the observed image of the taken pairs;
//! - the round's context (environment state, environment action, performed
//!   set) is a one-hot vector over the finitely many combinations. A local
//!   transition depends only on (l, a, context) (Definition 1), so the
//!   encoder tabulates every image through the exact [`Semantics`] and the
//!   MILP only selects among them; `performed(a)` is tied to the context and
//!   is the OR of every concrete agent's and the zero-one agent's actions.
//!
//! Rows with a context are written with M = 1 (all terms are 0/1), so there
//! are no numerically delicate big-M constants.

use crate::milp::{LinExpr, Model as Milp};
use crate::nis::semantics::system::nonempty_submasks;
use crate::nis::semantics::{bits, ActionMask, EnvId, LocalId, Semantics};
use crate::report::RunError;
use std::collections::BTreeSet;

/// More round contexts than this per step is refused (the table would be too big).
const MAX_CONTEXTS: usize = 20_000;

/// One combination a round can take: (environment state, environment action,
/// performed set) and the environment's successor it determines (`None`:
/// the environment's update fails there, see [`Fault`]).
#[derive(Clone, Debug)]
pub struct Context {
    pub env: EnvId,
    pub env_action: usize,
    pub performed: ActionMask,
    pub env_next: Option<EnvId>,
}

/// A combination whose update fails in the semantics (a value leaves its
/// declared range): the 0/1 expressions that select it and the error. The
/// layers over-approximate what is reachable, so a fault is an error only
/// when a run of the unrolling can select it (checked before the verdict,
/// as the M(n) decider checks ranges); otherwise it is excluded.
pub struct Fault {
    pub when: Vec<LinExpr>,
    pub error: RunError,
}

/// What may occur at one depth of the unrolling (an over-approximation:
/// every local state and environment state reachable in exactly j steps of
/// any component, and every context from there).
pub struct Layer {
    pub locals: Vec<LocalId>,
    pub envs: Vec<EnvId>,
    pub contexts: Vec<Context>,
}

/// A state of the abstract unrolling: 0/1 expressions over the layer's
/// local states (concrete agents one-hot, the zero-one agent "present") and
/// over environment states (one-hot).
#[derive(Clone, Debug)]
pub struct AbsState {
    pub depth: usize,
    pub agents: Vec<Vec<(LocalId, LinExpr)>>,
    pub zo: Vec<(LocalId, LinExpr)>,
    pub env: Vec<(EnvId, LinExpr)>,
}

/// One round: the concrete agents' pair one-hots, the zero-one agent's
/// "taken" pairs, the context one-hot (indices into the layer's contexts).
#[derive(Clone, Debug)]
pub struct AbsRound {
    pub agents: Vec<Vec<((LocalId, usize), LinExpr)>>,
    pub zo: Vec<((LocalId, usize), LinExpr)>,
    pub contexts: Vec<LinExpr>,
}

/// S_ab(m) from one initial environment state: the MILP it owns, the
/// exact semantics that tabulates the images, and the layers built so far.
pub struct Tabulated<'s, 'm> {
    pub milp: Milp,
    pub sem: &'s mut Semantics<'m>,
    pub m: usize,
    pub env0: EnvId,
    pub layers: Vec<Layer>,
    /// The largest number of contexts of one round.
    pub max_contexts: usize,
    pub faults: Vec<Fault>,
    /// Faults the last final check excluded.
    pub excluded: usize,
}

/// A (local state, action) pair and its 0/1 expression.
type Pair = ((LocalId, usize), LinExpr);

/// The zero-one agent's enabled pairs and their "taken" binaries.
type ZeroOnePairs = (Vec<(LocalId, usize)>, Vec<Pair>);

/// The successor's environment, concrete agents and zero-one agent.
type SuccessorVars = (
    Vec<(EnvId, LinExpr)>,
    Vec<Vec<(LocalId, LinExpr)>>,
    Vec<(LocalId, LinExpr)>,
);

/// One round's choices, as the transitions read them.
struct Round<'r> {
    contexts: &'r [Context],
    z: &'r [LinExpr],
    agents: &'r [Vec<Pair>],
    zo_pairs: &'r [(LocalId, usize)],
    taken: &'r [Pair],
}

/// The successors of pair (l, a) under a context: the observed images
/// (prv', p) for every percept p the observation allows (ties: several).
pub fn image(
    sem: &mut Semantics,
    l: LocalId,
    a: usize,
    c: &Context,
) -> Result<Vec<LocalId>, RunError> {
    let Some(env_next) = c.env_next else {
        return Ok(Vec::new());
    };
    Ok(sem.local_successors(l, a, (c.performed, c.env_action), env_next)?)
}

/// The enabled pairs (l, a) of the given local states.
fn pairs(sem: &mut Semantics, locals: &[LocalId]) -> Result<Vec<(LocalId, usize)>, RunError> {
    let mut out = Vec::new();
    for &l in locals {
        let enabled = sem.protocol(l)?;
        if enabled == 0 {
            return Err(RunError::input(format!(
                "the protocol enables no action at {}",
                sem.describe_local(l)
            )));
        }
        out.extend(bits(enabled).map(|a| (l, a)));
    }
    Ok(out)
}

impl<'s, 'm> Tabulated<'s, 'm> {
    /// S_ab(m) from the initial environment state `env0`, nothing built yet.
    pub fn new(sem: &'s mut Semantics<'m>, m: usize, env0: EnvId) -> Self {
        Tabulated {
            milp: Milp::new(),
            sem,
            m,
            env0,
            layers: Vec::new(),
            max_contexts: 0,
            faults: Vec::new(),
            excluded: 0,
        }
    }

    /// Whether the tabulation met an update that leaves its declared range
    /// (a fault, recorded or already checked by the final checks).
    pub fn met_faults(&self) -> bool {
        self.excluded > 0 || !self.faults.is_empty()
    }

    /// Builds layers up to `depth` (layer 0: the initial state with `env0`).
    fn layer(&mut self, depth: usize, env0: EnvId) -> Result<&Layer, RunError> {
        if self.layers.is_empty() {
            let starts = self.sem.initial_locals(env0)?;
            let contexts = self.contexts(&starts, &[env0])?;
            self.layers.push(Layer {
                locals: starts,
                envs: vec![env0],
                contexts,
            });
        }
        while self.layers.len() <= depth {
            let last = self.layers.last().expect("non-empty");
            let (locals, contexts) = (last.locals.clone(), last.contexts.clone());
            let mut next_locals = BTreeSet::new();
            let mut next_envs = BTreeSet::new();
            for c in &contexts {
                // A failing transition is a fault of the round (see
                // `image_or_fault`): its sink, the unchanged state, is in the layer.
                next_envs.insert(c.env_next.unwrap_or(c.env));
                for (l, a) in pairs(self.sem, &locals)? {
                    if c.performed >> a & 1 == 1 {
                        next_locals.extend(image(self.sem, l, a, c).unwrap_or_else(|_| vec![l]));
                    }
                }
            }
            let locals: Vec<LocalId> = next_locals.into_iter().collect();
            let envs: Vec<EnvId> = next_envs.into_iter().collect();
            let contexts = self.contexts(&locals, &envs)?;
            self.layers.push(Layer {
                locals,
                envs,
                contexts,
            });
        }
        Ok(&self.layers[depth])
    }

    /// Every (environment state, enabled environment action, non-empty set of
    /// actions enabled somewhere in the layer) with its environment successor.
    fn contexts(&mut self, locals: &[LocalId], envs: &[EnvId]) -> Result<Vec<Context>, RunError> {
        let mut enabled: ActionMask = 0;
        for &l in locals {
            enabled |= self.sem.protocol(l)?;
        }
        let sets = nonempty_submasks(enabled);
        let mut out = Vec::new();
        for &env in envs {
            for env_action in bits(self.sem.env_protocol(env)?) {
                for &performed in &sets {
                    let env_next = self.sem.env_transition(env, env_action, performed).ok();
                    out.push(Context {
                        env,
                        env_action,
                        performed,
                        env_next,
                    });
                }
            }
            if out.len() > MAX_CONTEXTS {
                return Err(RunError::input(format!(
                    "the MILP decider for M_ab(m) tabulates rounds by (environment state, environment action, performed set); this template has more than {MAX_CONTEXTS} such combinations per step"
                )));
            }
        }
        Ok(out)
    }

    /// The initial abstract state: every concrete agent at iota_t, the
    /// zero-one agent {iota_t}, the environment at `env0` (Definition 13).
    pub fn initial_state(&mut self) -> Result<AbsState, RunError> {
        let (m, env0) = (self.m, self.env0);
        let starts = self.layer(0, env0)?.locals.clone();
        if let [iota] = starts[..] {
            let one = || vec![(iota, LinExpr::constant(1.0))];
            return Ok(AbsState {
                depth: 0,
                agents: vec![one(); m],
                zo: one(),
                env: vec![(env0, LinExpr::constant(1.0))],
            });
        }
        // An observed first percept with a tie: each indexed agent at one of
        // the initial local states, the zero-one set any non-empty set of them.
        let mut agents = Vec::with_capacity(m);
        for i in 0..m {
            let pick: Vec<(LocalId, LinExpr)> = starts
                .iter()
                .map(|&l| (l, self.milp.binary(&format!("s0.a{}.{l}", i + 1)).into()))
                .collect();
            let one = LinExpr::sum(pick.iter().map(|(_, x)| x.clone()));
            self.milp.eq(&format!("s0.a{}.one", i + 1), one, 1.0);
            agents.push(pick);
        }
        let zo: Vec<(LocalId, LinExpr)> = starts
            .iter()
            .map(|&l| (l, self.milp.binary(&format!("s0.zo.{l}")).into()))
            .collect();
        let some = LinExpr::sum(zo.iter().map(|(_, x)| x.clone()));
        self.milp.ge("s0.zo.some", some, 1.0);
        Ok(AbsState {
            depth: 0,
            agents,
            zo,
            env: vec![(env0, LinExpr::constant(1.0))],
        })
    }

    /// Adds one round of S_ab(m) from `from` and its successor state: the
    /// round's context, the concrete agents' and the zero-one agent's pairs,
    /// the performed set, the successor's variables and the transitions.
    pub fn add_round(
        &mut self,
        from: &AbsState,
        tag: &str,
    ) -> Result<(AbsRound, AbsState), RunError> {
        let env0 = from.env[0].0;
        let depth = from.depth;
        self.layer(depth + 1, env0)?;
        let contexts = self.layers[depth].contexts.clone();
        self.max_contexts = self.max_contexts.max(contexts.len());
        let z = self.context_choice(from, &contexts, tag);
        let agents = self.agent_pairs(from, tag)?;
        let (zo_pairs, t) = self.zero_one_pairs(from, tag)?;
        self.performed_rows(&contexts, &z, &agents, &t, tag);
        let (env, next_agents, zo_next) = self.successor(depth, &contexts, &z, agents.len(), tag);
        let round = Round {
            contexts: &contexts,
            z: &z,
            agents: &agents,
            zo_pairs: &zo_pairs,
            taken: &t,
        };
        self.transitions(&round, &next_agents, &zo_next, tag);
        let round = AbsRound {
            agents,
            zo: t,
            contexts: z,
        };
        let next = AbsState {
            depth: depth + 1,
            agents: next_agents,
            zo: zo_next,
            env,
        };
        Ok((round, next))
    }

    /// The context one-hot of a round, tied to the environment state; a
    /// context whose environment update fails is a fault.
    fn context_choice(&mut self, from: &AbsState, contexts: &[Context], tag: &str) -> Vec<LinExpr> {
        let milp = &mut self.milp;
        // The context one-hot, tied to the environment state.
        let z: Vec<LinExpr> = (0..contexts.len())
            .map(|i| milp.binary(&format!("{tag}.ctx{i}")).into())
            .collect();
        milp.eq(&format!("{tag}.ctx"), LinExpr::sum(z.clone()), 1.0);
        for (c, zc) in contexts.iter().zip(&z) {
            if c.env_next.is_none() {
                if let Err(error) = self.sem.env_transition(c.env, c.env_action, c.performed) {
                    self.faults.push(Fault {
                        when: vec![zc.clone()],
                        error: error.into(),
                    });
                }
            }
        }
        let milp = &mut self.milp;
        for (env, x) in &from.env {
            let sel = contexts.iter().zip(&z).filter(|(c, _)| c.env == *env);
            let sum = LinExpr::sum(sel.map(|(_, v)| v.clone()));
            milp.eq(&format!("{tag}.env{env}"), sum, x.clone());
        }
        z
    }

    /// Concrete agents: one pair per agent, consistent with its local state.
    fn agent_pairs(&mut self, from: &AbsState, tag: &str) -> Result<Vec<Vec<Pair>>, RunError> {
        let mut agents = Vec::with_capacity(from.agents.len());
        for (i, state) in from.agents.iter().enumerate() {
            let locals: Vec<LocalId> = state.iter().map(|(l, _)| *l).collect();
            let ps = pairs(self.sem, &locals)?;
            let milp = &mut self.milp;
            let q: Vec<((LocalId, usize), LinExpr)> = ps
                .iter()
                .map(|&(l, a)| {
                    (
                        (l, a),
                        milp.binary(&format!("{tag}.a{}.{l}.{a}", i + 1)).into(),
                    )
                })
                .collect();
            for (l, x) in state {
                let sum = LinExpr::sum(q.iter().filter(|(p, _)| p.0 == *l).map(|(_, v)| v.clone()));
                milp.eq(&format!("{tag}.a{}.at{l}", i + 1), sum, x.clone());
            }
            agents.push(q);
        }
        Ok(agents)
    }

    /// The zero-one agent: taken pairs under present states, at least one each.
    fn zero_one_pairs(&mut self, from: &AbsState, tag: &str) -> Result<ZeroOnePairs, RunError> {
        let zo_locals: Vec<LocalId> = from.zo.iter().map(|(l, _)| *l).collect();
        let zo_pairs = pairs(self.sem, &zo_locals)?;
        let milp = &mut self.milp;
        let t: Vec<((LocalId, usize), LinExpr)> = zo_pairs
            .iter()
            .map(|&(l, a)| ((l, a), milp.binary(&format!("{tag}.zo.{l}.{a}")).into()))
            .collect();
        for (l, present) in &from.zo {
            let mine: Vec<LinExpr> = t
                .iter()
                .filter(|(p, _)| p.0 == *l)
                .map(|(_, v)| v.clone())
                .collect();
            for x in &mine {
                milp.le(&format!("{tag}.zo.need{l}"), x.clone(), present.clone());
            }
            milp.ge(
                &format!("{tag}.zo.some{l}"),
                LinExpr::sum(mine),
                present.clone(),
            );
        }
        Ok((zo_pairs, t))
    }

    /// performed(a) = OR of everybody's a, and the context's performed set.
    fn performed_rows(
        &mut self,
        contexts: &[Context],
        z: &[LinExpr],
        agents: &[Vec<Pair>],
        t: &[Pair],
        tag: &str,
    ) {
        let milp = &mut self.milp;
        let actions = self.sem.model.template.actions.len();
        for a in 0..actions {
            let perf = LinExpr::sum(
                contexts
                    .iter()
                    .zip(z)
                    .filter(|(c, _)| c.performed >> a & 1 == 1)
                    .map(|(_, v)| v.clone()),
            );
            let by: Vec<LinExpr> = agents
                .iter()
                .flatten()
                .chain(t)
                .filter(|(p, _)| p.1 == a)
                .map(|(_, v)| v.clone())
                .collect();
            for x in &by {
                milp.ge(&format!("{tag}.perf{a}.by"), perf.clone(), x.clone());
            }
            milp.le(&format!("{tag}.perf{a}"), perf, LinExpr::sum(by));
        }
    }

    /// The successor state's variables; the environment is the context's.
    fn successor(
        &mut self,
        depth: usize,
        contexts: &[Context],
        z: &[LinExpr],
        agent_count: usize,
        tag: &str,
    ) -> SuccessorVars {
        let next_locals = self.layers[depth + 1].locals.clone();
        let next_envs = self.layers[depth + 1].envs.clone();
        let milp = &mut self.milp;
        let env: Vec<(EnvId, LinExpr)> = next_envs
            .iter()
            .map(|&n| {
                let sel = contexts
                    .iter()
                    .zip(z)
                    .filter(|(c, _)| c.env_next.unwrap_or(c.env) == n);
                (n, LinExpr::sum(sel.map(|(_, v)| v.clone())))
            })
            .collect();
        let mut next_agents = Vec::with_capacity(agent_count);
        for i in 0..agent_count {
            let x: Vec<(LocalId, LinExpr)> = next_locals
                .iter()
                .map(|&l| (l, milp.binary(&format!("{tag}.a{}.next{l}", i + 1)).into()))
                .collect();
            milp.eq(
                &format!("{tag}.a{}.one", i + 1),
                LinExpr::sum(x.iter().map(|(_, v)| v.clone())),
                1.0,
            );
            next_agents.push(x);
        }
        let zo_next: Vec<(LocalId, LinExpr)> = next_locals
            .iter()
            .map(|&l| (l, milp.binary(&format!("{tag}.zo.next{l}")).into()))
            .collect();
        (env, next_agents, zo_next)
    }

    /// Transitions, per context: support (nothing appears without a chosen
    /// pair leading to it) for everybody; for the zero-one agent also the
    /// image (every taken pair's successor set is hit).
    fn transitions(
        &mut self,
        r: &Round,
        next_agents: &[Vec<(LocalId, LinExpr)>],
        zo_next: &[(LocalId, LinExpr)],
        tag: &str,
    ) {
        let (contexts, z, agents, zo_pairs, t) = (r.contexts, r.z, r.agents, r.zo_pairs, r.taken);
        for (ci, c) in contexts.iter().enumerate() {
            let off = LinExpr::constant(1.0) - z[ci].clone();
            let mut images: Vec<Vec<LocalId>> = Vec::new();
            for (&(l, a), (_, taken)) in zo_pairs.iter().zip(t) {
                images.push(if c.performed >> a & 1 == 1 {
                    self.image_or_fault(l, a, c, taken, &z[ci])
                } else {
                    Vec::new()
                });
            }
            for (i, q) in agents.iter().enumerate() {
                let mut leads: Vec<(usize, Vec<LocalId>)> = Vec::new();
                for (pi, ((l, a), x)) in q.iter().enumerate() {
                    if c.performed >> a & 1 == 1 {
                        leads.push((pi, self.image_or_fault(*l, *a, c, x, &z[ci])));
                    }
                }
                let milp = &mut self.milp;
                for (l2, x2) in &next_agents[i] {
                    let support = LinExpr::sum(
                        leads
                            .iter()
                            .filter(|(_, img)| img.contains(l2))
                            .map(|(pi, _)| q[*pi].1.clone()),
                    );
                    milp.le(
                        &format!("{tag}.a{}.c{ci}.sup{l2}", i + 1),
                        x2.clone(),
                        support + off.clone(),
                    );
                }
            }
            let milp = &mut self.milp;
            for (l2, x2) in zo_next {
                let support = LinExpr::sum(
                    t.iter()
                        .zip(&images)
                        .filter(|(_, img)| img.contains(l2))
                        .map(|((_, v), _)| v.clone()),
                );
                milp.le(
                    &format!("{tag}.zo.c{ci}.sup{l2}"),
                    x2.clone(),
                    support + off.clone(),
                );
            }
            for (((l, a), taken), img) in t.iter().zip(&images) {
                if img.is_empty() {
                    continue;
                }
                let hit = LinExpr::sum(
                    zo_next
                        .iter()
                        .filter(|(l2, _)| img.contains(l2))
                        .map(|(_, v)| v.clone()),
                );
                milp.ge(
                    &format!("{tag}.zo.c{ci}.img{l}.{a}"),
                    hit + off.clone(),
                    taken.clone(),
                );
            }
        }
    }

    /// The image of (l, a) under `c`; a failing update is recorded as a fault
    /// selected by `pair` and `ctx`. Its image is a sink, the unchanged state
    /// `l` (likewise the environment's): the fault probe then finds every run
    /// that selects a fault, whatever follows it, and the decider's MILP
    /// excludes the fault, so the sink is never part of a verdict.
    fn image_or_fault(
        &mut self,
        l: LocalId,
        a: usize,
        c: &Context,
        pair: &LinExpr,
        ctx: &LinExpr,
    ) -> Vec<LocalId> {
        match image(self.sem, l, a, c) {
            Ok(img) => img,
            Err(error) => {
                self.faults.push(Fault {
                    when: vec![pair.clone(), ctx.clone()],
                    error,
                });
                vec![l]
            }
        }
    }
}
