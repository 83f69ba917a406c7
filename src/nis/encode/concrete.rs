//! M(n) as an [`Unrolling`] (Definitions 4 and 5 of Kouvaros et al., IJCAI
//! 2024): n agents of the template and the environment, each round encoded by
//! [`super::round`]. Finite and real-valued models share the encoding
//! (integrality is a property of the variables); they differ in how a
//! solution is read back: [`Exact`] gives the explicit decider's counter form
//! (indexed agents 1..m, the others as a multiset) for
//! [`crate::nis::witness::replay::exact::replay_concrete`], [`F64`] gives f64
//! states for [`crate::nis::witness::replay::real`].

use super::expr::{Enc, Val};
use super::initial::Start;
use super::options::MilpOptions;
use super::ranges::check_ranges;
use super::state::{code, which, AgentState, Round, State};
use super::stats::{Sizes, SolveCounts};
use super::strategic::Play;
use super::unrolling::{Branch, Solved, Unrolled, Unrolling};
use crate::lang::DeclType;
use crate::milp::{LinExpr, Solution};
use crate::nis::front::model::{Model, VarDecl};
use crate::nis::semantics::concrete::{add_count, CMove, CState};
use crate::nis::semantics::{LocalId, Semantics};
use crate::nis::witness::replay::real::{RealLocal, RealMove, RealState, RealTree};
use crate::nis::witness::WitnessTree;
use crate::report::RunError;

/// How a solution of M(n) becomes a witness (`m`: the indexed agents).
pub trait Decoding {
    type Witness;
    fn decode(&mut self, model: &Model, s: Solved<State, Round>, m: usize) -> Self::Witness;

    /// Whether the decoder observes the percepts of the states whose
    /// observations were not encoded ([`Unrolling::round_unobserved`]).
    fn observes(&self) -> bool {
        false
    }

    /// Cuts off a percept the solution took on an argmax near-tie that the
    /// f64 network breaks ([`super::ties`]); false when there is none.
    fn cut_near_tie(
        &mut self,
        _enc: &mut Enc,
        _sol: &Solution,
        _tree: &Unrolled<State, Round>,
    ) -> Result<bool, RunError> {
        Ok(false)
    }
}

/// The [`Unrolling`] methods that M(n) and M_ab(m) by slots
/// ([`super::slots::SlotUnrolling`]) both hand to their field `enc`: the
/// program, the labels and the final range checks, which the indexed agents
/// and the environment have alike in both.
macro_rules! on_enc {
    () => {
        fn milp(&mut self) -> &mut $crate::milp::Model {
            &mut self.enc.milp
        }

        fn obbt(&self) -> $crate::milp::ObbtStats {
            self.enc.obbt.stats
        }

        fn label(
            &mut self,
            state: &$crate::nis::encode::state::State,
            label: usize,
            agent: Option<usize>,
        ) -> Result<$crate::milp::LinExpr, $crate::report::RunError> {
            self.enc.label_of(state, label, agent)
        }

        fn final_checks(
            &mut self,
            opts: &$crate::nis::encode::options::MilpOptions,
            counts: &mut $crate::nis::encode::stats::SolveCounts,
        ) -> Result<Option<$crate::nis::encode::ranges::Breach>, $crate::report::RunError> {
            self.enc.check_ranges(opts, counts)
        }

        fn describe(
            &self,
            state: &$crate::nis::encode::state::State,
            sol: &$crate::milp::Solution,
        ) -> Option<String> {
            Some($crate::nis::encode::breach::describe_state(
                self.enc.model,
                state,
                sol,
            ))
        }
    };
}
pub(super) use on_enc;

/// M(n) from one start; `m` agents are indexed by the formula.
pub struct Concrete<'m, D> {
    pub enc: Enc<'m>,
    pub agents: usize,
    pub m: usize,
    pub start: Start,
    pub decoding: D,
}

