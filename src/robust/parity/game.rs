//! Two-player parity games on finite graphs (max-parity, PGSolver's convention:
//! player 0 wins a play iff the highest priority seen infinitely often is even).

/// A parity game with CSR adjacency. Every node has at least one successor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Game {
    pub priority: Vec<u32>,
    /// 0: the even player, 1: the odd player.
    pub owner: Vec<u8>,
    pub start: Vec<u32>,
    pub succ: Vec<u32>,
    /// Optional node names (PGSolver's quoted labels): empty when no node
    /// has one (most games; a `None` per node would cost 24 bytes each),
    /// else one entry per node. Read them with [`Game::name`].
    pub names: Vec<Option<String>>,
}

impl Game {
    /// Builds a game from successor lists; fails if some node has no successor.
    pub fn from_lists(
        priority: Vec<u32>,
        owner: Vec<u8>,
        succs: Vec<Vec<u32>>,
    ) -> Result<Game, String> {
        let n = priority.len();
        let mut start = vec![0u32];
        let mut succ = Vec::new();
        for (v, s) in succs.iter().enumerate() {
            if s.is_empty() {
                return Err(format!("node {v} has no successor"));
            }
            for &t in s {
                if t as usize >= n {
                    return Err(format!("node {v} has successor {t}, which is not a node"));
                }
                succ.push(t);
            }
            start.push(succ.len() as u32);
        }
        Ok(Game {
            priority,
            owner,
            start,
            succ,
            names: Vec::new(),
        })
    }

    /// The name of node `v`, if the game gives one.
    pub fn name(&self, v: usize) -> Option<&str> {
        self.names.get(v)?.as_deref()
    }

    pub fn len(&self) -> usize {
        self.priority.len()
    }

    pub fn is_empty(&self) -> bool {
        self.priority.is_empty()
    }

    pub fn succs(&self, v: usize) -> &[u32] {
        &self.succ[self.start[v] as usize..self.start[v + 1] as usize]
    }

    /// Predecessor lists in CSR form (start, pred).
    pub fn predecessors(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.len();
        let mut start = vec![0u32; n + 1];
        for &t in &self.succ {
            start[t as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut pred = vec![0u32; self.succ.len()];
        for v in 0..n {
            for &t in self.succs(v) {
                pred[fill[t as usize] as usize] = v as u32;
                fill[t as usize] += 1;
            }
        }
        (start, pred)
    }
}

/// A solution: the winner of every node and a strategy (a successor) for every
/// node in the winning region of its owner.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    pub winner: Vec<u8>,
    pub strategy: Vec<Option<u32>>,
}

/// Checks a solution: each player's strategy is defined on its nodes of its region,
/// keeps plays in the region (closed), the opponent cannot leave it, and every
/// cycle the strategy allows there has a highest priority of the winner's parity.
///
/// Both regions are closed under the edges their strategies allow, so the two
/// checks share one pass of [`super::cycles::cyclic_levels`]: O((n + m) log d)
/// for d priorities.
pub fn verify(g: &Game, sol: &Solution) -> Result<(), String> {
    let n = g.len();
    if sol.winner.len() != n || sol.strategy.len() != n {
        return Err("solution size differs from the game".into());
    }
    if let Some(v) = sol.winner.iter().position(|&w| w > 1) {
        return Err(format!(
            "node {v}: winner {} is not a player",
            sol.winner[v]
        ));
    }
    for player in 0..2u8 {
        closed(g, |v| sol.winner[v] == player, &sol.strategy, player)?;
    }
    // The edges are read where they lie, not copied (issue 36: a list of
    // the allowed edges was the largest table of the run).
    let edges = (0..g.len()).flat_map(|v| allowed(g, v, sol.winner[v], &sol.strategy));
    losing_cycle(g, edges, |v| sol.winner[v])
}

/// Checks that `player` wins every play from `region` with `strategy` (see [`verify`]).
pub fn verify_region(
    g: &Game,
    region: &[bool],
    strategy: &[Option<u32>],
    player: u8,
) -> Result<(), String> {
    closed(g, |v| region[v], strategy, player)?;
    let edges = (0..g.len())
        .filter(|&v| region[v])
        .flat_map(|v| allowed(g, v, player, strategy));
    losing_cycle(g, edges, |_| player)
}

/// Fails unless `player`'s strategy is defined on its nodes of `region` and
/// keeps every play in `region`, whatever the opponent does.
fn closed(
    g: &Game,
    region: impl Fn(usize) -> bool,
    strategy: &[Option<u32>],
    player: u8,
) -> Result<(), String> {
    for v in (0..g.len()).filter(|&v| region(v)) {
        if g.owner[v] == player {
            let t = strategy[v].ok_or(format!("node {v}: no strategy for its winner"))?;
            if !g.succs(v).contains(&t) {
                return Err(format!("node {v}: strategy {t} is not a successor"));
            }
            if !region(t as usize) {
                return Err(format!(
                    "node {v}: strategy leaves the winning region of player {player}"
                ));
            }
        } else if let Some(&t) = g.succs(v).iter().find(|&&t| !region(t as usize)) {
            return Err(format!("node {v}: player {} escapes to {t}", 1 - player));
        }
    }
    Ok(())
}

/// The edges out of `v` that `player`'s strategy allows: its chosen edge if
/// `v` is the player's, else every edge.
fn allowed<'a>(
    g: &'a Game,
    v: usize,
    player: u8,
    strategy: &'a [Option<u32>],
) -> impl Iterator<Item = (u32, u32)> + Clone + 'a {
    let targets: &[u32] = if g.owner[v] == player {
        strategy[v].as_slice()
    } else {
        g.succs(v)
    };
    targets.iter().map(move |&t| (v as u32, t))
}

