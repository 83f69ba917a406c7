//! Reading model files into [`Source`]s: capped in size, and a file that is
//! not UTF-8 is a located error.

use super::diag::SourceError;
use super::source::{read_capped, Source, Span};

/// U+FEFF in UTF-8, which [`Source::from_bytes`] drops from the text.
pub const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

impl Source {
    /// Reads a text file of at most [`MAX_INPUT_BYTES`](super::source::MAX_INPUT_BYTES); the error names the
    /// path. A file that is not UTF-8 is an `InvalidData` error wrapping a
    /// [`SourceError`] at the first bad byte (line and
    /// column counted in the lossy text), so that callers can show where it is.
    pub fn read(path: &std::path::Path) -> std::io::Result<Self> {
        let bytes = read_capped(path)?;
        Source::from_bytes(path.display().to_string(), bytes)
    }

    /// A source from raw bytes, which must be UTF-8 (see [`Source::read`]).
    /// A leading byte-order mark, which some editors write, is dropped: it is
    /// not part of the text, and line and column count as the editor shows them.
    pub fn from_bytes(name: impl Into<String>, mut bytes: Vec<u8>) -> std::io::Result<Self> {
        let name = name.into();
        if bytes.starts_with(BYTE_ORDER_MARK) {
            bytes.drain(..BYTE_ORDER_MARK.len());
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Source::new(name, text)),
            Err(e) => {
                let bad = e.utf8_error();
                let at = bad.valid_up_to();
                let bytes = e.as_bytes();
                let byte = bytes[at];
                // In the lossy text the bytes before `at` are unchanged, so
                // `at` is still the offset of the replacement character.
                let lossy = Source::new(name, String::from_utf8_lossy(bytes).into_owned());
                let error = SourceError::new(
                    &lossy,
                    Span::new(at, at + char::REPLACEMENT_CHARACTER.len_utf8()),
                    format!("the file is not UTF-8 text: byte 0x{byte:02x} cannot appear here"),
                )
                .with_label("not UTF-8");
                Err(std::io::Error::new(std::io::ErrorKind::InvalidData, error))
            }
        }
    }
}
