//! The transition function delta of an automaton as one flat table of
//! moves with an offset per state (compressed rows): a 10^6-state automaton
//! holds its moves in one allocation instead of one per state.

use serde::{Deserialize, Serialize};
use std::ops::{Index, IndexMut};

/// One available input at a state: delta(q, a, eps) and the distinct disturbed successors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Move {
    pub input: u32,
    /// delta(q, a, eps).
    pub nominal: u32,
    /// (disturbance index, delta(q, a, x)) for every x != eps for which delta is defined.
    pub disturbed: Vec<(u32, u32)>,
}

/// The moves of every state: those of state q are `moves[first[q]..first[q + 1]]`,
/// in the order they were written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveTable {
    /// `states + 1` offsets into `moves`, starting at 0 and never decreasing.
    first: Vec<usize>,
    moves: Vec<Move>,
}

impl MoveTable {
    /// The table of per-state lists (state q's moves are `lists[q]`).
    pub fn from_lists(lists: Vec<Vec<Move>>) -> Self {
        let mut first = Vec::with_capacity(lists.len() + 1);
        first.push(0);
        let mut moves = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for list in lists {
            moves.extend(list);
            first.push(moves.len());
        }
        MoveTable { first, moves }
    }

    /// The table from its parts: `first` holds `states + 1` non-decreasing
    /// offsets from 0 to `moves.len()`.
    ///
    /// # Panics
    /// If the offsets are not such (a caller's bug, not bad input).
    pub fn from_parts(first: Vec<usize>, moves: Vec<Move>) -> Self {
        assert!(
            first.first() == Some(&0)
                && first.last() == Some(&moves.len())
                && first.windows(2).all(|w| w[0] <= w[1]),
            "move table offsets out of order"
        );
        MoveTable { first, moves }
    }

    /// The number of states.
    pub fn states(&self) -> usize {
        self.first.len().saturating_sub(1)
    }

    /// The number of moves of all states.
    pub fn total(&self) -> usize {
        self.moves.len()
    }

    /// Where the moves of state q start in [`MoveTable::all`].
    pub fn start(&self, q: usize) -> usize {
        self.first[q]
    }

    /// Every move of every state, state by state.
    pub fn all(&self) -> &[Move] {
        &self.moves
    }

    /// Every move of every state, state by state, to change in place.
    pub fn all_mut(&mut self) -> &mut [Move] {
        &mut self.moves
    }

    /// The moves of each state in turn.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[Move]> + '_ {
        self.first.windows(2).map(|w| &self.moves[w[0]..w[1]])
    }
}

impl Index<usize> for MoveTable {
    type Output = [Move];

    fn index(&self, q: usize) -> &[Move] {
        &self.moves[self.first[q]..self.first[q + 1]]
    }
}

impl IndexMut<usize> for MoveTable {
    fn index_mut(&mut self, q: usize) -> &mut [Move] {
        &mut self.moves[self.first[q]..self.first[q + 1]]
    }
}

impl<'a> IntoIterator for &'a MoveTable {
    type Item = &'a [Move];
    type IntoIter = Box<dyn ExactSizeIterator<Item = &'a [Move]> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl From<Vec<Vec<Move>>> for MoveTable {
    fn from(lists: Vec<Vec<Move>>) -> Self {
        MoveTable::from_lists(lists)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(input: u32, nominal: u32) -> Move {
        Move {
            input,
            nominal,
            disturbed: Vec::new(),
        }
    }

    #[test]
    fn rows_are_the_lists() {
        let lists = vec![vec![mv(0, 1), mv(1, 2)], vec![], vec![mv(0, 0)]];
        let t = MoveTable::from(lists.clone());
        assert_eq!(t.states(), 3);
        assert_eq!(t.total(), 3);
        assert_eq!(t.iter().map(<[Move]>::to_vec).collect::<Vec<_>>(), lists);
        assert_eq!(&t[2], &[mv(0, 0)][..]);
        assert!(t[1].is_empty());
        assert_eq!(t.start(2), 2);
        let mut u = t.clone();
        u[0][1].nominal = 7;
        assert_eq!(u.all()[1].nominal, 7);
        assert_eq!(MoveTable::from_parts(vec![0, 2, 2, 3], t.all().to_vec()), t);
    }

    #[test]
    #[should_panic(expected = "offsets out of order")]
    fn parts_must_cover_the_moves() {
        MoveTable::from_parts(vec![0, 1], vec![mv(0, 0), mv(0, 0)]);
    }
}
