//! Folding a run of left-associative operators of one precedence level into
//! a tree whose depth grows with the logarithm of its length.
//!
//! A generated model may well hold a sum of 100,000 terms. Folded to the
//! left, as written, it is a tree 100,000 deep, and every recursive pass
//! over expressions (checker, evaluators, printers, MILP encoders, `Drop`)
//! would overflow the stack. Short runs keep the written shape, so messages
//! and printed expressions are unchanged for every ordinary model; a run
//! longer than [`BALANCE_ABOVE`] operands is regrouped into a balanced tree
//! with the same exact value:
//!
//! - `&`, `|`, `<=>` are associative;
//! - `a - b + c - d ...` is split as `left ± right` with the signs of the
//!   right half flipped after a `-` (exact on rationals);
//! - `a * b / c ...` becomes `(product of the factors) / (product of the
//!   divisors)`, exact on rationals and failing exactly when a divisor is 0.
//!
//! Only f64 evaluation can differ, by rounding, from the left fold.

use super::ast::{BinOp, Expr, ExprKind};

/// Runs of at most this many operands keep their left-to-right shape.
pub const BALANCE_ABOVE: usize = 8;

/// A run of one precedence level: `first op1 t1 op2 t2 ...`.
pub(super) struct Run {
    pub first: Expr,
    pub rest: Vec<(BinOp, Expr)>,
}

impl Run {
    pub fn new(first: Expr) -> Self {
        Run {
            first,
            rest: Vec::new(),
        }
    }

    /// The run as one expression.
    pub fn fold(self) -> Expr {
        if self.rest.len() < BALANCE_ABOVE {
            return self
                .rest
                .into_iter()
                .fold(self.first, |lhs, (op, rhs)| binary(op, lhs, rhs));
        }
        match self.rest[0].0 {
            BinOp::Add | BinOp::Sub => {
                let terms = std::iter::once((false, self.first))
                    .chain(self.rest.into_iter().map(|(op, e)| (op == BinOp::Sub, e)))
                    .collect();
                signed_sum(terms)
            }
            BinOp::Mul | BinOp::Div => {
                let mut factors = vec![self.first];
                let mut divisors = Vec::new();
                for (op, e) in self.rest {
                    if op == BinOp::Div {
                        divisors.push(e);
                    } else {
                        factors.push(e);
                    }
                }
                let product = balanced(BinOp::Mul, factors);
                if divisors.is_empty() {
                    product
                } else {
                    binary(BinOp::Div, product, balanced(BinOp::Mul, divisors))
                }
            }
            op => {
                let operands = std::iter::once(self.first)
                    .chain(self.rest.into_iter().map(|(_, e)| e))
                    .collect();
                balanced(op, operands)
            }
        }
    }
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = lhs.span.to(rhs.span);
    Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span)
}

/// `e0 op e1 op ... op en` for an associative `op`, as a balanced tree.
fn balanced(op: BinOp, mut operands: Vec<Expr>) -> Expr {
    if operands.len() == 1 {
        return operands.pop().expect("one operand");
    }
    let right = operands.split_off(operands.len() / 2);
    binary(op, balanced(op, operands), balanced(op, right))
}

/// A sum of terms, each negated when its flag is set; the first term's flag
/// is false (it is the left end of the written chain, or a half whose signs
/// were flipped so that it is).
fn signed_sum(mut terms: Vec<(bool, Expr)>) -> Expr {
    if terms.len() == 1 {
        return terms.pop().expect("one term").1;
    }
    let mut right = terms.split_off(terms.len() / 2);
    let left = signed_sum(terms);
    if right[0].0 {
        // left - (t_mid ...) with every sign of the right half flipped.
        for term in &mut right {
            term.0 = !term.0;
        }
        binary(BinOp::Sub, left, signed_sum(right))
    } else {
        binary(BinOp::Add, left, signed_sum(right))
    }
}
