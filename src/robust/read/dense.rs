//! A fast reader of the dense `.ma` form that generators write: `automaton`,
//! `metric` (not `table`), `inputs`, `disturbances`, `state NAME at (x, ..)
//! [gamma g] [priority p]` with literal numbers, `init`, `trans` and the
//! objective. One pass over the bytes, no token vector and no exact arithmetic.
//!
//! It reads nothing else: on `const`, an expression, a `distance` table, a block
//! comment, or any error it returns `None` and [`super::text::parse`] reads the
//! text instead, so every message (and its location) is the general parser's. Where it returns a
//! model, the model equals the general parser's (a property test checks it).

use super::dense_guess::Guess;
use super::raw::{Loc, Names, RawModel, RawObjective, RawState, RawTrans, Sym};
use crate::lang::Span;
use crate::robust::front::MetricKind;

/// Literal numbers with at most this many digits are exact in f64 (and equal to
/// the general parser's exact rational rounded to f64).
const MAX_DIGITS: usize = 15;

struct Scan<'a> {
    b: &'a [u8],
    text: &'a str,
    pos: usize,
    /// End of the last token read: where a statement's span ends.
    last: usize,
}

/// Reads the dense form, or `None` where the general parser must read the text.
pub fn parse(text: &str) -> Option<RawModel> {
    let mut s = Scan {
        b: text.as_bytes(),
        text,
        pos: 0,
        last: 0,
    };
    let mut m = RawModel::empty();
    let mut metric_seen = false;
    let mut guess = Guess::default();
    let mut sized = false;
    while !s.at_end() {
        let (word, kw) = s.ident()?;
        match word {
            "automaton" => m.name = s.ident()?.0.to_string(),
            "metric" => {
                m.metric = match s.ident()?.0 {
                    "euclidean" => MetricKind::Euclidean,
                    "manhattan" => MetricKind::Manhattan,
                    "max" => MetricKind::Max,
                    _ => return None,
                };
                if std::mem::replace(&mut metric_seen, true) {
                    return None;
                }
            }
            "inputs" => m.inputs.extend(s.names(&mut m.names)?),
            "disturbances" => m.disturbances.extend(s.names(&mut m.names)?),
            "state" => {
                if !std::mem::replace(&mut sized, true) {
                    // Sized once for the declarations ahead: no rehashing of the names' index.
                    let ahead = state_lines(&s.b[kw.start..]);
                    m.names.reserve(ahead);
                    m.states.reserve(ahead);
                    m.coords.reserve(2 * ahead);
                }
                m.states
                    .push(s.state(kw.start, &mut m.names, &mut m.coords)?)
            }
            "init" => {
                let (q, span) = s.ident()?;
                if m.init.is_some() {
                    return None;
                }
                m.init = Some((m.names.intern(q), Loc::span(span)));
            }
            "trans" => {
                let t = s.trans(kw.start, &mut m.names, &mut m.disturbed, &mut guess)?;
                m.transitions.push(t)
            }
            "reach" | "buchi" | "gen" | "parity" => {
                let obj = s.objective(word, &mut m.names)?;
                if m.objective.is_some() {
                    return None;
                }
                m.objective = Some((obj, Loc::span(Span::new(kw.start, s.last))));
            }
            _ => return None,
        }
        if !s.punct(b';') {
            return None;
        }
    }
    Some(m)
}

/// How many lines from the start of `b` on are `state` declarations (or
/// blank, or `//` comments) before any other line: a hint for sizing.
fn state_lines(b: &[u8]) -> usize {
    let mut count = 0;
    for line in b.split(|&c| c == b'\n') {
        let line = line.trim_ascii_start();
        if line.starts_with(b"state") && line.get(5).is_some_and(u8::is_ascii_whitespace) {
            count += 1;
        } else if !(line.is_empty() || line.starts_with(b"//")) {
            break;
        }
    }
    count
}

