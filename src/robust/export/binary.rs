//! The compact binary form of a metric automaton (`.mab`), for generated
//! automata: what the text reader and the build compute (names resolved to
//! numbers, points, moves) written once, so that reading a 10^6-state model
//! takes a pass over fixed-width numbers instead of a parse. It is written by
//! `mavis robust convert` (from any `.ma` or JSON model with a coordinate
//! metric) and `examples/robust/gen_grid.py --binary`; it is read back by
//! [`crate::robust::read::binary`], which checks everything the build checks.
//!
//! Layout, version 1 (every number little-endian; `str` is a `u32` byte
//! length and that many bytes of UTF-8; `set` is a `u32` count and that many
//! `u32` states):
//!
//! | field | content |
//! | --- | --- |
//! | magic | the 8 bytes `MAVISMAB` |
//! | version | `u32`, 1 |
//! | name | `str` |
//! | metric | `u8`: 0 Euclidean, 1 Manhattan, 2 max |
//! | states, dim | `u32` n, `u32` coordinates per point |
//! | state names | n `u32` end offsets, then the names' bytes (as many as the last offset) |
//! | points | n * dim `f64` |
//! | gamma | `u8` 1 and n `f64` (declared), or `u8` 0 (the least valid gamma) |
//! | init | `u32` |
//! | inputs | `u32` count, then a `str` each |
//! | disturbances | `u32` count, then a `str` each, eps (number 0) not included |
//! | sizes | `u32` moves m, `u32` disturbed pairs p |
//! | moves per state | n `u32`, summing to m |
//! | moves | m times `u32` input, `u32` nominal successor, `u32` number of disturbed pairs (summing to p) |
//! | disturbed pairs | p times `u32` disturbance (1 and up), `u32` successor |
//! | objective | `u8`: 0 reach `set`, 1 Buchi `set`, 2 generalised Buchi (`u32` count, then a `set` each), 3 parity (n `u32` priorities) |
//!
//! The file ends there. Sets are sorted, each state once.

use crate::robust::front::{Automaton, Metric, MetricKind, Objective};

/// The first bytes of every binary model.
pub const MAGIC: &[u8; 8] = b"MAVISMAB";

/// The layout version this build writes and reads.
pub const VERSION: u32 = 1;

/// The metric's code in the file.
pub fn metric_code(kind: &MetricKind) -> Option<u8> {
    match kind {
        MetricKind::Euclidean => Some(0),
        MetricKind::Manhattan => Some(1),
        MetricKind::Max => Some(2),
        MetricKind::Table => None,
    }
}

/// The binary form of `a`, or why it has none (a distance table, or a
/// size beyond the layout's 32-bit counts).
pub fn write(a: &Automaton) -> Result<Vec<u8>, String> {
    let Metric::Coords { kind, points } = &a.metric else {
        return Err("the binary form holds automata with coordinates (metric euclidean, manhattan or max), not a distance table".into());
    };
    let code = metric_code(kind).ok_or("a coordinate metric of kind `table`")?;
    let mut w = Writer(Vec::with_capacity(64 + a.len() * (16 + 8 * points.dim())));
    w.0.extend_from_slice(MAGIC);
    w.u32(VERSION);
    w.str(&a.name)?;
    w.0.push(code);
    w.len(a.len())?;
    w.len(points.dim())?;
    let mut end = 0usize;
    for name in a.states.iter() {
        end += name.len();
        w.len(end)?;
    }
    for name in a.states.iter() {
        w.0.extend_from_slice(name.as_bytes());
    }
    for q in 0..a.len() {
        points.get(q).iter().for_each(|&x| w.f64(x));
    }
    w.0.push(u8::from(a.gamma_declared));
    if a.gamma_declared {
        a.gamma.iter().for_each(|&g| w.f64(g));
    }
    w.u32(a.init);
    w.strs(&a.inputs)?;
    w.strs(&a.disturbances[1..])?;
    write_moves(&mut w, a)?;
    write_objective(&mut w, &a.objective)?;
    Ok(w.0)
}

fn write_moves(w: &mut Writer, a: &Automaton) -> Result<(), String> {
    w.len(a.moves.total())?;
    w.len(a.moves.total_pairs())?;
    for row in &a.moves {
        w.len(row.len())?;
    }
    for m in a.moves.all() {
        w.u32(m.input);
        w.u32(m.nominal);
        w.len(a.moves.disturbed(m).len())?;
    }
    for m in a.moves.all() {
        for &(x, t) in a.moves.disturbed(m) {
            w.u32(x);
            w.u32(t);
        }
    }
    Ok(())
}

fn write_objective(w: &mut Writer, objective: &Objective) -> Result<(), String> {
    match objective {
        Objective::Reach(f) => {
            w.0.push(0);
            w.set(f)
        }
        Objective::Buchi(f) => {
            w.0.push(1);
            w.set(f)
        }
        Objective::GenBuchi(fs) => {
            w.0.push(2);
            w.len(fs.len())?;
            fs.iter().try_for_each(|f| w.set(f))
        }
        Objective::Parity(p) => {
            w.0.push(3);
            p.iter().for_each(|&x| w.u32(x));
            Ok(())
        }
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, x: u32) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn f64(&mut self, x: f64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    /// A count or offset, which the layout holds in 32 bits.
    fn len(&mut self, n: usize) -> Result<(), String> {
        let n = u32::try_from(n)
            .map_err(|_| format!("{n} is too large for the binary form (at most 2^32 - 1)"))?;
        self.u32(n);
        Ok(())
    }

    fn str(&mut self, s: &str) -> Result<(), String> {
        self.len(s.len())?;
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn strs(&mut self, list: &[String]) -> Result<(), String> {
        self.len(list.len())?;
        list.iter().try_for_each(|s| self.str(s))
    }

    fn set(&mut self, set: &[u32]) -> Result<(), String> {
        self.len(set.len())?;
        set.iter().for_each(|&q| self.u32(q));
        Ok(())
    }
}
