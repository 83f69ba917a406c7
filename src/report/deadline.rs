//! One deadline per run: `--timeout T` bounds the whole run, measured from
//! the start of the process, whatever the verb. Engines carry a [`Deadline`]
//! and check it in their long loops; a solver is given what is left
//! ([`Deadline::remaining`]), never the whole budget again.

use std::fmt;
use std::time::{Duration, Instant};

/// The longest `--timeout` accepted, in seconds (about 31.7 years): longer
/// limits cannot be told from no limit, and `Instant + Duration` must not
/// overflow.
pub const MAX_TIMEOUT_S: f64 = 1e9;

/// When the run must end, or never. Cheap to copy and to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Deadline {
    /// The instant of expiry and the limit it was computed from.
    end: Option<(Instant, Duration)>,
}

impl Deadline {
    /// No limit.
    pub const NONE: Deadline = Deadline { end: None };

    /// `limit` after `start` (`None`: no limit). A limit too large for the
    /// clock is no limit.
    pub fn starting_at(start: Instant, limit: Option<Duration>) -> Self {
        Deadline {
            end: limit.and_then(|l| start.checked_add(l).map(|at| (at, l))),
        }
    }

    /// `limit` from now.
    pub fn after(limit: Duration) -> Self {
        Deadline::starting_at(Instant::now(), Some(limit))
    }

    /// The `--timeout` this deadline was made from.
    pub fn limit(&self) -> Option<Duration> {
        self.end.map(|(_, l)| l)
    }

    /// The instant of expiry.
    pub fn at(&self) -> Option<Instant> {
        self.end.map(|(at, _)| at)
    }

    /// Time left (zero once expired), or `None` when there is no limit.
    pub fn remaining(&self) -> Option<Duration> {
        self.end
            .map(|(at, _)| at.saturating_duration_since(Instant::now()))
    }

    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.end.is_some_and(|(at, _)| Instant::now() >= at)
    }

    /// `Err` once the deadline has passed, for `?` in long loops.
    pub fn check(&self) -> Result<(), Expired> {
        match self.end {
            Some((at, limit)) if Instant::now() >= at => Err(Expired { limit }),
            _ => Ok(()),
        }
    }

    /// The error of an expired deadline (for solvers that stopped on their
    /// own time limit); `None` while time is left or without a limit.
    pub fn expiry(&self) -> Option<Expired> {
        self.check().err()
    }
}

/// Frees `stores` on a thread of its own. A search cut by the deadline
/// holds up to millions of heap blocks, and freeing them on the verb's
/// thread takes, on a loaded machine, longer than the grace a run gives its
/// verb to report after the deadline: the report it had was then lost
/// (issue 33, items 5 and 6). Without a thread they are freed here.
pub fn free_in_background<T: Send + 'static>(stores: T) {
    let _ = std::thread::Builder::new()
        .name("free".into())
        .spawn(move || drop(stores));
}

/// The deadline passed: the run stops with verdict unknown (exit 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expired {
    /// The `--timeout` that was reached.
    pub limit: Duration,
}

impl fmt::Display for Expired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the time-out of {} s was reached",
            self.limit.as_secs_f64()
        )
    }
}

impl std::error::Error for Expired {}

/// Reads a `--timeout` value: a positive, finite number of seconds, at most
/// [`MAX_TIMEOUT_S`].
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !(v.is_finite() && v > 0.0) {
        return Err(format!(
            "the time-out must be a positive number of seconds, found `{s}`"
        ));
    }
    if v > MAX_TIMEOUT_S {
        return Err(format!(
            "the time-out {s} s is longer than the longest accepted, {MAX_TIMEOUT_S:e} s (leave --timeout out for no limit)"
        ));
    }
    Ok(Duration::from_secs_f64(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_limit_never_expires() {
        assert_eq!(Deadline::NONE.remaining(), None);
        assert!(!Deadline::NONE.expired());
        assert!(Deadline::NONE.check().is_ok());
        assert_eq!(Deadline::starting_at(Instant::now(), None), Deadline::NONE);
    }

    #[test]
    fn the_clock_counts_from_the_start_not_from_each_use() {
        let start = Instant::now() - Duration::from_secs(10);
        let d = Deadline::starting_at(start, Some(Duration::from_secs(4)));
        assert!(d.expired());
        assert_eq!(d.remaining(), Some(Duration::ZERO));
        let e = d.check().unwrap_err();
        assert_eq!(e.to_string(), "the time-out of 4 s was reached");
        let later = Deadline::starting_at(start, Some(Duration::from_secs(3600)));
        let left = later.remaining().unwrap();
        assert!(left <= Duration::from_secs(3590) && left > Duration::from_secs(3500));
        assert!(later.check().is_ok());
    }

    #[test]
    fn timeouts_are_checked_when_read() {
        assert_eq!(parse_timeout("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_timeout("1e9"), Ok(Duration::from_secs(1_000_000_000)));
        for bad in ["0", "-1", "NaN", "nan", "inf", "-inf", "1e19", "abc", ""] {
            assert!(parse_timeout(bad).is_err(), "{bad} accepted");
        }
        assert!(parse_timeout("1e19")
            .unwrap_err()
            .contains("longest accepted"));
    }
}
