//! Bounded simulation (Definition 14 of Kouvaros et al., IJCAI 2024), decided
//! explicitly as a greatest fixed point over depth on the reachable pairs,
//! and the least number of agents n >= m whose concrete model b-simulates the
//! abstract model (Corollary 2's n = min{ i : M_ab(m) <=_b M(i) }).
//!
//! Labels are compared on the indexed agents 1..m, both ways (the label set
//! is closed under negation), so negated atoms are preserved as well; and
//! the initial states are matched both ways (see [`Simulation::holds`]).

use super::checker::Graph;
use crate::nis::front::model::Model;
use crate::nis::semantics::abstraction::Abstract;
use crate::nis::semantics::concrete::Concrete;
use crate::nis::semantics::system::System;
use crate::nis::semantics::{SemResult, Semantics};
use crate::report::Deadline;
use rustc_hash::FxHashMap as HashMap;

/// The deepest bounded simulation decided (`simulates --depth`, and the
/// temporal depth of a sentence given to `verify`/`emergence` with
/// `--simulation search`): the decision recurses once per step.
pub const MAX_SIMULATION_DEPTH: u32 = 10_000;

/// Decides `A <=_b B`: B simulates A up to b steps.
pub struct Simulation {
    /// (a, b) -> (largest j known to hold, smallest j known to fail).
    memo: HashMap<(u32, u32), (i64, u32)>,
    pub pairs_visited: usize,
}

impl Default for Simulation {
    fn default() -> Self {
        Self::new()
    }
}

impl Simulation {
    pub fn new() -> Self {
        Simulation {
            memo: HashMap::default(),
            pairs_visited: 0,
        }
    }

