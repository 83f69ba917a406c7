//! Zielonka's recursive algorithm with strategies for both players.

use super::compress::compressed;
use super::game::{attractor, Game, Scratch, Solution};
use crate::report::meter::Meter;
use crate::report::{Deadline, Expired};

struct Ctx<'a> {
    g: &'a Game,
    /// The compressed priorities ([`super::compress`]): one recursion step
    /// per compressed priority instead of one per distinct priority.
    priority: Vec<u32>,
    deadline: Deadline,
    /// Counts the nodes attracted; its level is the recursive calls.
    meter: Meter,
    calls: u64,
    pred: (Vec<u32>, Vec<u32>),
    inside: Vec<bool>,
    strategy: Vec<Option<u32>>,
    scratch: Scratch,
}

/// Solves the game: winning regions and a strategy for every node in its owner's region.
pub fn solve(g: &Game) -> Solution {
    solve_until(g, Deadline::NONE).expect("no deadline")
}

/// [`solve`], giving up at `deadline` (checked at every recursive call, each
/// of which costs at most two attractors).
pub fn solve_until(g: &Game, deadline: Deadline) -> Result<Solution, Expired> {
    solve_metered(g, deadline, &Meter::none())
}

/// [`solve_until`], counting the nodes attracted on `meter` (its level:
/// the recursive calls so far).
pub fn solve_metered(g: &Game, deadline: Deadline, meter: &Meter) -> Result<Solution, Expired> {
    // Recursion depth grows with the number of priorities: run on a large stack.
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, || solve_here(g, deadline, meter.clone()))
            .expect("spawn solver thread")
            .join()
            .expect("solver thread")
    })
}

fn solve_here(g: &Game, deadline: Deadline, meter: Meter) -> Result<Solution, Expired> {
    let n = g.len();
    let mut ctx = Ctx {
        g,
        priority: compressed(&g.priority),
        deadline,
        meter,
        calls: 0,
        pred: g.predecessors(),
        inside: vec![true; n],
        strategy: vec![None; n],
        scratch: Scratch::new(n),
    };
    let all: Vec<u32> = (0..n as u32).collect();
    let (w0, _w1) = recurse(&mut ctx, all)?;
    let mut winner = vec![1u8; n];
    for v in w0 {
        winner[v as usize] = 0;
    }
    let strategy = (0..n)
        .map(|v| {
            if winner[v] == g.owner[v] {
                ctx.strategy[v]
            } else {
                None
            }
        })
        .collect();
    Ok(Solution { winner, strategy })
}

/// Solves the subgame on `nodes` (exactly the nodes with `inside` set). Returns (W0, W1).
fn recurse(ctx: &mut Ctx, nodes: Vec<u32>) -> Result<(Vec<u32>, Vec<u32>), Expired> {
    if nodes.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    ctx.deadline.check()?;
    ctx.calls += 1;
    ctx.meter.set_level(ctx.calls);
    let g = ctx.g;
    // The top priority d and its nodes, in one pass.
    let mut d = 0;
    let mut top: Vec<u32> = Vec::new();
    for &v in &nodes {
        let pv = ctx.priority[v as usize];
        if pv > d {
            d = pv;
            top.clear();
        }
        if pv == d {
            top.push(v);
        }
    }
    let p = (d % 2) as u8;
    for &v in &top {
        if g.owner[v as usize] == p {
            let vi = v as usize;
            ctx.strategy[vi] = g
                .succs(vi)
                .iter()
                .copied()
                .find(|&t| ctx.inside[t as usize]);
        }
    }
    let attr = attractor(
        g,
        &ctx.pred,
        &ctx.inside,
        &top,
        p,
        &mut ctx.strategy,
        &mut ctx.scratch,
    );
    ctx.meter.add(attr.len() as u64);
    let rest = without(ctx, &nodes, &attr);
    let (sub0, sub1) = recurse(ctx, rest)?;
    restore(ctx, &attr);
    let (sub_p, sub_o) = if p == 0 { (sub0, sub1) } else { (sub1, sub0) };
    if sub_o.is_empty() {
        let _ = sub_p;
        return Ok(if p == 0 {
            (nodes, Vec::new())
        } else {
            (Vec::new(), nodes)
        });
    }
    let b = attractor(
        g,
        &ctx.pred,
        &ctx.inside,
        &sub_o,
        1 - p,
        &mut ctx.strategy,
        &mut ctx.scratch,
    );
    ctx.meter.add(b.len() as u64);
    let rest = without(ctx, &nodes, &b);
    let (r0, r1) = recurse(ctx, rest)?;
    restore(ctx, &b);
    let (r_p, mut r_o) = if p == 0 { (r0, r1) } else { (r1, r0) };
    r_o.extend_from_slice(&b);
    Ok(if p == 0 { (r_p, r_o) } else { (r_o, r_p) })
}

/// Removes `cut` from the subgame; returns the remaining nodes.
fn without(ctx: &mut Ctx, nodes: &[u32], cut: &[u32]) -> Vec<u32> {
    for &v in cut {
        ctx.inside[v as usize] = false;
    }
    nodes
        .iter()
        .copied()
        .filter(|&v| ctx.inside[v as usize])
        .collect()
}

fn restore(ctx: &mut Ctx, cut: &[u32]) {
    for &v in cut {
        ctx.inside[v as usize] = true;
    }
}
