//! A query's sub-formulas over the state graph in bulk ([`sat_batched`]):
//! sets are bitsets (a bit per state); the `EF`/`AG` sub-formulas of one
//! nesting depth are answered 64 to a backward pass ([`Graph::reach_words`]);
//! each set is dropped once its one reader has read it (the formula is a
//! tree); and an atom that reads only V is answered by [`super::columns`]
//! (shared sub-expressions evaluated once per valuation, comparisons with
//! constants as comparisons of ranks). Equal to [`Graph::sat`], the
//! reference evaluator (checked by `timed::tests::queries`).

use super::bits::Bits;
use super::columns::Columns;
use super::graph::Graph;
use crate::report::RunError;
use crate::timed::front::query::Formula;
use crate::timed::semantics::Semantics;
use std::collections::HashMap;

/// The evaluation of one query's sub-formulas over one graph.
pub struct Bulk<'a> {
    g: &'a Graph,
    sem: &'a Semantics<'a>,
    /// Answered `EF`/`AG` sub-formulas by address, each taken out when read.
    temporal: HashMap<usize, Bits>,
    columns: Columns<'a>,
}

impl<'a> Bulk<'a> {
    pub fn new(g: &'a Graph, sem: &'a Semantics<'a>) -> Bulk<'a> {
        Bulk {
            g,
            sem,
            temporal: HashMap::new(),
            columns: Columns::new(g, sem),
        }
    }

    /// The states satisfying `f`: its `EF`/`AG` sub-formulas by depth of
    /// nesting, 64 to a pass, then `f` itself.
    pub fn sat(&mut self, f: &'a Formula) -> Result<Bits, RunError> {
        let mut levels = Vec::new();
        temporal_by_depth(f, &mut levels);
        for level in levels {
            for chunk in level.chunks(64) {
                self.reach_chunk(chunk)?;
            }
        }
        self.eval(f)
    }

    fn eval(&mut self, f: &'a Formula) -> Result<Bits, RunError> {
        Ok(match f {
            Formula::Atom(e) => match self.columns.atom(e)? {
                Some(b) => b,
                None => {
                    let set = self.g.atom_set(self.sem, e)?;
                    Bits::from_fn(set.len(), |i| set[i])
                }
            },
            Formula::Not(a) => self.eval(a)?.not(),
            Formula::And(a, b) => self.eval(a)?.zip(&self.eval(b)?, |x, y| x & y),
            Formula::Or(a, b) => self.eval(a)?.zip(&self.eval(b)?, |x, y| x | y),
            Formula::Implies(a, b) => {
                let x = self.eval(a)?.not();
                x.zip(&self.eval(b)?, |x, y| x | y)
            }
            Formula::EF(_) | Formula::AG(_) => match self.temporal.remove(&key(f)) {
                Some(b) => b,
                None => {
                    self.reach_chunk(&[f])?;
                    self.temporal.remove(&key(f)).expect("just answered")
                }
            },
        })
    }

    /// Answers up to 64 `EF`/`AG` sub-formulas (their arguments' own
    /// temporal sub-formulas answered already) in one backward pass; bit `j`
    /// of a state's word marks that target `j` is reachable from it.
    fn reach_chunk(&mut self, chunk: &[&'a Formula]) -> Result<(), RunError> {
        let n = self.g.states.len();
        let mut words = vec![0u64; n];
        for (j, g) in chunk.iter().enumerate() {
            let (Formula::EF(a) | Formula::AG(a)) = g else {
                unreachable!("temporal_by_depth collects EF and AG only")
            };
            let mut target = self.eval(a)?;
            // AG a = !EF !a: the target of AG is where a fails.
            if matches!(g, Formula::AG(_)) {
                target = target.not();
            }
            for s in target.ones() {
                words[s] |= 1 << j;
            }
        }
        self.g.reach_words(&mut words);
        let mut sets: Vec<Bits> = chunk.iter().map(|_| Bits::zeros(n)).collect();
        for (s, &w) in words.iter().enumerate() {
            let mut rest = w;
            while rest != 0 {
                sets[rest.trailing_zeros() as usize].set(s);
                rest &= rest - 1;
            }
        }
        for (g, set) in chunk.iter().zip(sets) {
            let set = if matches!(g, Formula::AG(_)) {
                set.not()
            } else {
                set
            };
            self.temporal.insert(key(g), set);
        }
        Ok(())
    }
}

/// The states satisfying `f`, by the bulk evaluation; equal to
/// [`Graph::sat`] (checked by `timed::tests::queries`).
pub fn sat_batched(g: &Graph, sem: &Semantics, f: &Formula) -> Result<Vec<bool>, RunError> {
    Ok(Bulk::new(g, sem).sat(f)?.to_bools())
}

/// The states from which a member of `target` is reachable (themselves included).
pub fn reach(g: &Graph, target: &Bits) -> Bits {
    let mut set = target.clone();
    let mut work: Vec<usize> = target.ones().collect();
    while let Some(t) = work.pop() {
        for &s in g.predecessors(t) {
            if !set.get(s) {
                set.set(s);
                work.push(s);
            }
        }
    }
    set
}

/// The key of a sub-formula: its address (the query outlives the evaluation).
fn key(f: &Formula) -> usize {
    f as *const Formula as usize
}

/// Collects the `EF`/`AG` sub-formulas of `f` by nesting depth (`levels[d]`
/// holds those with `d` temporal operators strictly inside); returns the
/// depth of `f`.
fn temporal_by_depth<'f>(f: &'f Formula, levels: &mut Vec<Vec<&'f Formula>>) -> usize {
    match f {
        Formula::Atom(_) => 0,
        Formula::Not(a) => temporal_by_depth(a, levels),
        Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) => {
            temporal_by_depth(a, levels).max(temporal_by_depth(b, levels))
        }
        Formula::EF(a) | Formula::AG(a) => {
            let d = temporal_by_depth(a, levels);
            if levels.len() <= d {
                levels.resize_with(d + 1, Vec::new);
            }
            levels[d].push(f);
            d + 1
        }
    }
}
