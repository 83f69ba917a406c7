//! Network and property files as VNN-COMP ships them since 2022: gzip
//! compressed (`net.onnx.gz`, `prop.vnnlib.gz`), read as if decompressed.
//!
//! A file is taken as gzip by its first two bytes (the magic `1f 8b`), not by
//! its name: neither an ONNX protobuf (whose first byte is a field tag, and
//! `0x1f` would be wire type 7, which does not exist) nor VNN-LIB text can
//! start with them, so a plain file is never mistaken for a compressed one.

use crate::lang::source::{read_capped, MAX_INPUT_BYTES};
use std::io::Read;
use std::path::Path;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The bytes of a file, decompressed when it is gzip. Both the file and its
/// decompressed contents are capped at [`MAX_INPUT_BYTES`], so a small file
/// that inflates without end is refused as a large one is.
pub fn read_maybe_gzip(path: &Path) -> std::io::Result<Vec<u8>> {
    let bytes = read_capped(path)?;
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(bytes);
    }
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut plain)
        .map_err(|e| std::io::Error::other(format!("gzip: cannot decompress: {e}")))?;
    if plain.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::other(format!(
            "gzip: the decompressed file is larger than the input limit of {} MiB",
            MAX_INPUT_BYTES >> 20
        )));
    }
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn reads_plain_and_gzip_files_alike() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"(declare-const X_0 Real)\n".repeat(50);
        let plain = dir.path().join("p.vnnlib");
        let packed = dir.path().join("p.vnnlib.gz");
        std::fs::write(&plain, &text).unwrap();
        std::fs::write(&packed, gzip(&text)).unwrap();
        assert_ne!(std::fs::read(&packed).unwrap(), text);
        assert_eq!(read_maybe_gzip(&plain).unwrap(), text);
        assert_eq!(read_maybe_gzip(&packed).unwrap(), text);
    }

    #[test]
    fn a_truncated_gzip_file_is_an_error_that_says_gzip() {
        let dir = tempfile::tempdir().unwrap();
        let packed = gzip(&b"0123456789".repeat(1000));
        let cut = dir.path().join("cut.onnx.gz");
        std::fs::write(&cut, &packed[..packed.len() / 2]).unwrap();
        let err = read_maybe_gzip(&cut).unwrap_err().to_string();
        assert!(err.starts_with("gzip: cannot decompress"), "{err}");
    }
}
