//! The model as written (from `.ma` text or JSON), every name interned as a
//! [`Sym`]; its checked construction is [`super::build`].

use crate::lang::{error_at, Source, Span};
use crate::report::RunError;
use crate::robust::front::state_names::StateNames;
use crate::robust::front::MetricKind;

/// Where a raw item came from: a span of `.ma` text or a JSON path. Each
/// variant holds 8 bytes, so a location is 16 bytes (it is stored per
/// transition: 64 MB for 4 x 10^6 transitions, where a plain [`Span`] made it 96 MB).
#[derive(Clone, Debug)]
pub enum Loc {
    /// A span of text below 4 GiB.
    Text { start: u32, end: u32 },
    /// A span reaching beyond 4 GiB.
    Wide(Box<Span>),
    /// A JSON path.
    Path(Box<Box<str>>),
}

// The per-transition record stays small (see [`Loc`]).
const _: () = assert!(std::mem::size_of::<Loc>() == 16);

impl Loc {
    /// The location of a span of text.
    pub fn span(s: Span) -> Loc {
        match (u32::try_from(s.start), u32::try_from(s.end)) {
            (Ok(start), Ok(end)) => Loc::Text { start, end },
            _ => Loc::Wide(Box::new(s)),
        }
    }

    /// The location of a JSON path.
    pub fn path(p: impl Into<Box<str>>) -> Loc {
        Loc::Path(Box::new(p.into()))
    }
}

/// An interned name (of a state, an input or a disturbance) of
/// [`RawModel::names`]: readers intern each name once, so a 10^6-state model
/// holds one string per name instead of one per occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sym(pub u32);

/// The names of a raw model, each once, numbered in order of first use.
///
/// All names live in one string, and the index is an open-addressing table
/// whose slots hold each name's length and first 8 bytes: interning a name
/// allocates nothing, and a name of at most 8 bytes (most generated state
/// names) is found without reading the string. Such short names also go
/// through a small direct-mapped cache of recent ones: model files name the
/// same and neighbouring states close together, and the cache (256 KiB) stays
/// in the processor's cache where the table (16 bytes per slot, two slots per
/// name) does not.
#[derive(Clone, Default)]
pub struct Names {
    /// The names in symbol order (one string, an end offset each).
    list: StateNames,
    /// A power of two of slots (or none), at most half of them used.
    slots: Vec<Slot>,
    /// Recently interned names of at most 8 bytes, by hash ([`RECENT`] slots once used).
    recent: Vec<Slot>,
}

/// Slots of the cache of recent short names.
const RECENT: usize = 1 << 14;

/// A slot of [`Names`]: the symbol (`u32::MAX` when empty), the name's length
/// and its first 8 bytes, zero-padded.
#[derive(Clone, Copy)]
struct Slot {
    sym: u32,
    len: u32,
    head: u64,
}

const EMPTY: Slot = Slot {
    sym: u32::MAX,
    len: 0,
    head: 0,
};

/// The first 8 bytes of `b`, zero-padded, as one word.
fn head(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let k = b.len().min(8);
    w[..k].copy_from_slice(&b[..k]);
    u64::from_le_bytes(w)
}

