//! The metric automaton A = ((Q, d), q0, Sigma, X, delta, gamma) of the seed
//! (Section 2), stored sparsely so that 10^6-state automata fit in memory.

pub mod moves;
pub mod points;
pub mod state_names;

pub use moves::{Move, MoveTable, NewMove};
pub use points::Points;
use serde::{Deserialize, Serialize};
pub use state_names::StateNames;

/// How distances between states are obtained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MetricKind {
    Euclidean,
    Manhattan,
    Max,
    Table,
}

/// The metric d of the metric space (Q, d).
#[derive(Clone, Debug, PartialEq)]
pub enum Metric {
    /// Every state has a point; d is the chosen norm of the difference.
    Coords { kind: MetricKind, points: Points },
    /// An explicit |Q| x |Q| table, row-major.
    Table { n: usize, table: Vec<f64> },
    /// The pseudometric of a product with `k` copies of each state: state q*k+i
    /// is at distance base(q, q') from q'*k+j (only distances to sets are used).
    Lifted { base: Box<Metric>, k: usize },
}

impl Metric {
    /// d(p, q).
    pub fn dist(&self, p: usize, q: usize) -> f64 {
        match self {
            Metric::Coords { kind, points } => {
                let (a, b) = (points.get(p), points.get(q));
                let diffs = a.iter().zip(b).map(|(x, y)| (x - y).abs());
                match kind {
                    MetricKind::Manhattan => diffs.sum(),
                    MetricKind::Max => diffs.fold(0.0, f64::max),
                    _ => diffs.map(|t| t * t).sum::<f64>().sqrt(),
                }
            }
            Metric::Table { n, table } => table[p * n + q],
            Metric::Lifted { base, k } => base.dist(p / k, q / k),
        }
    }

    /// The same metric multiplied by `c` (used to test that bounds scale linearly).
    pub fn scaled(&self, c: f64) -> Metric {
        match self {
            Metric::Coords { kind, points } => Metric::Coords {
                kind: kind.clone(),
                points: points.scaled(c),
            },
            Metric::Table { n, table } => Metric::Table {
                n: *n,
                table: table.iter().map(|x| x * c).collect(),
            },
            Metric::Lifted { base, k } => Metric::Lifted {
                base: Box::new(base.scaled(c)),
                k: *k,
            },
        }
    }
}

/// The acceptance condition (seed Section 2; omega-regular ones as adopted in notes/robust.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    Reach(Vec<u32>),
    Buchi(Vec<u32>),
    GenBuchi(Vec<Vec<u32>>),
    /// Priority per state; the least priority seen infinitely often must be even (seed's convention).
    Parity(Vec<u32>),
}

/// A finite metric automaton with its objective.
#[derive(Clone, Debug)]
pub struct Automaton {
    pub name: String,
    /// The state names (state q is `states[q]`, a `&str`).
    pub states: StateNames,
    pub metric: Metric,
    pub init: u32,
    pub inputs: Vec<String>,
    /// Disturbance names; index 0 is eps ("no disturbance").
    pub disturbances: Vec<String>,
    /// moves[q]: the inputs available at q (partial delta: missing means unavailable).
    pub moves: MoveTable,
    /// gamma(q), declared and checked, or computed as the least valid bound.
    pub gamma: Vec<f64>,
    pub gamma_declared: bool,
    pub objective: Objective,
}

impl Automaton {
    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    pub fn dist(&self, p: usize, q: usize) -> f64 {
        self.metric.dist(p, q)
    }

    /// Post_a(q): every successor of a move (nominal first), possibly with repeats.
    pub fn post<'m>(&'m self, m: &Move) -> impl Iterator<Item = u32> + 'm {
        std::iter::once(m.nominal).chain(self.moves.disturbed(m).iter().map(|&(_, t)| t))
    }

    /// The least gamma satisfying d(q^{a,eps}, q^{a,x}) <= gamma(q^{a,eps}) (seed Def. 2.1).
    pub fn least_gamma(&self) -> Vec<f64> {
        let mut g = vec![0.0f64; self.len()];
        for m in self.moves.all() {
            for &(_, t) in self.moves.disturbed(m) {
                let d = self.dist(m.nominal as usize, t as usize);
                let slot = &mut g[m.nominal as usize];
                *slot = slot.max(d);
            }
        }
        g
    }

    /// The states of a set-valued objective, or the even-priority-0 states for parity.
    pub fn target_sets(&self) -> Vec<Vec<u32>> {
        match &self.objective {
            Objective::Reach(f) | Objective::Buchi(f) => vec![f.clone()],
            Objective::GenBuchi(fs) => fs.clone(),
            Objective::Parity(p) => {
                let min = p.iter().copied().min().unwrap_or(0);
                vec![(0..p.len() as u32)
                    .filter(|&q| p[q as usize] == min)
                    .collect()]
            }
        }
    }

    /// gamma-bar = sup over F of gamma (seed, after Def. 2.1); for several sets, over their union.
    pub fn gamma_bar(&self) -> f64 {
        self.target_sets()
            .iter()
            .flatten()
            .map(|&q| self.gamma[q as usize])
            .fold(0.0, f64::max)
    }

    /// d(q, F) for every q: exact for tables, a sweep over F for coordinates.
    pub fn dist_to_set(&self, set: &[u32]) -> Vec<f64> {
        (0..self.len())
            .map(|q| {
                set.iter()
                    .map(|&f| self.dist(q, f as usize))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect()
    }

    /// States reachable from q0 under any input and disturbance.
    pub fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.len()];
        let mut stack = vec![self.init];
        seen[self.init as usize] = true;
        while let Some(q) = stack.pop() {
            for m in &self.moves[q as usize] {
                for t in self.post(m) {
                    if !seen[t as usize] {
                        seen[t as usize] = true;
                        stack.push(t);
                    }
                }
            }
        }
        seen
    }

    /// The automaton with the metric multiplied by c (gamma scales with it).
    pub fn scaled(&self, c: f64) -> Automaton {
        let mut a = self.clone();
        a.metric = self.metric.scaled(c);
        a.gamma = self.gamma.iter().map(|g| g * c).collect();
        a
    }

    /// Name of the input of a move.
    pub fn input_name(&self, m: &Move) -> &str {
        &self.inputs[m.input as usize]
    }
}
