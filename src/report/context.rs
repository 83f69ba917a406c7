//! What every run is told by the global options, engine-neutral.

use super::deadline::Deadline;
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
    /// -1 quiet, 0 normal, >0 verbose.
    pub verbosity: i8,
    /// `--timeout`, counted from the start of the run.
    deadline: Deadline,
}

impl Default for RunContext {
    fn default() -> Self {
        RunContext::new(Format::Text, 1, None, 0)
    }
}

impl RunContext {
    /// A context whose `timeout` counts from now.
    pub fn new(format: Format, threads: usize, timeout: Option<Duration>, verbosity: i8) -> Self {
        RunContext::started_at(Instant::now(), format, threads, timeout, verbosity)
    }

    /// A context whose `timeout` counts from `start` (the start of the process).
    pub fn started_at(
        start: Instant,
        format: Format,
        threads: usize,
        timeout: Option<Duration>,
        verbosity: i8,
    ) -> Self {
        RunContext {
            format,
            threads: threads.max(1),
            verbosity,
            deadline: Deadline::starting_at(start, timeout),
        }
    }

    /// The run's one deadline: pass it to every long loop and solver.
    pub fn deadline(&self) -> Deadline {
        self.deadline
    }

    /// `--timeout`, if given.
    pub fn timeout(&self) -> Option<Duration> {
        self.deadline.limit()
    }

    pub fn quiet(&self) -> bool {
        self.verbosity < 0
    }

    pub fn verbose(&self) -> bool {
        self.verbosity > 0
    }

    /// Time left before `--timeout`, or `None` when there is no limit.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline.remaining()
    }

    /// Whether the deadline has passed.
    pub fn timed_out(&self) -> bool {
        self.deadline.expired()
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
            eprintln!("{}", message.as_ref());
        }
    }
}
