//! Atoms that read only V, answered over the distinct valuations by shared
//! columns: a sub-expression with variables that an atom compares with a
//! constant (`x1 - x2` in `x1 - x2 <= 3`) is evaluated once per distinct
//! valuation for the whole query and ranked among its distinct values, so
//! that each further comparison with a constant (`x1 - x2 <= 4`, ...) is a
//! range of ranks: one binary search, then an integer test per valuation.
//! The Boolean connectives combine those tests; any other Boolean part is
//! evaluated by the evaluator once per valuation. An atom that reads more
//! than V, or whose column or part fails to evaluate somewhere (a division by
//! zero the evaluator's short-circuit may avoid), is left to the caller's
//! per-valuation evaluation ([`super::graph::Graph::atom_set`]), so results
//! and errors are the evaluator's.

use super::bits::Bits;
use super::graph::{reads_only_v, Graph};
use crate::lang::ast::{BinOp, UnOp};
use crate::lang::{eval, TExpr, TKind, Value};
use crate::report::RunError;
use crate::timed::semantics::{Semantics, StateEnv};

/// A sub-expression's value at each distinct valuation, as a rank among its
/// distinct values (`values`, sorted); `None` when it failed to evaluate.
struct Column<'a> {
    expr: &'a TExpr,
    ranked: Option<(Vec<u32>, Vec<Value>)>,
}

pub struct Columns<'a> {
    g: &'a Graph,
    sem: &'a Semantics<'a>,
    columns: Vec<Column<'a>>,
}

impl<'a> Columns<'a> {
    pub fn new(g: &'a Graph, sem: &'a Semantics<'a>) -> Columns<'a> {
        Columns {
            g,
            sem,
            columns: Vec::new(),
        }
    }

    /// The states where the atom `e` holds, or `None` when it is left to the caller.
    pub fn atom(&mut self, e: &'a TExpr) -> Result<Option<Bits>, RunError> {
        if !reads_only_v(e, self.sem.model.vars.len()) {
            return Ok(None);
        }
        let Some(per_class) = self.boolean(e) else {
            return Ok(None);
        };
        let (class, _) = self.g.classes();
        Ok(Some(Bits::from_fn(class.len(), |s| {
            per_class[class[s] as usize]
        })))
    }

    /// The truth of `e` at each distinct valuation, or `None` (left to the caller).
    fn boolean(&mut self, e: &'a TExpr) -> Option<Vec<bool>> {
        match &e.kind {
            TKind::Unary(UnOp::Not, a) => Some(self.boolean(a)?.into_iter().map(|x| !x).collect()),
            TKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies | BinOp::Iff), a, b) => {
                let (x, y) = (self.boolean(a)?, self.boolean(b)?);
                let f: fn(bool, bool) -> bool = match op {
                    BinOp::And => |x, y| x && y,
                    BinOp::Or => |x, y| x || y,
                    BinOp::Implies => |x, y| !x || y,
                    _ => |x, y| x == y,
                };
                Some(x.into_iter().zip(y).map(|(x, y)| f(x, y)).collect())
            }
            TKind::Binary(
                op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne),
                a,
                b,
            ) if is_constant(a) != is_constant(b) => {
                let (var_side, constant, op) = if is_constant(b) {
                    (a, b, *op)
                } else {
                    (b, a, flipped(*op))
                };
                let c = self.constant(constant)?;
                self.compare(var_side, op, &c)
            }
            _ => self.per_class(e),
        }
    }

    /// `x op c` at each distinct valuation, by ranks: the values `x` takes
    /// that satisfy `op c` are one range of the sorted values (or all but one).
    fn compare(&mut self, x: &'a TExpr, op: BinOp, c: &Value) -> Option<Vec<bool>> {
        let (rank, values) = self.column(x)?;
        if !matches!(op, BinOp::Eq | BinOp::Ne) && !matches!(c, Value::Num(_)) {
            return None;
        }
        let below = values.partition_point(|v| v < c) as u32;
        let through = values.partition_point(|v| v <= c) as u32;
        let (lo, hi, inside) = match op {
            BinOp::Lt => (0, below, true),
            BinOp::Le => (0, through, true),
            BinOp::Gt => (0, through, false),
            BinOp::Ge => (0, below, false),
            BinOp::Eq => (below, through, true),
            _ => (below, through, false),
        };
        Some(
            rank.iter()
                .map(|&r| (lo..hi).contains(&r) == inside)
                .collect(),
        )
    }

    /// The ranked column of `x`, shared by every atom of the query with the same `x`.
    fn column(&mut self, x: &'a TExpr) -> Option<(&[u32], &[Value])> {
        let i = match self.columns.iter().position(|c| same_shape(c.expr, x)) {
            Some(i) => i,
            None => {
                let ranked = self.evaluate(x).map(|vals| {
                    let mut sorted = vals.clone();
                    sorted.sort_unstable();
                    sorted.dedup();
                    let rank = (vals.iter())
                        .map(|v| sorted.binary_search(v).expect("a value of the column") as u32)
                        .collect();
                    (rank, sorted)
                });
                self.columns.push(Column { expr: x, ranked });
                self.columns.len() - 1
            }
        };
        let (rank, values) = self.columns[i].ranked.as_ref()?;
        Some((rank, values))
    }

    /// `e` at each distinct valuation, by the evaluator, or `None` if it fails somewhere.
    fn evaluate(&self, e: &TExpr) -> Option<Vec<Value>> {
        let (_, first) = self.g.classes();
        (first.iter())
            .map(|&s| {
                let env = StateEnv {
                    model: self.sem.model,
                    state: &self.g.states[s],
                };
                eval(e, &env).ok()
            })
            .collect()
    }

    fn per_class(&self, e: &TExpr) -> Option<Vec<bool>> {
        (self.evaluate(e)?.into_iter())
            .map(|v| v.as_bool())
            .collect()
    }

    fn constant(&self, e: &TExpr) -> Option<Value> {
        let env = StateEnv {
            model: self.sem.model,
            state: &self.g.states[0],
        };
        eval(e, &env).ok()
    }
}

/// No variable and no engine function inside: the same value in every state.
fn is_constant(e: &TExpr) -> bool {
    match &e.kind {
        TKind::Const(_) => true,
        TKind::Var(_) | TKind::Ext(..) => false,
        TKind::Unary(_, a) => is_constant(a),
        TKind::Binary(_, a, b) => is_constant(a) && is_constant(b),
        TKind::If(c, a, b) => [c, a, b].iter().all(|x| is_constant(x)),
        TKind::Builtin(_, args) => args.iter().all(is_constant),
    }
}

/// `c op x` as `x op' c`.
fn flipped(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// The same expression, wherever it was written (spans ignored).
fn same_shape(a: &TExpr, b: &TExpr) -> bool {
    match (&a.kind, &b.kind) {
        (TKind::Const(x), TKind::Const(y)) => x == y,
        (TKind::Var(x), TKind::Var(y)) => x == y,
        (TKind::Unary(o, x), TKind::Unary(p, y)) => o == p && same_shape(x, y),
        (TKind::Binary(o, x1, x2), TKind::Binary(p, y1, y2)) => {
            o == p && same_shape(x1, y1) && same_shape(x2, y2)
        }
        (TKind::If(c, x1, x2), TKind::If(d, y1, y2)) => {
            same_shape(c, d) && same_shape(x1, y1) && same_shape(x2, y2)
        }
        (TKind::Builtin(f, xs), TKind::Builtin(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_shape(x, y))
        }
        (TKind::Ext(f, xs), TKind::Ext(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_shape(x, y))
        }
        _ => false,
    }
}
