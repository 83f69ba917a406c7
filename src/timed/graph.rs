//! The explored (horizon-bounded) state graph, for nested queries: built
//! breadth-first, so parent links give shortest witnesses; formulas are
//! evaluated by backward fixpoints (`EF`) and duality (`AG = !EF !`).

use super::query::Formula;
use super::semantics::{Semantics, State, StateEnv, Step};
use super::trace::Trace;
use crate::lang::{eval, Value};
use crate::report::RunError;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

pub struct Graph {
    pub states: Vec<State>,
    pub succ: Vec<Vec<usize>>,
    pub parent: Vec<Option<(usize, Step)>>,
    /// False when a limit stopped the construction (formulas are then not evaluated).
    pub complete: bool,
    pub transitions: usize,
}

impl Graph {
    pub fn build(
        sem: &Semantics,
        max_states: usize,
        deadline: Option<Instant>,
    ) -> Result<Graph, RunError> {
        let init = sem.initial();
        let mut g = Graph {
            states: vec![init.clone()],
            succ: Vec::new(),
            parent: vec![None],
            complete: true,
            transitions: 0,
        };
        let mut index: HashMap<State, usize> = HashMap::from([(init, 0)]);
        let mut queue = VecDeque::from([0usize]);
        let mut out = Vec::new();
        while let Some(id) = queue.pop_front() {
            if g.succ.len() >= max_states || deadline.is_some_and(|d| Instant::now() >= d) {
                g.complete = false;
                break;
            }
            sem.successors(&g.states[id], &mut out)?;
            g.transitions += out.len();
            let mut targets = Vec::with_capacity(out.len());
            for (step, s) in out.drain(..) {
                let t = match index.get(&s) {
                    Some(&t) => t,
                    None => {
                        let t = g.states.len();
                        index.insert(s.clone(), t);
                        g.states.push(s);
                        g.parent.push(Some((id, step)));
                        queue.push_back(t);
                        t
                    }
                };
                targets.push(t);
            }
            // States are expanded in index order, so succ[id] lines up.
            g.succ.push(targets);
        }
        Ok(g)
    }

    pub fn trace_to(&self, mut id: usize) -> Trace {
        let mut steps = Vec::new();
        while let Some((p, step)) = self.parent[id] {
            steps.push((step, self.states[id].clone()));
            id = p;
        }
        steps.reverse();
        Trace {
            initial: self.states[0].clone(),
            steps,
        }
    }

    /// The set of states satisfying `f`.
    pub fn sat(&self, sem: &Semantics, f: &Formula) -> Result<Vec<bool>, RunError> {
        Ok(match f {
            Formula::Atom(e) => {
                let mut v = Vec::with_capacity(self.states.len());
                for s in &self.states {
                    v.push(holds(sem, e, s)?);
                }
                v
            }
            Formula::Not(a) => self.sat(sem, a)?.into_iter().map(|x| !x).collect(),
            Formula::And(a, b) => zip(self.sat(sem, a)?, self.sat(sem, b)?, |x, y| x && y),
            Formula::Or(a, b) => zip(self.sat(sem, a)?, self.sat(sem, b)?, |x, y| x || y),
            Formula::Implies(a, b) => zip(self.sat(sem, a)?, self.sat(sem, b)?, |x, y| !x || y),
            Formula::EF(a) => self.can_reach(self.sat(sem, a)?),
            Formula::AG(a) => {
                let bad: Vec<bool> = self.sat(sem, a)?.into_iter().map(|x| !x).collect();
                self.can_reach(bad).into_iter().map(|x| !x).collect()
            }
        })
    }

    /// Backward reachability: the states from which a target is reachable (themselves included).
    fn can_reach(&self, mut set: Vec<bool>) -> Vec<bool> {
        let n = self.states.len();
        let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (s, ts) in self.succ.iter().enumerate() {
            for &t in ts {
                pred[t].push(s);
            }
        }
        let mut work: Vec<usize> = (0..n).filter(|&s| set[s]).collect();
        while let Some(t) = work.pop() {
            for &s in &pred[t] {
                if !set[s] {
                    set[s] = true;
                    work.push(s);
                }
            }
        }
        set
    }
}

fn zip(a: Vec<bool>, b: Vec<bool>, f: impl Fn(bool, bool) -> bool) -> Vec<bool> {
    a.into_iter().zip(b).map(|(x, y)| f(x, y)).collect()
}

/// Evaluates a Boolean state condition exactly.
pub fn holds(sem: &Semantics, e: &crate::lang::TExpr, s: &State) -> Result<bool, RunError> {
    match eval(
        e,
        &StateEnv {
            model: sem.model,
            state: s,
        },
    ) {
        Ok(Value::Bool(b)) => Ok(b),
        Ok(other) => Err(RunError::input(format!(
            "a condition evaluated to {other}, not a Boolean"
        ))),
        Err(err) => Err(RunError::input(format!(
            "a query condition cannot be evaluated: {err}"
        ))),
    }
}
