//! What every run is told by the global options, engine-neutral.

use super::deadline::Deadline;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
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
    started: Instant,
    /// The spinner naming the current stage on a terminal (see [`RunContext::stage`]).
    spinner: Arc<Mutex<Option<ProgressBar>>>,
    /// Meters drawn as bars now ([`RunContext::meter`]): the spinner waits.
    bars: Arc<std::sync::atomic::AtomicUsize>,
    /// `--timeout`, counted from the start of the run.
    deadline: Deadline,
    /// What a verb has found so far (a report, `RunContext::publish` in
    /// the parent module), for the run to report if the verb does not stop
    /// by itself at the deadline.
    pub(super) partial: Arc<Mutex<Option<Box<dyn std::any::Any + Send>>>>,
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
            started: Instant::now(),
            spinner: Arc::new(Mutex::new(None)),
            bars: Arc::default(),
            deadline: Deadline::starting_at(start, timeout),
            partial: Arc::new(Mutex::new(None)),
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

    /// Whether bars and spinners are drawn: stderr is a terminal, not `-q`,
    /// and not `--format json` unless `-v`.
    fn draws_bars(&self) -> bool {
        std::io::stderr().is_terminal()
            && !self.quiet()
            && (self.format == Format::Text || self.verbose())
    }

    /// `len` steps of `stage` counted in `unit`s, shown by a meter
    /// ([`RunContext::meter`]: a bar on a terminal; under `-v` lines with the
    /// steps done of `len` and their rate while it runs); under `-v` it
    /// also prints a line when it finishes, and under `-vv` a line per
    /// step, so logs show progress too.
    pub fn progress(&self, len: u64, stage: &str, unit: &'static str) -> Progress {
        let guard = self.meter(super::meter::Counting {
            label: stage.to_string(),
            unit,
            level: None,
            total: Some(len),
        });
        Progress {
            meter: guard.meter(),
            guard: Some(guard),
            label: format!("{stage}: {unit}"),
            len,
            done: 0,
            verbosity: self.verbosity,
            started: Instant::now(),
        }
    }

    /// Announces a stage of a long run: a line on stderr under `-v` (with the
    /// time since the run started), a spinner naming the stage on a terminal
    /// otherwise, nothing under `-q`. The spinner shows the latest stage
    /// until [`RunContext::finish_stages`] (called before any output).
    pub fn stage(&self, what: impl AsRef<str>) {
        let what = what.as_ref();
        if self.verbose() {
            eprintln!("[{:8.3} s] {what}", self.started.elapsed().as_secs_f64());
            return;
        }
        if !self.draws_bars() || self.bars.load(std::sync::atomic::Ordering::Relaxed) > 0 {
            return;
        }
        let mut spinner = self.spinner.lock().unwrap_or_else(|e| e.into_inner());
        let bar = spinner.get_or_insert_with(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                    .expect("valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        bar.set_message(what.to_string());
    }

    /// Removes the stage spinner (before the report is printed).
    pub fn finish_stages(&self) {
        let mut spinner = self.spinner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bar) = spinner.take() {
            bar.finish_and_clear();
        }
    }

    /// The meter of a long stage (see [`super::meter`]): lines under `-v`,
    /// a bar or counter on a terminal, nothing otherwise (nor under `-q`).
    /// The stage spinner is cleared first, so that the two do not fight.
    pub fn meter(&self, what: super::meter::Counting) -> super::meter::MeterGuard {
        use super::meter::MeterGuard;
        use super::meter::Show;
        let deadline = self.deadline();
        if self.verbose() {
            return MeterGuard::start_until(what, Some(Show::Lines), deadline);
        }
        if !self.draws_bars() {
            return MeterGuard::start(what, None);
        }
        self.finish_stages();
        MeterGuard::start_until(what, Some(Show::Bar), deadline).counted_in(&self.bars)
    }

    /// A meter shown only as lines under `-v` (see [`super::meter`]), for
    /// counts that span stages whose spinner stays on a terminal (a
    /// verb's MILPs).
    pub fn meter_lines(&self, what: super::meter::Counting) -> super::meter::MeterGuard {
        let show = self.verbose().then_some(super::meter::Show::Lines);
        super::meter::MeterGuard::start_until(what, show, self.deadline())
    }

    /// A line on stderr under `-v`.
    pub fn note(&self, message: impl AsRef<str>) {
        if self.verbose() {
            super::stream::err_line(message.as_ref());
        }
    }
}

/// A bar over a known number of steps (see [`RunContext::progress`]).
pub struct Progress {
    guard: Option<super::meter::MeterGuard>,
    meter: super::meter::Meter,
    label: String,
    len: u64,
    done: u64,
    verbosity: i8,
    started: Instant,
}

impl Progress {
    /// One more step done.
    pub fn inc(&mut self, steps: u64) {
        self.done += steps;
        self.meter.add(steps);
        if self.verbosity >= 2 {
            eprintln!("{}: {}/{}", self.label, self.done, self.len);
        }
    }

    /// Clears the bar; under `-v` prints how many steps took how long.
    pub fn finish_and_clear(&mut self) {
        drop(self.guard.take());
        if self.verbosity >= 1 {
            eprintln!(
                "{}: {}/{} done in {:.3} s",
                self.label,
                self.done,
                self.len,
                self.started.elapsed().as_secs_f64()
            );
        }
    }
}
