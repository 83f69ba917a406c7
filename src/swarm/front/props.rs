//! Properties in PRISM syntax: `Pmax=? [ F<k "l" ]`, `Pmin=? [...]`,
//! `P<=p [...]`, `P>=p [...]` over `F`, `G`, `U` (step-bounded or not) and
//! `X`. In discrete time `F<k` is `F<=k-1`, as PRISM and Storm read it.

use super::model::{GlobalScope, GlobalVar, Model, LABEL_BASE};
use crate::lang::lexer::Tok;
use crate::lang::{
    check_as, error_at, eval_const, num, LangResult, Parser, Rat, Source, Span, TExpr, Ty, Value,
};
use num_traits::{One, Zero};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    Max,
    Min,
}

impl Opt {
    pub fn flip(self) -> Opt {
        match self {
            Opt::Max => Opt::Min,
            Opt::Min => Opt::Max,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Opt::Max => "Pmax",
            Opt::Min => "Pmin",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Le,
    Lt,
    Ge,
    Gt,
}

impl Cmp {
    pub fn holds(self, value: &Rat, bound: &Rat) -> bool {
        match self {
            Cmp::Le => value <= bound,
            Cmp::Lt => value < bound,
            Cmp::Ge => value >= bound,
            Cmp::Gt => value > bound,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Le => "<=",
            Cmp::Lt => "<",
            Cmp::Ge => ">=",
            Cmp::Gt => ">",
        }
    }
}

/// A path formula; `steps` is `None` when unbounded.
#[derive(Clone, Debug)]
pub enum Path {
    /// `phi U<=steps psi`; `F<=steps psi` has `phi = None` (true).
    Until {
        phi: Option<TExpr>,
        psi: TExpr,
        steps: Option<usize>,
    },
    /// `G<=steps phi`
    Globally { phi: TExpr, steps: Option<usize> },
    /// `X phi`
    Next { phi: TExpr },
    /// `C<=steps`: the reward earned in the first `steps` steps.
    Cumulative { steps: usize },
    /// `I=steps`: the state reward at step `steps`.
    Instant { steps: usize },
}

impl Path {
    /// The step bound (`None`: unbounded).
    pub fn steps(&self) -> Option<usize> {
        match self {
            Path::Until { steps, .. } | Path::Globally { steps, .. } => *steps,
            Path::Next { .. } => Some(1),
            Path::Cumulative { steps } | Path::Instant { steps } => Some(*steps),
        }
    }
}

/// One property: which optimum to compute and, for `P~p`, the bound.
#[derive(Clone, Debug)]
pub struct Property {
    pub text: String,
    pub opt: Opt,
    pub bound: Option<(Cmp, Rat)>,
    pub path: Path,
    /// `Some(r)` for an expected-reward property `R` over the model's
    /// reward structure `r`; `None` for a probability `P`.
    pub reward: Option<usize>,
}

impl Property {
    /// `Pmax`, `Pmin`, `Rmax` or `Rmin`.
    pub fn word(&self) -> &'static str {
        match (self.reward.is_some(), self.opt) {
            (false, o) => o.word(),
            (true, Opt::Max) => "Rmax",
            (true, Opt::Min) => "Rmin",
        }
    }
}

/// Parsed properties with the variables they and the labels read.
#[derive(Clone, Debug)]
pub struct Properties {
    pub props: Vec<Property>,
    pub refs: Vec<GlobalVar>,
    /// With a faulty fraction, Definition 16's phase formulas (`starting`,
    /// `mode_E = 0`) over `refs`.
    pub phases: Option<[TExpr; 2]>,
}

/// `"name"` becomes `_name_` (same length, so positions stay right).
fn encode_labels(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for c in text.chars() {
        if c == '"' {
            out.push('_');
            inside = !inside;
        } else {
            out.push(c);
        }
    }
    out
}

/// The largest step bound `F<=k` a property may have (value iteration runs
/// k rounds over the whole state space).
const MAX_STEP_BOUND: i64 = 1_000_000;

/// The step bound `<=k` or `<k` after `F`, `G` or `U`; `None` without one.
fn steps_of(p: &mut Parser, model: &Model) -> LangResult<Option<usize>> {
    let strict = match p.peek() {
        Tok::Le => false,
        Tok::Lt => true,
        _ => return Ok(None),
    };
    p.bump();
    let e = p.expr()?;
    let v = eval_const(p.source(), &e, &model.consts)?;
    let natural = v.as_num().and_then(num::to_i64).filter(|k| *k >= 0);
    match natural {
        Some(0) if strict => Err(p.error(e.span, "`<0` leaves no step")),
        Some(k) if k <= MAX_STEP_BOUND => Ok(Some(k as usize - usize::from(strict))),
        Some(_) => Err(p.error(
            e.span,
            format!("the step bound {v} is beyond the limit of {MAX_STEP_BOUND} steps"),
        )),
        None => Err(p.error(
            e.span,
            format!("a step bound must be a natural number, found {v}"),
        )),
    }
}

fn state_formula(p: &mut Parser, scope: &GlobalScope) -> LangResult<TExpr> {
    let e = p.expr()?;
    check_as(p.source(), &e, scope, Ty::Bool)
}

fn path(p: &mut Parser, scope: &GlobalScope) -> LangResult<Path> {
    if p.peek2() != Tok::RBracket && p.eat_keyword("F") {
        let steps = steps_of(p, scope.model)?;
        return Ok(Path::Until {
            phi: None,
            psi: state_formula(p, scope)?,
            steps,
        });
    }
    if p.peek2() != Tok::RBracket && p.eat_keyword("G") {
        let steps = steps_of(p, scope.model)?;
        return Ok(Path::Globally {
            phi: state_formula(p, scope)?,
            steps,
        });
    }
    if p.peek2() != Tok::RBracket && p.eat_keyword("X") {
        return Ok(Path::Next {
            phi: state_formula(p, scope)?,
        });
    }
    let phi = state_formula(p, scope)?;
    p.expect_keyword("U")?;
    let steps = steps_of(p, scope.model)?;
    Ok(Path::Until {
        phi: Some(phi),
        psi: state_formula(p, scope)?,
        steps,
    })
}

/// A property's bound, `None` for a query.
type Bound = Option<(Cmp, Rat)>;

/// `<=`, `<`, `>=` or `>` and the bound after `P` or `R`, checked by
/// `valid` (which says what it wants on failure); `P<=p`/`R<=r` are
/// decided with the maximum, `P>=p`/`R>=r` with the minimum.
fn bound(
    p: &mut Parser,
    scope: &GlobalScope,
    valid: fn(&Rat) -> bool,
    wants: &str,
) -> LangResult<(Opt, Bound)> {
    let cmp = match p.peek() {
        Tok::Le => Cmp::Le,
        Tok::Lt => Cmp::Lt,
        Tok::Ge => Cmp::Ge,
        Tok::Gt => Cmp::Gt,
        _ => return Err(p.unexpected("`<=`, `<`, `>=` or `>`")),
    };
    p.bump();
    let e = p.expr()?;
    let v = eval_const(p.source(), &e, &scope.model.consts)?;
    let b = match v {
        Value::Num(r) if valid(&r) => r,
        other => return Err(p.error(e.span, format!("{wants}, found {other}"))),
    };
    let opt = if matches!(cmp, Cmp::Le | Cmp::Lt) {
        Opt::Max
    } else {
        Opt::Min
    };
    Ok((opt, Some((cmp, b))))
}

/// `=?` after `Pmax`, `Rmin`, ...
fn query(p: &mut Parser) -> LangResult<()> {
    p.expect(Tok::Eq)?;
    p.expect(Tok::Question)?;
    Ok(())
}

/// The reward structure of `R{"name"}` (the first one without a name).
fn reward_structure(p: &mut Parser, scope: &GlobalScope, at: Span) -> LangResult<usize> {
    let rewards = &scope.model.rewards;
    if p.eat(Tok::LBrace) {
        let (encoded, span) = p.ident()?;
        p.expect(Tok::RBrace)?;
        let name = encoded
            .strip_prefix('_')
            .and_then(|n| n.strip_suffix('_'))
            .unwrap_or(&encoded);
        return rewards.iter().position(|r| r.name == name).ok_or_else(|| {
            p.error(
                span,
                format!("the model has no reward structure \"{name}\""),
            )
        });
    }
    if rewards.is_empty() {
        return Err(p.error(
            at,
            "the model has no reward structure (`rewards \"name\" ... endrewards`)",
        ));
    }
    Ok(0)
}

/// After `R`, `Rmax` or `Rmin`: the structure, the optimum and the bound.
fn reward_head(
    p: &mut Parser,
    scope: &GlobalScope,
    word: &str,
    wspan: Span,
) -> LangResult<(Opt, Bound, usize)> {
    let structure = reward_structure(p, scope, wspan)?;
    let word = match word {
        "R" if p.at_keyword("max") || p.at_keyword("min") => {
            let t = p.bump();
            p.source().slice(t.span).to_string()
        }
        w => w.trim_start_matches('R').to_string(),
    };
    let (opt, b) = match word.as_str() {
        "max" => (Opt::Max, None),
        "min" => (Opt::Min, None),
        _ => {
            let (opt, b) = bound(
                p,
                scope,
                |r| *r >= Rat::zero(),
                "a reward bound must be at least 0",
            )?;
            return Ok((opt, b, structure));
        }
    };
    query(p)?;
    Ok((opt, b, structure))
}

/// The path of an `R` property: `F psi`, `C<=k` or `I=k`.
fn reward_path(p: &mut Parser, scope: &GlobalScope) -> LangResult<Path> {
    let at = p.peek_span();
    if p.eat_keyword("F") {
        if matches!(p.peek(), Tok::Le | Tok::Lt) {
            return Err(p.error(
                p.peek_span(),
                "a step-bounded `F` under `R` is not supported: `C<=k` is the reward of the first k steps",
            ));
        }
        return Ok(Path::Until {
            phi: None,
            psi: state_formula(p, scope)?,
            steps: None,
        });
    }
    if p.eat_keyword("C") {
        if p.peek() == Tok::Lt {
            // PRISM and Storm have only `C<=k`; `C<k` is not `C<=k-1` there.
            return Err(p.error(
                p.peek_span(),
                "`C<k` is not PRISM syntax: the reward of the first k steps is `C<=k`",
            ));
        }
        return match steps_of(p, scope.model)? {
            Some(steps) => Ok(Path::Cumulative { steps }),
            None => Err(p.error(at, "`C` needs a step bound, `C<=k`")),
        };
    }
    if p.eat_keyword("I") {
        p.expect(Tok::Eq)?;
        let e = p.expr()?;
        let v = eval_const(p.source(), &e, &scope.model.consts)?;
        return match v.as_num().and_then(num::to_i64) {
            Some(k) if (0..=MAX_STEP_BOUND).contains(&k) => Ok(Path::Instant { steps: k as usize }),
            _ => Err(p.error(
                e.span,
                format!("`I=k` needs a natural number k of at most {MAX_STEP_BOUND}, found {v}"),
            )),
        };
    }
    Err(p.unexpected("`F`, `C<=k` or `I=k` (the reward properties)"))
}

fn property(p: &mut Parser, scope: &GlobalScope) -> LangResult<(Property, Span)> {
    let start = p.peek_span();
    let (word, wspan) = p.ident()?;
    let (opt, bound, reward) = match word.as_str() {
        "Pmax" | "Pmin" => {
            query(p)?;
            (if word == "Pmax" { Opt::Max } else { Opt::Min }, None, None)
        }
        "P" => {
            let in_unit = |r: &Rat| *r >= Rat::zero() && *r <= Rat::one();
            let (opt, b) = bound(p, scope, in_unit, "a probability bound must lie in [0, 1]")?;
            (opt, b, None)
        }
        "R" | "Rmax" | "Rmin" => {
            let (opt, b, r) = reward_head(p, scope, &word, wspan)?;
            (opt, b, Some(r))
        }
        _ => {
            return Err(p.error(
                wspan,
                format!(
                "expected `Pmax=?`, `Pmin=?`, `P<=p`, `Rmax=?`, `Rmin=?` or `R<=r`, found `{word}`"
            ),
            ))
        }
    };
    p.expect(Tok::LBracket)?;
    let path = match reward {
        Some(_) => reward_path(p, scope)?,
        None => path(p, scope)?,
    };
    p.expect(Tok::RBracket)?;
    let span = start.to(p.prev_span());
    Ok((
        Property {
            text: String::new(),
            opt,
            bound,
            path,
            reward,
        },
        span,
    ))
}

/// Parses a properties text (one or more properties, `;` or newlines between).
pub fn parse_properties(source: &Source, model: &Model) -> LangResult<Properties> {
    parse_property_sources(std::slice::from_ref(source), model)
}

/// Parses several properties texts (a file, then each `--prop`) into one
/// list; each keeps its own name and lines in errors. At least one property
/// must be given in all.
pub fn parse_property_sources(sources: &[Source], model: &Model) -> LangResult<Properties> {
    let scope = GlobalScope {
        model,
        refs: std::cell::RefCell::new(model.label_refs.clone()),
    };
    let mut props = Vec::new();
    for source in sources {
        // Same-length encoding, so spans in `encoded` are spans in `source`;
        // errors are shown against `source`, as the user wrote it.
        let encoded = Source::new(source.name(), encode_labels(source.text()));
        parse_encoded(source, &encoded, &scope, &mut props)
            .map_err(|e| Box::new((*e).rebased(source, &encoded)))?;
    }
    if props.is_empty() {
        let source = sources
            .first()
            .cloned()
            .unwrap_or_else(|| Source::new("<--prop>", ""));
        let end = source.text().len();
        return Err(error_at(&source, Span::new(end, end), "no property given"));
    }
    let phases = match model.faulty_fraction {
        Some(_) => Some(phase_formulas(&scope)?),
        None => None,
    };
    Ok(Properties {
        props,
        refs: scope.refs.into_inner(),
        phases,
    })
}

fn parse_encoded(
    source: &Source,
    encoded: &Source,
    scope: &GlobalScope,
    props: &mut Vec<Property>,
) -> LangResult<()> {
    let mut p = Parser::new(encoded)?;
    while !p.at_eof() {
        if p.eat(Tok::Semi) {
            continue;
        }
        let (mut prop, span) = property(&mut p, scope)?;
        prop.text = source.slice(span).to_string();
        props.push(prop);
    }
    Ok(())
}

/// Definition 16's phase formulas, read by the property front-end as a
/// property's state formulas are: `starting` (the agents' first round) and
/// `mode_E = 0` (the environment has not chosen its mode yet); `scope`'s
/// refs gain the variables they read.
fn phase_formulas(scope: &GlobalScope) -> LangResult<[TExpr; 2]> {
    let formula = |text: &str| {
        let source = Source::new("<Definition 16>", text);
        state_formula(&mut Parser::new(&source)?, scope)
    };
    Ok([formula("starting")?, formula("mode_E = 0")?])
}

/// Reads slots `< LABEL_BASE` from the observed variables and the others from labels.
pub struct ObsEnv<'a> {
    pub vars: &'a [f64],
    pub labels: &'a [f64],
}

impl crate::lang::EnvF64 for ObsEnv<'_> {
    fn var(&self, slot: usize) -> f64 {
        if slot >= LABEL_BASE {
            self.labels[slot - LABEL_BASE]
        } else {
            self.vars[slot]
        }
    }
}
