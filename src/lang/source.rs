//! Model text with its file name, and byte spans into it.

use std::sync::Arc;

/// The largest input file mavis reads (models, networks, strategies,
/// properties, CSV inputs): 256 MiB. Reading stops one byte past it, so
/// `/dev/zero` or an endless FIFO is refused instead of filling the memory.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Reads a whole file, refusing one longer than [`MAX_INPUT_BYTES`] with an
/// error that names the limit (the caller adds the path).
pub fn read_capped(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::other(format!(
            "the file is larger than the input limit of {} MiB",
            MAX_INPUT_BYTES >> 20
        )));
    }
    Ok(bytes)
}

/// A half-open byte range `[start, end)` into a [`Source`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The text of one model file. Cheap to clone: diagnostics keep a handle to it.
#[derive(Clone, Debug)]
pub struct Source {
    name: Arc<str>,
    text: Arc<String>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source {
            name: Arc::from(name.into()),
            text: Arc::new(text.into()),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn shared_text(&self) -> Arc<String> {
        self.text.clone()
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(&self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }

    pub fn slice(&self, span: Span) -> &str {
        let start = floor_char_boundary(&self.text, span.start);
        let end = floor_char_boundary(&self.text, span.end.max(start));
        &self.text[start..end]
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
