//! Queries over the explored state graph: `EF phi`, `AG phi`, their Boolean
//! combinations and nestings (`EF(phi & AG psi)`, `AG(phi => EF psi)`, ...),
//! and numerical queries `max expr` / `min expr [subject to formula]`.
//!
//! Grammar: `EF`/`AG` are prefix operators whose scope extends as far as
//! possible (to the closing parenthesis or the end); between temporal
//! sub-formulas `!`, `&`, `|`, `=>` combine. A part without `EF`/`AG` is an
//! ordinary Boolean expression of the shared language over V (`x` or `V.x`),
//! clocks (`car1.clock`), localities (`car1@braking`) and `time`.

use super::ast::Loc;
use super::model::{Model, StateScope};
use crate::lang::lexer::{lex, Tok, Token};
use crate::lang::{check, error_at, parse_expr, LangResult, Source, Span, TExpr, Ty};

#[derive(Clone, Debug)]
pub enum Formula {
    Atom(TExpr),
    Not(Box<Formula>),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
    Implies(Box<Formula>, Box<Formula>),
    EF(Box<Formula>),
    AG(Box<Formula>),
}

impl Formula {
    /// True when no temporal operator occurs inside.
    pub fn is_state(&self) -> bool {
        match self {
            Formula::Atom(_) => true,
            Formula::Not(a) => a.is_state(),
            Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) => {
                a.is_state() && b.is_state()
            }
            Formula::EF(_) | Formula::AG(_) => false,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Query {
    Check(Formula),
    Extremum {
        maximize: bool,
        expr: TExpr,
        subject: Option<Formula>,
    },
}

/// Parses and checks a search heuristic (`--minimize EXPR`, `--maximize
/// EXPR`): a numerical expression over the state, with the names a query may
/// use.
pub fn parse_heuristic(model: &Model, text: &str) -> LangResult<TExpr> {
    let source = Source::new("<heuristic>", text);
    let expr = parse_expr(&source)?;
    let checked = check(&source, &expr, &StateScope { model })?;
    if !checked.ty.is_numeric() {
        return Err(error_at(
            &source,
            checked.span,
            "a heuristic must be a numerical expression",
        ));
    }
    Ok(checked)
}

/// Parses a query written in `loc` (a span of a model file or a whole command-line text).
pub fn parse_query(model: &Model, loc: &Loc) -> LangResult<Query> {
    let all = lex(&loc.source)?;
    let toks: Vec<Token> = all
        .into_iter()
        .filter(|t| {
            t.kind != Tok::Eof && t.span.start >= loc.span.start && t.span.end <= loc.span.end
        })
        .collect();
    let p = QueryParser {
        model,
        source: &loc.source,
        toks: &toks,
        whole: loc.span,
        blank: (loc.source.text().bytes())
            .map(|b| if b == b'\n' { '\n' } else { ' ' })
            .collect(),
    };
    let n = toks.len();
    if n == 0 {
        return Err(error_at(&loc.source, loc.span, "empty query"));
    }
    let first = p.text(0);
    if toks[0].kind == Tok::Ident && (first == "max" || first == "min") {
        let maximize = first == "max";
        let mut split = None;
        for k in 1..n.saturating_sub(1) {
            if p.depth_at(k) == 0 && p.text(k) == "subject" && p.text(k + 1) == "to" {
                split = Some(k);
                break;
            }
        }
        let end = split.unwrap_or(n);
        let expr = p.atom(1, end)?;
        if !expr.ty.is_numeric() {
            return Err(error_at(
                &loc.source,
                expr.span,
                "`max`/`min` need a numerical expression",
            ));
        }
        let subject = match split {
            Some(k) => Some(p.formula(k + 2, n)?),
            None => None,
        };
        return Ok(Query::Extremum {
            maximize,
            expr,
            subject,
        });
    }
    Ok(Query::Check(p.formula(0, n)?))
}

struct QueryParser<'a> {
    model: &'a Model,
    source: &'a Source,
    toks: &'a [Token],
    whole: Span,
    /// The source with every byte but line breaks blanked: an atom's text is
    /// this with the atom's bytes put back, built once (a query of 10^3
    /// atoms blanked the whole source char by char for each atom).
    blank: String,
}

impl QueryParser<'_> {
    fn text(&self, k: usize) -> &str {
        self.source.slice(self.toks[k].span)
    }

    fn is_temporal(&self, k: usize) -> bool {
        self.toks[k].kind == Tok::Ident && matches!(self.text(k), "EF" | "AG")
    }

