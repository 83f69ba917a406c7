//! The reader of the binary form ([`crate::robust::export::binary`]): one pass over the
//! file's fixed-width numbers, with every check the build makes on a text
//! model (numbers in range, names distinct, points distinct and finite,
//! each input once per state and each disturbance once per move), then the
//! builder's last step ([`super::build::finish`]: gamma, warnings) as every reader. A truncated or corrupt file is an error at its byte offset,
//! never a panic; no count read from the file is allocated for before the
//! bytes it announces are known to be there.

use super::build::finish;
use super::build_metric::first_repeated_point;
use super::repeats::{first_repeated, hash_bytes};
use crate::report::RunError;
use crate::robust::export::binary::{MAGIC, VERSION};
use crate::robust::front::{
    Automaton, Metric, MetricKind, Move, MoveTable, Objective, Points, StateNames,
};

/// Reads a binary model (`bytes` starts with [`MAGIC`]); returns it with
/// warnings (unreachable states), like [`super::build::build`].
pub fn read(file: &str, bytes: &[u8]) -> Result<(Automaton, Vec<String>), RunError> {
    let mut c = Cursor {
        b: bytes,
        pos: 0,
        file,
    };
    if c.take(MAGIC.len(), "the magic bytes")? != MAGIC {
        return Err(c.err(0, "not a binary mavis model (no `MAVISMAB` at the start)"));
    }
    let version = c.u32("the version")?;
    if version != VERSION {
        return Err(c.err(8, format!("binary model version {version}; this build reads version {VERSION}: convert the text model again")));
    }
    let name = c.str("the automaton's name")?;
    let at = c.pos;
    let kind = match c.u8("the metric")? {
        0 => MetricKind::Euclidean,
        1 => MetricKind::Manhattan,
        2 => MetricKind::Max,
        k => return Err(c.err(at, format!("unknown metric code {k} (0, 1 or 2)"))),
    };
    let n = c.u32("the number of states")? as usize;
    if n == 0 {
        return Err(c.err(c.pos - 4, "the automaton has no states"));
    }
    let dim = c.u32("the dimension")? as usize;
    let states = read_names(&mut c, n)?;
    let points = read_points(&mut c, n, dim, &states)?;
    let gamma_at = c.pos;
    let gamma = match c.u8("the gamma flag")? {
        0 => None,
        1 => Some(read_gamma(&mut c, n)?),
        g => return Err(c.err(gamma_at, format!("gamma flag {g} (0 or 1)"))),
    };
    let at = c.pos;
    let init = c.u32("the initial state")?;
    if init as usize >= n {
        return Err(c.err(at, format!("initial state {init} of {n} states")));
    }
    let inputs = read_distinct(&mut c, "input")?;
    let mut disturbances = vec!["eps".to_string()];
    let declared_at = c.pos;
    disturbances.extend(read_distinct(&mut c, "disturbance")?);
    if disturbances[1..].iter().any(|x| x == "eps") {
        return Err(c.err(
            declared_at,
            "`eps` (disturbance 0) is among the disturbances",
        ));
    }
    let counts = (n as u32, inputs.len() as u32, disturbances.len() as u32);
    let moves = read_moves(&mut c, counts)?;
    let objective = read_objective(&mut c, n)?;
    if c.pos != bytes.len() {
        return Err(c.err(
            c.pos,
            format!("{} bytes after the objective", bytes.len() - c.pos),
        ));
    }
    let a = Automaton {
        name,
        states,
        metric: Metric::Coords { kind, points },
        init,
        inputs,
        disturbances,
        moves,
        gamma_declared: false,
        gamma: Vec::new(),
        objective,
    };
    finish(a, |q| gamma.as_ref().map(|g| g[q]))
        .map_err(|(_, _, message)| c.err(gamma_at + 1, message))
}