impl<'a> Scan<'a> {
    /// Skips white space and `//` comments.
    fn skip(&mut self) {
        loop {
            while self.pos < self.b.len()
                && matches!(self.b[self.pos], b' ' | b'\t' | b'\r' | b'\n' | 0x0c)
            {
                self.pos += 1;
            }
            let rest = &self.b[self.pos..];
            if rest.starts_with(b"//") {
                while self.pos < self.b.len() && self.b[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                // Block comments are left to the general parser (and its lexer).
                return;
            }
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip();
        self.pos >= self.b.len()
    }

    fn ident(&mut self) -> Option<(&'a str, Span)> {
        self.skip();
        let start = self.pos;
        if !self
            .b
            .get(start)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            return None;
        }
        let mut end = start + 1;
        while end < self.b.len() && (self.b[end].is_ascii_alphanumeric() || self.b[end] == b'_') {
            end += 1;
        }
        self.pos = end;
        self.last = end;
        Some((&self.text[start..end], Span::new(start, end)))
    }

    fn punct(&mut self, c: u8) -> bool {
        self.skip();
        if self.b.get(self.pos) == Some(&c) {
            self.pos += 1;
            self.last = self.pos;
            true
        } else {
            false
        }
    }

    fn arrow(&mut self) -> bool {
        self.skip();
        if self.b[self.pos..].starts_with(b"->") {
            self.pos += 2;
            self.last = self.pos;
            true
        } else {
            false
        }
    }

    /// The keyword `word` if it comes next (nothing is consumed otherwise).
    fn keyword(&mut self, word: &str) -> bool {
        let save = (self.pos, self.last);
        match self.ident() {
            Some((w, _)) if w == word => true,
            _ => {
                (self.pos, self.last) = save;
                false
            }
        }
    }

    /// A literal number, optionally negated: `-?[0-9]+(.[0-9]+)?` with few digits.
    fn number(&mut self) -> Option<f64> {
        let negative = self.punct(b'-');
        self.skip();
        let start = self.pos;
        let digits = |s: &mut Self| {
            let from = s.pos;
            while s.pos < s.b.len() && s.b[s.pos].is_ascii_digit() {
                s.pos += 1;
            }
            s.pos - from
        };
        let mut count = digits(self);
        if count == 0 {
            return None;
        }
        let whole = self.pos;
        if self.b.get(self.pos) == Some(&b'.')
            && self.b.get(self.pos + 1).is_some_and(u8::is_ascii_digit)
        {
            self.pos += 1;
            count += digits(self);
        }
        // An exponent, or a number running into a name, is the general parser's.
        if count > MAX_DIGITS
            || self
                .b
                .get(self.pos)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
        {
            return None;
        }
        self.last = self.pos;
        let x: f64 = if whole == self.pos {
            // An integer of at most 15 digits: exact in u64 and in f64.
            self.b[start..whole]
                .iter()
                .fold(0u64, |v, d| v * 10 + u64::from(d - b'0')) as f64
        } else {
            self.text[start..self.pos].parse().ok()?
        };
        // + 0.0: `-0` is the rational 0, whose f64 is +0.
        Some(if negative { -x + 0.0 } else { x })
    }

    fn names(&mut self, n: &mut Names) -> Option<Vec<Sym>> {
        let mut v = vec![n.intern(self.ident()?.0)];
        while self.punct(b',') {
            v.push(n.intern(self.ident()?.0));
        }
        Some(v)
    }

    /// A state declaration; its coordinates are appended to `coords`.
    fn state(&mut self, start: usize, n: &mut Names, coords: &mut Vec<f64>) -> Option<RawState> {
        let name = n.intern(self.ident()?.0);
        let mut s = RawState {
            name,
            at: None,
            gamma: None,
            priority: None,
            loc: Loc::span(Span::new(start, start)),
        };
        loop {
            if self.keyword("at") {
                if !self.punct(b'(') {
                    return None;
                }
                let first = coords.len() as u32;
                coords.push(self.number()?);
                while self.punct(b',') {
                    coords.push(self.number()?);
                }
                if !self.punct(b')') {
                    return None;
                }
                s.at = Some((first, coords.len() as u32));
            } else if self.keyword("gamma") {
                let g = self.number()?;
                if !(g.is_finite() && g >= 0.0) {
                    return None;
                }
                s.gamma = Some(g);
            } else if self.keyword("priority") {
                let p = self.number()?;
                if p < 0.0 || p.fract() != 0.0 || p > 1e6 {
                    return None;
                }
                s.priority = Some(p as u32);
            } else {
                break;
            }
        }
        s.loc = Loc::span(Span::new(start, self.last));
        Some(s)
    }

    fn trans(
        &mut self,
        start: usize,
        n: &mut Names,
        pairs: &mut Vec<(Sym, Sym)>,
        guess: &mut Guess,
    ) -> Option<RawTrans> {
        let from = guess.source(n, self.ident()?.0);
        let input = n.intern(self.ident()?.0);
        if !self.arrow() {
            return None;
        }
        let to = guess.successor(n, from, input, 0, self.ident()?.0);
        let first = pairs.len() as u32;
        if self.punct(b'|') {
            loop {
                let x = n.intern(self.ident()?.0);
                if !self.arrow() {
                    return None;
                }
                let slot = pairs.len() - first as usize + 1;
                pairs.push((x, guess.successor(n, to, input, slot, self.ident()?.0)));
                if !self.punct(b',') {
                    break;
                }
            }
        }
        Some(RawTrans {
            from,
            input,
            to,
            disturbed: (first, pairs.len() as u32),
            loc: Loc::span(Span::new(start, self.last)),
        })
    }

    fn objective(&mut self, word: &str, n: &mut Names) -> Option<RawObjective> {
        match word {
            "reach" => Some(RawObjective::Reach(self.names(n)?)),
            "buchi" => Some(RawObjective::Buchi(self.names(n)?)),
            "parity" => Some(RawObjective::Parity),
            _ => {
                if !self.punct(b'-') || !self.keyword("buchi") {
                    return None;
                }
                let mut sets = Vec::new();
                loop {
                    if !self.punct(b'{') {
                        return None;
                    }
                    sets.push(self.names(n)?);
                    if !self.punct(b'}') {
                        return None;
                    }
                    if !self.punct(b',') {
                        break;
                    }
                }
                Some(RawObjective::GenBuchi(sets))
            }
        }
    }
}