    /// Every initial state of A is matched by some initial state of B in
    /// ~_b (Definition 14), and every initial state of B by some initial
    /// state of A.
    ///
    /// The second condition is not in the paper's Definition 14, but Theorem
    /// 1's second part needs it: an existential phi of A holds at every
    /// initial state of A, and carries over to an initial state of B only
    /// through a related initial state of A. Without it, with several
    /// initial states (an environment with several initial values), M(n)
    /// can "simulate" M_ab(m) from one initial state alone while failing an
    /// existential property of M_ab(m) from another, and Corollary 2 would
    /// be unsound. The simulations the paper constructs (Theorems 2-4, and
    /// M(m + B^b) of [`super::branching`]) relate initial states with the
    /// same environment state, so they meet both conditions.
    pub fn holds<'m, A: System<'m>, B: System<'m>>(
        &mut self,
        ga: &mut Graph<'m, A>,
        gb: &mut Graph<'m, B>,
        b: u32,
    ) -> SemResult<bool> {
        if b > MAX_SIMULATION_DEPTH {
            // `related` recurses once per step of depth.
            return Err(crate::lang::error_at(
                &ga.sys.semantics_ref().model.source,
                crate::lang::Span::default(),
                format!(
                    "a simulation of depth {b} was asked for; the limit is {MAX_SIMULATION_DEPTH}"
                ),
            ));
        }
        let (ia, ib) = (ga.initial.clone(), gb.initial.clone());
        for &a in &ia {
            if !self.some_related(ga, gb, &[a], &ib, b)? {
                return Ok(false);
            }
        }
        for &s in &ib {
            if !self.some_related(ga, gb, &ia, &[s], b)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Some a of `xs` and b of `ys` with (a, b) in ~_j.
    fn some_related<'m, A: System<'m>, B: System<'m>>(
        &mut self,
        ga: &mut Graph<'m, A>,
        gb: &mut Graph<'m, B>,
        xs: &[u32],
        ys: &[u32],
        j: u32,
    ) -> SemResult<bool> {
        for &a in xs {
            for &b in ys {
                if self.related(ga, gb, a, b, j)? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    fn labels_agree<'m, A: System<'m>, B: System<'m>>(
        ga: &mut Graph<'m, A>,
        gb: &mut Graph<'m, B>,
        a: u32,
        b: u32,
    ) -> SemResult<bool> {
        // The indexed agents' labels and the environment's (`None`).
        let m = ga.sys.indexed(&ga.states[a as usize]).len();
        for agent in (0..m).map(Some).chain([None]) {
            if ga.label_bits(a, agent)? != gb.label_bits(b, agent)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// (a, b) in ~_j.
    pub fn related<'m, A: System<'m>, B: System<'m>>(
        &mut self,
        ga: &mut Graph<'m, A>,
        gb: &mut Graph<'m, B>,
        a: u32,
        b: u32,
        j: u32,
    ) -> SemResult<bool> {
        if let Some(&(yes, no)) = self.memo.get(&(a, b)) {
            if i64::from(j) <= yes {
                return Ok(true);
            }
            if j >= no {
                return Ok(false);
            }
        }
        self.pairs_visited += 1;
        let mut ok = Self::labels_agree(ga, gb, a, b)?;
        if ok && j > 0 {
            let succ_b = gb.successor_ids(b)?;
            for sa in ga.successor_ids(a)? {
                let mut found = false;
                for &sb in &succ_b {
                    if self.related(ga, gb, sa, sb, j - 1)? {
                        found = true;
                        break;
                    }
                }
                if !found {
                    ok = false;
                    break;
                }
            }
        }
        let entry = self.memo.entry((a, b)).or_insert((-1, u32::MAX));
        if ok {
            entry.0 = entry.0.max(i64::from(j));
        } else {
            entry.1 = entry.1.min(j);
        }
        Ok(ok)
    }
}

/// The answer of the search for the least simulating n.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinimalN {
    /// The least i in m..=cap with M_ab(m) <=_b M(i), if any.
    pub n: Option<usize>,
    pub cap: usize,
    /// (i, simulates) for every i tried.
    pub tried: Vec<(usize, bool)>,
}

/// The default cap on the search: m + |L_t| * |Act_t|.
pub fn default_cap(model: &Model, m: usize) -> Result<usize, String> {
    let sem = Semantics::new(model)?;
    Ok(m + sem.space.size as usize * model.template.actions.len())
}

/// n = min{ i >= m : M_ab(m) <=_b M(i) }, trying i = m, m+1, ... up to `cap`.
/// At `deadline` the search stops as if the cap were the last i decided
/// (`n` is then `None`: callers tell the two apart by the deadline).
pub fn minimal_simulating_n(
    model: &Model,
    m: usize,
    b: u32,
    cap: usize,
    deadline: Deadline,
) -> SemResult<Result<MinimalN, String>> {
    let sem = match Semantics::new(model) {
        Ok(s) => s,
        Err(e) => return Ok(Err(e)),
    };
    let mut ga = Graph::new(Abstract::new(sem, m))?.with_deadline(deadline);
    let mut tried = Vec::new();
    for i in m.max(1)..=cap {
        let given_up = || MinimalN {
            n: None,
            cap: i.saturating_sub(1),
            tried: tried.clone(),
        };
        if deadline.expired() {
            return Ok(Ok(given_up()));
        }
        let sem = Semantics::new(model)
            .map_err(|e| crate::lang::error_at(&model.source, Default::default(), e))?;
        let mut gc = Graph::new(Concrete::new(sem, i, m))?.with_deadline(deadline);
        let ok = Simulation::new().holds(&mut ga, &mut gc, b)?;
        if ga.expired() || gc.expired() {
            // Cut by the deadline: this answer means nothing.
            return Ok(Ok(given_up()));
        }
        tried.push((i, ok));
        if ok {
            return Ok(Ok(MinimalN {
                n: Some(i),
                cap,
                tried,
            }));
        }
    }
    Ok(Ok(MinimalN {
        n: None,
        cap,
        tried,
    }))
}
