//! Explicit model checking of instantiated bICTL formulas phi[m] (Definition 8)
//! over any [`System`], with witness trees for existential formulas and
//! counterexample trees for universal ones (a witness of the dual formula).

use crate::nis::front::core::{Core, Node};
use crate::nis::semantics::system::System;
use crate::nis::semantics::SemResult;
use crate::nis::witness::WitnessTree;
use crate::report::Deadline;
use rustc_hash::FxHashMap as HashMap;

/// The most global states one explicit search keeps (each costs about 3.5 KB
/// with its successor list): beyond it the search is refused (exit 2)
/// instead of exhausting the memory.
pub const MAX_EXPLICIT_STATES: usize = 250_000;

/// Successors of one state: the move and the successor's number.
type Successors<M> = Vec<(M, u32)>;

/// The reachable part of a system, explored on demand and numbered.
pub struct Graph<'m, S: System<'m>> {
    pub sys: S,
    pub states: Vec<S::State>,
    index: HashMap<S::State, u32>,
    succ: Vec<Option<Successors<S::Move>>>,
    pub initial: Vec<u32>,
    /// Past this deadline no state is expanded any more (see [`Graph::with_deadline`]).
    deadline: Deadline,
    expired: bool,
    _m: std::marker::PhantomData<&'m ()>,
}

impl<'m, S: System<'m>> Graph<'m, S> {
    pub fn new(mut sys: S) -> SemResult<Self> {
        let init = sys.initial()?;
        let mut g = Graph {
            sys,
            states: Vec::new(),
            index: HashMap::default(),
            succ: Vec::new(),
            initial: Vec::new(),
            deadline: Deadline::NONE,
            expired: false,
            _m: std::marker::PhantomData,
        };
        for s in init {
            let id = g.intern(s);
            g.initial.push(id);
        }
        Ok(g)
    }

    /// Stops expanding states at `deadline`: from then on a state not yet
    /// expanded has no successors, so every search on the graph ends soon,
    /// and its answer means nothing. Whoever sets a deadline must discard
    /// the answer when [`Graph::expired`] says so.
    pub fn with_deadline(mut self, deadline: Deadline) -> Self {
        self.deadline = deadline;
        // One expansion of a large M(n) can outlast the deadline by itself.
        self.sys.semantics().set_deadline(deadline);
        self
    }

    /// Whether the deadline cut the exploration (answers are then void).
    pub fn expired(&self) -> bool {
        self.expired
    }

    pub fn intern(&mut self, s: S::State) -> u32 {
        if let Some(&id) = self.index.get(&s) {
            return id;
        }
        let id = self.states.len() as u32;
        self.index.insert(s.clone(), id);
        self.states.push(s);
        self.succ.push(None);
        id
    }

    /// The successors of a state (computed once).
    pub fn successors(&mut self, id: u32) -> SemResult<&[(S::Move, u32)]> {
        if self.succ[id as usize].is_none() {
            if self.expired || self.deadline.expired() {
                self.expired = true;
                return Ok(&[]);
            }
            let state = self.states[id as usize].clone();
            let next = self.sys.successors(&state)?;
            if self.deadline.expired() {
                // The expansion may have stopped early: its list is not kept.
                self.expired = true;
                return Ok(&[]);
            }
            if self.states.len() + next.len() > MAX_EXPLICIT_STATES {
                return Err(crate::lang::error_at(
                    &self.sys.semantics_ref().model.source,
                    crate::lang::Span::default(),
                    format!(
                        "the explicit search holds {} states and would add {} more; the limit is {MAX_EXPLICIT_STATES} (try --engine milp)",
                        self.states.len(),
                        next.len()
                    ),
                ));
            }
            let ids = next.into_iter().map(|(m, s)| (m, self.intern(s))).collect();
            self.succ[id as usize] = Some(ids);
        }
        Ok(self.succ[id as usize].as_deref().unwrap_or(&[]))
    }

    pub fn successor_ids(&mut self, id: u32) -> SemResult<Vec<u32>> {
        Ok(self.successors(id)?.iter().map(|(_, t)| *t).collect())
    }

    /// Label `label` of indexed agent `agent` (or of the environment, `None`) at a state.
    pub fn literal(&mut self, id: u32, label: usize, agent: Option<usize>) -> SemResult<bool> {
        Ok(self.label_bits(id, agent)? >> label & 1 == 1)
    }

    /// The labels of indexed agent `agent` (or the environment's, `None`) at a state, as bits.
    pub fn label_bits(&mut self, id: u32, agent: Option<usize>) -> SemResult<u64> {
        let s = &self.states[id as usize];
        match agent {
            Some(a) => {
                let l = self.sys.indexed(s)[a];
                self.sys.semantics().labels(l)
            }
            None => {
                let e = self.sys.env(s);
                self.sys.semantics().env_labels(e)
            }
        }
    }

    /// Layer j: the states reachable by exactly j transitions, j = 0..=k.
    /// A model error met on the way (an update leaving its declared range)
    /// names the run from an initial state to the state it was met at.
    pub fn layers(&mut self, k: u32) -> SemResult<Vec<Vec<u32>>> {
        let mut layers = vec![self.initial.clone()];
        // The first state each was reached from; an initial state is its own.
        let mut parent: HashMap<u32, u32> = self.initial.iter().map(|&i| (i, i)).collect();
        for _ in 0..k {
            let mut next: Vec<u32> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let last = layers.last().cloned().unwrap_or_default();
            for s in last {
                let succ = match self.successor_ids(s) {
                    Ok(succ) => succ,
                    Err(mut e) => {
                        e.message = format!("{}; {}", e.message, self.run_to(s, &parent));
                        return Err(e);
                    }
                };
                if self.expired {
                    // Cut by the deadline: the layers mean nothing now.
                    return Ok(layers);
                }
                for t in succ {
                    if seen.insert(t) {
                        next.push(t);
                        parent.entry(t).or_insert(s);
                    }
                }
            }
            layers.push(next);
        }
        Ok(layers)
    }

    /// The run from an initial state to `s` along `parent`, in words.
    fn run_to(&self, s: u32, parent: &HashMap<u32, u32>) -> String {
        let mut path = vec![s];
        while let Some(&p) = parent.get(&path[path.len() - 1]) {
            if path.contains(&p) {
                break;
            }
            path.push(p);
        }
        let steps: Vec<String> = path
            .iter()
            .rev()
            .enumerate()
            .map(|(j, &id)| format!("step {j}: {}", self.sys.describe(&self.states[id as usize])))
            .collect();
        format!("the run to it: {}, then the update", steps.join("; "))
    }
}