impl<'m, D> Concrete<'m, D> {
    /// M(n) of `model` with `n` interchangeable agents of which `m` are
    /// indexed, from `start`.
    pub fn new(
        model: &'m Model,
        opts: &MilpOptions,
        (n, m): (usize, usize),
        start: Start,
        decoding: D,
    ) -> Self {
        Concrete {
            enc: Enc::new(model, opts.encode.clone()),
            agents: n,
            m,
            start,
            decoding,
        }
    }

    /// M(0) of `model` (named agents and the environment only), the
    /// unrolling of strategic sentences.
    pub fn m0(model: &'m Model, opts: &MilpOptions, start: Start, decoding: D) -> Self {
        Concrete::new(model, opts, (0, 0), start, decoding)
    }
}

impl<D: Decoding> Unrolling for Concrete<'_, D> {
    type State = State;
    type Round = Round;
    type Witness = D::Witness;

    on_enc!();

    fn initial(&mut self) -> Result<Option<State>, RunError> {
        self.enc.initial(self.agents, &self.start)
    }

    fn round(&mut self, from: &State, tag: &str) -> Result<(Round, State), RunError> {
        self.enc.round(from, tag, None)
    }

    /// Without named agents (whose percepts the environment's labels may
    /// read), for the decoders that observe the percepts themselves.
    fn round_unobserved(
        &mut self,
        from: &State,
        tag: &str,
    ) -> Result<Option<(Round, State)>, RunError> {
        if !self.decoding.observes() || !self.enc.model.named.is_empty() {
            return Ok(None);
        }
        self.enc.skip_observation = true;
        let r = self.enc.round(from, tag, None);
        self.enc.skip_observation = false;
        r.map(Some)
    }

    fn strategic_rounds(
        &mut self,
        from: &State,
        play: Play,
        reached: &LinExpr,
        tag: &str,
    ) -> Result<Vec<Branch<Round, State>>, RunError> {
        self.enc.strategic_rounds(from, play, reached, tag)
    }

    fn break_symmetry(&mut self, tree: &Unrolled<State, Round>) -> usize {
        break_symmetry(&mut self.enc, tree, self.m)
    }

    fn measure(&self, sizes: &mut Sizes) {
        self.enc.measure(sizes);
    }
    fn decode(&mut self, s: Solved<State, Round>) -> Result<D::Witness, RunError> {
        let model = self.enc.model;
        Ok(self.decoding.decode(model, s, self.m))
    }

    fn cut_near_tie(&mut self, s: &Solved<State, Round>) -> Result<bool, RunError> {
        self.decoding.cut_near_tie(&mut self.enc, s.sol, s.tree)
    }
}

impl Enc<'_> {
    /// 0/1: label `label` holds for agent `agent` at `state` (for the
    /// environment when `agent` is `None`).
    pub fn label_of(
        &mut self,
        state: &State,
        label: usize,
        agent: Option<usize>,
    ) -> Result<LinExpr, RunError> {
        let expr = &self.model.labels[label].expr;
        match agent {
            Some(a) => self.label(expr, &state.agents[a]),
            None => self.env_label_named(expr, &state.env, &state.named),
        }
    }

    /// No recorded update leaves its declared range on a run ([`check_ranges`]).
    pub fn check_ranges(
        &self,
        opts: &MilpOptions,
        counts: &mut SolveCounts,
    ) -> Result<Option<super::ranges::Breach>, RunError> {
        check_ranges(
            &self.model.source,
            &self.milp,
            &self.range_checks,
            &opts.solve,
            counts,
        )
    }

    /// The network copies of this unrolling.
    pub fn measure(&self, sizes: &mut Sizes) {
        sizes.network_copies = sizes.network_copies.max(self.network_copies);
        sizes.network_binaries = sizes.network_binaries.max(self.network_binaries);
    }
}

