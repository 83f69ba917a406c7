//! The transition function delta of an automaton as one flat table of
//! moves with an offset per state (compressed rows): a 10^6-state automaton
//! holds its moves in one allocation instead of one per state.

use std::ops::{Index, IndexMut};

/// One available input at a state: delta(q, a, eps) and, through
/// [`MoveTable::disturbed`], the distinct disturbed successors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Move {
    pub input: u32,
    /// delta(q, a, eps).
    pub nominal: u32,
    /// Where its (disturbance, successor) pairs are in the table's pairs:
    /// `start..end` (one vector for all moves, so a move allocates nothing).
    pub pairs: (u32, u32),
}

/// A move as written by hand (tests, products): its pairs in a vector of
/// its own. [`MoveTable::from_lists`] lays them out flat.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMove {
    pub input: u32,
    pub nominal: u32,
    /// (disturbance index, delta(q, a, x)) for every x != eps for which delta is defined.
    pub disturbed: Vec<(u32, u32)>,
}

/// The moves of every state: those of state q are `moves[first[q]..first[q + 1]]`,
/// in the order they were written; their disturbed pairs lie in `pairs`,
/// move after move in the same order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveTable {
    /// `states + 1` offsets into `moves`, starting at 0 and never decreasing.
    first: Vec<usize>,
    moves: Vec<Move>,
    pairs: Vec<(u32, u32)>,
}

impl MoveTable {
    /// The table of per-state lists (state q's moves are `lists[q]`).
    pub fn from_lists(lists: Vec<Vec<NewMove>>) -> Self {
        let mut first = Vec::with_capacity(lists.len() + 1);
        first.push(0);
        let mut moves = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        let mut pairs = Vec::new();
        for list in lists {
            for m in list {
                let start = pairs.len() as u32;
                pairs.extend(m.disturbed);
                moves.push(Move {
                    input: m.input,
                    nominal: m.nominal,
                    pairs: (start, pairs.len() as u32),
                });
            }
            first.push(moves.len());
        }
        MoveTable {
            first,
            moves,
            pairs,
        }
    }

    /// The table from its parts: `first` holds `states + 1` non-decreasing
    /// offsets from 0 to `moves.len()`, and each move's pair range lies in
    /// `pairs`. Pairs not laid out move after move are laid out again.
    ///
    /// # Panics
    /// If the offsets or ranges are not such (a caller's bug, not bad input).
    pub fn from_parts(first: Vec<usize>, moves: Vec<Move>, pairs: Vec<(u32, u32)>) -> Self {
        assert!(
            first.first() == Some(&0)
                && first.last() == Some(&moves.len())
                && first.windows(2).all(|w| w[0] <= w[1]),
            "move table offsets out of order"
        );
        assert!(
            moves
                .iter()
                .all(|m| m.pairs.0 <= m.pairs.1 && m.pairs.1 as usize <= pairs.len()),
            "move pairs out of range"
        );
        let mut table = MoveTable {
            first,
            moves,
            pairs,
        };
        let mut next = 0;
        let in_order = table.moves.iter().all(|m| {
            let ok = m.pairs.0 == next;
            next = m.pairs.1;
            ok
        }) && next as usize == table.pairs.len();
        if !in_order {
            table = MoveTable::from_lists(table.to_lists());
        }
        table
    }

    /// Each state's moves with their own pair vectors.
    pub fn to_lists(&self) -> Vec<Vec<NewMove>> {
        self.iter()
            .map(|row| {
                row.iter()
                    .map(|m| NewMove {
                        input: m.input,
                        nominal: m.nominal,
                        disturbed: self.disturbed(m).to_vec(),
                    })
                    .collect()
            })
            .collect()
    }

    /// The (disturbance, successor) pairs of a move of this table.
    pub fn disturbed(&self, m: &Move) -> &[(u32, u32)] {
        &self.pairs[m.pairs.0 as usize..m.pairs.1 as usize]
    }

    /// The number of disturbed pairs of all moves.
    pub fn total_pairs(&self) -> usize {
        self.pairs.len()
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

impl From<Vec<Vec<NewMove>>> for MoveTable {
    fn from(lists: Vec<Vec<NewMove>>) -> Self {
        MoveTable::from_lists(lists)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(input: u32, nominal: u32, disturbed: &[(u32, u32)]) -> NewMove {
        NewMove {
            input,
            nominal,
            disturbed: disturbed.to_vec(),
        }
    }

    #[test]
    fn rows_are_the_lists() {
        let lists = vec![
            vec![mv(0, 1, &[(1, 2)]), mv(1, 2, &[])],
            vec![],
            vec![mv(0, 0, &[(1, 1), (2, 2)])],
        ];
        let t = MoveTable::from(lists.clone());
        assert_eq!(t.states(), 3);
        assert_eq!(t.total(), 3);
        assert_eq!(t.total_pairs(), 3);
        assert_eq!(t.to_lists(), lists);
        assert_eq!(t[2].len(), 1);
        assert_eq!(t.disturbed(&t[2][0]), &[(1, 1), (2, 2)]);
        assert!(t[1].is_empty());
        assert_eq!(t.start(2), 2);
        let mut u = t.clone();
        u[0][1].nominal = 7;
        assert_eq!(u.all()[1].nominal, 7);
        let pairs = vec![(1, 2), (1, 1), (2, 2)];
        assert_eq!(
            MoveTable::from_parts(vec![0, 2, 2, 3], t.all().to_vec(), pairs.clone()),
            t
        );
        // Pairs laid out in another order are laid out again: the same table.
        let mut moves = t.all().to_vec();
        moves[0].pairs = (2, 3);
        moves[2].pairs = (0, 2);
        let shuffled = vec![(1, 1), (2, 2), (1, 2)];
        assert_eq!(MoveTable::from_parts(vec![0, 2, 2, 3], moves, shuffled), t);
    }

    #[test]
    #[should_panic(expected = "offsets out of order")]
    fn parts_must_cover_the_moves() {
        let m = Move {
            input: 0,
            nominal: 0,
            pairs: (0, 0),
        };
        MoveTable::from_parts(vec![0, 1], vec![m, m], Vec::new());
    }
}
