//! Progress of a long stage, engine-neutral: a [`Meter`] is a count (states
//! explored, cells decided, ...) and a level (layers, sweeps, depth) that an
//! engine's loop raises; a thread of the meter's own shows them, so that a
//! loop pays one relaxed atomic store per step and never waits on a
//! terminal or a log. Under `-v` it prints a line on stderr within half a
//! second of the stage's start, then at growing intervals (at most every 10
//! s), each with the count, the rate and the level; on a terminal without
//! `-v` it draws a bar (a known total) or a counter (none). When the stage
//! ends ([`MeterGuard`] dropped) `-v` prints the totals, as "done" or, for
//! a stage the deadline cut, as "timed out": one that ends once the run's
//! deadline has passed ([`MeterGuard::start_until`]; the run's meters are
//! made so by [`super::RunContext::meter`]), or one its engine says was
//! cut ([`Meter::timed_out`]).

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// What an engine's loop holds: cheap to clone, a no-op when no one looks.
#[derive(Clone, Default)]
pub struct Meter {
    shared: Option<Arc<Shared>>,
}

impl std::fmt::Debug for Meter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.shared {
            Some(s) => write!(f, "Meter({})", s.what.label),
            None => write!(f, "Meter(none)"),
        }
    }
}

/// Two meters are equal when they are the same meter, or both read by no
/// one (options holding a meter keep their equality of values).
impl PartialEq for Meter {
    fn eq(&self, other: &Meter) -> bool {
        match (&self.shared, &other.shared) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// What a meter counts, for its lines: `label` names the stage
/// ("timed check: query `q`"), `unit` the count ("states"), `level` the
/// level's word ("layers"; `None`: no level), `total` the count's end.
#[derive(Clone, Debug)]
pub struct Counting {
    pub label: String,
    pub unit: &'static str,
    pub level: Option<&'static str>,
    pub total: Option<u64>,
}

struct Shared {
    what: Counting,
    count: AtomicU64,
    level: AtomicU64,
    started: Instant,
    /// Set when the stage ends; the condition variable wakes the thread.
    done: Mutex<bool>,
    wake: Condvar,
    printed: AtomicBool,
    /// The deadline cut the stage: its last line says so.
    timed_out: AtomicBool,
    /// How the meter shows itself (a nested meter shows itself alike).
    show: Show,
    /// The run's deadline: a stage that ends once it has passed was cut.
    deadline: super::Deadline,
}

impl Meter {
    /// A meter no one reads (tests, library calls).
    pub fn none() -> Meter {
        Meter { shared: None }
    }

    /// Sets the count (for loops that keep their own).
    #[inline]
    pub fn set(&self, count: u64) {
        if let Some(s) = &self.shared {
            s.count.store(count, Ordering::Relaxed);
        }
    }

    /// Adds to the count.
    #[inline]
    pub fn add(&self, steps: u64) {
        if let Some(s) = &self.shared {
            s.count.fetch_add(steps, Ordering::Relaxed);
        }
    }

    /// Sets the level (layers, sweeps, depth).
    #[inline]
    pub fn set_level(&self, level: u64) {
        if let Some(s) = &self.shared {
            s.level.store(level, Ordering::Relaxed);
        }
    }

    /// Adds to the level (a second count: branch-and-bound nodes beside
    /// the solves).
    #[inline]
    pub fn add_level(&self, steps: u64) {
        if let Some(s) = &self.shared {
            s.level.fetch_add(steps, Ordering::Relaxed);
        }
    }

    /// The deadline cut the stage: its last line says "timed out", not
    /// "done" (the count and level stay what was done).
    pub fn timed_out(&self) {
        if let Some(s) = &self.shared {
            s.timed_out.store(true, Ordering::Relaxed);
        }
    }

    /// Whether anyone reads this meter.
    pub fn is_live(&self) -> bool {
        self.shared.is_some()
    }

    /// The meter of a stage inside this one's (the exact solves of the
    /// property being checked): shown as lines under `-v` when this one
    /// is, else read by no one (a second bar would overwrite this one's).
    pub fn nested(&self, what: Counting) -> MeterGuard {
        let Some(s) = self.shared.as_ref().filter(|s| s.show == Show::Lines) else {
            return MeterGuard::start(what, None);
        };
        MeterGuard::start_until(what, Some(Show::Lines), s.deadline)
    }

    /// The count and the level so far (`None`: no one reads the meter).
    pub fn read(&self) -> Option<(u64, u64)> {
        self.shared.as_ref().map(|s| {
            (
                s.count.load(Ordering::Relaxed),
                s.level.load(Ordering::Relaxed),
            )
        })
    }

    /// Whether [`Meter::timed_out`] was called.
    pub fn was_cut(&self) -> bool {
        self.shared
            .as_ref()
            .is_some_and(|s| s.timed_out.load(Ordering::Relaxed))
    }
}

/// How a meter shows itself (from the run's options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// Lines on stderr (`-v`).
    Lines,
    /// A bar or counter on the terminal.
    Bar,
}

/// The stage's meter and the thread that shows it; dropping it ends the
/// stage (the bar is cleared; under `-v` a last line gives the totals).
pub struct MeterGuard {
    meter: Meter,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The run's count of bars drawn, lowered when this one goes (the stage
    /// spinner stays away while a bar is drawn).
    bars: Option<Arc<std::sync::atomic::AtomicUsize>>,
}

impl MeterGuard {
    /// A meter shown as `show` says (`None`: a meter no one reads).
    pub fn start(what: Counting, show: Option<Show>) -> MeterGuard {
        MeterGuard::start_until(what, show, super::Deadline::NONE)
    }

