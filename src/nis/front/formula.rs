//! bICTL (Definitions 7-9 of Kouvaros et al., IJCAI 2024): sentences `forall
//! v1, ..., vm: phi`, their parser and printer, the classification into
//! universal and existential sentences, temporal depth, and the instantiation
//! phi[m] of Lemma 1.
//!
//! Grammar (loosest first): `phi | phi`; `phi & phi`; `EX^k phi`, `AX^k phi`
//! (`EX`, `AX`: k = 1; the body extends as far right as possible, so
//! `EX^2 (a, v1) & (a, v2)` is `EX^2 ((a, v1) & (a, v2))`); bounded until
//! `E(phi U^k psi)`, `A(phi U^k psi)`; `!(p, v)` (negation on atoms only);
//! atoms `(p, v1)` or `(p, 3)` over an agent's local state, bare `p` over
//! the environment's state; parentheses. A sentence may instead start
//! with a strategic operator, `<<G>> X^k phi` or `[[G]] X^k phi` over named
//! agents, phi propositional ([`super::strategic`]).

use super::strategic::{parse_header, Strategy};
use crate::lang::lexer::Tok;
use crate::lang::{error_at, LangResult, Parser, Source, Span};

/// Which agent an atom is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentRef {
    Var(String),
    /// A concrete agent, 1-based.
    Index(usize),
    /// No agent: an environment label, written as a bare name (`safe`).
    Environment,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    Atom {
        label: String,
        agent: AgentRef,
        negated: bool,
        span: Span,
    },
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
    EX(u32, Box<Formula>),
    AX(u32, Box<Formula>),
    /// `E(phi U^k psi)`
    EU(u32, Box<Formula>, Box<Formula>),
    /// `A(phi U^k psi)`
    AU(u32, Box<Formula>, Box<Formula>),
}

/// Universal (only A), existential (only E), or no path quantifier at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Universal,
    Existential,
    Propositional,
}

impl Kind {
    pub fn word(self) -> &'static str {
        match self {
            Kind::Universal => "universal",
            Kind::Existential => "existential",
            Kind::Propositional => "propositional",
        }
    }
}

/// `forall v1, ..., vm: phi`, or a strategic sentence `<<G>> X^k phi` /
/// `[[G]] X^k phi` ([`Strategy`]; then `body` is the propositional phi).
#[derive(Clone, Debug)]
pub struct Sentence {
    pub vars: Vec<String>,
    pub body: Formula,
    pub source: Source,
    pub strategy: Option<Strategy>,
}

impl Sentence {
    /// m: the number of agents the instantiated formula phi[m] names.
    pub fn agents(&self) -> usize {
        if !self.vars.is_empty() {
            return self.vars.len();
        }
        max_index(&self.body)
    }

    /// A strategic sentence counts as existential for `<<G>>` (a witness is
    /// shown when it holds) and as universal for `[[G]]` (a counterexample
    /// is shown when it fails).
    pub fn kind(&self) -> Kind {
        match &self.strategy {
            Some(s) if s.can => Kind::Existential,
            Some(_) => Kind::Universal,
            None => classify(&self.body).unwrap_or(Kind::Propositional),
        }
    }

    /// Temporal depth, Definition 9 (bounded until counts as its expansion;
    /// a strategic sentence's k rounds count as k).
    pub fn depth(&self) -> u32 {
        let k = self.strategy.as_ref().map_or(0, |s| s.steps);
        k.saturating_add(depth(&self.body))
    }
}

fn max_index(f: &Formula) -> usize {
    match f {
        Formula::Atom {
            agent: AgentRef::Index(i),
            ..
        } => *i,
        Formula::Atom { .. } => 0,
        Formula::And(a, b) | Formula::Or(a, b) | Formula::EU(_, a, b) | Formula::AU(_, a, b) => {
            max_index(a).max(max_index(b))
        }
        Formula::EX(_, a) | Formula::AX(_, a) => max_index(a),
    }
}

/// None for mixed formulas.
fn classify(f: &Formula) -> Option<Kind> {
    let join = |a: Kind, b: Kind| match (a, b) {
        (Kind::Propositional, k) | (k, Kind::Propositional) => Some(k),
        (a, b) if a == b => Some(a),
        _ => None,
    };
    match f {
        Formula::Atom { .. } => Some(Kind::Propositional),
        Formula::And(a, b) | Formula::Or(a, b) => join(classify(a)?, classify(b)?),
        Formula::EX(_, a) => join(Kind::Existential, classify(a)?),
        Formula::AX(_, a) => join(Kind::Universal, classify(a)?),
        Formula::EU(_, a, b) => join(Kind::Existential, join(classify(a)?, classify(b)?)?),
        Formula::AU(_, a, b) => join(Kind::Universal, join(classify(a)?, classify(b)?)?),
    }
}