/// The state names: n end offsets, then the text; each non-empty, all distinct.
fn read_names(c: &mut Cursor, n: usize) -> Result<StateNames, RunError> {
    let ends_at = c.pos;
    let ends = c.u32s(n, "the state names' offsets")?;
    if let Some(q) = (0..n).find(|&q| ends[q] <= if q == 0 { 0 } else { ends[q - 1] }) {
        return Err(c.err(
            ends_at + 4 * q,
            format!("state {q}'s name is empty or its offset decreases"),
        ));
    }
    let text_at = c.pos;
    let text = c.take(ends[n - 1] as usize, "the state names")?;
    let text = std::str::from_utf8(text)
        .map_err(|e| c.err(text_at + e.valid_up_to(), "a state name is not UTF-8"))?;
    let start = |q: usize| if q == 0 { 0 } else { ends[q - 1] as usize };
    if let Some(q) = (0..n).find(|&q| !text.is_char_boundary(ends[q] as usize)) {
        return Err(c.err(ends_at + 4 * q, "a state name's end splits a character"));
    }
    let name = |q: usize| &text[start(q)..ends[q] as usize];
    let repeat = first_repeated(
        n,
        |q| hash_bytes(name(q).as_bytes()),
        |a, b| name(a).cmp(name(b)),
    );
    if let Some((_, q)) = repeat {
        let msg = format!("state `{}` is declared twice", name(q));
        return Err(c.err(text_at + start(q), msg));
    }
    let mut names = StateNames::with_capacity(n, text.len());
    (0..n).for_each(|q| names.push(name(q)));
    Ok(names)
}

/// n points of `dim` coordinates: finite and pairwise distinct.
fn read_points(
    c: &mut Cursor,
    n: usize,
    dim: usize,
    names: &StateNames,
) -> Result<Points, RunError> {
    let at = c.pos;
    let count = n
        .checked_mul(dim)
        .ok_or_else(|| c.err(at, "too many coordinates"))?;
    let coords = c.f64s(count, "the points")?;
    if let Some(k) = coords.iter().position(|x| !x.is_finite()) {
        return Err(c.err(at + 8 * k, "coordinates must be finite"));
    }
    let point = |q: usize| &coords[q * dim..(q + 1) * dim];
    if let Some((j, q)) = first_repeated_point(n, point) {
        return Err(c.err(at + 8 * q * dim, format!(
            "identity of indiscernibles fails: states `{}` and `{}` have the same coordinates, so d = 0 between distinct states",
            &names[j], &names[q]
        )));
    }
    Ok(Points::from_flat(dim, n, coords))
}

fn read_gamma(c: &mut Cursor, n: usize) -> Result<Vec<f64>, RunError> {
    let at = c.pos;
    let gamma = c.f64s(n, "the declared gamma")?;
    match gamma.iter().position(|g| !(g.is_finite() && *g >= 0.0)) {
        Some(q) => Err(c.err(at + 8 * q, "gamma must be finite and >= 0")),
        None => Ok(gamma),
    }
}

/// A count and that many names, distinct (inputs or disturbances).
fn read_distinct(c: &mut Cursor, what: &str) -> Result<Vec<String>, RunError> {
    let count = c.u32(what)? as usize;
    // Each name takes at least its 4-byte length: a count beyond that is a corrupt file.
    c.room(count.saturating_mul(4), what)?;
    let mut names: Vec<String> = Vec::with_capacity(count);
    let mut seen = rustc_hash::FxHashSet::default();
    for _ in 0..count {
        let at = c.pos;
        let name = c.str(what)?;
        if name.is_empty() || !seen.insert(name.clone()) {
            return Err(c.err(at, format!("{what} `{name}` is empty or declared twice")));
        }
        names.push(name);
    }
    Ok(names)
}