impl<'m, S: System<'m>> Drop for Graph<'m, S> {
    /// A graph cut by the deadline is freed on another thread, so that the
    /// run reports in time (see [`crate::report::free_in_background`]).
    fn drop(&mut self) {
        if self.expired {
            crate::report::free_in_background((
                std::mem::take(&mut self.states),
                std::mem::take(&mut self.index),
                std::mem::take(&mut self.succ),
            ));
        }
    }
}

/// Memoised satisfaction of one core formula.
pub struct Checker<'c> {
    core: &'c Core,
    memo: HashMap<(usize, u32), bool>,
}

impl<'c> Checker<'c> {
    pub fn new(core: &'c Core) -> Self {
        Checker {
            core,
            memo: HashMap::default(),
        }
    }

    pub fn sat<'m, S: System<'m>>(
        &mut self,
        g: &mut Graph<'m, S>,
        node: usize,
        state: u32,
    ) -> SemResult<bool> {
        if let Some(&v) = self.memo.get(&(node, state)) {
            return Ok(v);
        }
        let core = self.core;
        let v = match &core.nodes[node] {
            Node::Lit {
                label,
                agent,
                negated,
            } => g.literal(state, *label, *agent)? != *negated,
            Node::And(cs) => {
                let mut all = true;
                for &c in cs.clone().iter() {
                    if !self.sat(g, c, state)? {
                        all = false;
                        break;
                    }
                }
                all
            }
            Node::Or(cs) => {
                let mut any = false;
                for &c in cs.clone().iter() {
                    if self.sat(g, c, state)? {
                        any = true;
                        break;
                    }
                }
                any
            }
            &Node::EX(c) => {
                let mut any = false;
                for t in g.successor_ids(state)? {
                    if self.sat(g, c, t)? {
                        any = true;
                        break;
                    }
                }
                any
            }
            &Node::AX(c) => {
                let mut all = true;
                for t in g.successor_ids(state)? {
                    if !self.sat(g, c, t)? {
                        all = false;
                        break;
                    }
                }
                all
            }
        };
        self.memo.insert((node, state), v);
        Ok(v)
    }

