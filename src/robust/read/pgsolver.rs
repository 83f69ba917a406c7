//! The PGSolver text formats: games (`parity N;` then `id priority owner succs "name";`)
//! and solutions (`paritysol N;` then `id winner [strategy];`).

use crate::lang::{error_at, LangResult, Source, Span};
use crate::robust::parity::game::{Game, Solution};

struct Cursor<'a> {
    src: &'a Source,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.bytes.len()
    }
    fn err(&self, msg: impl Into<String>) -> Box<crate::lang::SourceError> {
        let end = (self.pos + 1).min(self.bytes.len());
        error_at(self.src, Span::new(self.pos.min(end), end), msg)
    }
    fn word(&mut self) -> &'a str {
        self.skip_ws();
        let s = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_alphanumeric() {
            self.pos += 1;
        }
        std::str::from_utf8(&self.bytes[s..self.pos]).unwrap_or("")
    }
    fn number(&mut self, what: &str) -> LangResult<u64> {
        self.skip_ws();
        let s = self.pos;
        let w = self.word();
        w.parse::<u64>()
            .ok()
            .filter(|&v| v <= u32::MAX as u64 / 2)
            .ok_or_else(|| {
                error_at(
                    self.src,
                    Span::new(s, self.pos.max(s + 1).min(self.bytes.len().max(s))),
                    format!("expected {what}, found `{w}`"),
                )
            })
    }
    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> LangResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{}`", c as char)))
        }
    }
}

/// One node line: priority, owner, successors, name, and where it starts.
type Row = (u32, u8, Vec<u32>, Option<String>, usize);

/// The game of the node lines read (ids `0..rows.len()`, each present, every
/// successor a node).
fn assemble(src: &Source, rows: Vec<Option<Row>>) -> LangResult<Game> {
    let n = rows.len();
    let (mut prio, mut owner, mut succs, mut names) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (id, row) in rows.into_iter().enumerate() {
        let (p, o, s, name, at) = row.ok_or_else(|| {
            error_at(
                src,
                Span::new(0, 0),
                format!("node {id} is missing (ids must be 0..=N)"),
            )
        })?;
        if let Some(&bad) = s.iter().find(|&&t| t as usize >= n) {
            return Err(error_at(
                src,
                Span::new(at, at + 1),
                format!("node {id}: successor {bad} is not a node"),
            ));
        }
        prio.push(p);
        owner.push(o);
        succs.push(s);
        names.push(name);
    }
    let mut g =
        Game::from_lists(prio, owner, succs).map_err(|e| error_at(src, Span::new(0, 0), e))?;
    g.names = names;
    Ok(g)
}

/// One node line after its id's first byte `at`: id, priority, owner,
/// successors and the optional name, up to its `;`.
fn read_row(c: &mut Cursor, declared: Option<u64>, at: usize) -> LangResult<(usize, Row)> {
    let id = c.number("a node id")? as usize;
    if declared.is_some_and(|n| id as u64 > n) {
        return Err(error_at(
            c.src,
            Span::new(at, c.pos),
            format!("node {id} exceeds the declared largest id"),
        ));
    }
    // Ids 0..=N must all be present, each on its own line, so N is below the text length.
    if id >= c.bytes.len() {
        return Err(error_at(
            c.src,
            Span::new(at, c.pos),
            format!("node id {id} is larger than the file can hold (ids must be 0..=N)"),
        ));
    }
    let prio = c.number("a priority")? as u32;
    let owner_at = c.pos;
    let owner = c.number("an owner (0 or 1)")?;
    if owner > 1 {
        return Err(error_at(
            c.src,
            Span::new(owner_at, c.pos),
            "owner must be 0 or 1",
        ));
    }
    let mut succ = vec![c.number("a successor")? as u32];
    while c.eat(b',') {
        succ.push(c.number("a successor")? as u32);
    }
    let mut name = None;
    if c.eat(b'"') {
        let s = c.pos;
        while c.pos < c.bytes.len() && c.bytes[c.pos] != b'"' {
            c.pos += 1;
        }
        if c.pos >= c.bytes.len() {
            return Err(error_at(c.src, Span::new(s - 1, s), "unterminated name"));
        }
        name = Some(String::from_utf8_lossy(&c.bytes[s..c.pos]).into_owned());
        c.pos += 1;
    }
    c.expect(b';')?;
    Ok((id, (prio, owner as u8, succ, name, at)))
}

/// Reads a game; node ids must be 0..=N (or 0..N, Oink's reading of `parity N;`)
/// without gaps, every node needs a successor.
pub fn read_game(src: &Source) -> LangResult<Game> {
    let mut c = Cursor {
        src,
        bytes: src.text().as_bytes(),
        pos: 0,
    };
    let mut declared = None;
    c.skip_ws();
    let save = c.pos;
    if c.word() == "parity" {
        declared = Some(c.number("the largest node id")?);
        c.expect(b';')?;
    } else {
        c.pos = save;
    }
    let header_end = c.pos;
    let mut rows: Vec<Option<Row>> = Vec::new();
    // `start N;` lines: the node and where it is written, checked once every node is known.
    let mut starts = Vec::new();
    while !c.at_end() {
        let at = c.pos;
        let save = c.pos;
        if c.word() == "start" {
            let id_at = c.pos;
            let id = c.number("a node id")?;
            starts.push((id, Span::new(id_at, c.pos)));
            c.expect(b';')?;
            continue;
        }
        c.pos = save;
        let (id, row) = read_row(&mut c, declared, at)?;
        if rows.len() <= id {
            rows.resize(id + 1, None);
        }
        if rows[id].is_some() {
            return Err(error_at(
                src,
                Span::new(at, c.pos),
                format!("node {id} is defined twice"),
            ));
        }
        rows[id] = Some(row);
    }
    let n = rows.len();
    if n == 0 {
        return Err(error_at(
            src,
            Span::new(0, header_end.min(src.text().len())),
            "the game has no nodes",
        ));
    }
    // PGSolver writes the largest id; Oink's rngame writes the node count. Oink
    // reads both, and so do we: any other node count is an error.
    if let Some(largest) = declared {
        if largest + 1 != n as u64 && largest != n as u64 {
            return Err(error_at(
                src,
                Span::new(0, header_end),
                format!(
                    "the header declares nodes 0..={largest} (or {largest} nodes), but the largest node defined is {}",
                    n - 1
                ),
            ));
        }
    }
    if let Some((id, span)) = starts.iter().find(|(id, _)| *id >= n as u64) {
        return Err(error_at(
            src,
            *span,
            format!("the start node {id} is not a node of the game"),
        ));
    }
    assemble(src, rows)
}

/// Writes a game in PGSolver's format.
pub fn write_game(g: &Game) -> String {
    let mut out = format!("parity {};\n", g.len().saturating_sub(1));
    for v in 0..g.len() {
        let succ: Vec<String> = g.succs(v).iter().map(|t| t.to_string()).collect();
        out.push_str(&format!(
            "{} {} {} {}",
            v,
            g.priority[v],
            g.owner[v],
            succ.join(",")
        ));
        if let Some(name) = &g.names[v] {
            out.push_str(&format!(" \"{name}\""));
        }
        out.push_str(";\n");
    }
    out
}

/// Writes a solution: every node's winner and, where the winner owns it, its move.
pub fn write_solution(g: &Game, sol: &Solution) -> String {
    let mut out = format!("paritysol {};\n", g.len().saturating_sub(1));
    for v in 0..g.len() {
        match sol.strategy[v] {
            Some(t) if sol.winner[v] == g.owner[v] => {
                out.push_str(&format!("{v} {} {t};\n", sol.winner[v]))
            }
            _ => out.push_str(&format!("{v} {};\n", sol.winner[v])),
        }
    }
    out
}

/// Reads a solution for `g` (node count must match).
pub fn read_solution(src: &Source, n: usize) -> LangResult<Solution> {
    let mut c = Cursor {
        src,
        bytes: src.text().as_bytes(),
        pos: 0,
    };
    if c.word() != "paritysol" {
        return Err(c.err("expected `paritysol N;`"));
    }
    let header_at = c.pos;
    let largest = c.number("the largest node id")?;
    if largest + 1 != n as u64 {
        return Err(error_at(
            src,
            Span::new(header_at, c.pos),
            format!(
                "the solution declares nodes 0..={largest}, but the game's nodes are 0..={}",
                n.saturating_sub(1)
            ),
        ));
    }
    c.expect(b';')?;
    let mut sol = Solution {
        winner: vec![2; n],
        strategy: vec![None; n],
    };
    while !c.at_end() {
        let at = c.pos;
        let id = c.number("a node id")? as usize;
        if id >= n {
            return Err(error_at(
                src,
                Span::new(at, c.pos),
                format!("node {id} is not in the game"),
            ));
        }
        if sol.winner[id] != 2 {
            return Err(error_at(
                src,
                Span::new(at, c.pos),
                format!("node {id} is solved twice"),
            ));
        }
        let w = c.number("a winner (0 or 1)")?;
        if w > 1 {
            return Err(c.err("winner must be 0 or 1"));
        }
        sol.winner[id] = w as u8;
        if !c.eat(b';') {
            sol.strategy[id] = Some(c.number("a strategy successor")? as u32);
            c.expect(b';')?;
        }
    }
    if let Some(v) = sol.winner.iter().position(|&w| w == 2) {
        return Err(c.err(format!("node {v} has no winner")));
    }
    Ok(sol)
}