/// The moves: per state its moves, each input once per state, each
/// disturbance once per move, every number in range.
fn read_moves(c: &mut Cursor, (n, inputs, dists): (u32, u32, u32)) -> Result<MoveTable, RunError> {
    let total = c.u32("the number of moves")? as usize;
    let pairs = c.u32("the number of disturbed pairs")? as usize;
    let rows_at = c.pos;
    let rows = c.u32s(n as usize, "the moves per state")?;
    if rows.iter().map(|&k| k as u64).sum::<u64>() != total as u64 {
        return Err(c.err(
            rows_at,
            format!("the moves per state do not add up to {total}"),
        ));
    }
    let moves_at = c.pos;
    let raw = Words(c.take(12usize.saturating_mul(total), "the moves")?);
    let pairs_at = c.pos;
    let raw_pairs = Words(c.take(8usize.saturating_mul(pairs), "the disturbed pairs")?);
    let mut first = Vec::with_capacity(n as usize + 1);
    first.push(0usize);
    let mut moves: Vec<Move> = Vec::with_capacity(total);
    let mut used = 0usize;
    // The row that last used each input (and in `PairReader` the move that
    // last used each disturbance): repeats are found in constant time, so a
    // crafted file with one wide row costs linear, not quadratic, time.
    let mut input_row = vec![u32::MAX; inputs as usize];
    let mut pair_reader = PairReader {
        raw: raw_pairs,
        at: pairs_at,
        states: n,
        dists,
        last_move: vec![usize::MAX; dists as usize],
        out: Vec::with_capacity(pairs),
    };
    for (row, &k) in rows.iter().enumerate() {
        let row_start = moves.len();
        for i in row_start..row_start + k as usize {
            let (input, nominal, count) =
                (raw.at(3 * i), raw.at(3 * i + 1), raw.at(3 * i + 2) as usize);
            let at = moves_at + 12 * i;
            if input >= inputs
                || std::mem::replace(&mut input_row[input as usize], row as u32) == row as u32
            {
                return Err(c.err(
                    at,
                    format!("input {input} is out of range or given twice for the state"),
                ));
            }
            if nominal >= n {
                return Err(c.err(at + 4, format!("successor {nominal} of {n} states")));
            }
            if count > pairs - used {
                return Err(c.err(
                    at + 8,
                    format!("the moves' disturbed pairs exceed the {pairs} announced"),
                ));
            }
            pair_reader.read(c, used..used + count, i)?;
            let range = (used as u32, (used + count) as u32);
            used += count;
            moves.push(Move {
                input,
                nominal,
                pairs: range,
            });
        }
        first.push(moves.len());
    }
    if used != pairs {
        return Err(c.err(
            pairs_at,
            format!("{pairs} disturbed pairs announced, {used} used by the moves"),
        ));
    }
    Ok(MoveTable::from_parts(first, moves, pair_reader.out))
}

/// Reads the disturbed pairs of the moves, in order.
struct PairReader<'a> {
    raw: Words<'a>,
    /// The byte where the pairs start.
    at: usize,
    states: u32,
    dists: u32,
    /// The move that last used each disturbance.
    last_move: Vec<usize>,
    out: Vec<(u32, u32)>,
}

impl PairReader<'_> {
    /// Checks and appends the pairs `range` of move `mv`.
    fn read(
        &mut self,
        c: &Cursor,
        range: std::ops::Range<usize>,
        mv: usize,
    ) -> Result<(), RunError> {
        let (n, dists) = (self.states, self.dists);
        for p in range {
            let (x, target) = (self.raw.at(2 * p), self.raw.at(2 * p + 1));
            if x == 0 || x >= dists || std::mem::replace(&mut self.last_move[x as usize], mv) == mv
            {
                let msg = format!(
                    "disturbance {x} is out of range (1..{dists}) or given twice in the move"
                );
                return Err(c.err(self.at + 8 * p, msg));
            }
            if target >= n {
                return Err(c.err(
                    self.at + 8 * p + 4,
                    format!("successor {target} of {n} states"),
                ));
            }
            self.out.push((x, target));
        }
        Ok(())
    }
}

