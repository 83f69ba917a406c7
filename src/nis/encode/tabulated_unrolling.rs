//! [`Tabulated`] as an [`Unrolling`]: labels read on the m concrete agents
//! only (Definition 13), the failing updates checked before the verdict,
//! and solutions decoded into the explicit decider's abstract trace form,
//! replayed by [`crate::nis::witness::replay::exact::replay_abstract`] before they count.

use super::confirm::solve_confirmed;
use super::encoded::Encoded;
use super::options::MilpOptions;
use super::stats::{Sizes, SolveCounts};
use super::tabulated::{AbsRound, AbsState, Fault, Layer, Tabulated};
use super::unrolling::{Solved, Unrolled, Unrolling};
use crate::milp::{LinExpr, Model as Milp, Solution, Status};
use crate::nis::semantics::abstraction::{AMove, AState, LocalSet};
use crate::nis::semantics::Semantics;
use crate::nis::witness::WitnessTree;
use crate::report::RunError;

impl Unrolling for Tabulated<'_, '_> {
    type State = AbsState;
    type Round = AbsRound;
    type Witness = WitnessTree<AState, AMove>;

    fn milp(&mut self) -> &mut Milp {
        &mut self.milp
    }

    fn initial(&mut self) -> Result<Option<AbsState>, RunError> {
        self.initial_state().map(Some)
    }

    fn label(
        &mut self,
        state: &AbsState,
        label: usize,
        agent: Option<usize>,
    ) -> Result<LinExpr, RunError> {
        let mut holds = LinExpr::constant(0.0);
        match agent {
            Some(a) => {
                for (l, x) in &state.agents[a] {
                    if self.sem.labels(*l)? >> label & 1 == 1 {
                        holds += x.clone();
                    }
                }
            }
            None => {
                for (e, x) in &state.env {
                    if self.sem.env_labels(*e)? >> label & 1 == 1 {
                        holds += x.clone();
                    }
                }
            }
        }
        Ok(holds)
    }

    fn round(&mut self, from: &AbsState, tag: &str) -> Result<(AbsRound, AbsState), RunError> {
        self.add_round(from, tag)
    }

    fn final_checks(
        &mut self,
        opts: &MilpOptions,
        counts: &mut SolveCounts,
    ) -> Result<Option<super::ranges::Breach>, RunError> {
        let faults = std::mem::take(&mut self.faults);
        self.excluded = faults.len();
        exclude_faults(&mut self.milp, faults, opts, counts)?;
        Ok(None)
    }

    fn measure(&self, sizes: &mut Sizes) {
        sizes.contexts = sizes.contexts.max(self.max_contexts);
        let widest = self
            .layers
            .iter()
            .map(|l| l.locals.len())
            .max()
            .unwrap_or(0);
        sizes.layer_locals = sizes.layer_locals.max(widest);
        sizes.faults += self.excluded;
    }

    fn decode(&mut self, s: Solved<AbsState, AbsRound>) -> Result<Self::Witness, RunError> {
        let d = Decoder {
            sol: s.sol,
            sem: self.sem,
            u: s.tree,
            layers: &self.layers,
        };
        Ok(d.tree(s.root))
    }
}

/// The index of the largest entry under the solution.
fn argmax<K: Copy>(sol: &Solution, v: &[(K, LinExpr)]) -> Option<K> {
    v.iter()
        .max_by(|a, b| sol.eval(&a.1).total_cmp(&sol.eval(&b.1)))
        .map(|(k, _)| *k)
}

/// Decodes a solution into a witness tree of [`AState`] / [`AMove`].
struct Decoder<'a, 's, 'm> {
    sol: &'a Solution,
    sem: &'s Semantics<'m>,
    u: &'a Unrolled<AbsState, AbsRound>,
    layers: &'a [Layer],
}