    /// [`MeterGuard::start`] for a stage of a run with `deadline`: if the
    /// stage ends once it has passed, the deadline cut it, and its last
    /// line says "timed out".
    pub fn start_until(
        what: Counting,
        show: Option<Show>,
        deadline: super::Deadline,
    ) -> MeterGuard {
        let Some(show) = show else {
            return MeterGuard {
                meter: Meter::none(),
                thread: None,
                bars: None,
            };
        };
        let shared = Arc::new(Shared {
            what,
            count: AtomicU64::new(0),
            level: AtomicU64::new(0),
            started: Instant::now(),
            done: Mutex::new(false),
            wake: Condvar::new(),
            printed: AtomicBool::new(false),
            timed_out: AtomicBool::new(false),
            show,
            deadline,
        });
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("mavis-meter".into())
            .spawn(move || match show {
                Show::Lines => lines(&s),
                Show::Bar => bar(&s),
            })
            .ok();
        MeterGuard {
            meter: Meter {
                shared: Some(shared),
            },
            thread,
            bars: None,
        }
    }

    /// Counts this meter's bar in `bars` while it is drawn.
    pub(super) fn counted_in(mut self, bars: &Arc<std::sync::atomic::AtomicUsize>) -> Self {
        bars.fetch_add(1, Ordering::Relaxed);
        self.bars = Some(bars.clone());
        self
    }

