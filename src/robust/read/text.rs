//! The `.ma` text format on the shared language core. Grammar (statements end in `;`,
//! `//` comments, keywords are contextual):
//!
//! ```text
//! automaton NAME;                       // optional
//! const W = 4;                          // shared constant declarations
//! metric manhattan;                     // euclidean | manhattan | max | table
//! inputs a, b;
//! disturbances push, slip;              // eps (no disturbance) is implicit
//! state q0 at (0, W - 1) [gamma 1] [priority 2];
//! distance q0 q1 = 2;                   // with `metric table`; mirrored if given once
//! init q0;
//! trans q0 a -> q1 | push -> q2, slip -> q0;
//! reach q1, q2;   |   buchi q1;   |   gen-buchi {q1}, {q2};   |   parity;
//! ```

use super::raw::{Loc, Names, RawModel, RawObjective, RawState, RawTrans, Sym};
use crate::lang::lexer::Tok;
use crate::lang::{eval_const, Constants, LangResult, Parser, Source, Span};
use crate::robust::front::MetricKind;

/// Parses `.ma` text into the raw model (names are interned; `build` resolves them).
pub fn parse(source: &Source, consts: &mut Constants) -> LangResult<RawModel> {
    let mut p = Parser::new(source)?;
    let mut m = RawModel::empty();
    let mut metric_seen = false;
    while !p.at_eof() {
        let start = p.peek_span();
        if p.eat_keyword("automaton") {
            m.name = p.ident()?.0;
        } else if p.eat_keyword("const") {
            consts.parse_decl(&mut p)?;
            continue;
        } else if p.eat_keyword("metric") {
            let (kind, span) = metric(&mut p)?;
            m.metric = kind;
            if metric_seen {
                return Err(p.error(span, "the metric is declared twice"));
            }
            metric_seen = true;
        } else if p.eat_keyword("inputs") {
            let v = names(&mut p, &mut m.names)?;
            m.inputs.extend(v);
        } else if p.eat_keyword("disturbances") {
            let v = names(&mut p, &mut m.names)?;
            m.disturbances.extend(v);
        } else if p.eat_keyword("state") {
            let s = state(&mut p, consts, start, &mut m.names, &mut m.coords)?;
            m.states.push(s);
        } else if p.eat_keyword("distance") {
            let a = m.names.intern_owned(p.ident()?.0);
            let b = m.names.intern_owned(p.ident()?.0);
            p.expect(Tok::Eq)?;
            let d = number(&mut p, consts)?;
            m.distances
                .push((a, b, d, Loc::span(start.to(p.prev_span()))));
        } else if p.eat_keyword("init") {
            let (q, span) = p.ident()?;
            let q = m.names.intern_owned(q);
            if m.init.is_some() {
                return Err(p.error(span, "the initial state is declared twice"));
            }
            m.init = Some((q, Loc::span(span)));
        } else if p.eat_keyword("trans") {
            transition(&mut p, start, &mut m)?;
        } else if at_objective(&p) {
            let obj = objective(&mut p, &mut m.names)?;
            if m.objective.is_some() {
                return Err(p.error(start, "the objective is declared twice"));
            }
            m.objective = Some((obj, Loc::span(start.to(p.prev_span()))));
        } else {
            return Err(p.unexpected("a declaration (automaton, const, metric, inputs, disturbances, state, distance, init, trans, reach, buchi, gen-buchi, parity)"));
        }
        p.expect(Tok::Semi)?;
    }
    Ok(m)
}

/// The metric named after `metric`, with the span of its name.
fn metric(p: &mut Parser) -> LangResult<(MetricKind, Span)> {
    let (word, span) = p.ident()?;
    let kind = match word.as_str() {
        "euclidean" => MetricKind::Euclidean,
        "manhattan" => MetricKind::Manhattan,
        "max" => MetricKind::Max,
        "table" => MetricKind::Table,
        _ => {
            return Err(p.error(
                span,
                format!("unknown metric `{word}`: expected euclidean, manhattan, max or table"),
            ))
        }
    };
    Ok((kind, span))
}

