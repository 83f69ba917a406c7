//! What every run is told by the global options, engine-neutral.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// Global settings of one run.
#[derive(Clone, Debug)]
pub struct RunContext {
    pub format: Format,
    /// Worker threads engines may use (HiGHS, parallel search).
    pub threads: usize,
    pub timeout: Option<Duration>,
    /// -1 quiet, 0 normal, >0 verbose.
    pub verbosity: i8,
    started: Instant,
}

impl Default for RunContext {
    fn default() -> Self {
        RunContext::new(Format::Text, 1, None, 0)
    }
}

impl RunContext {
    pub fn new(format: Format, threads: usize, timeout: Option<Duration>, verbosity: i8) -> Self {
        RunContext {
            format,
            threads: threads.max(1),
            timeout,
            verbosity,
            started: Instant::now(),
        }
    }

    pub fn quiet(&self) -> bool {
        self.verbosity < 0
    }

    pub fn verbose(&self) -> bool {
        self.verbosity > 0
    }

    /// Time left before `--timeout`, or `None` when there is no limit.
    pub fn remaining(&self) -> Option<Duration> {
        self.timeout
            .map(|t| t.saturating_sub(self.started.elapsed()))
    }

    pub fn timed_out(&self) -> bool {
        self.remaining().is_some_and(|r| r.is_zero())
    }

    /// A progress bar on stderr, shown only when stderr is a terminal, and
    /// never under `--format json` unless `-v`.
    pub fn progress(&self, len: u64, message: &str) -> ProgressBar {
        let visible = std::io::stderr().is_terminal()
            && !self.quiet()
            && (self.format == Format::Text || self.verbose());
        if !visible {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(len);
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message(message.to_string());
        bar
    }

    /// A line on stderr under `-v`.
    pub fn note(&self, message: impl AsRef<str>) {
        if self.verbose() {
            super::err_line(message.as_ref());
        }
    }
}