/// Definition 9; until as its expansion psi | (phi & X (phi U^{k-1} psi)).
/// Saturates at `u32::MAX` instead of wrapping: the parser keeps written
/// formulas far below it (at most 10,000 steps per operator, 200 levels of
/// nesting), but a formula built in code may nest more, and a wrapped-around
/// depth would be a small, wrong horizon for every decider.
pub fn depth(f: &Formula) -> u32 {
    match f {
        Formula::Atom { .. } => 0,
        Formula::And(a, b) | Formula::Or(a, b) => depth(a).max(depth(b)),
        Formula::EX(k, a) | Formula::AX(k, a) => k.saturating_add(depth(a)),
        Formula::EU(k, a, b) | Formula::AU(k, a, b) => {
            if *k == 0 {
                depth(b)
            } else {
                k.saturating_add(depth(b))
                    .max((k - 1).saturating_add(depth(a)))
            }
        }
    }
}

/// Parses a sentence and refuses mixed path quantifiers.
pub fn parse_sentence(text: &str) -> LangResult<Sentence> {
    parse_sentence_in(&Source::new("<spec>", text))
}

/// [`parse_sentence`] of a source's whole text, errors located in it (a
/// sentence of a `--specs` file keeps its file's lines and columns).
pub fn parse_sentence_in(source: &Source) -> LangResult<Sentence> {
    let text = source.text();
    // The sentence itself, without the lines a `--specs` file puts before it.
    let whole = Span::new(text.len() - text.trim_start().len(), text.len());
    let mut p = Parser::new(source)?;
    let mut vars: Vec<String> = Vec::new();
    if p.eat_keyword("forall") {
        loop {
            let (v, span) = p.ident()?;
            if vars.contains(&v) {
                return Err(p.error(span, format!("the variable `{v}` is bound twice")));
            }
            vars.push(v);
            if !p.eat(Tok::Comma) {
                break;
            }
            // `forall v1, forall v2` reads as well.
            p.eat_keyword("forall");
        }
        p.expect(Tok::Colon)?;
    }
    let strategy = parse_header(&mut p)?;
    if strategy.is_some() && !vars.is_empty() {
        return Err(error_at(
            source,
            whole,
            "a strategic sentence `<<G>> X^k phi` is about named agents: it takes no `forall`",
        ));
    }
    let body_start = p.peek_span();
    let body = FormulaParser {
        p: &mut p,
        depth: 0,
    }
    .or()?;
    if !p.at_eof() {
        return Err(p.unexpected("`&`, `|` or the end of the formula"));
    }
    check_refs(source, &body, &vars)?;
    let propositional = classify(&body) == Some(Kind::Propositional) && max_index(&body) == 0;
    if strategy.is_some() && !propositional {
        return Err(error_at(
            source,
            body_start.to(Span::new(text.len(), text.len())),
            "the body of `<<G>> X^k` / `[[G]] X^k` must be propositional over environment labels (no EX, AX, until or indexed atoms)",
        ));
    }
    if classify(&body).is_none() {
        return Err(error_at(
            source,
            whole,
            "the formula mixes universal (A) and existential (E) path quantifiers",
        )
        .into_help_mixed());
    }
    Ok(Sentence {
        vars,
        body,
        source: source.clone(),
        strategy,
    })
}

trait MixedHelp {
    fn into_help_mixed(self) -> Self;
}

impl MixedHelp for Box<crate::lang::SourceError> {
    fn into_help_mixed(self) -> Self {
        Box::new((*self).with_help(
            "the parameterised procedures (Corollaries 1 and 2) need a purely universal or purely existential sentence",
        ))
    }
}

fn check_refs(source: &Source, f: &Formula, vars: &[String]) -> LangResult<()> {
    match f {
        Formula::Atom { agent, span, .. } => match agent {
            AgentRef::Environment => Ok(()),
            AgentRef::Var(v) if !vars.contains(v) => {
                Err(error_at(source, *span, format!("the variable `{v}` is not bound by `forall`")))
            }
            AgentRef::Index(_) if !vars.is_empty() => Err(error_at(
                source,
                *span,
                "mix of agent variables and concrete indices: use `forall` variables only, or concrete indices only",
            )),
            AgentRef::Index(0) => Err(error_at(source, *span, "agents are numbered from 1")),
            _ => Ok(()),
        },
        Formula::And(a, b) | Formula::Or(a, b) | Formula::EU(_, a, b) | Formula::AU(_, a, b) => {
            check_refs(source, a, vars)?;
            check_refs(source, b, vars)
        }
        Formula::EX(_, a) | Formula::AX(_, a) => check_refs(source, a, vars),
    }
}