/// A multiplicative hash of the name (its high bits are the well mixed ones).
fn hash(b: &[u8], first: u64) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = (first ^ b.len() as u64).wrapping_mul(K);
    for chunk in b.get(8..).unwrap_or(&[]).chunks(8) {
        h = (h.rotate_left(23) ^ head(chunk)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

impl Names {
    /// The symbol of `name`, new if it was not seen before.
    pub fn intern(&mut self, name: &str) -> Sym {
        let b = name.as_bytes();
        let first = head(b);
        let h = hash(b, first);
        let short = b.len() <= 8;
        // Length and first 8 bytes identify a short name.
        let r = (h >> 40) as usize & (RECENT - 1);
        if short {
            if self.recent.is_empty() {
                self.recent = vec![EMPTY; RECENT];
            }
            let c = self.recent[r];
            if c.sym != u32::MAX && c.len as usize == b.len() && c.head == first {
                return Sym(c.sym);
            }
        }
        let s = match self.find(b, first, h) {
            Some(s) => s,
            None => self.insert(name, first, h),
        };
        if short {
            self.recent[r] = Slot {
                sym: s.0,
                len: b.len() as u32,
                head: first,
            };
        }
        s
    }

    /// Room for `more` new names without growing the index again: a reader
    /// that knows how many names are coming sizes the index once.
    pub fn reserve(&mut self, more: usize) {
        let wanted = (2 * (self.list.len() + more)).next_power_of_two();
        if wanted > self.slots.len() {
            self.rebuild(wanted);
        }
        self.list.reserve(more);
    }

    /// Whether symbol `s` exists and is the name `name` (no hashing: a
    /// reader that guesses a symbol checks its guess with this).
    pub fn is(&self, s: Sym, name: &str) -> bool {
        (s.0 as usize) < self.list.len() && self.name(s) == name
    }

    /// Like [`Names::intern`], for a name the caller owns.
    pub fn intern_owned(&mut self, name: String) -> Sym {
        self.intern(&name)
    }

    fn find(&self, b: &[u8], first: u64, h: u64) -> Option<Sym> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            let s = self.slots[i];
            if s.sym == u32::MAX {
                return None;
            }
            if s.len as usize == b.len()
                && s.head == first
                && (b.len() <= 8 || self.name(Sym(s.sym)).as_bytes() == b)
            {
                return Some(Sym(s.sym));
            }
            i = (i + 1) & mask;
        }
    }

    fn insert(&mut self, name: &str, first: u64, h: u64) -> Sym {
        if 2 * (self.list.len() + 1) > self.slots.len() {
            self.grow();
        }
        let sym = Sym(self.list.len() as u32);
        self.list.push(name);
        self.place(
            Slot {
                sym: sym.0,
                len: name.len() as u32,
                head: first,
            },
            h,
        );
        sym
    }

    fn place(&mut self, slot: Slot, h: u64) {
        let mask = self.slots.len() - 1;
        let mut i = (h as usize) & mask;
        while self.slots[i].sym != u32::MAX {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    fn grow(&mut self) {
        self.rebuild((self.slots.len() * 2).max(16));
    }

    /// The index rebuilt with `size` slots (a power of two).
    fn rebuild(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        for s in old.into_iter().filter(|s| s.sym != u32::MAX) {
            let b = self.name(Sym(s.sym)).as_bytes();
            let h = hash(b, s.head);
            self.place(s, h);
        }
    }

    pub fn name(&self, s: Sym) -> &str {
        self.list.get(s.0 as usize)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Every name, in symbol order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.list.iter()
    }
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[derive(Clone, Debug)]
pub struct RawState {
    pub name: Sym,
    /// Its coordinates: `RawModel::coords[start..end]` (one vector for all
    /// states, so a state allocates nothing).
    pub at: Option<(u32, u32)>,
    pub gamma: Option<f64>,
    pub priority: Option<u32>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct RawTrans {
    pub from: Sym,
    pub input: Sym,
    pub to: Sym,
    /// Its (disturbance, target) pairs: `RawModel::disturbed[start..end]`
    /// (one vector for all transitions, so a transition allocates nothing).
    pub disturbed: (u32, u32),
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub enum RawObjective {
    Reach(Vec<Sym>),
    Buchi(Vec<Sym>),
    GenBuchi(Vec<Vec<Sym>>),
    Parity,
}

/// A model as written; every name is a [`Sym`] of `names`.
#[derive(Clone, Debug)]
pub struct RawModel {
    pub name: String,
    pub names: Names,
    pub metric: MetricKind,
    pub states: Vec<RawState>,
    /// The coordinates of all states, in order.
    pub coords: Vec<f64>,
    pub distances: Vec<(Sym, Sym, f64, Loc)>,
    pub init: Option<(Sym, Loc)>,
    pub inputs: Vec<Sym>,
    pub disturbances: Vec<Sym>,
    pub transitions: Vec<RawTrans>,
    /// The (disturbance, target) pairs of all transitions, in order.
    pub disturbed: Vec<(Sym, Sym)>,
    pub objective: Option<(RawObjective, Loc)>,
}

impl RawModel {
    /// The model before its first declaration (Euclidean metric, no states).
    pub fn empty() -> Self {
        RawModel {
            name: String::new(),
            names: Names::default(),
            metric: MetricKind::Euclidean,
            states: Vec::new(),
            coords: Vec::new(),
            distances: Vec::new(),
            init: None,
            inputs: Vec::new(),
            disturbances: Vec::new(),
            transitions: Vec::new(),
            disturbed: Vec::new(),
            objective: None,
        }
    }
}

impl RawModel {
    /// Appends a point to [`RawModel::coords`] and returns its range there.
    pub fn push_point(coords: &mut Vec<f64>, point: &[f64]) -> (u32, u32) {
        let start = coords.len() as u32;
        coords.extend_from_slice(point);
        (start, coords.len() as u32)
    }

    /// The (disturbance, target) pairs of a transition of this model.
    pub fn disturbed_of(&self, t: &RawTrans) -> &[(Sym, Sym)] {
        &self.disturbed[t.disturbed.0 as usize..t.disturbed.1 as usize]
    }
}

/// Turns a located message into the run error of the right kind.
#[derive(Clone, Copy)]
pub struct Locator<'a> {
    pub source: &'a Source,
}

impl Locator<'_> {
    pub fn err(&self, loc: &Loc, msg: impl Into<String>) -> RunError {
        match loc {
            Loc::Text { start, end } => {
                let s = Span::new(*start as usize, *end as usize);
                error_at(self.source, s, msg).into()
            }
            Loc::Wide(s) => error_at(self.source, **s, msg).into(),
            Loc::Path(p) => RunError::input(format!("{}: {p}: {}", self.source.name(), msg.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Symbols are those of a plain map from names to first-use numbers.
    #[test]
    fn names_number_as_a_map_would() {
        let mut r = rand::rngs::StdRng::seed_from_u64(19);
        let mut names = Names::default();
        let mut map: std::collections::HashMap<String, u32> = Default::default();
        for _ in 0..20_000 {
            let len = r.gen_range(0..20);
            // A small alphabet, so that names repeat and share their first 8 bytes.
            let s: String = (0..len)
                .map(|_| ['a', 'b', '_'][r.gen_range(0..3)])
                .collect();
            let next = map.len() as u32;
            let want = *map.entry(s.clone()).or_insert(next);
            assert_eq!(names.intern(&s), Sym(want), "{s:?}");
        }
        assert_eq!(names.len(), map.len());
        for (s, &i) in &map {
            assert_eq!(names.name(Sym(i)), s);
        }
    }
}
