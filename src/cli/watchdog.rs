//! The backstop of the deadline for the part of a run before the verb's own
//! thread starts: reading the command line. Option values such as `--set`
//! constants are parsed and evaluated there, and a constant can be a long
//! exact computation, so `--timeout` must bound that stage too.

use super::GRACE;
use crate::report::{self, parse_timeout, Format, Report, RunContext};
use std::time::{Duration, Instant};

/// Extra time past the verb's backstop, so that the verb's own report wins
/// when both are due.
const AFTER_VERB: Duration = Duration::from_millis(150);

/// The value of `--timeout` and whether `--format json` was asked, read from
/// the raw arguments (before clap, which may be the slow part).
fn prescan(args: &[String]) -> (Option<Duration>, bool) {
    let mut timeout = None;
    let mut json = false;
    for (i, a) in args.iter().enumerate() {
        let next = args.get(i + 1).map(String::as_str);
        let value = |flag: &str| match a.strip_prefix(&format!("{flag}=")) {
            Some(v) => Some(v),
            None if a == flag => next,
            None => None,
        };
        if let Some(v) = value("--timeout") {
            timeout = parse_timeout(v).ok();
        }
        if let Some(v) = value("--format") {
            json = v == "json";
        }
    }
    (timeout, json)
}

/// The engine and verb named on the command line (the first engine name
/// and the word after it), for the report; empty when there is none.
fn verb_names(args: &[String]) -> (&'static str, &'static str) {
    const ENGINES: [&str; 6] = ["lang", "nn", "nis", "swarm", "timed", "robust"];
    let Some(i) = args.iter().position(|a| ENGINES.contains(&a.as_str())) else {
        return ("", "");
    };
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    let verb = args.get(i + 1).map_or("", |v| v.as_str());
    (leak(&args[i]), leak(verb))
}

/// Starts a thread that ends the process with an `unknown` report (exit 3)
/// if the run has not ended by `--timeout` plus the verb's grace period; the
/// verb's own backstop ([`super::run_bounded`]) answers first once the verb runs.
pub fn start(started: Instant) {
    let args: Vec<String> = std::env::args().collect();
    let (Some(limit), json) = prescan(&args) else {
        return;
    };
    let format = if json { Format::Json } else { Format::Text };
    let _ = std::thread::Builder::new()
        .name("watchdog".into())
        .spawn(move || {
            let due = started + limit + GRACE + AFTER_VERB;
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
            let ctx = RunContext::started_at(started, format, 1, Some(limit), 0);
            let reason = format!(
                "the time-out of {} s was reached while the command line was read (its constants evaluated)",
                limit.as_secs_f64()
            );
            let (engine, verb) = verb_names(&args);
            let mut r = Report::timed_out(engine, verb, &reason, &ctx);
            r.stat("time_s", started.elapsed().as_secs_f64());
            let code = report::emit(&r, &ctx);
            std::process::exit(i32::from(code));
        });
}

#[cfg(test)]
mod tests {
    use super::prescan;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_timeout_and_format_are_read_in_both_spellings() {
        let (t, json) = prescan(&args("mavis --timeout 2.5 --format json lang eval 1"));
        assert_eq!(t, Some(std::time::Duration::from_millis(2500)));
        assert!(json);
        let (t, json) = prescan(&args("mavis --timeout=1 lang eval 1"));
        assert_eq!(t, Some(std::time::Duration::from_secs(1)));
        assert!(!json);
        // A bad value starts no watchdog: clap refuses it with exit 2.
        assert_eq!(prescan(&args("mavis --timeout NaN lang eval 1")).0, None);
        assert_eq!(prescan(&args("mavis lang eval 1")).0, None);
    }

    #[test]
    fn the_engine_and_verb_are_named() {
        assert_eq!(
            super::verb_names(&args("mavis --timeout 1 nis verify m.nis")),
            ("nis", "verify")
        );
        assert_eq!(super::verb_names(&args("mavis --help")), ("", ""));
    }
}
