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

use std::collections::HashMap;

/// A non-zero component of a measure: (component, value).
pub(super) type Entry = (u32, u32);

/// Entries kept in the flat table per node.
const INLINE: usize = 2;

/// Per node, the non-zero components of a measure as (component, value),
/// highest component first.
pub(super) struct Rows {
    slots: Vec<Slot>,
    /// The lists longer than `INLINE`, by node.
    long: HashMap<u32, Vec<Entry>>,
}

/// A node's list when short, with its length (one cache line to read).
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
            long: HashMap::new(),
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

    #[cold]
    fn long_list(&self, v: usize) -> &[Entry] {
        &self.long[&(v as u32)]
    }

    /// Replaces node `v`'s measure by `entries` (highest component first, no zero value).
    pub(super) fn set(&mut self, v: usize, entries: &[Entry]) {
        let slot = &mut self.slots[v];
        if entries.len() <= INLINE {
            if slot.len as usize > INLINE {
                self.long.remove(&(v as u32));
            }
            slot.items[..entries.len()].copy_from_slice(entries);
        } else {
            let list = self.long.entry(v as u32).or_default();
            list.clear();
            list.extend_from_slice(entries);
        }
        slot.len = entries.len() as u32;
    }
}
