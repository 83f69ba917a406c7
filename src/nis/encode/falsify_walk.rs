//! The falsifier's walk over the runs of S(n) from one initial state
//! ([`super::falsify`]): the existential goal (the dual of a universal
//! sentence) scored on the strict f64 simulation
//! ([`crate::nis::semantics::real_sim`]), with the tree of a run that
//! witnesses it.
//!
//! The score is a robustness degree (quantitative semantics of the goal):
//! a literal scores the signed distance of its label's comparisons from
//! their borders (`h > 100` at h = 130 scores 30), `&` the least of its
//! parts, `|` and `EX` the largest. A score `> 0` means the goal holds with
//! every condition decided, so the run is a counterexample of the
//! universal sentence; otherwise the score says how far the best run
//! explored is from one, which guides the sampler's local search.

use crate::lang::{eval_f64, BinOp, TExpr, TKind, Ty, UnOp};
use crate::nis::front::core::{Core, Node};
use crate::nis::front::model::Model;
use crate::nis::semantics::real::{agent_vals, RealMove, RealState, Slots};
use crate::nis::semantics::real_named::env_vals;
use crate::nis::semantics::real_sim::{choices, decided, joint_move, round, successor};
use crate::nis::witness::replay::real::RealTree;
use crate::nis::witness::WitnessTree;
use rand::rngs::StdRng;
use rand::Rng;

/// The literals and successor steps a goal needs at one state.
#[derive(Clone, Debug, Default)]
pub struct Frag {
    pub obligations: Vec<(usize, Option<usize>, bool)>,
    pub children: Vec<(RealMove, RealTree)>,
}

impl Frag {
    /// The tree rooted at `state` with this fragment's needs.
    pub fn at(self, state: RealState) -> RealTree {
        WitnessTree {
            state,
            obligations: self.obligations,
            children: self.children,
        }
    }
}

/// A score and, when it is `> 0`, the fragment that witnesses it.
type Scored = (f64, Option<Frag>);

/// How far one walk may go.
pub struct Walk<'a> {
    pub model: &'a Model,
    pub goal: &'a Core,
    /// Agents of the system (M(n)).
    pub n: usize,
    /// Successor states still to compute; the walk stops expanding at 0.
    pub budget: usize,
    /// Most moves (and percept combinations) followed per state: more are sampled.
    pub branches: usize,
    pub rng: StdRng,
    /// Successor states computed.
    pub expanded: usize,
    /// Some choice was sampled (more combinations than [`Walk::branches`]):
    /// another seed may walk other runs.
    pub sampled: bool,
}

