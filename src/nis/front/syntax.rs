//! The `.nis` declarations as written (before names are resolved), and their parser.
//!
//! ```text
//! const Mh = 4;
//! net policy = "guarding.onnx";
//! agent guard {
//!   var h : [0..Mh] = 3;
//!   percept : {volunteer, rest_only, expired} = volunteer;
//!   actions : {guard, rest, expire};
//!   observe = if h = 0 then expired else argmax(policy(h / Mh), rest_only, volunteer);
//!   protocol { volunteer -> {guard, rest}; rest_only -> {rest}; expired -> {expire}; }
//!   update { guard -> h := clamp(h - 2, 0, Mh); rest & performed(guard) -> h := ...; }
//! }
//! environment { var t : [0..3] in {0, 1}; actions : {tick}; protocol { true -> {tick}; } update { ... } }
//! label alive = h > 0 & percept != expired;
//! ```
//!
//! Named agents (a fixed number, on the environment's side) share one block
//! per declaration: `named agent ownship, intruder { .. }` (each name may
//! carry its own constants, `ownship(side = 1)`); a model needs a
//! parameterised `agent` template, named agents, or both.

use crate::lang::lexer::Tok;
use crate::lang::{Constants, Expr, LangResult, Parser, Source, Span, TypeSyntax};

/// A variable declaration as written.
#[derive(Clone, Debug)]
pub struct RawVar {
    pub name: String,
    pub span: Span,
    pub ty: TypeSyntax,
    pub ty_span: Span,
    pub init: RawInit,
}

#[derive(Clone, Debug)]
pub enum RawInit {
    None,
    Point(Expr),
    List(Vec<Expr>),
    Range(Expr, Expr),
}

/// `GUARD -> {a, b};`
#[derive(Clone, Debug)]
pub struct RawProtocolCase {
    pub guard: Expr,
    pub actions: Vec<(String, Span)>,
    pub span: Span,
}

