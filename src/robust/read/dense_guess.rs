//! Symbols of the state names of a dense `.ma` file's transitions, guessed
//! from the transitions before and checked against the name itself.
//!
//! Generators declare states in order and write transitions in the same
//! order, with successors at a fixed offset per input (the grid's `N` always
//! goes one row up): the source of a transition is the previous source or the
//! next state, and a successor is usually as far from its source as in the
//! previous transition with the same input. A guess is taken only when the
//! guessed symbol's name is the name read, so the symbol is the one interning
//! would give; anything else is interned. Checking a guess reads the names
//! table near the last names read, where hashing reads a random slot of a
//! table of 32 MB for a 10^6-state model (a cache miss per name).

use super::raw::{Names, Sym};

/// Offset slots per input: the nominal successor and the first disturbed ones.
const SLOTS_PER_INPUT: usize = 5;

/// Inputs with a symbol beyond this are not guessed for (generated files declare inputs first).
const MAX_INPUT_SYMBOL: usize = 1 << 12;

/// The last transition's source and, per input, the last offsets from the
/// source to each successor.
#[derive(Default)]
pub struct Guess {
    source: u32,
    /// `symbol(successor) - symbol(base)` by `input * SLOTS_PER_INPUT + slot`.
    offsets: Vec<Option<i64>>,
}

impl Guess {
    /// The symbol of a transition's source `name`: the last source or the next symbol, or interned.
    pub fn source(&mut self, names: &mut Names, name: &str) -> Sym {
        let s = [self.source, self.source.wrapping_add(1)]
            .into_iter()
            .map(Sym)
            .find(|&s| names.is(s, name))
            .unwrap_or_else(|| names.intern(name));
        self.source = s.0;
        s
    }

    /// The symbol of successor `name` of a move with this input, `base` being
    /// the transition's source (for the nominal successor, `slot` 0) or
    /// nominal successor (for the k-th disturbed one, `slot` k + 1).
    pub fn successor(
        &mut self,
        names: &mut Names,
        base: Sym,
        input: Sym,
        slot: usize,
        name: &str,
    ) -> Sym {
        if slot >= SLOTS_PER_INPUT || input.0 as usize >= MAX_INPUT_SYMBOL {
            return names.intern(name);
        }
        let i = input.0 as usize * SLOTS_PER_INPUT + slot;
        if i >= self.offsets.len() {
            self.offsets.resize(i + 1, None);
        }
        let guessed = self.offsets[i]
            .map(|off| i64::from(base.0) + off)
            .and_then(|s| u32::try_from(s).ok())
            .map(Sym)
            .filter(|&s| names.is(s, name));
        let s = guessed.unwrap_or_else(|| names.intern(name));
        self.offsets[i] = Some(i64::from(s.0) - i64::from(base.0));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Guessed or not, every symbol is the one plain interning gives.
    #[test]
    fn guesses_are_the_interned_symbols() {
        let mut r = rand::rngs::StdRng::seed_from_u64(7);
        let (mut guessed, mut plain) = (Names::default(), Names::default());
        let mut g = Guess::default();
        let name = |i: u32| format!("s{i}");
        for i in 0..50 {
            guessed.intern(&name(i));
            plain.intern(&name(i));
        }
        let input_names = ["a", "b", "c"];
        for step in 0..5000u32 {
            // Mostly regular (source in order, successors at fixed offsets),
            // sometimes anything, including names never seen.
            let wild = r.gen_bool(0.2);
            let from = if wild {
                r.gen_range(0..60)
            } else {
                (step / 3) % 50
            };
            let input = input_names[r.gen_range(0..3)];
            let to = if wild {
                r.gen_range(0..60)
            } else {
                (from + 7) % 50
            };
            let target = if wild {
                r.gen_range(0..70)
            } else {
                (to + 1) % 50
            };
            let f = g.source(&mut guessed, &name(from));
            assert_eq!(f, plain.intern(&name(from)));
            let a = guessed.intern(input);
            assert_eq!(a, plain.intern(input));
            let t = g.successor(&mut guessed, f, a, 0, &name(to));
            assert_eq!(t, plain.intern(&name(to)));
            let slot = r.gen_range(1..7);
            let d = g.successor(&mut guessed, t, a, slot, &name(target));
            assert_eq!(d, plain.intern(&name(target)));
        }
        assert_eq!(guessed.len(), plain.len());
    }
}