const MAX_NESTING: usize = 200;

/// `a op b op c ...` for an associative `op`: folded to the left as written
/// when short, as a balanced tree when longer than
/// [`crate::lang::chain::BALANCE_ABOVE`] operands, so that a generated
/// conjunction of thousands of atoms does not make every recursive pass
/// over formulas overflow the stack.
fn fold_chain(
    mut operands: Vec<Formula>,
    op: fn(Box<Formula>, Box<Formula>) -> Formula,
) -> Formula {
    if operands.len() <= crate::lang::chain::BALANCE_ABOVE {
        let mut rest = operands.into_iter();
        let first = rest.next().expect("a chain has an operand");
        return rest.fold(first, |lhs, rhs| op(Box::new(lhs), Box::new(rhs)));
    }
    let right = operands.split_off(operands.len() / 2);
    op(
        Box::new(fold_chain(operands, op)),
        Box::new(fold_chain(right, op)),
    )
}
const MAX_STEPS: u32 = 10_000;

struct FormulaParser<'p> {
    p: &'p mut Parser,
    depth: usize,
}

impl FormulaParser<'_> {
    fn enter(&mut self) -> LangResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self
                .p
                .error(self.p.peek_span(), "formula nested too deeply"));
        }
        Ok(())
    }

    fn or(&mut self) -> LangResult<Formula> {
        self.enter()?;
        let mut operands = vec![self.and()?];
        while self.p.eat(Tok::Or) {
            operands.push(self.and()?);
        }
        self.depth -= 1;
        Ok(fold_chain(operands, Formula::Or))
    }

    fn and(&mut self) -> LangResult<Formula> {
        let mut operands = vec![self.unary()?];
        while self.p.eat(Tok::And) {
            operands.push(self.unary()?);
        }
        Ok(fold_chain(operands, Formula::And))
    }

    /// `^k`, `^{k}` or nothing (k = 1).
    fn steps(&mut self) -> LangResult<u32> {
        if !self.p.eat(Tok::Caret) {
            return Ok(1);
        }
        let braced = self.p.eat(Tok::LBrace);
        let t = self.p.expect(Tok::Number)?;
        let text = self.p.source().slice(t.span).to_string();
        let k: u32 = text
            .parse()
            .ok()
            .filter(|k| *k <= MAX_STEPS)
            .ok_or_else(|| {
                self.p.error(
                    t.span,
                    format!("`{text}` is not a number of steps (0..{MAX_STEPS})"),
                )
            })?;
        if braced {
            self.p.expect(Tok::RBrace)?;
        }
        Ok(k)
    }

    fn unary(&mut self) -> LangResult<Formula> {
        if self.p.at_keyword("EX") || self.p.at_keyword("AX") {
            let universal = self.p.peek_text() == "AX";
            self.p.bump();
            let k = self.steps()?;
            self.enter()?;
            let body = self.or()?;
            self.depth -= 1;
            return Ok(if universal {
                Formula::AX(k, Box::new(body))
            } else {
                Formula::EX(k, Box::new(body))
            });
        }
        if (self.p.at_keyword("E") || self.p.at_keyword("A")) && self.p.peek2() == Tok::LParen {
            let universal = self.p.peek_text() == "A";
            self.p.bump();
            self.p.expect(Tok::LParen)?;
            self.enter()?;
            let lhs = self.or()?;
            self.p.expect_keyword("U")?;
            let k = self.steps()?;
            let rhs = self.or()?;
            self.depth -= 1;
            self.p.expect(Tok::RParen)?;
            let (a, b) = (Box::new(lhs), Box::new(rhs));
            return Ok(if universal {
                Formula::AU(k, a, b)
            } else {
                Formula::EU(k, a, b)
            });
        }
        if self.p.peek() == Tok::Not {
            let start = self.p.bump().span;
            if self.p.peek() != Tok::LParen && self.p.peek() != Tok::Ident {
                return Err(self.p.unexpected(
                    "an atom `(p, v)` or `p` after `!` (negation applies to atoms only)",
                ));
            }
            if self.p.peek() == Tok::Ident && !self.at_operator_keyword() {
                let mut atom = self.env_atom()?;
                if let Formula::Atom { negated, span, .. } = &mut atom {
                    *negated = true;
                    *span = start.to(*span);
                }
                return Ok(atom);
            }
            return match self.atom_or_group()? {
                Formula::Atom {
                    label,
                    agent,
                    negated,
                    span,
                } => Ok(Formula::Atom {
                    label,
                    agent,
                    negated: !negated,
                    span: start.to(span),
                }),
                _ => Err(self.p.error(
                    start,
                    "negation applies to atoms only, as in `!(alive, v1)`",
                )),
            };
        }
        if self.p.peek() == Tok::LParen {
            return self.atom_or_group();
        }
        if self.p.peek() == Tok::Ident {
            return self.env_atom();
        }
        Err(self
            .p
            .unexpected("`EX`, `AX`, `E(`, `A(`, `!`, an atom `(p, v)`, `p` or `(`"))
    }

    /// `EX`/`AX` or `E(`/`A(` ahead: an operator, not an environment atom.
    fn at_operator_keyword(&self) -> bool {
        self.p.at_keyword("EX")
            || self.p.at_keyword("AX")
            || ((self.p.at_keyword("E") || self.p.at_keyword("A")) && self.p.peek2() == Tok::LParen)
    }

    /// A bare label name: an atom over the environment's state.
    fn env_atom(&mut self) -> LangResult<Formula> {
        let (label, span) = self.p.ident()?;
        Ok(Formula::Atom {
            label,
            agent: AgentRef::Environment,
            negated: false,
            span,
        })
    }

    fn atom_or_group(&mut self) -> LangResult<Formula> {
        let open = self.p.expect(Tok::LParen)?.span;
        if self.p.peek() == Tok::Ident && self.p.peek2() == Tok::Comma {
            let (label, _) = self.p.ident()?;
            self.p.expect(Tok::Comma)?;
            let agent = match self.p.peek() {
                Tok::Number => {
                    let t = self.p.bump();
                    let text = self.p.source().slice(t.span).to_string();
                    let i: usize =
                        text.parse()
                            .ok()
                            .filter(|i| *i <= 1_000_000)
                            .ok_or_else(|| {
                                self.p
                                    .error(t.span, format!("`{text}` is not an agent number"))
                            })?;
                    AgentRef::Index(i)
                }
                _ => AgentRef::Var(self.p.ident()?.0),
            };
            let close = self.p.expect(Tok::RParen)?.span;
            return Ok(Formula::Atom {
                label,
                agent,
                negated: false,
                span: open.to(close),
            });
        }
        self.enter()?;
        let inner = self.or()?;
        self.depth -= 1;
        self.p.expect(Tok::RParen)?;
        Ok(inner)
    }
}

