//! The `.mapt` text form (see docs/timed.md for the grammar):
//!
//! ```text
//! const GAP = 5;
//! var x1: real = 0;
//! agent car1 period 10 clock 0 {
//!   locality idle;
//!   sense -> decide in [1, 2] do d := x2 - x1;
//!   decide -> done in [2, 4] when d < GAP do v1 := v1 - 1/2;
//! }
//! query collision: EF x2 - x1 <= 0;
//! ```

use super::ast::{AgentAst, LExpr, Loc, ModelAst, Name, QueryAst, TransitionAst, VarAst, VarKind};
use crate::lang::lexer::Tok;
use crate::lang::{LangResult, Parser, Source};

/// Parses a whole `.mapt` text. Never panics: every failure is a located error.
pub fn parse_model(source: &Source) -> LangResult<ModelAst> {
    let mut p = Parser::new(source)?;
    let mut model = ModelAst::default();
    while !p.at_eof() {
        if p.eat_keyword("const") {
            model.consts.push(parse_const(&mut p)?);
        } else if p.eat_keyword("var") {
            model.vars.push(parse_var(&mut p)?);
        } else if p.eat_keyword("agent") {
            model.agents.push(parse_agent(&mut p)?);
        } else if p.eat_keyword("query") {
            model.queries.push(parse_query(&mut p)?);
        } else {
            return Err(p.unexpected("`const`, `var`, `agent` or `query`"));
        }
    }
    Ok(model)
}

fn name(p: &mut Parser) -> LangResult<Name> {
    let (text, span) = p.ident()?;
    Ok(Name {
        text,
        loc: Loc::new(p.source(), span),
    })
}

fn lexpr(p: &mut Parser) -> LangResult<LExpr> {
    let expr = p.expr()?;
    Ok(LExpr {
        source: p.source().clone(),
        expr,
    })
}

/// `const [int|real|bool] NAME = EXPR;` (keyword consumed).
fn parse_const(p: &mut Parser) -> LangResult<(Name, LExpr)> {
    if matches!(
        p.peek_text(),
        "int" | "real" | "rational" | "double" | "bool"
    ) && p.peek2() == Tok::Ident
    {
        p.bump();
    }
    let n = name(p)?;
    p.expect(Tok::Eq)?;
    let e = lexpr(p)?;
    p.expect(Tok::Semi)?;
    Ok((n, e))
}

/// `var NAME: real|int|bool = EXPR;` (keyword consumed).
fn parse_var(p: &mut Parser) -> LangResult<VarAst> {
    let n = name(p)?;
    p.expect(Tok::Colon)?;
    let kind = match p.peek_text() {
        "real" | "rational" => VarKind::Real,
        "int" => VarKind::Int,
        "bool" => VarKind::Bool,
        _ => return Err(p.unexpected("a variable type (`real`, `int` or `bool`)")),
    };
    p.bump();
    p.expect(Tok::Eq)?;
    let init = lexpr(p)?;
    p.expect(Tok::Semi)?;
    Ok(VarAst {
        name: n,
        kind,
        init,
    })
}

/// `agent NAME period E [clock C] { ... }` (keyword consumed).
fn parse_agent(p: &mut Parser) -> LangResult<AgentAst> {
    let n = name(p)?;
    p.expect_keyword("period")?;
    let period = lexpr(p)?;
    let clock = if p.eat_keyword("clock") {
        Some(lexpr(p)?)
    } else {
        None
    };
    p.expect(Tok::LBrace)?;
    let mut agent = AgentAst {
        name: n,
        period,
        clock,
        localities: Vec::new(),
        transitions: Vec::new(),
    };
    while !p.eat(Tok::RBrace) {
        if p.at_keyword("locality") && p.peek2() == Tok::Ident {
            p.bump();
            agent.localities.push(name(p)?);
            while p.eat(Tok::Comma) {
                agent.localities.push(name(p)?);
            }
            p.expect(Tok::Semi)?;
        } else if p.peek() == Tok::Ident {
            agent.transitions.push(parse_transition(p)?);
        } else {
            return Err(p.unexpected("a transition `from -> to in [a, b] ...;`, `locality` or `}`"));
        }
    }
    Ok(agent)
}

fn parse_transition(p: &mut Parser) -> LangResult<TransitionAst> {
    let start = p.peek_span();
    let from = name(p)?;
    p.expect(Tok::Arrow)?;
    let to = name(p)?;
    p.expect_keyword("in")?;
    p.expect(Tok::LBracket)?;
    let lower = lexpr(p)?;
    p.expect(Tok::Comma)?;
    let upper = lexpr(p)?;
    p.expect(Tok::RBracket)?;
    let guard = if p.eat_keyword("when") {
        Some(lexpr(p)?)
    } else {
        None
    };
    let mut updates = Vec::new();
    if p.eat_keyword("do") {
        loop {
            let target = name(p)?;
            p.expect(Tok::Assign)?;
            updates.push((target, lexpr(p)?));
            if !p.eat(Tok::Comma) {
                break;
            }
        }
    }
    let end = p.expect(Tok::Semi)?.span;
    Ok(TransitionAst {
        from,
        to,
        lower,
        upper,
        guard,
        updates,
        loc: Loc::new(p.source(), start.to(end)),
    })
}

/// `query NAME: formula;` — the formula runs to the next `;` outside parentheses.
fn parse_query(p: &mut Parser) -> LangResult<QueryAst> {
    let n = name(p)?;
    p.expect(Tok::Colon)?;
    let start = p.peek_span();
    let mut end = start;
    let mut depth = 0usize;
    loop {
        match p.peek() {
            Tok::Eof => return Err(p.unexpected("`;` ending the query")),
            Tok::Semi if depth == 0 => break,
            Tok::LParen => depth += 1,
            Tok::RParen => depth = depth.saturating_sub(1),
            _ => {}
        }
        end = p.bump().span;
    }
    if end == start && p.peek_span() == start {
        return Err(p.unexpected("a query formula"));
    }
    p.expect(Tok::Semi)?;
    Ok(QueryAst {
        name: n,
        formula: Loc::new(p.source(), start.to(end)),
    })
}
