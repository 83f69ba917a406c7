//! The names of an automaton's states, all in one string with an end offset
//! per state: a 10^6-state automaton holds its names in two allocations
//! instead of one per state. The reader's symbol table
//! ([`crate::robust::read::raw::Names`]) keeps its names the same way.

use std::ops::Index;

/// State q's name is `text[ends[q - 1]..ends[q]]` (from 0 for q = 0).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateNames {
    text: String,
    ends: Vec<usize>,
}

impl StateNames {
    /// No names, with room for `names` names of `bytes` bytes in all.
    pub fn with_capacity(names: usize, bytes: usize) -> Self {
        StateNames {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(names),
        }
    }

    /// Room for `more` further names.
    pub fn reserve(&mut self, more: usize) {
        self.ends.reserve(more);
    }

    /// Appends the name of the next state.
    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len());
    }

    /// The number of states.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no states.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The name of state q.
    pub fn get(&self, q: usize) -> &str {
        let start = if q == 0 { 0 } else { self.ends[q - 1] };
        &self.text[start..self.ends[q]]
    }

    /// The names in state order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|q| self.get(q))
    }
}

impl Index<usize> for StateNames {
    type Output = str;

    fn index(&self, q: usize) -> &str {
        self.get(q)
    }
}

impl<S: AsRef<str>> FromIterator<S> for StateNames {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Self {
        let mut out = StateNames::default();
        for name in names {
            out.push(name.as_ref());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_back_in_order() {
        let names: StateNames = ["q0", "", "long_name_7", "é"].into_iter().collect();
        assert_eq!(names.len(), 4);
        assert_eq!(&names[0], "q0");
        assert_eq!(&names[1], "");
        assert_eq!(names.get(2), "long_name_7");
        assert_eq!(&names[3], "é");
        assert_eq!(
            names.iter().collect::<Vec<_>>(),
            ["q0", "", "long_name_7", "é"]
        );
        assert!(StateNames::default().is_empty());
    }
}
