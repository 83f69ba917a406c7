//! The explored (horizon-bounded) state graph, for nested queries: built
//! breadth-first, so parent links give shortest witnesses; formulas are
//! evaluated by backward fixpoints (`EF`) and duality (`AG = !EF !`).
//!
//! The graph is built once per model and options (see [`GraphCache`]) and
//! its predecessor lists once per graph; each atom is evaluated once per
//! valuation ([`Graph::sat`], the reference, memoises every sub-formula of a
//! query). Queries are answered by [`super::bulk::sat_batched`]:
//! bitsets, the `EF`/`AG` sub-formulas of one nesting depth 64 to a backward
//! pass, atoms over shared columns.

use crate::lang::{eval, TExpr, TKind, Value};
use crate::report::RunError;
use crate::timed::front::query::Formula;
use crate::timed::semantics::trace::Trace;
use crate::timed::semantics::{Semantics, State, StateEnv, Step};
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

pub struct Graph {
    pub states: Vec<State>,
    pub succ: Vec<Vec<usize>>,
    pub parent: Vec<Option<(usize, Step)>>,
    /// False when a limit stopped the construction (formulas are then not evaluated).
    pub complete: bool,
    pub transitions: usize,
    /// Predecessors in compressed form: those of state `t` are
    /// `pred[pred_start[t]..pred_start[t + 1]]` (built with the graph, used by every `EF`).
    pred_start: Vec<usize>,
    pred: Vec<usize>,
    /// For each state, the index of its valuation V among the distinct ones
    /// (and one state per valuation), so that an atom reading only V is
    /// evaluated once per valuation; filled on first use.
    v_classes: std::cell::OnceCell<(Vec<u32>, Vec<usize>)>,
}

/// A graph kept between the queries of one `check` run with the same options.
#[derive(Default)]
pub struct GraphCache {
    pub graph: Option<Graph>,
}

impl Graph {
    pub fn build(
        sem: &Semantics,
        max_states: usize,
        deadline: Option<Instant>,
    ) -> Result<Graph, RunError> {
        Graph::build_metered(sem, max_states, deadline, &Default::default())
    }

