//! Tokens of the shared model language. Engines share one lexer; their own
//! keywords (`module`, `agent`, `net`, ...) are contextual identifiers, so a
//! variable may still be called `agent` where an engine does not expect it.

use super::diag::{error_at, LangResult};
use super::source::{Source, Span};
use logos::Logos;

/// One token kind. Text is recovered from the span.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Tok {
    /// A block comment `/* ... */` (not nested): skipped by its callback, so
    /// it never reaches the parser; an unterminated one is a lexing error.
    #[token("/*", skip_block_comment)]
    BlockComment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    /// Integer or decimal literal, optionally with an exponent; read exactly.
    #[regex(r"[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")]
    Number,
    #[regex(r#""([^"\\\n]|\\.)*""#)]
    Str,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token(":=")]
    Assign,
    #[token("..")]
    DotDot,
    #[token(".")]
    Dot,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("^")]
    Caret,
    #[token("=")]
    Eq,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("&")]
    #[token("&&")]
    And,
    #[token("|")]
    #[token("||")]
    Or,
    #[token("!")]
    Not,
    #[token("=>")]
    Implies,
    #[token("<=>")]
    Iff,
    #[token("->")]
    Arrow,
    #[token("'")]
    Prime,
    #[token("?")]
    Question,
    #[token("@")]
    At,
    #[token("#")]
    Hash,
    /// End of input; always the last token.
    Eof,
}

impl Tok {
    /// How the token reads in "expected ..." messages.
    pub fn describe(self) -> &'static str {
        match self {
            Tok::Ident => "an identifier",
            Tok::Number => "a number",
            Tok::Str => "a string",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::Comma => "`,`",
            Tok::Semi => "`;`",
            Tok::Colon => "`:`",
            Tok::Assign => "`:=`",
            Tok::DotDot => "`..`",
            Tok::Dot => "`.`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Star => "`*`",
            Tok::Slash => "`/`",
            Tok::Caret => "`^`",
            Tok::Eq => "`=`",
            Tok::EqEq => "`==`",
            Tok::Ne => "`!=`",
            Tok::Lt => "`<`",
            Tok::Le => "`<=`",
            Tok::Gt => "`>`",
            Tok::Ge => "`>=`",
            Tok::And => "`&`",
            Tok::Or => "`|`",
            Tok::Not => "`!`",
            Tok::Implies => "`=>`",
            Tok::Iff => "`<=>`",
            Tok::Arrow => "`->`",
            Tok::Prime => "`'`",
            Tok::Question => "`?`",
            Tok::At => "`@`",
            Tok::Hash => "`#`",
            Tok::BlockComment => "a comment",
            Tok::Eof => "the end of the file",
        }
    }
}

/// Skips to the end of a block comment. A callback instead of a regex: the
/// regex form `/\*([^*]|\*+[^*/])*\*+/` was never matched by logos's
/// automaton, so every block comment was reported as unterminated.
fn skip_block_comment(lex: &mut logos::Lexer<Tok>) -> logos::FilterResult<(), ()> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            logos::FilterResult::Skip
        }
        None => {
            lex.bump(lex.remainder().len());
            logos::FilterResult::Error(())
        }
    }
}

/// A token with its place in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub span: Span,
}

/// Splits a whole source into tokens, ending with [`Tok::Eof`].
pub fn lex(source: &Source) -> LangResult<Vec<Token>> {
    let text = source.text();
    let mut lexer = Tok::lexer(text);
    let mut out = Vec::new();
    while let Some(next) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(range.start, range.end);
        match next {
            Ok(kind) => out.push(Token { kind, span }),
            Err(()) => {
                let bad = source.slice(span);
                let message = if bad.starts_with("/*") {
                    "unterminated block comment".to_string()
                } else if bad.starts_with('"') {
                    "unterminated string".to_string()
                } else {
                    format!(
                        "unexpected character `{}`",
                        bad.chars().next().unwrap_or('?')
                    )
                };
                return Err(error_at(source, span, message));
            }
        }
    }
    out.push(Token {
        kind: Tok::Eof,
        span: Span::new(text.len(), text.len()),
    });
    Ok(out)
}
