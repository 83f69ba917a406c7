//! A MILP solution as a witness tree in the explicit decider's concrete form
//! (indexed agents 1..m, the others as a multiset), so that it is replayed by
//! [`crate::nis::replay::replay_concrete`] like any explicit witness.

use super::encode::Val;
use super::formula::{Encoded, Unrolling};
use crate::milp::{LinExpr, Solution};
use crate::nis::checker::WitnessTree;
use crate::nis::concrete::{add_count, CMove, CState};
use crate::nis::semantics::{LocalId, Semantics};

/// The index of the largest entry of a one-hot vector under the solution.
pub(super) fn which(sol: &Solution, v: &[LinExpr]) -> usize {
    let vals: Vec<f64> = v.iter().map(|e| sol.eval(e)).collect();
    (0..vals.len())
        .max_by(|&a, &b| vals[a].total_cmp(&vals[b]))
        .unwrap_or(0)
}

/// The code of a finite value under the solution (numbers rounded).
pub(super) fn code(sol: &Solution, v: &Val) -> i64 {
    match v {
        Val::Num(e) | Val::Bool(e) => sol.eval(e).round() as i64,
        Val::Enum(xs) => which(sol, xs) as i64,
    }
}

/// Decodes the witness tree rooted at state 0 along the encoded formula.
pub struct Decoder<'a, 's, 'm> {
    pub sol: &'a Solution,
    pub sem: &'s mut Semantics<'m>,
    pub u: &'a Unrolling,
    /// m: agents 1..m are indexed.
    pub m: usize,
}

impl Decoder<'_, '_, '_> {
    fn locals(&mut self, s: usize) -> Vec<LocalId> {
        let state = &self.u.states[s];
        state
            .agents
            .iter()
            .map(|a| {
                let mut codes: Vec<i64> = a.private.iter().map(|v| code(self.sol, v)).collect();
                codes.push(which(self.sol, &a.percept) as i64);
                self.sem.space.encode(&codes)
            })
            .collect()
    }

    fn cstate(&mut self, s: usize) -> CState {
        let locals = self.locals(s);
        let mut others = Vec::new();
        for &l in &locals[self.m..] {
            add_count(&mut others, l, 1);
        }
        let codes: Vec<i64> = self.u.states[s]
            .env
            .iter()
            .map(|v| code(self.sol, v))
            .collect();
        CState {
            indexed: locals[..self.m].to_vec(),
            others,
            env: self.sem.env_id(codes),
        }
    }

    fn cmove(&mut self, to: usize) -> CMove {
        let round = self.u.rounds[to].as_ref().expect("a successor has a round");
        let from = self.locals(round.from);
        let next = self.locals(to);
        let acts: Vec<usize> = round.actions.iter().map(|a| which(self.sol, a)).collect();
        let mut others: Vec<(LocalId, usize, LocalId, u32)> = Vec::new();
        for j in self.m..acts.len() {
            let key = (from[j], acts[j], next[j]);
            match others.iter_mut().find(|g| (g.0, g.1, g.2) == key) {
                Some(g) => g.3 += 1,
                None => others.push((key.0, key.1, key.2, 1)),
            }
        }
        CMove {
            env_action: which(self.sol, &round.env_action),
            indexed: acts[..self.m].to_vec(),
            others,
        }
    }

    /// The witness tree of `root` (which holds under the solution) at state 0.
    pub fn tree(&mut self, root: &Encoded) -> WitnessTree<CState, CMove> {
        let mut t = WitnessTree {
            state: self.cstate(0),
            obligations: Vec::new(),
            children: Vec::new(),
        };
        let sol = self.sol;
        root.witness(sol, 0, &mut t, &mut |_, to| {
            (self.cmove(to), self.cstate(to))
        });
        t
    }
}