/// Lexicographic order of agents `m..n` by (first action, percept after
/// the first round) in the root's first successor: these agents start in
/// the same local state (or each may choose the same tied first percept)
/// and no formula names them, so sorting them in any solution gives another
/// solution of the whole tree. With pinned first percepts only neighbours
/// pinned alike are ordered.
pub fn break_symmetry(enc: &mut Enc, tree: &Unrolled<State, Round>, m: usize) -> usize {
    let Some(first) = (1..tree.states.len()).find(|&i| tree.step(i).from == 0) else {
        return 0;
    };
    let round = &tree.step(first).round;
    let percepts = enc.model.template.percepts.len() as f64;
    let code = |i: usize| -> LinExpr {
        let mut e = LinExpr::constant(0.0);
        for (a, x) in round.actions[i].iter().enumerate() {
            e += x.clone() * (a as f64 * percepts);
        }
        for (p, x) in tree.states[first].agents[i].percept.iter().enumerate() {
            e += x.clone() * p as f64;
        }
        e
    };
    let n = round.actions.len();
    let mut rows = 0;
    for i in m..n.saturating_sub(1) {
        // Agents pinned to different first percepts are not interchangeable.
        let pin = enc.first_percepts.as_ref();
        if pin.is_some_and(|p| p.get(i) != p.get(i + 1)) {
            continue;
        }
        enc.milp.le(&format!("sym.{}", i + 1), code(i), code(i + 1));
        rows += 1;
    }
    rows
}

/// Reads solutions in the explicit decider's counter form through the finite semantics.
pub struct Exact<'s, 'm> {
    pub sem: &'s mut Semantics<'m>,
}

impl Exact<'_, '_> {
    fn locals(&mut self, sol: &Solution, state: &State) -> Vec<LocalId> {
        state
            .agents
            .iter()
            .map(|a| {
                let mut codes: Vec<i64> = a.private.iter().map(|v| code(sol, v)).collect();
                codes.push(which(sol, &a.percept) as i64);
                self.sem.space.encode(&codes)
            })
            .collect()
    }

    fn cstate(&mut self, sol: &Solution, state: &State, m: usize) -> CState {
        let locals = self.locals(sol, state);
        let mut others = Vec::new();
        for &l in &locals[m..] {
            add_count(&mut others, l, 1);
        }
        let mut codes: Vec<i64> = state.env.iter().map(|v| code(sol, v)).collect();
        for a in &state.named {
            codes.extend(a.private.iter().map(|v| code(sol, v)));
            codes.push(which(sol, &a.percept) as i64);
        }
        CState {
            indexed: locals[..m].to_vec(),
            others,
            env: self.sem.env_id(codes),
        }
    }

    fn cmove(
        &mut self,
        sol: &Solution,
        tree: &Unrolled<State, Round>,
        to: usize,
        m: usize,
    ) -> CMove {
        let step = tree.step(to);
        let from = self.locals(sol, &tree.states[step.from]);
        let next = self.locals(sol, &tree.states[to]);
        let acts: Vec<usize> = step.round.actions.iter().map(|a| which(sol, a)).collect();
        let mut others: Vec<(LocalId, usize, LocalId, u32)> = Vec::new();
        for j in m..acts.len() {
            let key = (from[j], acts[j], next[j]);
            match others.iter_mut().find(|g| (g.0, g.1, g.2) == key) {
                Some(g) => g.3 += 1,
                None => others.push((key.0, key.1, key.2, 1)),
            }
        }
        let named: Vec<usize> = step.round.named.iter().map(|a| which(sol, a)).collect();
        let own = which(sol, &step.round.env_action);
        CMove {
            env_action: self.sem.model.join_env_action(own, &named),
            indexed: acts[..m].to_vec(),
            others,
        }
    }
}

impl Decoding for Exact<'_, '_> {
    type Witness = WitnessTree<CState, CMove>;

    fn cut_near_tie(
        &mut self,
        enc: &mut Enc,
        sol: &Solution,
        tree: &Unrolled<State, Round>,
    ) -> Result<bool, RunError> {
        let Some(tie) = super::ties::find(self.sem, sol, tree)? else {
            return Ok(false);
        };
        enc.cut_near_tie(tree, &tie)?;
        Ok(true)
    }