    /// The handle to give the engine's loop.
    pub fn meter(&self) -> Meter {
        self.meter.clone()
    }
}

impl Drop for MeterGuard {
    fn drop(&mut self) {
        if let Some(b) = self.bars.take() {
            b.fetch_sub(1, Ordering::Relaxed);
        }
        let Some(s) = &self.meter.shared else { return };
        if s.deadline.expired() {
            s.timed_out.store(true, Ordering::Relaxed);
        }
        *s.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        s.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Shared {
    /// Nothing counted yet and no total to count towards: a meter of work
    /// that may not come (the MILPs of a run the explicit decider takes)
    /// prints no line until it does.
    fn idle(&self) -> bool {
        self.what.total.is_none()
            && self.count.load(Ordering::Relaxed) == 0
            && self.level.load(Ordering::Relaxed) == 0
    }

    /// Waits `d` or until the stage ends; true when it ended.
    fn wait(&self, d: Duration) -> bool {
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let (done, _) = self
            .wake
            .wait_timeout_while(done, d, |done| !*done)
            .unwrap_or_else(|e| e.into_inner());
        *done
    }

    /// "12,345 states (6,789 states/s), 12 layers" or "cell 3 of 10 (...)".
    fn line(&self) -> String {
        let count = self.count.load(Ordering::Relaxed);
        let secs = self.started.elapsed().as_secs_f64();
        let rate = if secs > 0.0 { count as f64 / secs } else { 0.0 };
        let w = &self.what;
        let mut out = match w.total {
            Some(t) => format!("{} {count} of {t}", w.unit),
            None => format!("{} {}", grouped(count), w.unit),
        };
        out.push_str(&format!(" ({} {}/s", rate_text(rate), w.unit));
        if let Some(level) = w.level {
            let at = self.level.load(Ordering::Relaxed);
            out.push_str(&format!(", {level} {}", grouped(at)));
        }
        out.push(')');
        out
    }
}

/// Under `-v`: a line half a second into the stage, then at intervals of a
/// fifth of the time spent (1 to 10 s), and the totals at the end if a line
/// was printed or the stage took a second or more (no line while the meter
/// is idle: see [`Shared::idle`]).
fn lines(s: &Shared) {
    let mut wait = Duration::from_millis(500);
    loop {
        if s.wait(wait) {
            break;
        }
        if s.idle() {
            // Looked at again soon: the first line comes once work does.
            wait = Duration::from_millis(250);
            continue;
        }
        let elapsed = s.started.elapsed();
        wait = (elapsed / 5).clamp(Duration::from_secs(1), Duration::from_secs(10));
        eprintln!(
            "{}: {} [{:.1} s]",
            s.what.label,
            s.line(),
            elapsed.as_secs_f64()
        );
        s.printed.store(true, Ordering::Relaxed);
    }
    let elapsed = s.started.elapsed();
    let long = elapsed >= Duration::from_secs(1) && !s.idle();
    if s.printed.load(Ordering::Relaxed) || long {
        let end = if s.timed_out.load(Ordering::Relaxed) {
            "timed out"
        } else {
            "done"
        };
        eprintln!(
            "{}: {end}, {} [{:.3} s]",
            s.what.label,
            s.line(),
            elapsed.as_secs_f64()
        );
    }
}

/// On a terminal: a bar over the total, or a counter with its rate.
fn bar(s: &Shared) {
    let (bar, template) = match s.what.total {
        Some(t) => (
            ProgressBar::new(t),
            "{msg} [{bar:30}] {pos}/{len} ({per_sec}, {elapsed})",
        ),
        None => (
            ProgressBar::new_spinner(),
            "{spinner} {msg}: {human_pos} ({per_sec}, {elapsed})",
        ),
    };
    let template = format!(
        "{template}{}",
        if s.what.level.is_some() {
            " {prefix}"
        } else {
            ""
        }
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(s.what.label.clone());
    while !s.wait(Duration::from_millis(200)) {
        bar.set_position(s.count.load(Ordering::Relaxed));
        if let Some(level) = s.what.level {
            bar.set_prefix(format!("{level} {}", s.level.load(Ordering::Relaxed)));
        }
    }
    bar.finish_and_clear();
}

/// A rate: grouped digits from 100 on, else two decimals (cells of a table
/// may take seconds each).
fn rate_text(rate: f64) -> String {
    if rate >= 100.0 {
        grouped(rate.round() as u64)
    } else {
        format!("{rate:.2}")
    }
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1234567), "1,234,567");
    }

    #[test]
    fn a_line_has_the_count_its_rate_and_the_level() {
        let g = MeterGuard::start(
            Counting {
                label: "t".into(),
                unit: "states",
                level: Some("layers"),
                total: None,
            },
            Some(Show::Bar),
        );
        let m = g.meter();
        m.set(1500);
        m.add(500);
        m.set_level(7);
        let s = m.shared.as_ref().unwrap();
        let line = s.line();
        assert!(line.starts_with("2,000 states ("), "{line}");
        assert!(line.ends_with(" states/s, layers 7)"), "{line}");
        drop(g);
        // A meter no one reads takes every call and shows nothing.
        let none = Meter::none();
        none.add(1);
        assert!(!none.is_live());
    }
}
