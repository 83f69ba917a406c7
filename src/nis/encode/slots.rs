//! The zero-one agent (Definition 12 of Kouvaros et al., IJCAI 2024) by
//! slots, for models whose local states cannot be tabulated (real-valued
//! variables).
//!
//! An abstract local state is a non-empty set of template local states. From
//! the singleton {iota_t}, every element of the set may take a non-empty set
//! of its enabled actions and see each successor with a non-empty set of
//! tied percepts, so it has at most B children
//! ([`crate::nis::explicit::branching::zero_one_branching`]). The encoding gives every
//! slot B child positions, each with an active flag, its own action (one-hot,
//! summing to the flag, allowed by the protocol at the parent), its own
//! update and its own network copy for the percept. The abstract state at
//! depth j is the set of the active slots' local states (at most B^j slots):
//! - a slot is active only under an active parent, and an active parent has
//!   at least one active child (Definition 12: a NON-EMPTY set of actions);
//! - the actions of the active children are performed (Definition 13: the
//!   set of performed actions includes the zero-one agent's);
//! - children with the same action and different percepts are the tie subsets.
//!
//! Every abstract move is some assignment of the positions, and every
//! assignment is an abstract move (duplicate children are harmless: the
//! abstract state is the set of their values), so the encoding is exact.
//! Inactive children still get an update and a percept (their values are
//! not read); declared ranges are checked under the active flag only.

use super::concrete::on_enc;
use super::concretize::{concretize, decode_abstract};
use super::expr::{Enc, Val};
use super::initial::Start;
use super::options::MilpOptions;
use super::state::{Joint, Round, Slot, SlotChoice, State};
use super::stats::Sizes;
use super::unrolling::{Solved, Unrolling};
use crate::milp::{constant, LinExpr};
use crate::nis::front::model::{InitPercept, Model};
use crate::nis::witness::replay::real::RealTree;
use crate::report::RunError;

/// The slots of one unrolling: child positions per slot, slots created so
/// far and their cap ([`super::MilpOptions::max_slots`]).
#[derive(Clone, Copy, Debug)]
pub struct SlotBudget {
    pub branching: usize,
    pub count: usize,
    pub max: usize,
}

impl Enc<'_> {
    /// The child positions of every slot of `from` with their actions
    /// (Definition 12's constraints); none in M(n).
    pub(super) fn slot_choices(
        &mut self,
        budget: &mut SlotBudget,
        from: &[Slot],
        tag: &str,
    ) -> Result<Vec<SlotChoice>, RunError> {
        let t = &self.model.template;
        let mut out = Vec::new();
        budget.count += from.len() * budget.branching;
        if budget.count > budget.max {
            return Err(RunError::input(format!(
                "the slot encoding of the zero-one agent needs more than {} slots \
                 ({} children per slot; the slots grow as {}^depth): the formula is too deep \
                 for the MILP decider of M_ab(m) on this model",
                budget.max, budget.branching, budget.branching
            )));
        }
        for (p, slot) in from.iter().enumerate() {
            let slots = self.agent_slots(&slot.local, None, None, None);
            let name = format!("{tag}.zo{p}");
            let enabled = self.enabled_actions(&name, &t.protocol, t.actions.len(), &slots)?;
            let mut flags = Vec::with_capacity(budget.branching);
            for c in 0..budget.branching {
                let cname = format!("{name}.c{c}");
                let active: LinExpr = if constant(&slot.active) == Some(0.0) {
                    LinExpr::constant(0.0)
                } else {
                    let x = self.milp.binary(&format!("{cname}.on"));
                    self.milp
                        .le(&format!("{cname}.under"), x, slot.active.clone());
                    x.into()
                };
                let action = self.pick_action(&format!("{cname}.act"), &enabled, active.clone())?;
                flags.push(active.clone());
                out.push(SlotChoice {
                    parent: p,
                    active,
                    action,
                });
            }
            // A present state takes a non-empty set of actions.
            self.milp.ge(
                &format!("{name}.some"),
                LinExpr::sum(flags.clone()),
                slot.active.clone(),
            );
            // The positions are interchangeable: active ones first.
            for (c, w) in flags.windows(2).enumerate() {
                if constant(&w[0]).is_none() {
                    self.milp
                        .ge(&format!("{name}.order{c}"), w[0].clone(), w[1].clone());
                }
            }
        }
        Ok(out)
    }

    /// The child slots of one round: each position's update of its parent's
    /// private state under its action, and its percept at the new environment.
    pub(super) fn slot_successors(
        &mut self,
        from: &[Slot],
        choices: &[SlotChoice],
        joint: &Joint,
        env: &[Val],
        tag: &str,
    ) -> Result<Vec<Slot>, RunError> {
        let mut out = Vec::with_capacity(choices.len());
        for (c, ch) in choices.iter().enumerate() {
            let parent = &from[ch.parent].local;
            let tag = format!("{tag}.zo.c{c}");
            let private = self.agent_update(&tag, parent, &ch.action, joint, Some(&ch.active))?;
            self.prefix = tag;
            out.push(Slot {
                active: ch.active.clone(),
                local: self.observed(private, parent, env)?,
            });
        }
        self.order_siblings(choices, &out, tag);
        Ok(out)
    }

    /// Active siblings in strictly increasing (action, percept) order. Sound:
    /// two active siblings with the same action and percept have the same
    /// local state, one element of the abstract set, and their subtrees
    /// merge into one with at most B distinct children per element again; so
    /// every abstract run has a solution with sorted distinct siblings.
    fn order_siblings(&mut self, choices: &[SlotChoice], children: &[Slot], tag: &str) {
        let percepts = self.model.template.percepts.len();
        let code = |c: usize| -> LinExpr {
            let mut e = LinExpr::constant(0.0);
            for (a, x) in choices[c].action.iter().enumerate() {
                e += x.clone() * (a * percepts) as f64;
            }
            for (p, x) in children[c].local.percept.iter().enumerate() {
                e += x.clone() * p as f64;
            }
            e
        };
        let big = (self.model.template.actions.len() * percepts) as f64;
        for c in 0..choices.len().saturating_sub(1) {
            let next = &choices[c + 1];
            if next.parent != choices[c].parent || constant(&next.active).is_some() {
                continue;
            }
            // code(c) + 1 <= code(c+1) + big * (1 - active(c+1)).
            self.milp.le(
                &format!("{tag}.zo.sorted{c}"),
                code(c) + 1.0 + next.active.clone() * big,
                code(c + 1) + big,
            );
        }
    }
}

