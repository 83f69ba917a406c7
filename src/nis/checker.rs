//! Explicit model checking of instantiated bICTL formulas phi[m] (Definition 8)
//! over any [`System`], with witness trees for existential formulas and
//! counterexample trees for universal ones (a witness of the dual formula).

use super::formula::{AgentRef, Formula, Sentence};
use super::model::Model;
use super::semantics::SemResult;
use super::system::System;
use crate::lang::{error_at, LangResult};
use crate::report::Deadline;
use std::collections::HashMap;

/// A formula in core form over label and agent numbers (agents 0-based),
/// with EX^k / AX^k unrolled into k single steps and until expanded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Lit {
        label: usize,
        agent: usize,
        negated: bool,
    },
    And(Vec<usize>),
    Or(Vec<usize>),
    EX(usize),
    AX(usize),
}

#[derive(Clone, Debug)]
pub struct Core {
    pub nodes: Vec<Node>,
    pub root: usize,
}

impl Core {
    fn push(&mut self, n: Node) -> usize {
        if let Some(i) = self.nodes.iter().position(|m| *m == n) {
            return i;
        }
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    /// The dual formula: negation pushed to the atoms (A and E swap).
    pub fn negate(&self) -> Core {
        let nodes = self
            .nodes
            .iter()
            .map(|n| match n {
                Node::Lit {
                    label,
                    agent,
                    negated,
                } => Node::Lit {
                    label: *label,
                    agent: *agent,
                    negated: !negated,
                },
                Node::And(v) => Node::Or(v.clone()),
                Node::Or(v) => Node::And(v.clone()),
                Node::EX(c) => Node::AX(*c),
                Node::AX(c) => Node::EX(*c),
            })
            .collect();
        Core {
            nodes,
            root: self.root,
        }
    }

    pub fn has_universal(&self) -> bool {
        self.nodes.iter().any(|n| matches!(n, Node::AX(_)))
    }

    pub fn has_existential(&self) -> bool {
        self.nodes.iter().any(|n| matches!(n, Node::EX(_)))
    }
}

/// phi[m] (Lemma 1): variables bound to agents 1..m in order; labels resolved in the model.
pub fn lower(sentence: &Sentence, model: &Model) -> LangResult<Core> {
    let mut core = Core {
        nodes: Vec::new(),
        root: 0,
    };
    core.root = lower_rec(sentence, model, &sentence.body, &mut core)?;
    Ok(core)
}

fn lower_rec(s: &Sentence, model: &Model, f: &Formula, core: &mut Core) -> LangResult<usize> {
    Ok(match f {
        Formula::Atom {
            label,
            agent,
            negated,
            span,
        } => {
            let Some(l) = model.label_index(label) else {
                let known: Vec<&str> = model.labels.iter().map(|l| l.name.as_str()).collect();
                return Err(error_at(
                    &s.source,
                    *span,
                    format!(
                        "unknown label `{label}` (the model has: {})",
                        known.join(", ")
                    ),
                ));
            };
            let agent = match agent {
                AgentRef::Var(v) => s.vars.iter().position(|x| x == v).unwrap_or(0),
                AgentRef::Index(i) => i - 1,
            };
            core.push(Node::Lit {
                label: l,
                agent,
                negated: *negated,
            })
        }
        Formula::And(a, b) => {
            let (a, b) = (lower_rec(s, model, a, core)?, lower_rec(s, model, b, core)?);
            core.push(Node::And(vec![a, b]))
        }
        Formula::Or(a, b) => {
            let (a, b) = (lower_rec(s, model, a, core)?, lower_rec(s, model, b, core)?);
            core.push(Node::Or(vec![a, b]))
        }
        Formula::EX(k, a) | Formula::AX(k, a) => {
            let mut n = lower_rec(s, model, a, core)?;
            for _ in 0..*k {
                n = core.push(if matches!(f, Formula::EX(..)) {
                    Node::EX(n)
                } else {
                    Node::AX(n)
                });
            }
            n
        }
        Formula::EU(k, a, b) | Formula::AU(k, a, b) => {
            let (phi, psi) = (lower_rec(s, model, a, core)?, lower_rec(s, model, b, core)?);
            let mut u = psi;
            for _ in 0..*k {
                let step = core.push(if matches!(f, Formula::EU(..)) {
                    Node::EX(u)
                } else {
                    Node::AX(u)
                });
                let both = core.push(Node::And(vec![phi, step]));
                u = core.push(Node::Or(vec![psi, both]));
            }
            u
        }
    })
}

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
            index: HashMap::new(),
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
            let ids = next.into_iter().map(|(m, s)| (m, self.intern(s))).collect();
            self.succ[id as usize] = Some(ids);
        }
        Ok(self.succ[id as usize].as_deref().unwrap_or(&[]))
    }

    pub fn successor_ids(&mut self, id: u32) -> SemResult<Vec<u32>> {
        Ok(self.successors(id)?.iter().map(|(_, t)| *t).collect())
    }

    /// Labels of indexed agent `agent` at a state, as bits by label.
    pub fn labels(&mut self, id: u32, agent: usize) -> SemResult<u64> {
        let l = self.sys.indexed(&self.states[id as usize])[agent];
        self.sys.semantics().labels(l)
    }

    /// Layer j: the states reachable by exactly j transitions, j = 0..=k.
    pub fn layers(&mut self, k: u32) -> SemResult<Vec<Vec<u32>>> {
        let mut layers = vec![self.initial.clone()];
        for _ in 0..k {
            let mut next: Vec<u32> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let last = layers.last().cloned().unwrap_or_default();
            for s in last {
                for t in self.successor_ids(s)? {
                    if seen.insert(t) {
                        next.push(t);
                    }
                }
            }
            layers.push(next);
        }
        Ok(layers)
    }
}

/// A witness (or counterexample) as a tree: at each node the literals that
/// must hold there, and the successor steps that the path quantifiers chose.
#[derive(Clone, Debug)]
pub struct WitnessTree<St, Mv> {
    pub state: St,
    pub obligations: Vec<(usize, usize, bool)>,
    pub children: Vec<(Mv, WitnessTree<St, Mv>)>,
}

impl<St: Clone, Mv: Clone> WitnessTree<St, Mv> {
    /// Root-to-leaf paths: (state, move that led there) lists.
    pub fn branches(&self) -> Vec<Vec<(Option<Mv>, St)>> {
        let mut out = Vec::new();
        let mut prefix = vec![(None, self.state.clone())];
        self.collect(&mut prefix, &mut out);
        out
    }

    fn collect(&self, prefix: &mut Vec<(Option<Mv>, St)>, out: &mut Vec<Vec<(Option<Mv>, St)>>) {
        if self.children.is_empty() {
            out.push(prefix.clone());
            return;
        }
        for (mv, child) in &self.children {
            prefix.push((Some(mv.clone()), child.state.clone()));
            child.collect(prefix, out);
            prefix.pop();
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
            memo: HashMap::new(),
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
            } => (g.labels(state, *agent)? >> label & 1 == 1) != *negated,
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
