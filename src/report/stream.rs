//! Writing to stderr without panicking on a closed or full stream.

/// Writes one line to stderr. A stderr that is closed or full (`2>&-`,
/// `2>/dev/full`) loses the line instead of panicking as `eprintln!` does,
/// which turned exit 2 into exit 101.
pub fn err_line(text: &str) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{text}").and_then(|()| stderr.flush());
}