    /// [`Graph::build`], showing the states built on `meter`.
    pub fn build_metered(
        sem: &Semantics,
        max_states: usize,
        deadline: Option<Instant>,
        meter: &crate::report::meter::Meter,
    ) -> Result<Graph, RunError> {
        let init = sem.initial();
        let mut g = Graph {
            states: vec![init.clone()],
            succ: Vec::new(),
            parent: vec![None],
            complete: true,
            transitions: 0,
            pred_start: Vec::new(),
            pred: Vec::new(),
            v_classes: std::cell::OnceCell::new(),
        };
        let mut index: HashMap<State, usize> = HashMap::from([(init, 0)]);
        let mut queue = VecDeque::from([0usize]);
        let mut out = Vec::new();
        while let Some(id) = queue.pop_front() {
            meter.set(g.succ.len() as u64);
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
        g.index_predecessors();
        Ok(g)
    }

    /// Fills the compressed predecessor lists from `succ` (counting sort by target).
    fn index_predecessors(&mut self) {
        let n = self.states.len();
        let mut start = vec![0usize; n + 1];
        for ts in &self.succ {
            for &t in ts {
                start[t + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut pred = vec![0usize; start[n]];
        for (s, ts) in self.succ.iter().enumerate() {
            for &t in ts {
                pred[fill[t]] = s;
                fill[t] += 1;
            }
        }
        self.pred_start = start;
        self.pred = pred;
    }

    pub(super) fn predecessors(&self, t: usize) -> &[usize] {
        &self.pred[self.pred_start[t]..self.pred_start[t + 1]]
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
        self.sat_memo(sem, f, &mut Memo::new())
    }

    /// [`Graph::sat`] sharing the sets already computed in `memo` (keyed by
    /// sub-formula), so that each sub-formula of a query is evaluated once.
    pub fn sat_memo(
        &self,
        sem: &Semantics,
        f: &Formula,
        memo: &mut Memo,
    ) -> Result<Vec<bool>, RunError> {
        let key = key(f);
        if let Some(v) = memo.sets.get(&key) {
            return Ok(v.clone());
        }
        let set = match f {
            Formula::Atom(e) => self.atom_set(sem, e)?,
            Formula::Not(a) => self
                .sat_memo(sem, a, memo)?
                .into_iter()
                .map(|x| !x)
                .collect(),
            Formula::And(a, b) => self.combine(sem, a, b, memo, |x, y| x && y)?,
            Formula::Or(a, b) => self.combine(sem, a, b, memo, |x, y| x || y)?,
            Formula::Implies(a, b) => self.combine(sem, a, b, memo, |x, y| !x || y)?,
            Formula::EF(a) => self.can_reach(self.sat_memo(sem, a, memo)?),
            Formula::AG(a) => {
                let bad: Vec<bool> = self
                    .sat_memo(sem, a, memo)?
                    .into_iter()
                    .map(|x| !x)
                    .collect();
                self.can_reach(bad).into_iter().map(|x| !x).collect()
            }
        };
        memo.sets.insert(key, set.clone());
        Ok(set)
    }

    /// Backward reachability for 64 targets at once: ORs each state's word
    /// into its predecessors' until nothing changes.
    pub(super) fn reach_words(&self, words: &mut [u64]) {
        let mut work: Vec<usize> = (0..words.len()).filter(|&s| words[s] != 0).collect();
        while let Some(t) = work.pop() {
            let w = words[t];
            for &s in self.predecessors(t) {
                if words[s] | w != words[s] {
                    words[s] |= w;
                    work.push(s);
                }
            }
        }
    }

    /// For each state, the index of its valuation V among the distinct ones,
    /// and one state per valuation.
    pub(super) fn classes(&self) -> &(Vec<u32>, Vec<usize>) {
        self.v_classes.get_or_init(|| {
            let mut ids: rustc_hash::FxHashMap<&[Value], u32> = Default::default();
            let mut first = Vec::new();
            let class = (self.states.iter().enumerate())
                .map(|(i, s)| {
                    *ids.entry(&s.vars).or_insert_with(|| {
                        first.push(i);
                        (first.len() - 1) as u32
                    })
                })
                .collect();
            (class, first)
        })
    }

    /// An atom's truth in every state: once per distinct V when it reads only V.
    pub(super) fn atom_set(&self, sem: &Semantics, e: &TExpr) -> Result<Vec<bool>, RunError> {
        if !reads_only_v(e, sem.model.vars.len()) {
            return self.states.iter().map(|s| holds(sem, e, s)).collect();
        }
        let (class, first) = self.classes();
        let per_class: Vec<bool> = (first.iter())
            .map(|&i| holds(sem, e, &self.states[i]))
            .collect::<Result<_, _>>()?;
        Ok(class.iter().map(|&c| per_class[c as usize]).collect())
    }

    fn combine(
        &self,
        sem: &Semantics,
        a: &Formula,
        b: &Formula,
        memo: &mut Memo,
        op: impl Fn(bool, bool) -> bool,
    ) -> Result<Vec<bool>, RunError> {
        let x = self.sat_memo(sem, a, memo)?;
        let y = self.sat_memo(sem, b, memo)?;
        Ok(x.into_iter().zip(y).map(|(x, y)| op(x, y)).collect())
    }

    /// Backward reachability: the states from which a target is reachable (themselves included).
    fn can_reach(&self, mut set: Vec<bool>) -> Vec<bool> {
        let mut work: Vec<usize> = (0..set.len()).filter(|&s| set[s]).collect();
        while let Some(t) = work.pop() {
            for &s in self.predecessors(t) {
                if !set[s] {
                    set[s] = true;
                    work.push(s);
                }
            }
        }
        set
    }
}

/// The memo key of a sub-formula: its address (the query outlives the memo).
fn key(f: &Formula) -> usize {
    f as *const Formula as usize
}

/// The state sets of the sub-formulas of one query, keyed by the
/// sub-formula's address (the query outlives the memo).
pub struct Memo {
    sets: HashMap<usize, Vec<bool>>,
}

impl Memo {
    pub fn new() -> Self {
        Memo {
            sets: HashMap::new(),
        }
    }
}

impl Default for Memo {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether an expression reads no slot beyond the `nv` components of V
/// (no clock, locality or time; see [`crate::timed::front::model::StateScope`]).
pub(super) fn reads_only_v(e: &TExpr, nv: usize) -> bool {
    match &e.kind {
        TKind::Const(_) => true,
        TKind::Var(slot) => *slot < nv,
        TKind::Unary(_, a) => reads_only_v(a, nv),
        TKind::Binary(_, a, b) => reads_only_v(a, nv) && reads_only_v(b, nv),
        TKind::If(c, a, b) => [c, a, b].iter().all(|x| reads_only_v(x, nv)),
        TKind::Builtin(_, args) => args.iter().all(|x| reads_only_v(x, nv)),
        TKind::Ext(..) => false,
    }
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
