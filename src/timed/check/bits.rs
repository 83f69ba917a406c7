//! Sets of states as bitsets, for the bulk evaluation ([`super::bulk`]).

/// A set of states, a bit each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bits {
    words: Vec<u64>,
    n: usize,
}

impl Bits {
    pub fn zeros(n: usize) -> Bits {
        Bits {
            words: vec![0; n.div_ceil(64)],
            n,
        }
    }

    pub fn from_fn(n: usize, mut f: impl FnMut(usize) -> bool) -> Bits {
        let mut b = Bits::zeros(n);
        for (w, word) in b.words.iter_mut().enumerate() {
            let base = w * 64;
            for k in 0..64.min(n - base) {
                *word |= u64::from(f(base + k)) << k;
            }
        }
        b
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    pub fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// The complement (bits past `n` stay clear).
    pub fn not(mut self) -> Bits {
        for w in &mut self.words {
            *w = !*w;
        }
        if self.n % 64 != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << (self.n % 64)) - 1;
            }
        }
        self
    }

    /// Word by word `op` of two sets over the same states (`op` keeps 0, 0 at 0
    /// or is followed by [`Bits::not`]'s masking; the callers' ops do).
    pub fn zip(mut self, other: &Bits, op: impl Fn(u64, u64) -> u64) -> Bits {
        for (x, y) in self.words.iter_mut().zip(&other.words) {
            *x = op(*x, *y);
        }
        self
    }

    /// The members in increasing order.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        (self.words.iter().enumerate()).flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let k = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + k
                })
            })
        })
    }

    pub fn to_bools(&self) -> Vec<bool> {
        (0..self.n).map(|i| self.get(i)).collect()
    }
}
