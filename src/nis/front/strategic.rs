//! Strategic sentences (ATL over named agents, as VENMAS checks them):
//! `<<G>> X^k phi`, the coalition G of named agents has a strategy such
//! that whatever the other named agents and the environment do (and
//! whichever percept an argmax tie gives), phi holds after k rounds; and
//! its dual `[[G]] X^k phi`, whatever G does, the others can make phi hold
//! after k rounds. phi is propositional over environment labels. With
//! perfect information both unfold one round at a time:
//! `<<G>> X^k phi = <<G>> X <<G>> X^(k-1) phi`, and
//! `[[G]] X^k phi = !<<G>> X^k !phi`.

use super::model::Model;
use crate::lang::lexer::Tok;
use crate::lang::{error_at, LangResult, Parser, Source, Span};

/// The strategic operator in front of a sentence's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// The coalition's named agents as written (empty: no agent).
    pub coalition: Vec<(String, Span)>,
    /// `<<G>>` (G can enforce the body) rather than `[[G]]` (G cannot avoid it).
    pub can: bool,
    /// k of `X^k`.
    pub steps: u32,
}

/// Parses `<<a, b>> X^k` or `[[a, b]] X^k` when the sentence starts with
/// one (`None` otherwise); the body follows.
pub fn parse_header(p: &mut Parser) -> LangResult<Option<Strategy>> {
    let (open, close) = match (p.peek(), p.peek2()) {
        (Tok::Lt, Tok::Lt) => (Tok::Lt, Tok::Gt),
        (Tok::LBracket, Tok::LBracket) => (Tok::LBracket, Tok::RBracket),
        _ => return Ok(None),
    };
    p.bump();
    p.bump();
    let mut coalition: Vec<(String, Span)> = Vec::new();
    if p.peek() != close {
        loop {
            let (name, span) = p.ident()?;
            if coalition.iter().any(|(n, _)| *n == name) {
                return Err(p.error(span, format!("`{name}` is named twice in the coalition")));
            }
            coalition.push((name, span));
            if !p.eat(Tok::Comma) {
                break;
            }
        }
    }
    p.expect(close)?;
    p.expect(close)?;
    p.expect_keyword("X")?;
    let steps = if p.eat(Tok::Caret) {
        let braced = p.eat(Tok::LBrace);
        let t = p.expect(Tok::Number)?;
        let text = p.source().slice(t.span).to_string();
        let k = text
            .parse::<u32>()
            .ok()
            .filter(|k| *k <= MAX_STRATEGIC_STEPS)
            .ok_or_else(|| {
                p.error(
                    t.span,
                    format!("`{text}` is not a number of steps (0..{MAX_STRATEGIC_STEPS})"),
                )
            })?;
        if braced {
            p.expect(Tok::RBrace)?;
        }
        k
    } else {
        1
    };
    Ok(Some(Strategy {
        coalition,
        can: open == Tok::Lt,
        steps,
    }))
}

/// The most rounds a strategic sentence may name: its tree of the others'
/// choices grows exponentially with them.
pub const MAX_STRATEGIC_STEPS: u32 = 64;

impl Strategy {
    /// The coalition as named-agent indices of `model`; an unknown name is
    /// a located error in the sentence's `source`.
    pub fn resolve(&self, source: &Source, model: &Model) -> LangResult<Vec<usize>> {
        let mut out = Vec::with_capacity(self.coalition.len());
        for (name, span) in &self.coalition {
            match model.named.iter().position(|a| a.name == *name) {
                Some(j) => out.push(j),
                None => {
                    let known: Vec<&str> = model.named.iter().map(|a| a.name.as_str()).collect();
                    let have = if known.is_empty() {
                        "the model declares no named agents".to_string()
                    } else {
                        format!("the model's named agents: {}", known.join(", "))
                    };
                    return Err(error_at(
                        source,
                        *span,
                        format!("`{name}` is not a named agent ({have})"),
                    ));
                }
            }
        }
        Ok(out)
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.coalition.iter().map(|(n, _)| n.as_str()).collect();
        let (open, close) = if self.can { ("<<", ">>") } else { ("[[", "]]") };
        write!(f, "{open}{}{close} X", names.join(", "))?;
        if self.steps != 1 {
            write!(f, "^{}", self.steps)?;
        }
        Ok(())
    }
}