    /// Parenthesis depth just before token `k`.
    fn depth_at(&self, k: usize) -> usize {
        let mut d = 0usize;
        for t in &self.toks[..k] {
            match t.kind {
                Tok::LParen => d += 1,
                Tok::RParen => d = d.saturating_sub(1),
                _ => {}
            }
        }
        d
    }

    fn span(&self, lo: usize, hi: usize) -> Span {
        if lo < hi {
            self.toks[lo].span.to(self.toks[hi - 1].span)
        } else if lo < self.toks.len() {
            self.toks[lo].span
        } else {
            Span::new(self.whole.end, self.whole.end)
        }
    }

    /// The top-level operator `kind` in `[lo, hi)`: first one if `first`, else last.
    fn split(&self, lo: usize, hi: usize, kind: Tok, first: bool) -> Option<usize> {
        let mut depth = 0usize;
        let mut found = None;
        for k in lo..hi {
            match self.toks[k].kind {
                Tok::LParen => depth += 1,
                Tok::RParen => depth = depth.saturating_sub(1),
                t if t == kind && depth == 0 && k > lo => {
                    found = Some(k);
                    if first {
                        return found;
                    }
                }
                _ => {}
            }
        }
        found
    }

    fn formula(&self, lo: usize, hi: usize) -> LangResult<Formula> {
        if lo >= hi {
            return Err(error_at(
                self.source,
                self.span(lo, hi),
                "expected a formula",
            ));
        }
        if !(lo..hi).any(|k| self.is_temporal(k)) {
            return Ok(Formula::Atom(self.boolean_atom(lo, hi)?));
        }
        if self.is_temporal(lo) {
            let inner = Box::new(self.formula(lo + 1, hi)?);
            return Ok(if self.text(lo) == "EF" {
                Formula::EF(inner)
            } else {
                Formula::AG(inner)
            });
        }
        if let Some(k) = self.split(lo, hi, Tok::Implies, true) {
            return Ok(Formula::Implies(
                Box::new(self.formula(lo, k)?),
                Box::new(self.formula(k + 1, hi)?),
            ));
        }
        if let Some(k) = self.split(lo, hi, Tok::Or, false) {
            return Ok(Formula::Or(
                Box::new(self.formula(lo, k)?),
                Box::new(self.formula(k + 1, hi)?),
            ));
        }
        if let Some(k) = self.split(lo, hi, Tok::And, false) {
            return Ok(Formula::And(
                Box::new(self.formula(lo, k)?),
                Box::new(self.formula(k + 1, hi)?),
            ));
        }
        if self.toks[lo].kind == Tok::Not {
            return Ok(Formula::Not(Box::new(self.formula(lo + 1, hi)?)));
        }
        if self.toks[lo].kind == Tok::LParen
            && self.toks[hi - 1].kind == Tok::RParen
            && self.closes(lo, hi - 1)
        {
            return self.formula(lo + 1, hi - 1);
        }
        Err(error_at(
            self.source,
            self.span(lo, hi),
            "cannot read this formula: combine `EF`/`AG` sub-formulas with `!`, `&`, `|`, `=>` and parentheses",
        ))
    }

    /// Whether the parenthesis at `open` is closed exactly at `close`.
    fn closes(&self, open: usize, close: usize) -> bool {
        let mut depth = 0usize;
        for k in open..=close {
            match self.toks[k].kind {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return k == close;
                    }
                }
                _ => {}
            }
        }
        false
    }

    fn boolean_atom(&self, lo: usize, hi: usize) -> LangResult<TExpr> {
        let e = self.atom(lo, hi)?;
        if e.ty != Ty::Bool {
            return Err(error_at(
                self.source,
                e.span,
                "expected a Boolean condition",
            ));
        }
        Ok(e)
    }

    /// Parses tokens `[lo, hi)` as one expression, keeping file positions:
    /// the text outside the range is blanked out, line breaks kept.
    fn atom(&self, lo: usize, hi: usize) -> LangResult<TExpr> {
        let span = self.span(lo, hi);
        if lo >= hi {
            return Err(error_at(self.source, span, "expected an expression"));
        }
        let text = self.source.text();
        let (start, end) = (span.start.min(text.len()), span.end.min(text.len()));
        let mut masked = String::with_capacity(text.len());
        masked.push_str(&self.blank[..start]);
        masked.push_str(&text[start..end]);
        masked.push_str(&self.blank[end..]);
        let sub = Source::new(self.source.name(), masked);
        let expr = parse_expr(&sub)?;
        let scope = StateScope { model: self.model };
        check(&sub, &expr, &scope)
    }
}