/// M_ab(m) with the zero-one agent as slots, from one start: the m indexed
/// agents and the environment as in M(n), the zero-one agent as the tree
/// of slots of this module. Solutions are concretized in some M(n')
/// ([`super::concretize`]) and read in f64.
pub struct SlotUnrolling<'m> {
    pub enc: Enc<'m>,
    pub m: usize,
    pub start: Start,
    pub budget: SlotBudget,
}

impl<'m> SlotUnrolling<'m> {
    /// The unrolling with `branching` child positions per slot.
    pub fn new(
        model: &'m Model,
        m: usize,
        start: Start,
        branching: usize,
        opts: &MilpOptions,
    ) -> Self {
        SlotUnrolling {
            enc: Enc::new(model, opts.encode.clone()),
            m,
            start,
            budget: SlotBudget {
                branching,
                count: 0,
                max: opts.max_slots,
            },
        }
    }
}

impl Unrolling for SlotUnrolling<'_> {
    type State = State;
    type Round = Round;
    type Witness = RealTree;

    on_enc!();

    /// The initial states of S_ab(m) (Definition 13): the zero-one agent is
    /// the one active slot {iota_t}.
    fn initial(&mut self) -> Result<Option<State>, RunError> {
        if self.enc.model.template.init_percept == InitPercept::Observed {
            // The root would be a set of slots, one per percept the first
            // observation may tie on; concretize follows one root slot.
            return Err(RunError::input(
                "the slot encoding of the zero-one agent does not take an observed first percept (`percept : {..} = observe;`) yet; a finite model can use `--zero-one auto` (tabulated)",
            ));
        }
        let Some(mut state) = self.enc.initial(self.m, &self.start)? else {
            return Ok(None);
        };
        self.budget.count = 1;
        state.zero_one = vec![Slot {
            active: LinExpr::constant(1.0),
            local: self.enc.initial_local(),
        }];
        Ok(Some(state))
    }

    fn round(&mut self, from: &State, tag: &str) -> Result<(Round, State), RunError> {
        self.enc.round(from, tag, Some(&mut self.budget))
    }

    fn measure(&self, sizes: &mut Sizes) {
        self.enc.measure(sizes);
        sizes.slots = sizes.slots.max(self.budget.count);
    }
    fn decode(&mut self, s: Solved<State, Round>) -> Result<RealTree, RunError> {
        concretize(&decode_abstract(self.enc.model, s))
    }
}