    /// A witness tree of an existential (or propositional) formula true at `state`.
    pub fn witness<'m, S: System<'m>>(
        &mut self,
        g: &mut Graph<'m, S>,
        node: usize,
        state: u32,
    ) -> SemResult<WitnessTree<S::State, S::Move>> {
        let mut tree = WitnessTree {
            state: g.states[state as usize].clone(),
            obligations: Vec::new(),
            children: Vec::new(),
        };
        self.build(g, node, state, &mut tree)?;
        Ok(tree)
    }

    fn build<'m, S: System<'m>>(
        &mut self,
        g: &mut Graph<'m, S>,
        node: usize,
        state: u32,
        tree: &mut WitnessTree<S::State, S::Move>,
    ) -> SemResult<()> {
        let core = self.core;
        match core.nodes[node].clone() {
            Node::Lit {
                label,
                agent,
                negated,
            } => tree.obligations.push((label, agent, negated)),
            Node::And(cs) => {
                for c in cs {
                    self.build(g, c, state, tree)?;
                }
            }
            Node::Or(cs) => {
                for c in cs {
                    if self.sat(g, c, state)? {
                        return self.build(g, c, state, tree);
                    }
                }
            }
            Node::EX(c) => {
                let succ: Vec<(S::Move, u32)> = g.successors(state)?.to_vec();
                for (mv, t) in succ {
                    if self.sat(g, c, t)? {
                        let mut child = WitnessTree {
                            state: g.states[t as usize].clone(),
                            obligations: Vec::new(),
                            children: Vec::new(),
                        };
                        self.build(g, c, t, &mut child)?;
                        tree.children.push((mv, child));
                        return Ok(());
                    }
                }
            }
            // Witnesses are built for existential formulas only; AX never reaches here.
            Node::AX(_) => {}
        }
        Ok(())
    }
}

/// The outcome of checking phi[m] on one system.
pub struct Outcome<St, Mv> {
    pub holds: bool,
    /// Existential and holds: one witness per initial state. Universal and
    /// violated: the counterexample (a witness of the dual) at a failing initial state.
    pub witnesses: Vec<WitnessTree<St, Mv>>,
    pub states_explored: usize,
}

/// M |= phi[m] iff phi[m] holds at every initial state (Definition 8).
pub fn check_system<'m, S: System<'m>>(
    g: &mut Graph<'m, S>,
    core: &Core,
) -> SemResult<Outcome<S::State, S::Move>> {
    let mut checker = Checker::new(core);
    let initial = g.initial.clone();
    let mut failing = None;
    for &i in &initial {
        if !checker.sat(g, core.root, i)? {
            failing = Some(i);
            break;
        }
    }
    let mut witnesses = Vec::new();
    match failing {
        None if !core.has_universal() => {
            for &i in &initial {
                witnesses.push(checker.witness(g, core.root, i)?);
            }
        }
        Some(i) if !core.has_existential() => {
            let dual = core.negate();
            let mut d = Checker::new(&dual);
            if d.sat(g, dual.root, i)? {
                witnesses.push(d.witness(g, dual.root, i)?);
            }
        }
        _ => {}
    }
    Ok(Outcome {
        holds: failing.is_none(),
        witnesses,
        states_explored: g.states.len(),
    })
}