/// Fails if some node v of priority p lies on a cycle of `edges` through nodes of
/// priority <= p with p of the parity of the opponent of `winner(v)`: the play
/// around that cycle is lost by the region's player.
fn losing_cycle(
    g: &Game,
    edges: impl Iterator<Item = (u32, u32)> + Clone,
    winner: impl Fn(usize) -> u8,
) -> Result<(), String> {
    // Priorities by rank, so that the levels are 0..d.
    let mut distinct = g.priority.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let rank: Vec<u32> = g
        .priority
        .iter()
        .map(|p| distinct.partition_point(|q| q < p) as u32)
        .collect();
    drop(distinct);
    let cyclic = super::cycles::cyclic_levels(&rank, edges);
    for v in 0..g.len() {
        let p = g.priority[v];
        let player = winner(v);
        if cyclic[v] == rank[v] && (p % 2) as u8 != player {
            return Err(format!(
                "player {player} loses the cycle through node {v} (priority {p})"
            ));
        }
    }
    Ok(())
}

/// Reusable buffers for [`attractor`], so recursive solvers do not allocate O(n) per call.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    pub mark: Vec<bool>,
    /// Successors inside the subgame not yet attracted, for opponent nodes
    /// touched by the current attractor (0: not touched yet).
    pub count: Vec<u32>,
    /// The opponent nodes whose count is set, to clear it afterwards.
    pub touched: Vec<u32>,
}

impl Scratch {
    pub fn new(n: usize) -> Self {
        Scratch {
            mark: vec![false; n],
            count: vec![0; n],
            touched: Vec::new(),
        }
    }
}

/// The attractor of `player` to `target` inside the subgame `inside`,
/// recording the attracting successor of the player's nodes.
///
/// An opponent node's count of successors inside the subgame is taken when a
/// predecessor edge first reaches it, so the cost is that of the attracted
/// nodes and their predecessors, not of the whole subgame.
pub fn attractor(
    g: &Game,
    pred: &(Vec<u32>, Vec<u32>),
    inside: &[bool],
    target: &[u32],
    player: u8,
    strategy: &mut [Option<u32>],
    scratch: &mut Scratch,
) -> Vec<u32> {
    let Scratch {
        mark,
        count,
        touched,
    } = scratch;
    let mut out: Vec<u32> = Vec::new();
    for &t in target {
        if !mark[t as usize] {
            mark[t as usize] = true;
            out.push(t);
        }
    }
    let mut i = 0;
    while i < out.len() {
        let t = out[i] as usize;
        i += 1;
        for &v in &pred.1[pred.0[t] as usize..pred.0[t + 1] as usize] {
            let vi = v as usize;
            if !inside[vi] || mark[vi] {
                continue;
            }
            if g.owner[vi] == player {
                mark[vi] = true;
                strategy[vi] = Some(t as u32);
                out.push(v);
            } else {
                if count[vi] == 0 {
                    // At least 1: the edge to t, which is inside.
                    count[vi] = g.succs(vi).iter().filter(|&&s| inside[s as usize]).count() as u32;
                    touched.push(v);
                }
                count[vi] -= 1;
                if count[vi] == 0 {
                    mark[vi] = true;
                    out.push(v);
                }
            }
        }
    }
    for &v in &out {
        mark[v as usize] = false;
    }
    for v in touched.drain(..) {
        count[v as usize] = 0;
    }
    out
}
