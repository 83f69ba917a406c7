//! Output files. Every file a verb writes (`-o`, `--out`, plots, exports,
//! shard parts) is written to a temporary file in the same folder and
//! renamed onto its name only when it is complete, so that a run killed,
//! stopped or out of disk space never leaves a truncated file under the
//! name (a truncated PRISM export can be a valid model with fewer agents);
//! the temporary file of a failed write is removed. Where the output will
//! go is checked before the run ([`writable`]), so that a mistyped folder
//! does not waste it.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Temporary files of this process so far (their names must differ).
static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// The temporary name for `path`: hidden, in the same folder (a rename
/// within one file system is atomic), ending in the file's own name so
/// that writers which pick a format by the extension (PNG) still do.
pub fn temporary_for(path: &Path) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".mavis-tmp-{}-{n}-{name}", std::process::id()))
}

/// A file being written: bytes go to a temporary file that [`commit`]
/// renames onto the name; dropped without a commit, it is removed.
///
/// [`commit`]: AtomicFile::commit
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicFile {
    pub fn create(path: &Path) -> io::Result<Self> {
        let tmp = temporary_for(path);
        let file = File::create(&tmp)?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            file: Some(BufWriter::new(file)),
        })
    }

    /// The final name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the bytes to the disk and gives the file its name.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("committed once");
        let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("the file was committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// An output file that could not be written: an input error of the run
/// (exit 2; `From` makes it a `RunError`).
#[derive(Debug)]
pub struct WriteError(pub String);

/// The error of an output file that could not be written.
pub fn cannot_write(path: &Path, e: impl std::fmt::Display) -> WriteError {
    WriteError(format!("cannot write {}: {e}", path.display()))
}

/// Writes `bytes` to `path` whole, or leaves no file there (exit 2 naming
/// the file when the write fails, e.g. on a full disk).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let mut f = AtomicFile::create(path).map_err(|e| cannot_write(path, e))?;
    f.write_all(bytes).map_err(|e| cannot_write(path, e))?;
    f.commit().map_err(|e| cannot_write(path, e))
}

/// Lets `make` write a file at a temporary path (a library that writes by
/// path, as the plotting one does), then renames it onto `path`; on an
/// error the temporary file is removed and the error names `path` (exit 2).
pub fn write_via<E: std::fmt::Display>(
    path: &Path,
    make: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), WriteError> {
    let tmp = temporary_for(path);
    let done = make(&tmp)
        .map_err(|e| cannot_write(path, e))
        .and_then(|()| {
            // Flushed by the writer; synced here so that the rename never
            // publishes a file the disk does not hold.
            File::open(&tmp)
                .and_then(|f| f.sync_all())
                .and_then(|()| std::fs::rename(&tmp, path))
                .map_err(|e| cannot_write(path, e))
        });
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// `path` as an output file, checked before the run: its folder exists
/// and a file can be created in it (a value parser for `-o FILE`).
pub fn writable(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    check_folder(&path)?;
    if path.is_dir() {
        return Err(format!("{text} is a folder"));
    }
    Ok(path)
}

/// `prefix` of output files `PREFIX.csv`, `PREFIX.svg`, ... checked as
/// [`writable`] checks a file (a value parser for `--out PREFIX`).
pub fn writable_prefix(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    check_folder(&path)?;
    Ok(path)
}

/// The folder of `path` exists and takes a new file.
fn check_folder(path: &Path) -> Result<(), String> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(format!("the folder {} does not exist", folder.display()));
    }
    let probe = temporary_for(&folder.join("probe"));
    match File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(format!("cannot create a file in {}: {e}", folder.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_file_appears_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"half").unwrap();
        f.flush().unwrap();
        // Written but not committed: nothing under the name.
        assert!(!path.exists());
        drop(f);
        assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
        write_file(&path, b"whole\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "whole\n");
        assert_eq!(names(dir.path()), vec!["out.txt"]);
    }

    #[test]
    fn a_failed_writer_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plot.png");
        let e = write_via(&path, |tmp| {
            assert!(tmp.to_string_lossy().ends_with("plot.png"));
            std::fs::write(tmp, b"partial").unwrap();
            Err("disk full")
        })
        .unwrap_err();
        assert!(format!("{e:?}").contains("plot.png"));
        assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
    }

    #[test]
    fn outputs_are_checked_before_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let ok = dir.path().join("t.txt");
        assert_eq!(writable(ok.to_str().unwrap()), Ok(ok.clone()));
        // The probe leaves nothing behind.
        assert!(names(dir.path()).is_empty());
        let missing = dir.path().join("no_such_folder/t.txt");
        let e = writable(missing.to_str().unwrap()).unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
        assert!(writable(dir.path().to_str().unwrap())
            .unwrap_err()
            .contains("is a folder"));
        assert!(writable("t.txt").is_ok());
    }
}