impl Decoder<'_, '_, '_> {
    /// The abstract state `s`: the concrete agents' local states, the set of
    /// present local states, the environment state.
    fn state(&self, s: usize) -> AState {
        let st = &self.u.states[s];
        let mut zo = LocalSet::empty(self.sem.space.size);
        for (l, x) in &st.zo {
            if self.sol.eval(x) > 0.5 {
                zo.insert(*l);
            }
        }
        AState {
            indexed: st
                .agents
                .iter()
                .map(|a| argmax(self.sol, a).unwrap_or(0))
                .collect(),
            zo,
            env: argmax(self.sol, &st.env).unwrap_or(0),
        }
    }

    /// The move into state `to`: the active context's environment action,
    /// the concrete agents' actions, the zero-one agent's taken pairs grouped
    /// per present local state (ascending, as [`LocalSet::iter`]).
    fn amove(&self, to: usize) -> AMove {
        let step = self.u.step(to);
        let (round, from) = (&step.round, &self.u.states[step.from]);
        let layer = &self.layers[from.depth];
        let ctx: Vec<(usize, LinExpr)> = round.contexts.iter().cloned().enumerate().collect();
        let c = argmax(self.sol, &ctx).unwrap_or(0);
        let indexed = round
            .agents
            .iter()
            .map(|q| argmax(self.sol, q).map_or(0, |(_, a)| a))
            .collect();
        let mut zo: Vec<(u32, u64)> = Vec::new();
        for ((l, a), x) in &round.zo {
            if self.sol.eval(x) > 0.5 {
                match zo.iter_mut().find(|(k, _)| k == l) {
                    Some(g) => g.1 |= 1 << a,
                    None => zo.push((*l, 1 << a)),
                }
            }
        }
        zo.sort_unstable();
        AMove {
            env_action: layer.contexts[c].env_action,
            indexed,
            zo,
        }
    }

    /// The witness tree of `root` (which holds under the solution) at state 0.
    fn tree(&self, root: &Encoded) -> WitnessTree<AState, AMove> {
        root.tree(self.sol, self.state(0), &mut |_, to| {
            (self.amove(to), self.state(to))
        })
    }
}

/// Fails with a fault's error when some run of the unrolling (the goal
/// aside) selects it, as the explicit decider fails on a reachable update
/// that leaves its range; otherwise excludes the faults from the MILP.
fn exclude_faults(
    milp: &mut crate::milp::Model,
    faults: Vec<Fault>,
    opts: &MilpOptions,
    counts: &mut SolveCounts,
) -> Result<(), RunError> {
    if faults.is_empty() {
        return Ok(());
    }
    let mut probe = milp.clone();
    let mut ys = Vec::with_capacity(faults.len());
    for (i, f) in faults.iter().enumerate() {
        let y = probe.binary(&format!("fault{i}"));
        for w in &f.when {
            probe.le(&format!("fault{i}.when"), y, w.clone());
        }
        ys.push(LinExpr::from(y));
    }
    probe.ge("some_fault", LinExpr::sum(ys.clone()), 1.0);
    // An infeasibility here hides an error, so it must be right: confirmed
    // by a second opinion, as the range check of real-valued models is.
    let out = solve_confirmed(&probe, &opts.solve, counts)?;
    match (out.status, out.solution) {
        (Status::Infeasible, _) => {}
        (Status::Optimal | Status::Feasible, Some(sol)) => {
            let hit = ys.iter().position(|y| sol.eval(y) > 0.5).unwrap_or(0);
            return Err(faults
                .into_iter()
                .nth(hit)
                .map(|f| f.error)
                .unwrap_or_else(|| RunError::Internal("a fault vanished".into())));
        }
        (_, _) => {
            return Err(super::decide::undetermined(
                "the MILP decider could not decide whether an update leaves its range",
                out.reason,
                opts,
            ))
        }
    }
    for (i, f) in faults.iter().enumerate() {
        let k = f.when.len() as f64;
        milp.le(
            &format!("fault{i}.off"),
            LinExpr::sum(f.when.clone()),
            k - 1.0,
        );
    }
    Ok(())
}
