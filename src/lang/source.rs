//! Model text with its file name, and byte spans into it.

use std::sync::Arc;

/// The largest input file mavis reads (models, networks, strategies,
/// properties, CSV inputs): 256 MiB. Reading stops one byte past it, so
/// `/dev/zero` or an endless FIFO is refused instead of filling the memory.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Reads a whole file, refusing one longer than [`MAX_INPUT_BYTES`] with an
/// error that names the limit (the caller adds the path). A FIFO (a named
/// pipe, or `/dev/stdin` fed by a pipe) is read from whoever is writing to
/// it when it is opened, once per run (see `read_fifo_once`); one with no
/// writer is refused instead of waiting forever on `open` (see `open_fifo`).
pub fn read_capped(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    if is_fifo(path) {
        return read_fifo_once(path);
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    too_long(bytes)
}

fn too_long(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::other(format!(
            "the file is larger than the input limit of {} MiB",
            MAX_INPUT_BYTES >> 20
        )));
    }
    Ok(bytes)
}

#[cfg(unix)]
fn is_fifo(path: &std::path::Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

#[cfg(not(unix))]
fn is_fifo(_: &std::path::Path) -> bool {
    false
}

/// A FIFO's contents, by path, once read: a FIFO can be read only once,
/// and mavis reads an input file more than once (the report's sha256 of the
/// model, then the parser), so the later reads get the same bytes.
fn read_fifo_once(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static READ: OnceLock<Mutex<HashMap<std::path::PathBuf, Vec<u8>>>> = OnceLock::new();
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut read = READ
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(bytes) = read.get(&key) {
        return Ok(bytes.clone());
    }
    let bytes = read_fifo(path)?;
    read.insert(key, bytes.clone());
    Ok(bytes)
}

/// How long [`read_fifo`] sleeps when the writer has sent nothing new yet.
#[cfg(unix)]
const FIFO_POLL: std::time::Duration = std::time::Duration::from_millis(2);

/// Opens a FIFO without blocking: a plain `open` of a FIFO waits until some
/// process opens it for writing, possibly forever, and nothing can
/// interrupt it.
#[cfg(unix)]
fn open_fifo(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Reads a FIFO opened by [`open_fifo`] to its end. While a writer holds it
/// open, a read with no data yet says "would block", and the loop waits
/// (the run's deadline still bounds it); the end is a read of 0 bytes, which
/// is also what a FIFO with no writer at all gives at once. A FIFO that
/// gave nothing is refused: nobody wrote to it.
#[cfg(unix)]
fn read_fifo(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::{ErrorKind, Read};
    let mut file = open_fifo(path)?;
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                bytes.extend_from_slice(&chunk[..n]);
                if bytes.len() as u64 > MAX_INPUT_BYTES {
                    break;
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::sleep(FIFO_POLL),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if bytes.is_empty() {
        return Err(std::io::Error::other(
            "it is a FIFO (named pipe) and nothing was written to it: no process had it open for writing (start the writer first, or give a regular file)",
        ));
    }
    too_long(bytes)
}

#[cfg(not(unix))]
fn read_fifo(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    too_long(std::fs::read(path)?)
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
