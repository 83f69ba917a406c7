//! A token cursor that engines build their declaration parsers on, and the
//! shared expression grammar (precedence climbing).
//!
//! Precedence, loosest first: `c ? a : b`; `<=>`; `=>` (right); `|`; `&`;
//! `!`; comparisons (`=`/`==`, `!=`, `<`, `<=`, `>`, `>=`, non-associative);
//! `+ -`; `* /`; unary `-`; atoms. `if c then a else b` is an atom whose
//! branches extend as far as possible.

use super::ast::{BinOp, Expr, ExprKind, UnOp};
use super::chain::Run;
use super::diag::{error_at, LangResult, SourceError};
use super::lexer::{lex, Tok, Token};
use super::num::parse_decimal;
use super::source::{Source, Span};

/// Nesting (parentheses, unary operators, `if`, `?:`, `=>`, calls) deeper
/// than this is refused instead of overflowing the stack.
pub const MAX_DEPTH: usize = 200;

/// An expression tree deeper than this is refused: every pass over
/// expressions recurses, and this depth leaves them ample stack. Long chains
/// of one operator do not count against it much, as they are balanced
/// ([`super::chain`]); only nesting combined with chains can get here.
pub const MAX_TREE_DEPTH: usize = 1000;

pub struct Parser {
    source: Source,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl Parser {
    pub fn new(source: &Source) -> LangResult<Self> {
        Ok(Parser {
            source: source.clone(),
            tokens: lex(source)?,
            pos: 0,
            depth: 0,
        })
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    pub fn peek(&self) -> Tok {
        self.tokens[self.pos].kind
    }

    /// The token after the next one.
    pub fn peek2(&self) -> Tok {
        self.tokens[(self.pos + 1).min(self.tokens.len() - 1)].kind
    }

    /// The token `offset` places ahead (0 is the next one); `Eof` past the end.
    pub fn peek_at(&self, offset: usize) -> Tok {
        self.tokens[(self.pos + offset).min(self.tokens.len() - 1)].kind
    }

    pub fn peek_span(&self) -> Span {
        self.tokens[self.pos].span
    }

    pub fn peek_text(&self) -> &str {
        self.source.slice(self.peek_span())
    }

    /// Span of the token just consumed.
    pub fn prev_span(&self) -> Span {
        self.tokens[self.pos.saturating_sub(1)].span
    }

    pub fn at_eof(&self) -> bool {
        self.peek() == Tok::Eof
    }

    pub fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos];
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    pub fn eat(&mut self, kind: Tok) -> bool {
        if self.peek() == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, kind: Tok) -> LangResult<Token> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            Err(self.unexpected(kind.describe()))
        }
    }

    /// True if the next token is the identifier `word` (a contextual keyword).
    pub fn at_keyword(&self, word: &str) -> bool {
        self.peek() == Tok::Ident && self.peek_text() == word
    }

    pub fn eat_keyword(&mut self, word: &str) -> bool {
        if self.at_keyword(word) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub fn expect_keyword(&mut self, word: &str) -> LangResult<Span> {
        if self.at_keyword(word) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{word}`")))
        }
    }

    /// An identifier; returns its text and span.
    pub fn ident(&mut self) -> LangResult<(String, Span)> {
        let t = self.expect(Tok::Ident)?;
        Ok((self.source.slice(t.span).to_string(), t.span))
    }

    /// A string literal, unescaped.
    pub fn string(&mut self) -> LangResult<(String, Span)> {
        let t = self.expect(Tok::Str)?;
        let raw = self.source.slice(t.span);
        let inner = &raw[1..raw.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(other) => out.push(other),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        Ok((out, t.span))
    }

    /// An error at the next token: "expected X, found Y".
    pub fn unexpected(&self, expected: &str) -> Box<SourceError> {
        let found = if self.at_eof() {
            "the end of the file".to_string()
        } else {
            format!("`{}`", self.peek_text())
        };
        error_at(
            &self.source,
            self.peek_span(),
            format!("expected {expected}, found {found}"),
        )
        .into_labelled(format!("expected {expected}"))
    }

    pub fn error(&self, span: Span, message: impl Into<String>) -> Box<SourceError> {
        error_at(&self.source, span, message)
    }

    /// Parses one expression (the whole grammar above).
    pub fn expr(&mut self) -> LangResult<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let span = self.peek_span();
            self.depth = 0;
            return Err(self.error(span, "expression nested too deeply"));
        }
        let result = self.ternary();
        self.depth -= 1;
        if self.depth == 0 {
            if let Ok(e) = &result {
                let depth = e.depth();
                if depth > MAX_TREE_DEPTH {
                    return Err(self.error(
                        Span::new(e.span.start, (e.span.start + 1).min(e.span.end)),
                        format!(
                            "expression nested too deeply: its tree is {depth} levels deep, the limit is {MAX_TREE_DEPTH}"
                        ),
                    ));
                }
            }
        }
        result
    }

    fn ternary(&mut self) -> LangResult<Expr> {
        let cond = self.binary(0)?;
        if self.eat(Tok::Question) {
            let then = self.expr()?;
            self.expect(Tok::Colon)?;
            let other = self.expr()?;
            let span = cond.span.to(other.span);
            return Ok(Expr::new(
                ExprKind::If(Box::new(cond), Box::new(then), Box::new(other)),
                span,
            ));
        }
        Ok(cond)
    }

    /// Binding power of an infix operator: (left, right, op).
    fn infix(&self) -> Option<(u8, u8, BinOp)> {
        let op = match self.peek() {
            Tok::Iff => (1, 2, BinOp::Iff),
            Tok::Implies => (4, 3, BinOp::Implies),
            Tok::Or => (5, 6, BinOp::Or),
            Tok::And => (7, 8, BinOp::And),
            Tok::Eq | Tok::EqEq => (11, 12, BinOp::Eq),
            Tok::Ne => (11, 12, BinOp::Ne),
            Tok::Lt => (11, 12, BinOp::Lt),
            Tok::Le => (11, 12, BinOp::Le),
            Tok::Gt => (11, 12, BinOp::Gt),
            Tok::Ge => (11, 12, BinOp::Ge),
            Tok::Plus => (13, 14, BinOp::Add),
            Tok::Minus => (13, 14, BinOp::Sub),
            Tok::Star => (15, 16, BinOp::Mul),
            Tok::Slash => (15, 16, BinOp::Div),
            _ => return None,
        };
        Some(op)
    }

    fn binary(&mut self, min_bp: u8) -> LangResult<Expr> {
        // Operators met by this loop have non-increasing binding powers (a
        // tighter one is consumed by the right operand's own call), so the
        // operands of one level form a contiguous run, folded as a whole
        // (`chain`) before the next, looser level takes it as its left operand.
        let mut run = Run::new(self.prefix()?);
        let mut level = None;
        while let Some((l_bp, r_bp, op)) = self.infix() {
            if l_bp < min_bp {
                break;
            }
            self.bump();
            let rhs = self.nested(|p| p.binary(r_bp))?;
            if is_comparison(op) && matches!(self.infix(), Some((11, _, _))) {
                return Err(self
                    .error(self.peek_span(), "comparisons do not chain")
                    .into_help("write `a < b & b < c`"));
            }
            if level.is_some_and(|l| l != l_bp) {
                run = Run::new(run.fold());
            }
            level = Some(l_bp);
            run.rest.push((op, rhs));
        }
        Ok(run.fold())
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> LangResult<T>) -> LangResult<T> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let span = self.peek_span();
            return Err(self.error(span, "expression nested too deeply"));
        }
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn prefix(&mut self) -> LangResult<Expr> {
        match self.peek() {
            Tok::Minus => {
                let start = self.bump().span;
                let e = self.nested(|p| p.binary(17))?;
                let span = start.to(e.span);
                Ok(Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(e)), span))
            }
            Tok::Not => {
                let start = self.bump().span;
                // `!` binds looser than comparisons: `!x = 1` is `!(x = 1)`.
                let e = self.nested(|p| p.binary(9))?;
                let span = start.to(e.span);
                Ok(Expr::new(ExprKind::Unary(UnOp::Not, Box::new(e)), span))
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> LangResult<Expr> {
        let tok = self.peek();
        let span = self.peek_span();
        match tok {
            Tok::Number => {
                self.bump();
                let text = self.source.slice(span);
                let value = parse_decimal(text)
                    .ok_or_else(|| self.error(span, format!("cannot read the number `{text}`")))?;
                Ok(Expr::new(ExprKind::Num(value), span))
            }
            Tok::LParen => {
                self.bump();
                let inner = self.expr()?;
                let close = self.expect(Tok::RParen)?.span;
                Ok(Expr::new(inner.kind, span.to(close)))
            }
            Tok::Ident => self.ident_atom(),
            _ => Err(self.unexpected("an expression")),
        }
    }

    fn ident_atom(&mut self) -> LangResult<Expr> {
        let (name, span) = self.ident()?;
        match name.as_str() {
            "true" => return Ok(Expr::new(ExprKind::Bool(true), span)),
            "false" => return Ok(Expr::new(ExprKind::Bool(false), span)),
            "if" => {
                let cond = self.expr()?;
                self.expect_keyword("then")?;
                let then = self.expr()?;
                self.expect_keyword("else")?;
                let other = self.expr()?;
                let full = span.to(other.span);
                return Ok(Expr::new(
                    ExprKind::If(Box::new(cond), Box::new(then), Box::new(other)),
                    full,
                ));
            }
            _ => {}
        }
        if self.peek() == Tok::LParen {
            self.bump();
            let mut args = Vec::new();
            if self.peek() != Tok::RParen {
                loop {
                    args.push(self.expr()?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            let close = self.expect(Tok::RParen)?.span;
            return Ok(Expr::new(ExprKind::Call(name, span, args), span.to(close)));
        }
        // Qualified names: `V.x`, `car1@braking`.
        let mut full_name = name;
        let mut full_span = span;
        while matches!(self.peek(), Tok::Dot | Tok::At) && self.peek2() == Tok::Ident {
            let sep = if self.bump().kind == Tok::Dot {
                '.'
            } else {
                '@'
            };
            let (part, part_span) = self.ident()?;
            full_name.push(sep);
            full_name.push_str(&part);
            full_span = full_span.to(part_span);
        }
        Ok(Expr::new(ExprKind::Ident(full_name), full_span))
    }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// Builder-style tweaks on boxed errors, so parser code stays short.
pub trait ErrorExt {
    fn into_labelled(self, label: impl Into<String>) -> Self;
    fn into_help(self, help: impl Into<String>) -> Self;
}

impl ErrorExt for Box<SourceError> {
    fn into_labelled(self, label: impl Into<String>) -> Self {
        Box::new((*self).with_label(label))
    }
    fn into_help(self, help: impl Into<String>) -> Self {
        Box::new((*self).with_help(help))
    }
}

/// Parses a whole text as one expression.
pub fn parse_expr(source: &Source) -> LangResult<Expr> {
    let mut p = Parser::new(source)?;
    let e = p.expr()?;
    if !p.at_eof() {
        return Err(p.unexpected("an operator or the end of the expression"));
    }
    Ok(e)
}