    fn decode(&mut self, _model: &Model, s: Solved<State, Round>, m: usize) -> Self::Witness {
        let (sol, tree) = (s.sol, s.tree);
        let first = self.cstate(sol, &tree.states[0], m);
        s.root.tree(sol, first, &mut |_, to| {
            (
                self.cmove(sol, tree, to, m),
                self.cstate(sol, &tree.states[to], m),
            )
        })
    }
}

/// Reads solutions as f64 states, for models that are not finite.
pub struct F64;

/// A state value in f64: integers and Booleans rounded (they are integral
/// variables), enumerations their index, reals as the solver has them.
pub fn value(sol: &Solution, v: &Val, ty: &DeclType) -> f64 {
    match (v, ty) {
        (Val::Enum(xs), _) => which(sol, xs) as f64,
        (Val::Num(e), DeclType::Real { .. }) => sol.eval(e),
        (Val::Num(e) | Val::Bool(e), _) => sol.eval(e).round(),
    }
}

/// Declared variables' values in f64.
pub fn values(sol: &Solution, vals: &[Val], decls: &[VarDecl]) -> Vec<f64> {
    vals.iter()
        .zip(decls)
        .map(|(v, d)| value(sol, v, &d.ty))
        .collect()
}

/// One agent's (or slot's) local state in f64.
pub fn decode_local(model: &Model, sol: &Solution, a: &AgentState) -> RealLocal {
    RealLocal {
        private: values(sol, &a.private, &model.template.vars),
        percept: which(sol, &a.percept),
    }
}

/// A global state in f64 (the zero-one agent's slots aside).
pub fn decode_state(model: &Model, sol: &Solution, s: &State) -> RealState {
    let named = model.named.iter().zip(&s.named).map(|(a, l)| RealLocal {
        private: values(sol, &l.private, &a.template.vars),
        percept: which(sol, &l.percept),
    });
    RealState {
        agents: s
            .agents
            .iter()
            .map(|a| decode_local(model, sol, a))
            .collect(),
        env: values(sol, &s.env, &model.env.vars),
        named: named.collect(),
    }
}

/// The agents' and the environment's actions of one round (with the named agents').
pub fn decode_move(sol: &Solution, round: &Round) -> RealMove {
    RealMove {
        actions: round.actions.iter().map(|a| which(sol, a)).collect(),
        env_action: which(sol, &round.env_action),
        named: round.named.iter().map(|a| which(sol, a)).collect(),
    }
}

impl Decoding for F64 {
    type Witness = RealTree;

    fn decode(&mut self, model: &Model, s: Solved<State, Round>, _m: usize) -> RealTree {
        let (sol, tree) = (s.sol, s.tree);
        let first = decode_state(model, sol, &tree.states[0]);
        s.root.tree(sol, first, &mut |_, to| {
            let mv = decode_move(sol, &tree.step(to).round);
            let mut state = decode_state(model, sol, &tree.states[to]);
            if tree.unobserved.contains(&to) {
                observe_f64(model, &mut state);
            }
            (mv, state)
        })
    }

    fn observes(&self) -> bool {
        true
    }
}

/// Each agent's percept at `state`, observed in f64 (the first of its
/// possible percepts, ties within the replay's tolerance included), where
/// the MILP did not encode the observation and the agent keeps its old
/// percept. An observation that fails leaves the old one, which the replay
/// then rejects.
fn observe_f64(model: &Model, state: &mut RealState) {
    use crate::nis::semantics::real::{agent_vals, percepts, Slots};
    let t = &model.template;
    for a in 0..state.agents.len() {
        let s = Slots {
            model,
            vals: agent_vals(&state.agents[a], None, None, Some(&state.env), model),
            performed: None,
            env_action: None,
        };
        let mut possible = vec![false; t.percepts.len()];
        if percepts(&t.observe, &s, &mut possible).is_ok() {
            if let Some(p) = possible.iter().position(|&b| b) {
                state.agents[a].percept = p;
            }
        }
    }
}
