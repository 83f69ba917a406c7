//! The measures of [`super::spm_measure`], stored sparsely: per node the
//! non-zero components only, the first few in a flat table and longer lists
//! aside.
//!
//! On random games a measure has one or two non-zero components whatever the
//! number of priorities (2026-12-07, games of 10^4 nodes and 10^3
//! priorities: 1.0-1.1 on average), so a dense row of k components per node
//! made every lift read and copy k values; a list per node in its own
//! allocation made every read chase a pointer (twice as slow on 3
//! priorities). Here a read of a short measure is one slice of the table.

/// A non-zero component of a measure: (component, value).
pub(super) type Entry = (u32, u32);

/// Entries kept in the flat table per node.
const INLINE: usize = 2;

/// Per node, the non-zero components of a measure as (component, value),
/// highest component first.
pub(super) struct Rows {
    slots: Vec<Slot>,
    /// The lists longer than `INLINE`; a node with one keeps its index in
    /// the first item of its slot (a hash map by node cost 16 % of the
    /// lifts on 10^6 nodes x 10^3 priorities, profiled 2026-12-07).
    long: Vec<Vec<Entry>>,
    /// Indices into `long` no node uses.
    free: Vec<u32>,
}

/// A node's list when short, with its length (one cache line to read); when
/// longer than `INLINE`, the index of its list in `Rows::long`.
#[derive(Clone, Copy, Default)]
struct Slot {
    len: u32,
    items: [Entry; INLINE],
}

impl Rows {
    /// `n` all-zero measures.
    pub(super) fn new(n: usize) -> Self {
        Rows {
            slots: vec![Slot::default(); n],
            long: Vec::new(),
            free: Vec::new(),
        }
    }

    /// The non-zero components of node `v`'s measure, highest first.
    #[inline]
    pub(super) fn get(&self, v: usize) -> &[Entry] {
        let slot = &self.slots[v];
        let len = slot.len as usize;
        if len <= INLINE {
            &slot.items[..len]
        } else {
            self.long_list(v)
        }
    }

    #[inline]
    fn long_list(&self, v: usize) -> &[Entry] {
        &self.long[self.slots[v].items[0].0 as usize]
    }

    /// Replaces node `v`'s measure by `entries` (highest component first, no zero value).
    pub(super) fn set(&mut self, v: usize, entries: &[Entry]) {
        let slot = &mut self.slots[v];
        let was_long = slot.len as usize > INLINE;
        if entries.len() <= INLINE {
            if was_long {
                let at = slot.items[0].0;
                self.long[at as usize] = Vec::new();
                self.free.push(at);
            }
            slot.items[..entries.len()].copy_from_slice(entries);
        } else {
            let at = if was_long {
                slot.items[0].0
            } else if let Some(at) = self.free.pop() {
                at
            } else {
                self.long.push(Vec::new());
                (self.long.len() - 1) as u32
            };
            slot.items[0] = (at, 0);
            let list = &mut self.long[at as usize];
            list.clear();
            list.extend_from_slice(entries);
        }
        slot.len = entries.len() as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::{Entry, Rows};
    use proptest::prelude::*;

    proptest! {
        /// Any sequence of writes, lists growing past the flat table and
        /// shrinking back (their slots in `long` freed and reused), reads
        /// back as a plain list per node would.
        #[test]
        fn rows_read_back_what_was_written(
            writes in prop::collection::vec((0usize..6, prop::collection::vec(1u32..9, 0..6)), 0..60)
        ) {
            let mut rows = Rows::new(6);
            let mut plain: Vec<Vec<Entry>> = vec![Vec::new(); 6];
            for (v, values) in writes {
                let entries: Vec<Entry> = values
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| ((values.len() - i) as u32, x))
                    .collect();
                rows.set(v, &entries);
                plain[v] = entries;
                for (w, list) in plain.iter().enumerate() {
                    prop_assert_eq!(rows.get(w), &list[..]);
                }
            }
        }
    }
}
