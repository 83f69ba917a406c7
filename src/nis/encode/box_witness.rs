//! The existential half of the proof by boxes ([`super::box_proof`]): an
//! existential sentence holds from every state of a box when, at each
//! `EX`, one joint move enabled at every state of the box leads only to
//! box successors where the rest holds. Every concrete state of the box
//! then has its own run along those moves (each concrete successor lies in
//! one of the box successors), so each initial state has a witness; the
//! proof names the moves, not the states, so no single run is reported.

use super::box_proof::{joint_moves, Prover};
use crate::lang::interval::Iv;
use crate::lang::DeclType;
use crate::nis::front::core::Node;
use crate::nis::semantics::real_box::{successors, surely_enabled, BoxState, Lost};
use crate::nis::semantics::rules::Truth;

/// The most corners of a box tried as points of a refutation.
const MAX_CORNERS: usize = 16;

/// The first and the last this many unproved boxes give points to refute at.
const REFUTED_BOXES: usize = 4;

impl Prover<'_> {
    /// A point from which an initial state fails the goal on every run,
    /// refuted path by path over the point's box (near-ties and borders
    /// followed both ways, so the refutation holds whichever way the
    /// semantics takes them). The points tried: the centre and corners of
    /// the first and the last few boxes where the proof failed (the whole
    /// initial box first, the smallest last).
    pub(super) fn refuted_point(&mut self, n: usize) -> Result<Option<Vec<f64>>, Lost> {
        let boxes = std::mem::take(&mut self.unproved);
        let ends = boxes.len().saturating_sub(REFUTED_BOXES);
        let tried = boxes
            .iter()
            .take(REFUTED_BOXES)
            .chain(boxes.iter().skip(ends.max(REFUTED_BOXES)));
        let points = tried.flat_map(|b| candidates(b).into_iter().map(move |p| (p, b)));
        for (point, b) in points {
            let Some(point) = self.integral(point, b) else {
                continue;
            };
            if self.refuted_at(&point, n)? {
                return Ok(Some(point));
            }
        }
        Ok(None)
    }

    /// Whether the initial states at the environment state `point` fail
    /// the goal on every run of the box semantics (near-ties and borders
    /// followed both ways). Every start the boxes give must fail: they
    /// over-approximate the first percepts (a guard at its border, a
    /// near-tie), so one failing start may be no initial state at all,
    /// while the true initial states are among them.
    pub(super) fn refuted_at(&mut self, point: &[f64], n: usize) -> Result<bool, Lost> {
        let at: Vec<Iv> = point.iter().map(|&x| Iv::point(x)).collect();
        if self.init_filter(&at) != Truth::True {
            return Ok(false);
        }
        for s in self.starts_over(&at, n)? {
            // Merged layers first (cheap), then path by path.
            let mut fails = false;
            for merge in [true, false] {
                self.merge = merge;
                if self.refuted(std::slice::from_ref(&s), self.goal.root)? {
                    fails = true;
                    break;
                }
            }
            if !fails {
                return Ok(false);
            }
        }
        self.stats.refuted_at = true;
        Ok(true)
    }

    /// `point` with every integer variable rounded to an integer of its
    /// interval in `b` (an initial state must be one), `None` when that
    /// interval holds none.
    fn integral(&self, mut point: Vec<f64>, b: &[Iv]) -> Option<Vec<f64>> {
        for (i, v) in self.model.env.vars.iter().enumerate() {
            if matches!(v.ty, DeclType::Int { .. }) {
                let (lo, hi) = (b[i].lo.ceil(), b[i].hi.floor());
                if lo > hi {
                    return None;
                }
                point[i] = point[i].round().clamp(lo, hi);
            }
        }
        Some(point)
    }

    /// The existential goal node `node` holds at every state of `s`.
    pub(super) fn holds_everywhere(&mut self, s: &BoxState, node: usize) -> Result<bool, Lost> {
        match &self.goal.nodes[node] {
            Node::Lit { .. } => Ok(self.literal(s, node) == Some(Truth::True)),
            Node::And(parts) => {
                for &p in parts {
                    if !self.holds_everywhere(s, p)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Node::Or(parts) => {
                for &p in parts {
                    if self.holds_everywhere(s, p)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            &Node::EX(c) => self.some_move_everywhere(s, c),
            Node::AX(_) => Err(Lost("a universal step in an existential goal".into())),
        }
    }

    /// `EX c` at every state of `s`: a joint move enabled everywhere on
    /// `s` whose every box successor satisfies `c`.
    fn some_move_everywhere(&mut self, s: &BoxState, c: usize) -> Result<bool, Lost> {
        if self.states_left == 0 || self.deadline.expired() {
            return Err(Lost("the box search's budget ran out".into()));
        }
        let options = surely_enabled(self.model, s)?;
        for mv in joint_moves(&options) {
            let next = successors(self.model, s, mv[0], &mv[1..])?;
            self.stats.states += next.len();
            self.meter.add(next.len() as u64);
            self.states_left = self.states_left.saturating_sub(next.len());
            let mut all = true;
            for t in &next {
                if !self.holds_everywhere(t, c)? {
                    all = false;
                    break;
                }
            }
            if all {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The centre of `env`, then its corners (at most [`MAX_CORNERS`]).
fn candidates(env: &[Iv]) -> Vec<Vec<f64>> {
    let mut out = vec![env.iter().map(|x| x.mid()).collect::<Vec<f64>>()];
    let wide: Vec<usize> = (0..env.len()).filter(|&i| env[i].width() > 0.0).collect();
    if wide.len() > MAX_CORNERS.ilog2() as usize {
        return out;
    }
    for bits in 0..1usize << wide.len() {
        let mut p = out[0].clone();
        for (j, &i) in wide.iter().enumerate() {
            p[i] = if bits >> j & 1 == 1 {
                env[i].hi
            } else {
                env[i].lo
            };
        }
        out.push(p);
    }
    out
}