/// The rest of `trans FROM INPUT -> TO | X -> T, ...`: its disturbed
/// successors are appended to the model's one `disturbed` list and the
/// transition keeps their index range, so a transition allocates nothing.
fn transition(p: &mut Parser, start: Span, m: &mut RawModel) -> LangResult<()> {
    let from = m.names.intern_owned(p.ident()?.0);
    let input = m.names.intern_owned(p.ident()?.0);
    p.expect(Tok::Arrow)?;
    let to = m.names.intern_owned(p.ident()?.0);
    let first = m.disturbed.len() as u32;
    if p.eat(Tok::Or) {
        loop {
            let x = m.names.intern_owned(p.ident()?.0);
            p.expect(Tok::Arrow)?;
            let t = m.names.intern_owned(p.ident()?.0);
            m.disturbed.push((x, t));
            if !p.eat(Tok::Comma) {
                break;
            }
        }
    }
    let loc = Loc::span(start.to(p.prev_span()));
    m.transitions.push(RawTrans {
        from,
        input,
        to,
        disturbed: (first, m.disturbed.len() as u32),
        loc,
    });
    Ok(())
}

fn at_objective(p: &Parser) -> bool {
    ["reach", "buchi", "gen", "parity"]
        .iter()
        .any(|k| p.at_keyword(k))
}

fn objective(p: &mut Parser, n: &mut Names) -> LangResult<RawObjective> {
    if p.eat_keyword("reach") {
        return Ok(RawObjective::Reach(names(p, n)?));
    }
    if p.eat_keyword("buchi") {
        return Ok(RawObjective::Buchi(names(p, n)?));
    }
    if p.eat_keyword("parity") {
        return Ok(RawObjective::Parity);
    }
    p.expect_keyword("gen")?;
    p.expect(Tok::Minus)?;
    p.expect_keyword("buchi")?;
    let mut sets = Vec::new();
    loop {
        p.expect(Tok::LBrace)?;
        sets.push(names(p, n)?);
        p.expect(Tok::RBrace)?;
        if !p.eat(Tok::Comma) {
            break;
        }
    }
    Ok(RawObjective::GenBuchi(sets))
}

fn names(p: &mut Parser, n: &mut Names) -> LangResult<Vec<Sym>> {
    let mut v = vec![n.intern_owned(p.ident()?.0)];
    while p.eat(Tok::Comma) {
        v.push(n.intern_owned(p.ident()?.0));
    }
    Ok(v)
}

fn number(p: &mut Parser, consts: &Constants) -> LangResult<f64> {
    let e = p.expr()?;
    let v = eval_const(p.source(), &e, consts)?;
    match v.as_num() {
        Some(_) => Ok(v.to_f64()),
        None => Err(p.error(e.span, "expected a number")),
    }
}

/// A state declaration; its coordinates are appended to `coords`.
fn state(
    p: &mut Parser,
    consts: &Constants,
    start: Span,
    n: &mut Names,
    coords: &mut Vec<f64>,
) -> LangResult<RawState> {
    let name = n.intern_owned(p.ident()?.0);
    let mut s = RawState {
        name,
        at: None,
        gamma: None,
        priority: None,
        loc: Loc::span(start),
    };
    loop {
        if p.eat_keyword("at") {
            p.expect(Tok::LParen)?;
            let first = coords.len() as u32;
            coords.push(number(p, consts)?);
            while p.eat(Tok::Comma) {
                coords.push(number(p, consts)?);
            }
            p.expect(Tok::RParen)?;
            s.at = Some((first, coords.len() as u32));
        } else if p.eat_keyword("gamma") {
            let at = p.peek_span();
            let g = number(p, consts)?;
            if !(g.is_finite() && g >= 0.0) {
                return Err(p.error(at, "gamma must be a non-negative number"));
            }
            s.gamma = Some(g);
        } else if p.eat_keyword("priority") {
            let at = p.peek_span();
            let v = number(p, consts)?;
            if v < 0.0 || v.fract() != 0.0 || v > 1e6 {
                return Err(p.error(at, "a priority is a natural number (at most 10^6)"));
            }
            s.priority = Some(v as u32);
        } else {
            break;
        }
    }
    s.loc = Loc::span(start.to(p.prev_span()));
    Ok(s)
}
