//! Priority compression: the priorities of a game renumbered to the dense
//! set that occurs, consecutive ones of the same parity merged.
//!
//! The map is monotone (p <= q gives c(p) <= c(q)) and keeps parity, so
//! the highest priority seen infinitely often on any play maps to the
//! highest compressed one seen infinitely often, of the same parity: every
//! play has the same winner before and after, and so has every node, under
//! the same strategies. Two priorities of the same parity with no priority
//! of the other parity between them can be merged because no play can tell
//! them apart (Friedmann and Lange's compression, 2009; Oink's `--compress`).
//!
//! What it saves: a solver that works priority by priority (Zielonka's
//! recursion, one component of a progress measure per odd level) does one
//! step per compressed priority instead of one per distinct priority.

/// The compressed priority of every node: the distinct priorities in
/// increasing order, each one higher than the last when its parity differs
/// and equal to it when not, the lowest at 0 or 1 by its parity. O(n + d)
/// for priorities up to d when d is at most a few times n (a table indexed
/// by priority), O(n log n) otherwise.
pub fn compressed(priority: &[u32]) -> Vec<u32> {
    let max = priority.iter().copied().max().unwrap_or(0) as usize;
    if max <= 4 * priority.len() + 64 {
        let mut occurs = vec![false; max + 1];
        for &p in priority {
            occurs[p as usize] = true;
        }
        let distinct: Vec<u32> = (0..=max as u32).filter(|&p| occurs[p as usize]).collect();
        let level = levels(&distinct);
        let mut table = vec![0u32; max + 1];
        for (&p, &l) in distinct.iter().zip(&level) {
            table[p as usize] = l;
        }
        priority.iter().map(|&p| table[p as usize]).collect()
    } else {
        let mut distinct: Vec<u32> = priority.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let level = levels(&distinct);
        priority
            .iter()
            .map(|p| level[distinct.partition_point(|q| q < p)])
            .collect()
    }
}

/// The compressed value of each of the `distinct` priorities (increasing).
fn levels(distinct: &[u32]) -> Vec<u32> {
    let mut level = Vec::with_capacity(distinct.len());
    let mut cur = 0u32;
    for (i, &p) in distinct.iter().enumerate() {
        if i == 0 {
            cur = p % 2;
        } else if p % 2 != cur % 2 {
            cur += 1;
        }
        level.push(cur);
    }
    level
}

/// The number of compressed priorities (the highest plus one; 0 for no node).
pub fn count(compressed: &[u32]) -> u32 {
    compressed.iter().max().map_or(0, |&m| m + 1)
}