/// `GUARD -> x := e, y := f;` or `GUARD -> skip;`
#[derive(Clone, Debug)]
pub struct RawUpdateCase {
    pub guard: Expr,
    pub assigns: Vec<(String, Span, Expr)>,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct RawBlock {
    pub vars: Vec<RawVar>,
    pub percept: Option<(TypeSyntax, Span, String, Span)>,
    pub actions: Option<(Vec<(String, Span)>, Span)>,
    pub observe: Option<Expr>,
    pub protocol: Option<Vec<RawProtocolCase>>,
    pub update: Option<Vec<RawUpdateCase>>,
    pub init_filter: Option<Expr>,
}

#[derive(Clone, Debug)]
pub struct RawNet {
    pub name: String,
    pub span: Span,
    pub path: String,
    pub path_span: Span,
    pub outputs: Vec<(String, Span)>,
}

/// `named agent a, b { .. }`: agents with these names, each running the
/// block; `named agent a(side = 1), b(side = -1) { .. }` gives each its own
/// values of constants the block reads (its role).
#[derive(Clone, Debug)]
pub struct RawNamed {
    pub names: Vec<(String, Span)>,
    /// Per name, its parameters `(NAME, span, value)` (empty without).
    pub params: Vec<Vec<(String, Span, Expr)>>,
    pub block: RawBlock,
}

/// A whole file as written.
#[derive(Clone, Debug, Default)]
pub struct RawModel {
    pub constants: Constants,
    pub nets: Vec<RawNet>,
    pub agent: Option<(String, Span, RawBlock)>,
    /// `named agent a, b { .. }` declarations, in order.
    pub named: Vec<RawNamed>,
    pub env: Option<(Span, RawBlock)>,
    pub labels: Vec<(String, Span, Expr)>,
}

/// Parses a `.nis` file; constants are evaluated on the way (overrides applied).
pub fn parse(source: &Source, constants: Constants) -> LangResult<RawModel> {
    let mut p = Parser::new(source)?;
    let mut m = RawModel {
        constants,
        ..Default::default()
    };
    while !p.at_eof() {
        if p.eat_keyword("const") {
            m.constants.parse_decl(&mut p)?;
        } else if p.eat_keyword("net") {
            m.nets.push(parse_net(&mut p)?);
        } else if p.at_keyword("agent") {
            let kw = p.bump().span;
            if m.agent.is_some() {
                return Err(p.error(
                    kw,
                    "a model has at most one parameterised agent template; this is a second one (fixed agents: `named agent NAME {..}`)",
                ));
            }
            let (name, span) = p.ident()?;
            let block = parse_block(&mut p, false)?;
            m.agent = Some((name, span, block));
        } else if p.eat_keyword("named") {
            m.named.push(parse_named(&mut p)?);
        } else if p.at_keyword("environment") {
            let kw = p.bump().span;
            if m.env.is_some() {
                return Err(p.error(
                    kw,
                    "a model has at most one environment; this is a second one",
                ));
            }
            let block = parse_block(&mut p, true)?;
            m.env = Some((kw, block));
        } else if p.eat_keyword("label") {
            let (name, span) = p.ident()?;
            p.expect(Tok::Eq)?;
            let e = p.expr()?;
            p.expect(Tok::Semi)?;
            m.labels.push((name, span, e));
        } else {
            return Err(
                p.unexpected("`const`, `net`, `agent`, `named agent`, `environment` or `label`")
            );
        }
    }
    Ok(m)
}

/// After `named`: `agent a, b { .. }`.
fn parse_named(p: &mut Parser) -> LangResult<RawNamed> {
    if !p.eat_keyword("agent") {
        return Err(p.unexpected("`agent` after `named`"));
    }
    let (mut names, mut params) = (Vec::new(), Vec::new());
    loop {
        names.push(p.ident()?);
        params.push(parse_params(p)?);
        if !p.eat(Tok::Comma) {
            break;
        }
    }
    let block = parse_block(p, false)?;
    Ok(RawNamed {
        names,
        params,
        block,
    })
}

/// After a named agent's name: `(x = EXPR, y = EXPR)`, or nothing.
fn parse_params(p: &mut Parser) -> LangResult<Vec<(String, Span, Expr)>> {
    let mut out = Vec::new();
    if !p.eat(Tok::LParen) {
        return Ok(out);
    }
    loop {
        let (name, span) = p.ident()?;
        p.expect(Tok::Eq)?;
        out.push((name, span, p.expr()?));
        if !p.eat(Tok::Comma) {
            break;
        }
    }
    p.expect(Tok::RParen)?;
    Ok(out)
}

fn parse_net(p: &mut Parser) -> LangResult<RawNet> {
    let (name, span) = p.ident()?;
    p.expect(Tok::Eq)?;
    let (path, path_span) = p.string()?;
    let mut outputs = Vec::new();
    if p.eat_keyword("outputs") {
        p.expect(Tok::LParen)?;
        outputs = ident_list(p, Tok::RParen)?;
    }
    p.expect(Tok::Semi)?;
    Ok(RawNet {
        name,
        span,
        path,
        path_span,
        outputs,
    })
}

/// Identifiers separated by commas up to `close` (consumed).
fn ident_list(p: &mut Parser, close: Tok) -> LangResult<Vec<(String, Span)>> {
    let mut out = Vec::new();
    if p.eat(close) {
        return Ok(out);
    }
    loop {
        out.push(p.ident()?);
        if !p.eat(Tok::Comma) {
            break;
        }
    }
    p.expect(close)?;
    Ok(out)
}

fn once<T>(p: &Parser, slot: &Option<T>, span: Span, what: &str) -> LangResult<()> {
    if slot.is_some() {
        return Err(p.error(span, format!("`{what}` is declared twice in this block")));
    }
    Ok(())
}

fn parse_block(p: &mut Parser, is_env: bool) -> LangResult<RawBlock> {
    p.expect(Tok::LBrace)?;
    let mut b = RawBlock::default();
    while !p.eat(Tok::RBrace) {
        let span = p.peek_span();
        if p.eat_keyword("var") {
            b.vars.push(parse_var(p, is_env)?);
        } else if !is_env && p.eat_keyword("percept") {
            once(p, &b.percept, span, "percept")?;
            p.expect(Tok::Colon)?;
            let (ty, ty_span) = crate::lang::parse_type(p)?;
            p.expect(Tok::Eq)?;
            let (init, init_span) = p.ident()?;
            p.expect(Tok::Semi)?;
            b.percept = Some((ty, ty_span, init, init_span));
        } else if p.eat_keyword("actions") {
            once(p, &b.actions, span, "actions")?;
            p.eat(Tok::Colon);
            p.expect(Tok::LBrace)?;
            let list = ident_list(p, Tok::RBrace)?;
            p.expect(Tok::Semi)?;
            b.actions = Some((list, span.to(p.prev_span())));
        } else if !is_env && p.eat_keyword("observe") {
            once(p, &b.observe, span, "observe")?;
            p.eat(Tok::Eq);
            let e = p.expr()?;
            p.expect(Tok::Semi)?;
            b.observe = Some(e);
        } else if p.eat_keyword("protocol") {
            once(p, &b.protocol, span, "protocol")?;
            b.protocol = Some(parse_protocol(p)?);
        } else if p.eat_keyword("update") {
            once(p, &b.update, span, "update")?;
            b.update = Some(parse_update(p)?);
        } else if is_env && p.eat_keyword("init") {
            once(p, &b.init_filter, span, "init")?;
            let e = p.expr()?;
            p.expect(Tok::Semi)?;
            b.init_filter = Some(e);
        } else if p.at_eof() {
            return Err(p.unexpected("`}`"));
        } else {
            let what = if is_env {
                "`var`, `actions`, `protocol`, `update`, `init` or `}`"
            } else {
                "`var`, `percept`, `actions`, `observe`, `protocol`, `update` or `}`"
            };
            return Err(p.unexpected(what));
        }
    }
    Ok(b)
}

fn parse_var(p: &mut Parser, is_env: bool) -> LangResult<RawVar> {
    let (name, span) = p.ident()?;
    p.expect(Tok::Colon)?;
    let (ty, ty_span) = crate::lang::parse_type(p)?;
    let init = if p.eat(Tok::Eq) {
        RawInit::Point(p.expr()?)
    } else if is_env && p.eat_keyword("in") {
        if p.eat(Tok::LBrace) {
            let mut list = vec![p.expr()?];
            while p.eat(Tok::Comma) {
                list.push(p.expr()?);
            }
            p.expect(Tok::RBrace)?;
            RawInit::List(list)
        } else {
            p.expect(Tok::LBracket)?;
            let lo = p.expr()?;
            p.expect(Tok::DotDot)?;
            let hi = p.expr()?;
            p.expect(Tok::RBracket)?;
            RawInit::Range(lo, hi)
        }
    } else {
        RawInit::None
    };
    p.expect(Tok::Semi)?;
    Ok(RawVar {
        name,
        span,
        ty,
        ty_span,
        init,
    })
}

fn parse_protocol(p: &mut Parser) -> LangResult<Vec<RawProtocolCase>> {
    p.expect(Tok::LBrace)?;
    let mut cases = Vec::new();
    while !p.eat(Tok::RBrace) {
        let guard = p.expr()?;
        p.expect(Tok::Arrow)?;
        p.expect(Tok::LBrace)?;
        let actions = ident_list(p, Tok::RBrace)?;
        p.expect(Tok::Semi)?;
        let span = guard.span.to(p.prev_span());
        cases.push(RawProtocolCase {
            guard,
            actions,
            span,
        });
    }
    Ok(cases)
}

fn parse_update(p: &mut Parser) -> LangResult<Vec<RawUpdateCase>> {
    p.expect(Tok::LBrace)?;
    let mut cases = Vec::new();
    while !p.eat(Tok::RBrace) {
        let guard = p.expr()?;
        p.expect(Tok::Arrow)?;
        let mut assigns = Vec::new();
        if !p.eat_keyword("skip") {
            loop {
                let (name, span) = p.ident()?;
                p.expect(Tok::Assign)?;
                assigns.push((name, span, p.expr()?));
                if !p.eat(Tok::Comma) {
                    break;
                }
            }
        }
        p.expect(Tok::Semi)?;
        let span = guard.span.to(p.prev_span());
        cases.push(RawUpdateCase {
            guard,
            assigns,
            span,
        });
    }
    Ok(cases)
}