fn read_objective(c: &mut Cursor, n: usize) -> Result<Objective, RunError> {
    let at = c.pos;
    Ok(match c.u8("the objective")? {
        0 => Objective::Reach(read_set(c, n)?),
        1 => Objective::Buchi(read_set(c, n)?),
        2 => {
            let sets_at = c.pos;
            let count = c.u32("the number of accepting sets")? as usize;
            if count == 0 {
                return Err(c.err(sets_at, "`gen-buchi` needs at least one accepting set"));
            }
            c.room(count.saturating_mul(4), "the accepting sets")?;
            (0..count)
                .map(|_| read_set(c, n))
                .collect::<Result<_, _>>()
                .map(Objective::GenBuchi)?
        }
        3 => Objective::Parity(c.u32s(n, "the priorities")?),
        k => return Err(c.err(at, format!("unknown objective code {k} (0 to 3)"))),
    })
}

/// A non-empty set of states, in increasing order.
fn read_set(c: &mut Cursor, n: usize) -> Result<Vec<u32>, RunError> {
    let at = c.pos;
    let set = c.u32s_counted("an accepting set")?;
    if set.is_empty() {
        return Err(c.err(at, "an accepting set must not be empty"));
    }
    if let Some(k) =
        (0..set.len()).find(|&k| set[k] as usize >= n || (k > 0 && set[k] <= set[k - 1]))
    {
        return Err(c.err(
            at + 4 + 4 * k,
            format!(
                "state {} is out of range or out of order in the set",
                set[k]
            ),
        ));
    }
    Ok(set)
}

/// Little-endian `u32`s read in place.
struct Words<'a>(&'a [u8]);

impl Words<'_> {
    fn at(&self, i: usize) -> u32 {
        let w = &self.0[4 * i..4 * i + 4];
        u32::from_le_bytes([w[0], w[1], w[2], w[3]])
    }
}

/// A position in the file, with errors at byte offsets.
struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
    file: &'a str,
}

impl<'a> Cursor<'a> {
    fn err(&self, at: usize, msg: impl std::fmt::Display) -> RunError {
        RunError::input(format!("{}: byte {at}: {msg}", self.file))
    }

    /// Fails unless `len` more bytes are there.
    fn room(&self, len: usize, what: &str) -> Result<(), RunError> {
        let left = self.b.len() - self.pos;
        if len > left {
            return Err(self.err(
                self.pos,
                format!(
                    "the file ends inside {what} ({len} bytes needed, {left} left): truncated?"
                ),
            ));
        }
        Ok(())
    }

    fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], RunError> {
        self.room(len, what)?;
        let out = &self.b[self.pos..self.pos + len];
        self.pos += len;
        Ok(out)
    }

    fn u8(&mut self, what: &str) -> Result<u8, RunError> {
        Ok(self.take(1, what)?[0])
    }

    fn u32(&mut self, what: &str) -> Result<u32, RunError> {
        Ok(self.u32s(1, what)?[0])
    }

    fn u32s(&mut self, count: usize, what: &str) -> Result<Vec<u32>, RunError> {
        self.words(count, what, u32::from_le_bytes)
    }

    /// A `u32` count and that many `u32`s.
    fn u32s_counted(&mut self, what: &str) -> Result<Vec<u32>, RunError> {
        let count = self.u32(what)? as usize;
        self.u32s(count, what)
    }

    fn f64s(&mut self, count: usize, what: &str) -> Result<Vec<f64>, RunError> {
        self.words(count, what, f64::from_le_bytes)
    }

    /// `count` little-endian words of `N` bytes, each decoded by `decode`.
    fn words<const N: usize, T>(
        &mut self,
        count: usize,
        what: &str,
        decode: fn([u8; N]) -> T,
    ) -> Result<Vec<T>, RunError> {
        let len = count
            .checked_mul(N)
            .ok_or_else(|| self.err(self.pos, format!("{what}: too many")))?;
        let bytes = self.take(len, what)?;
        Ok(bytes
            .chunks_exact(N)
            .map(|w| decode(w.try_into().expect("N bytes")))
            .collect())
    }

    fn str(&mut self, what: &str) -> Result<String, RunError> {
        let len = self.u32(what)? as usize;
        let at = self.pos;
        let bytes = self.take(len, what)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => Err(self.err(at + e.valid_up_to(), format!("{what} is not UTF-8"))),
        }
    }
}
