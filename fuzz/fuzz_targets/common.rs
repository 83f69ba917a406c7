//! What every target checks, over the fixed models of the repository. Also
//! compiled into `tests/mutated_corpus.rs`, so that the stable `cargo test`
//! builds and runs it.

use mavis::parsers::{read, Context, Format};
use std::path::{Path, PathBuf};

/// The checkout: this crate's parent, or the root crate itself when the file
/// is compiled into the root's tests.
fn checkout() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    if dir.ends_with("fuzz") {
        dir.parent().unwrap_or(dir).to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

thread_local! {
    static CONTEXT: Context = Context::new(&checkout())
        .expect("run from a checkout: the example models load");
}

/// Reads `data` as `format`; panics (a finding) if a refusal of a format
/// with lines does not say where. Returns whether the input was accepted.
pub fn check(format: Format, data: &[u8]) -> bool {
    CONTEXT.with(|ctx| match read(ctx, format, data) {
        Ok(()) => true,
        Err(refusal) => {
            assert!(
                !format.has_lines() || refusal.is_located(),
                "refused without a place: {}",
                refusal.message
            );
            false
        }
    })
}