impl Walk<'_> {
    /// The goal's node `node` at `s`.
    pub fn score(&mut self, s: &RealState, node: usize) -> Scored {
        match &self.goal.nodes[node] {
            &Node::Lit {
                label,
                agent,
                negated,
            } => self.literal(s, (label, agent, negated)),
            Node::And(parts) => {
                let mut worst = f64::INFINITY;
                let mut frag = Frag::default();
                for &p in parts {
                    let (sc, f) = self.score(s, p);
                    worst = worst.min(sc);
                    if sc <= 0.0 {
                        return (worst, None);
                    }
                    let f = f.unwrap_or_default();
                    frag.obligations.extend(f.obligations);
                    frag.children.extend(f.children);
                }
                (worst, Some(frag))
            }
            Node::Or(parts) => {
                let mut best: Scored = (f64::NEG_INFINITY, None);
                for &p in parts {
                    let sc = self.score(s, p);
                    if sc.0 > best.0 {
                        best = sc;
                    }
                    if best.0 > 0.0 {
                        break;
                    }
                }
                best
            }
            &Node::EX(c) => self.next(s, c),
            // Not an existential goal: the falsifier does not walk it.
            Node::AX(_) => (f64::NEG_INFINITY, None),
        }
    }

    /// A literal's robustness at `s`, positive only when decided true.
    fn literal(
        &self,
        s: &RealState,
        (label, agent, negated): (usize, Option<usize>, bool),
    ) -> Scored {
        let model = self.model;
        let vals = match agent {
            Some(a) => agent_vals(&s.agents[a], None, None, None, model),
            None => env_vals(s, None, None),
        };
        let at = Slots {
            model,
            vals,
            performed: None,
            env_action: None,
        };
        let expr = &model.labels[label].expr;
        let sign = if negated { -1.0 } else { 1.0 };
        let rob = sign * robustness(expr, &at);
        let holds = decided(expr, &at).ok().map(|t| t != negated);
        match holds {
            Some(true) => {
                let frag = Frag {
                    obligations: vec![(label, agent, negated)],
                    children: Vec::new(),
                };
                (rob.max(f64::MIN_POSITIVE), Some(frag))
            }
            _ => (rob.min(-f64::MIN_POSITIVE), None),
        }
    }

    /// `EX c` at `s`: the best successor for `c`, the first with a witness.
    fn next(&mut self, s: &RealState, c: usize) -> Scored {
        let mut best: Scored = (f64::NEG_INFINITY, None);
        for (mv, succ) in self.successors(s) {
            let (sc, frag) = self.score(&succ, c);
            if sc > 0.0 {
                let tree = frag.unwrap_or_default().at(succ);
                let frag = Frag {
                    obligations: Vec::new(),
                    children: vec![(mv, tree)],
                };
                return (sc, Some(frag));
            }
            best.0 = best.0.max(sc);
        }
        best
    }

    /// The successors of `s` the walk follows: every joint move and
    /// percept combination when there are at most [`Walk::branches`], a
    /// seeded sample otherwise; equal successor states once.
    pub fn successors(&mut self, s: &RealState) -> Vec<(RealMove, RealState)> {
        let mut out: Vec<(RealMove, RealState)> = Vec::new();
        if self.budget == 0 {
            return out;
        }
        let Ok(options) = choices(self.model, s) else {
            return out;
        };
        let sizes: Vec<usize> = options.iter().map(Vec::len).collect();
        for pick in self.picks(&sizes) {
            let mv = joint_move(&options, &pick, self.n);
            let Ok((env, agents)) = round(self.model, s, &mv) else {
                continue;
            };
            let seen: Vec<usize> = agents.iter().map(|a| a.1.len()).collect();
            for p in self.picks(&seen) {
                let next = successor(&env, &agents, &p, self.n);
                if !out.iter().any(|(_, t)| *t == next) {
                    out.push((mv.clone(), next));
                }
            }
        }
        let take = out.len().min(self.budget);
        self.budget -= take;
        self.expanded += take;
        out.truncate(take);
        out
    }

    /// Combinations of one choice per position (`sizes[i]` options each):
    /// all in order when there are at most [`Walk::branches`], else that
    /// many drawn by the walk's generator; none when a position has none.
    pub fn picks(&mut self, sizes: &[usize]) -> Vec<Vec<usize>> {
        if sizes.contains(&0) {
            return Vec::new();
        }
        let total = sizes
            .iter()
            .try_fold(1usize, |acc, &k| acc.checked_mul(k))
            .unwrap_or(usize::MAX);
        let mixed = |mut i: usize| -> Vec<usize> {
            sizes
                .iter()
                .map(|&k| {
                    let d = i % k;
                    i /= k;
                    d
                })
                .collect()
        };
        if total <= self.branches {
            return (0..total).map(mixed).collect();
        }
        self.sampled = true;
        let draw = |rng: &mut StdRng| sizes.iter().map(|&k| rng.gen_range(0..k)).collect();
        (0..self.branches).map(|_| draw(&mut self.rng)).collect()
    }
}

/// How far the Boolean expression `e` is from changing its truth at `at`:
/// `> 0` when it holds, `< 0` when it fails, in the units of its real
/// comparisons (a comparison of integers, Booleans or enumerations, whose
/// truth has no margin, scores +-1).
pub fn robustness(e: &TExpr, at: &Slots) -> f64 {
    let sign = |b: bool| if b { 1.0 } else { -1.0 };
    match &e.kind {
        TKind::Unary(UnOp::Not, a) => -robustness(a, at),
        TKind::Binary(op, a, b) => match op {
            BinOp::And => robustness(a, at).min(robustness(b, at)),
            BinOp::Or => robustness(a, at).max(robustness(b, at)),
            BinOp::Implies => (-robustness(a, at)).max(robustness(b, at)),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if real(a) || real(b) => {
                let d = eval_f64(b, at) - eval_f64(a, at);
                if matches!(op, BinOp::Lt | BinOp::Le) {
                    d
                } else {
                    -d
                }
            }
            BinOp::Eq if real(a) || real(b) => -(eval_f64(a, at) - eval_f64(b, at)).abs(),
            BinOp::Ne if real(a) || real(b) => (eval_f64(a, at) - eval_f64(b, at)).abs(),
            _ => sign(eval_f64(e, at) != 0.0),
        },
        _ => sign(eval_f64(e, at) != 0.0),
    }
}

fn real(e: &TExpr) -> bool {
    e.ty == Ty::Real
}
