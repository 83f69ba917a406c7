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
/// The rows as read, in file order, in flat arrays (a game of 10^6 nodes
/// would otherwise hold a successor list and a row of five fields per node
/// beside the text; issue 36 measured the reader as most of mavis's memory
/// above Oink's). Files that list their nodes in order, as PGSolver's tools
/// write them, become the game's arrays without a copy.
#[derive(Default)]
struct Rows {
    id: Vec<u32>,
    priority: Vec<u32>,
    owner: Vec<u8>,
    /// Where each row's successors end in `succ` (they start where the
    /// previous row's end).
    end: Vec<u32>,
    succ: Vec<u32>,
    /// The byte offset of each row, for the errors found once all are read.
    at: Vec<u32>,
    /// The row of each node id (`u32::MAX`: none yet).
    row_of: Vec<u32>,
    /// Names, rarely given: (row, name).
    names: Vec<(u32, String)>,
}

const NO_ROW: u32 = u32::MAX;

impl Rows {
    fn row_at(&self, row: usize) -> Span {
        let at = self.at[row] as usize;
        Span::new(at, at + 1)
    }

    /// The game, checking that every id in 0..n has a row and every
    /// successor is a node.
    fn assemble(mut self, src: &Source) -> LangResult<Game> {
        let n = self.row_of.len();
        if let Some(id) = self.row_of.iter().position(|&r| r == NO_ROW) {
            return Err(error_at(
                src,
                Span::new(0, 0),
                format!("node {id} is missing (ids must be 0..=N)"),
            ));
        }
        let mut begin = 0;
        for (row, &end) in self.end.iter().enumerate() {
            let succs = &self.succ[begin as usize..end as usize];
            if let Some(&bad) = succs.iter().find(|&&t| t as usize >= n) {
                return Err(error_at(
                    src,
                    self.row_at(row),
                    format!("node {}: successor {bad} is not a node", self.id[row]),
                ));
            }
            begin = end;
        }
        let in_order = self.id.iter().enumerate().all(|(i, &id)| i == id as usize);
        if !in_order {
            self = self.sorted();
        }
        // Grown by doubling while read: give the slack back.
        self.succ.shrink_to_fit();
        self.priority.shrink_to_fit();
        self.owner.shrink_to_fit();
        let mut start = Vec::with_capacity(n + 1);
        start.push(0);
        start.append(&mut self.end);
        let mut names = Vec::new();
        if !self.names.is_empty() {
            names = vec![None; n];
            for (row, name) in self.names {
                names[self.id[row as usize] as usize] = Some(name);
            }
        }
        Ok(Game {
            priority: self.priority,
            owner: self.owner,
            start,
            succ: self.succ,
            names,
        })
    }

    /// The rows by node id (a file that lists its nodes out of order).
    fn sorted(self) -> Rows {
        let n = self.row_of.len();
        let mut out = Rows {
            succ: Vec::with_capacity(self.succ.len()),
            names: self.names,
            ..Rows::default()
        };
        for id in 0..n {
            let row = self.row_of[id] as usize;
            let begin = if row == 0 { 0 } else { self.end[row - 1] };
            out.succ
                .extend_from_slice(&self.succ[begin as usize..self.end[row] as usize]);
            out.end.push(out.succ.len() as u32);
            out.id.push(id as u32);
            out.priority.push(self.priority[row]);
            out.owner.push(self.owner[row]);
        }
        // Names keep their rows' ids: map them to the new rows.
        for (row, _) in out.names.iter_mut() {
            *row = self.id[*row as usize];
        }
        out
    }
}

/// Reads one row (`id priority owner succ,succ,... "name";`) into `rows`.
fn read_row(c: &mut Cursor, declared: Option<u64>, at: usize, rows: &mut Rows) -> LangResult<()> {
    let id = c.number("a node id")? as usize;
    if declared.is_some_and(|n| id as u64 > n) {
        return Err(error_at(
            c.src,
            Span::new(at, c.pos),
            format!("node {id} exceeds the declared largest id"),
        ));
    }
    if id >= c.bytes.len() {
        return Err(error_at(
            c.src,
            Span::new(at, c.pos),
            format!("node id {id} is larger than the file can hold (ids must be 0..=N)"),
        ));
    }
    let priority = c.number("a priority")? as u32;
    let owner_at = c.pos;
    let owner = c.number("an owner (0 or 1)")?;
    if owner > 1 {
        return Err(error_at(
            c.src,
            Span::new(owner_at, c.pos),
            "owner must be 0 or 1",
        ));
    }
    let first = rows.succ.len();
    rows.succ.push(c.number("a successor")? as u32);
    while c.eat(b',') {
        rows.succ.push(c.number("a successor")? as u32);
    }
    let row = rows.id.len() as u32;
    if c.eat(b'"') {
        let s = c.pos;
        while c.pos < c.bytes.len() && c.bytes[c.pos] != b'"' {
            c.pos += 1;
        }
        if c.pos >= c.bytes.len() {
            return Err(error_at(c.src, Span::new(s - 1, s), "unterminated name"));
        }
        let name = String::from_utf8_lossy(&c.bytes[s..c.pos]).into_owned();
        rows.names.push((row, name));
        c.pos += 1;
    }
    c.expect(b';')?;
    if rows.row_of.len() <= id {
        rows.row_of.resize(id + 1, NO_ROW);
    }
    if rows.row_of[id] != NO_ROW {
        rows.succ.truncate(first);
        return Err(error_at(
            c.src,
            Span::new(at, c.pos),
            format!("node {id} is defined twice"),
        ));
    }
    rows.row_of[id] = row;
    rows.id.push(id as u32);
    rows.priority.push(priority);
    rows.owner.push(owner as u8);
    rows.end.push(rows.succ.len() as u32);
    // Inputs are capped at 256 MiB (lang::source), so offsets fit in u32.
    rows.at.push(at as u32);
    Ok(())
}

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
    let mut rows = Rows::default();
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
        read_row(&mut c, declared, at, &mut rows)?;
    }
    let n = rows.row_of.len();
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
    rows.assemble(src)
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
        if let Some(name) = g.name(v) {
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
