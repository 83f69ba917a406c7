//! Diagnostics: every error about a model names the file, line and column,
//! shows the line with a caret, and says what was expected.

use super::source::{Source, Span};
use miette::{Diagnostic, NamedSource, SourceSpan};
use std::sync::Arc;

/// An error located in a model text. Rendered by miette with the offending line.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{location}: {message}")]
pub struct SourceError {
    /// `file:line:col`, also part of the one-line message so logs stay useful.
    pub location: String,
    pub message: String,
    #[source_code]
    src: NamedSource<Arc<String>>,
    #[label("{label}")]
    span: SourceSpan,
    label: String,
    #[help]
    help: Option<String>,
    /// 1-based line and column, for JSON reports and tests.
    pub line: usize,
    pub column: usize,
}

impl SourceError {
    pub fn new(source: &Source, span: Span, message: impl Into<String>) -> Self {
        let (line, column) = source.line_col(span.start);
        let text_len = source.text().len();
        let start = span.start.min(text_len);
        let len = span.end.min(text_len).saturating_sub(start);
        SourceError {
            location: format!("{}:{}:{}", source.name(), line, column),
            message: message.into(),
            src: NamedSource::new(source.name(), source.shared_text()),
            span: SourceSpan::new(start.into(), len),
            label: "here".to_string(),
            help: None,
            line,
            column,
        }
    }

    /// The short text under the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The same error shown against `original`, for an error found in
    /// `rewritten`, a same-length rewrite of it (e.g. quoted labels turned
    /// into identifiers): the user sees their own text, and any quotation of
    /// the rewritten words in the message is put back as they wrote it.
    pub fn rebased(self, original: &Source, rewritten: &Source) -> Self {
        let start = self.span.offset();
        let span = Span::new(start, start + self.span.len());
        let mut message = self.message.clone();
        let (was, is) = (rewritten.slice(span), original.slice(span));
        if !was.is_empty() && was != is {
            message = message.replace(was, is);
        }
        let mut e = SourceError::new(original, span, message).with_label(self.label);
        e.help = self.help;
        e
    }
}

/// Result of anything that reads model text.
pub type LangResult<T> = Result<T, Box<SourceError>>;

/// Shorthand for an error at a span.
pub fn error_at(source: &Source, span: Span, message: impl Into<String>) -> Box<SourceError> {
    Box::new(SourceError::new(source, span, message))
}
