//! The first repeated item of a list (a state name or point given twice),
//! found by sorting 32-bit hashes with a radix sort (four passes over 8
//! bytes per item, no comparison) and comparing only items with equal
//! hashes: on 10^6 states this is several times faster than sorting the
//! items themselves.

use std::cmp::Ordering;

/// The first item (in order) equal to an earlier one, with the earliest item
/// it equals: `(earlier, item)`. The items are `0..len`; `hash` must give
/// equal items equal hashes, `cmp` orders them (equal is `Ordering::Equal`).
/// Items with equal hashes are sorted by `cmp`, so many colliding hashes cost
/// a sort, not a comparison of every pair.
pub fn first_repeated(
    len: usize,
    hash: impl Fn(usize) -> u32,
    cmp: impl Fn(usize, usize) -> Ordering,
) -> Option<(usize, usize)> {
    let sorted = radix_sorted(len, hash);
    let mut best: Option<(usize, usize)> = None;
    for run in sorted
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
    {
        let mut items: Vec<usize> = run.iter().map(|&(_, i)| i as usize).collect();
        // Stable by position: within equal items the earliest comes first.
        items.sort_by(|&a, &b| cmp(a, b));
        for equal in items.chunk_by(|&a, &b| cmp(a, b) == Ordering::Equal) {
            if let [j, i, ..] = *equal {
                if best.is_none_or(|(_, b)| i < b) {
                    best = Some((j, i));
                }
            }
        }
    }
    best
}

/// `(hash, item)` for every item, in order of hash and, for equal hashes, of item.
fn radix_sorted(len: usize, hash: impl Fn(usize) -> u32) -> Vec<(u32, u32)> {
    let mut a: Vec<(u32, u32)> = (0..len).map(|i| (hash(i), i as u32)).collect();
    let mut b = vec![(0u32, 0u32); len];
    for shift in [0, 8, 16, 24] {
        let mut start = [0usize; 257];
        for &(h, _) in &a {
            start[((h >> shift) & 0xff) as usize + 1] += 1;
        }
        for k in 0..256 {
            start[k + 1] += start[k];
        }
        // A stable pass: items keep their order within a digit.
        for &(h, i) in &a {
            let d = ((h >> shift) & 0xff) as usize;
            b[start[d]] = (h, i);
            start[d] += 1;
        }
        std::mem::swap(&mut a, &mut b);
    }
    a
}

/// Mixes all 64 bits of `z` into each bit of the result (SplitMix64's
/// finaliser): FxHash alone leaves the low bits of a product depending only
/// on the low bits of its input, which small integers as f64 leave zero.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A 32-bit hash of bytes (FxHash, mixed and folded).
pub fn hash_bytes(bytes: &[u8]) -> u32 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(bytes);
    mix(h.finish()) as u32
}

/// A 32-bit hash of words.
pub fn hash_words(words: impl Iterator<Item = u64>) -> u32 {
    mix(words.fold(0x243f_6a88_85a3_08d3, |h, w| mix(h ^ w))) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, by comparing every pair.
    fn brute_force(items: &[u8]) -> Option<(usize, usize)> {
        (0..items.len()).find_map(|i| (0..i).find(|&j| items[j] == items[i]).map(|j| (j, i)))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn the_first_repeat_is_the_definitions(
            items in proptest::collection::vec(0u8..40, 0..60),
            buckets in 1u32..8,
        ) {
            // Few distinct hashes: most runs of equal hashes mix unequal items.
            let got = first_repeated(items.len(), |i| u32::from(items[i]) % buckets * 0x0101_0101, |a, b| items[a].cmp(&items[b]));
            prop_assert_eq!(got, brute_force(&items));
            let exact = first_repeated(items.len(), |i| hash_bytes(&[items[i]]), |a, b| items[a].cmp(&items[b]));
            prop_assert_eq!(exact, brute_force(&items));
        }
    }
}