fn steps(k: u32) -> String {
    if k == 1 {
        String::new()
    } else {
        format!("^{k}")
    }
}

impl std::fmt::Display for Formula {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Operands of & and | that are themselves & / | / temporal get parentheses.
        let operand = |g: &Formula, f: &mut std::fmt::Formatter<'_>, parent_and: bool| match g {
            Formula::Atom { .. } | Formula::EU(..) | Formula::AU(..) => write!(f, "{g}"),
            Formula::And(..) if parent_and => write!(f, "{g}"),
            _ => write!(f, "({g})"),
        };
        match self {
            Formula::Atom {
                label,
                agent,
                negated,
                ..
            } => {
                let not = if *negated { "!" } else { "" };
                match agent {
                    AgentRef::Var(v) => write!(f, "{not}({label}, {v})"),
                    AgentRef::Index(i) => write!(f, "{not}({label}, {i})"),
                    AgentRef::Environment => write!(f, "{not}{label}"),
                }
            }
            Formula::And(a, b) => {
                operand(a, f, true)?;
                write!(f, " & ")?;
                // & parses left-associatively: a right-nested & keeps its parentheses.
                operand(b, f, !matches!(**b, Formula::And(..)))
            }
            Formula::Or(a, b) => {
                operand(a, f, false)?;
                write!(f, " | ")?;
                match **b {
                    Formula::Or(..) => write!(f, "({b})"),
                    _ => operand(b, f, false),
                }
            }
            Formula::EX(k, a) => write!(f, "EX{} {}", steps(*k), Paren(a)),
            Formula::AX(k, a) => write!(f, "AX{} {}", steps(*k), Paren(a)),
            Formula::EU(k, a, b) => write!(f, "E({a} U^{k} {b})"),
            Formula::AU(k, a, b) => write!(f, "A({a} U^{k} {b})"),
        }
    }
}

/// A temporal body: parenthesised unless it is an atom or another temporal operator.
struct Paren<'a>(&'a Formula);

impl std::fmt::Display for Paren<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Formula::And(..) | Formula::Or(..) => write!(f, "({})", self.0),
            g => write!(f, "{g}"),
        }
    }
}

impl std::fmt::Display for Sentence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.vars.is_empty() {
            write!(f, "forall {}: ", self.vars.join(", "))?;
        }
        match &self.strategy {
            Some(s) => write!(f, "{s} {}", Paren(&self.body)),
            None => write!(f, "{}", self.body),
        }
    }
}
