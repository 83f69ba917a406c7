//! Output shared by every engine: the run report (text and JSON), verdicts,
//! exit statuses, tables and progress bars, and the typed outcomes deciders
//! return ([`Outcome`], [`Statistics`]; see the `outcome` module for how an
//! engine uses them). Engines fill a [`Report`]; the CLI prints it with [`emit`].

mod context;
mod deadline;
mod font;
pub mod meter;
mod outcome;
pub mod output;
pub mod part_schema;
pub mod several;
pub mod shard;
mod stream;
mod table;
mod verdict;

pub use context::{Format, Progress, RunContext};
pub use deadline::{free_in_background, parse_timeout, Deadline, Expired, MAX_TIMEOUT_S};
pub use font::register_plot_font;
pub use outcome::{stat_lines, stats_json, Outcome, StatValue, Statistics};
pub use stream::err_line;
pub use verdict::{exit, Verdict};

pub use table::{Table, TableFormat};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The file a run read, identified by content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelRef {
    pub path: String,
    pub sha256: String,
    /// Other files the model loaded (the networks of a `.nis` model);
    /// absent from the JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub networks: Vec<NetworkRef>,
}

/// A file a model loaded, by the name the model gives it, identified by content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkRef {
    pub name: String,
    pub path: String,
    pub sha256: String,
}

impl ModelRef {
    pub fn from_path(path: &Path) -> std::io::Result<Self> {
        let bytes = crate::lang::source::read_capped(path)?;
        Ok(ModelRef {
            path: path.display().to_string(),
            sha256: sha256_hex(&bytes),
            networks: Vec::new(),
        })
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    sha256_hex_of(&[bytes])
}

/// The sha256 (hex) of `parts` one after the other, as of one file's bytes.
pub fn sha256_hex_of(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// One run's result. JSON keys: `tool`, `version`, `engine`, `command`,
/// `model`, `verdict` (absent for queries without one), `results`, `witness`
/// (absent when none), `stats`, `warnings`.
#[derive(Clone, Debug)]
pub struct Report {
    pub engine: &'static str,
    pub command: &'static str,
    pub model: Option<ModelRef>,
    pub verdict: Option<Verdict>,
    /// Engine-specific results.
    pub results: Value,
    pub witness: Option<Value>,
    /// Sizes and timings (seconds), flat.
    pub stats: Map<String, Value>,
    pub warnings: Vec<String>,
    /// The human rendering: verdict line first, then tables, then sizes and timings.
    pub text: String,
    /// Remarks for a human reader (on stderr in text mode, never under `-q`);
    /// whatever a program needs from them is also in `results`.
    pub notes: Vec<String>,
    /// A file the run produced for another program (an export, a
    /// conversion), when it goes to stdout: printed whole whatever `-q` says,
    /// with the report's own lines moved to stderr so that stdout is exactly
    /// the file; under `--format json`, the `output` key.
    pub output: Option<String>,
    /// The part of a sharded run (`--shard I/N`): the values of the `shard`
    /// and `cells` keys of the JSON, which `mavis merge` reads
    /// (`shard::Part::into_keys`).
    pub part: Option<(Value, Value)>,
    /// `-o FILE`: what [`emit`] would print on stdout goes to this file.
    pub write_to: Option<std::path::PathBuf>,
    /// The exit status when it is not the verdict's (`mavis batch`: the
    /// largest of its queries' statuses).
    pub exit_status: Option<u8>,
}

impl Report {
    pub fn new(engine: &'static str, command: &'static str) -> Self {
        Report {
            engine,
            command,
            model: None,
            verdict: None,
            results: Value::Object(Map::new()),
            witness: None,
            stats: Map::new(),
            warnings: Vec::new(),
            text: String::new(),
            notes: Vec::new(),
            output: None,
            part: None,
            write_to: None,
            exit_status: None,
        }
    }

    pub fn stat(&mut self, key: &str, value: impl Into<Value>) {
        self.stats.insert(key.to_string(), value.into());
    }

    /// Appends a line to the text rendering.
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.text.push_str(text.as_ref());
        self.text.push('\n');
    }

    pub fn exit_code(&self) -> u8 {
        if let Some(code) = self.exit_status {
            return code;
        }
        self.verdict.map_or(exit::HOLDS, Verdict::exit_code)
    }

    /// The report as a JSON value (the same object [`emit`] prints).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("JSON values serialise")
    }
}

/// The JSON form, written from borrowed parts (a report of a 10^6-state model
/// is printed without copying its results). The keys come in sorted order, as
/// in a `serde_json::Map`, so the text is the one a `Value` would print.
impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        if let Some((_, cells)) = &self.part {
            m.serialize_entry("cells", cells)?;
        }
        m.serialize_entry("command", self.command)?;
        m.serialize_entry("engine", self.engine)?;
        m.serialize_entry("model", &self.model)?;
        if let Some(output) = &self.output {
            m.serialize_entry("output", output)?;
        }
        m.serialize_entry("results", &self.results)?;
        if let Some((shard, _)) = &self.part {
            m.serialize_entry("shard", shard)?;
        }
        m.serialize_entry("stats", &self.stats)?;
        m.serialize_entry("tool", "mavis")?;
        if let Some(v) = &self.verdict {
            m.serialize_entry("verdict", v)?;
        }
        m.serialize_entry("version", env!("CARGO_PKG_VERSION"))?;
        m.serialize_entry("warnings", &self.warnings)?;
        if let Some(w) = &self.witness {
            m.serialize_entry("witness", w)?;
        }
        m.end()
    }
}

/// Why a run produced no report.
#[derive(Debug)]
pub enum RunError {
    /// Bad input or usage (exit 2). Carries a located diagnostic where there is one.
    Input(miette::Report),
    /// A failure of mavis itself, e.g. a witness that does not replay (exit 3).
    Internal(String),
    /// The deadline passed where the engine had nothing to report yet: the
    /// CLI reports verdict unknown (exit 3) with this message. Engines with
    /// partial results return a [`Report`] with verdict unknown instead.
    TimedOut(String),
    /// The decider cannot reach a verdict for a reason other than time: a
    /// numerical limit it cannot resolve (an answer that holds only up to
    /// the solver's tolerances). The CLI reports verdict unknown (exit 3)
    /// with this reason; it is not a failure of mavis.
    Undetermined(String),
    /// A documented size limit (`--max-states`, a memory estimate) stopped the
    /// run before an answer: verdict unknown (exit 3) with this message.
    Limit(String),
}

impl RunError {
    pub fn input(message: impl std::fmt::Display) -> Self {
        RunError::Input(miette::miette!("{message}"))
    }

    /// A file that could not be read: located when the reason has a place
    /// in the file (bytes that are not UTF-8), else the path and the reason.
    pub fn reading(path: &Path, e: std::io::Error) -> Self {
        let located = e
            .get_ref()
            .is_some_and(|inner| inner.is::<crate::lang::SourceError>());
        if !located {
            return RunError::input(format!("cannot read {}: {e}", path.display()));
        }
        match e
            .into_inner()
            .map(|i| i.downcast::<crate::lang::SourceError>())
        {
            Some(Ok(error)) => RunError::Input(miette::Report::new(*error)),
            _ => RunError::input(format!("cannot read {}", path.display())),
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Input(_) => exit::BAD_INPUT,
            RunError::Internal(_)
            | RunError::TimedOut(_)
            | RunError::Undetermined(_)
            | RunError::Limit(_) => exit::UNKNOWN,
        }
    }
}

/// Any located diagnostic (a model-language error, for one) is bad input; the
/// conversion is generic so that `report` need not know the layers that
/// produce diagnostics.
impl<E: miette::Diagnostic + Send + Sync + 'static> From<Box<E>> for RunError {
    fn from(e: Box<E>) -> Self {
        RunError::Input(miette::Report::new(*e))
    }
}

impl From<Expired> for RunError {
    fn from(e: Expired) -> Self {
        RunError::TimedOut(e.to_string())
    }
}

impl Report {
    /// The report of a run stopped by its deadline before any result:
    /// verdict unknown, the reason, and the `--timeout` reached.
    pub fn timed_out(
        engine: &'static str,
        command: &'static str,
        reason: &str,
        ctx: &RunContext,
    ) -> Self {
        let mut r = Report::new(engine, command);
        r.verdict = Some(Verdict::Unknown);
        r.line(format!("UNKNOWN: {reason}"));
        r.results = serde_json::json!({ "reason": reason });
        if let Some(t) = ctx.timeout() {
            r.stat("timeout_s", t.as_secs_f64());
        }
        r.stat("timed_out", true);
        r.warnings.push(reason.to_string());
        r
    }

    /// Marks a report whose run was cut by the deadline: verdict unknown,
    /// the reason as the first line (before what was found so far), and a
    /// warning.
    /// Partial results cut short by a documented size limit: verdict unknown.
    pub fn stopped_at_limit(&mut self, reason: &str) {
        self.verdict = Some(Verdict::Unknown);
        self.text = format!("UNKNOWN: {reason}\n{}", self.text);
        self.stat("limit_reached", true);
        self.warnings.push(reason.to_string());
    }

    pub fn stopped_at_deadline(&mut self, reason: &str) {
        self.verdict = Some(Verdict::Unknown);
        self.text = format!("UNKNOWN: {reason}\n{}", self.text);
        self.stat("timed_out", true);
        self.warnings.push(reason.to_string());
    }
}

impl Report {
    /// Adds a decider's statistics ([`Statistics::attributes`]) to `stats`.
    pub fn put_stats(&mut self, stats: &dyn Statistics) {
        for (k, v) in stats.attributes() {
            self.stat(k, v.to_json());
        }
    }
}

/// Writes to stdout, never panicking as `print!` would. A closed pipe
/// (`mavis ... | head`) is not an error: the reader has what it wanted, so
/// the rest is dropped; any other failure (`> /dev/full`) loses the output,
/// which the exit status says ([`stdout_failure`]).
fn out(text: &str) {
    use std::io::Write;
    let captured = FILE_OUT.with(|f| f.borrow_mut().as_mut().map(|b| b.push_str(text)));
    if captured.is_some() {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if let Err(e) = written {
        STDOUT_LOST.with(|l| {
            l.borrow_mut().get_or_insert(e);
        });
    }
}

impl RunContext {
    /// Keeps `report` as what the verb has found so far (each finished cell
    /// or query): if the verb is still busy when the run is stopped from
    /// outside after the deadline, this report is printed (verdict unknown)
    /// instead of nothing.
    pub fn publish(&self, report: Report) {
        let mut slot = self.partial.lock().unwrap_or_else(|p| p.into_inner());
        *slot = Some(Box::new(report));
    }

    /// The report last published, taken.
    pub fn take_published(&self) -> Option<Report> {
        let mut slot = self.partial.lock().unwrap_or_else(|p| p.into_inner());
        let published = slot.take()?;
        published.downcast::<Report>().ok().map(|r| *r)
    }
}

impl From<output::WriteError> for RunError {
    fn from(e: output::WriteError) -> Self {
        RunError::input(e.0)
    }
}

/// Writes text to standard output now (a verb that streams its output);
/// a failure is kept for [`stdout_failed`] and the exit status.
pub fn print_out(text: &str) {
    out(text);
}

thread_local! {
    /// The first failed write to stdout (full, closed): the output is lost,
    /// which the exit status must say ([`stdout_failure`]).
    static STDOUT_LOST: std::cell::RefCell<Option<std::io::Error>> = const { std::cell::RefCell::new(None) };
}

/// Exit 2 and a message on stderr when a write to stdout failed since the
/// last call (`> /dev/full`): the output is lost, so the run must not exit
/// 0. `None` when every write went through or the reader had gone (a
/// closed pipe).
pub fn stdout_failure() -> Option<u8> {
    let lost = STDOUT_LOST.with(|l| l.borrow_mut().take())?;
    if lost.kind() == std::io::ErrorKind::BrokenPipe {
        return None;
    }
    err_line(&format!(
        "error: the output could not be written to standard output: {lost}"
    ));
    Some(exit::BAD_INPUT)
}

/// Whether standard output has failed (a closed pipe, a full disk): `batch`
/// stops instead of running lines nobody reads.
pub fn stdout_failed() -> bool {
    STDOUT_LOST.with(|l| l.borrow().is_some())
}

/// Prints a report on stdout in the chosen format; returns the exit status.
///
/// Text mode: an [`Report::output`] goes to stdout whole and the report's
/// lines to stderr; otherwise the lines go to stdout, and `-q` keeps only the
/// verdict line of a report that has a verdict (a query's answer, which is
/// the output itself, is never cut). Notes go to stderr unless `-q`;
/// warnings always do.
pub fn emit(report: &Report, ctx: &RunContext) -> u8 {
    let Some(path) = &report.write_to else {
        let code = emit_here(report, ctx);
        return stdout_failure().unwrap_or(code);
    };
    FILE_OUT.with(|f| *f.borrow_mut() = Some(String::new()));
    let code = emit_here(report, ctx);
    let text = FILE_OUT.with(|f| f.borrow_mut().take()).unwrap_or_default();
    // Whole or not at all: a full disk leaves no partial file (exit 2).
    match output::write_file(path, text.as_bytes()) {
        Ok(()) => code,
        Err(e) => emit_error(&RunError::from(e), ctx),
    }
}

thread_local! {
    /// While [`emit`] writes a report to its `-o` file: the text stdout would get.
    static FILE_OUT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

fn emit_here(report: &Report, ctx: &RunContext) -> u8 {
    ctx.finish_stages();
    match ctx.format {
        Format::Json => {
            let json = serde_json::to_string_pretty(report).expect("JSON values serialise");
            out(&format!("{json}\n"));
        }
        Format::Text => {
            match &report.output {
                Some(file) => {
                    out(file);
                    if !ctx.quiet() {
                        err_out(&report.text);
                    }
                }
                None if ctx.quiet() && report.verdict.is_some() => {
                    if let Some(first) = report.text.lines().next() {
                        out(&format!("{first}\n"));
                    }
                }
                None => out(&report.text),
            }
            if !ctx.quiet() {
                for n in &report.notes {
                    err_out(&format!("note: {n}\n"));
                }
            }
            for w in &report.warnings {
                err_line(&format!("warning: {w}"));
            }
        }
    }
    report.exit_code()
}

/// Writes to stderr, ignoring a closed stderr like [`out`] ignores a closed stdout.
fn err_out(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Prints a failure on stderr (and, under `--format json`, a JSON object on stdout).
pub fn emit_error(err: &RunError, ctx: &RunContext) -> u8 {
    ctx.finish_stages();
    let message = match err {
        RunError::Input(report) => format!("{report:?}"),
        RunError::Internal(msg) => format!("internal error: {msg}"),
        RunError::TimedOut(msg) | RunError::Undetermined(msg) | RunError::Limit(msg) => {
            format!("unknown: {msg}")
        }
    };
    err_line(&message);
    if ctx.format == Format::Json {
        out(&format!("{}\n", error_json(err)));
    }
    stdout_failure().map_or(err.exit_code(), |lost| lost.max(err.exit_code()))
}

/// The JSON object of a failure: `tool`, `version`, `error` (`kind`, `message`).
pub fn error_json(err: &RunError) -> Value {
    {
        let kind = match err {
            RunError::Input(_) => "input",
            RunError::Internal(_) => "internal",
            RunError::TimedOut(_) => "timeout",
            RunError::Undetermined(_) => "undetermined",
            RunError::Limit(_) => "limit",
        };
        let plain = match err {
            RunError::Input(report) => report.to_string(),
            RunError::Internal(msg)
            | RunError::TimedOut(msg)
            | RunError::Undetermined(msg)
            | RunError::Limit(msg) => msg.clone(),
        };
        serde_json::json!({
            "tool": "mavis",
            "version": env!("CARGO_PKG_VERSION"),
            "error": { "kind": kind, "message": plain },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_documented_keys() {
        let mut r = Report::new("nn", "info");
        r.verdict = Some(Verdict::Violated);
        r.stat("time_s", 0.5);
        let v = r.to_json();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        for k in [
            "tool", "version", "engine", "command", "model", "verdict", "results", "stats",
            "warnings",
        ] {
            assert!(keys.contains(&k), "missing {k}");
        }
        assert_eq!(v["verdict"], "violated");
        assert_eq!(r.exit_code(), 1);
        assert!(v.get("witness").is_none());
        r.verdict = None;
        assert!(r.to_json().get("verdict").is_none());
        assert_eq!(r.exit_code(), 0);
    }

    /// A diagnostic from outside `report`, as a layer or an engine defines one.
    #[derive(Debug, thiserror::Error, miette::Diagnostic)]
    #[error("m.x:3:7: unexpected `}}`")]
    #[diagnostic(help("close the block"))]
    struct Located;

    #[test]
    fn any_boxed_diagnostic_is_bad_input_with_its_message_and_help() {
        let err = RunError::from(Box::new(Located));
        assert_eq!(err.exit_code(), exit::BAD_INPUT);
        let RunError::Input(report) = &err else {
            panic!("expected an input error")
        };
        assert_eq!(report.to_string(), "m.x:3:7: unexpected `}`");
        assert_eq!(
            report.help().map(|h| h.to_string()).as_deref(),
            Some("close the block")
        );
    }

    #[test]
    fn a_report_cut_by_the_deadline_is_unknown_and_keeps_what_it_had() {
        let mut r = Report::new("robust", "faults");
        r.line("T  bound");
        r.stat("periods_solved", 2);
        r.verdict = Some(Verdict::Holds);
        r.stopped_at_deadline("the time-out of 1 s was reached");
        assert_eq!(r.exit_code(), exit::UNKNOWN);
        assert_eq!(
            r.text,
            "UNKNOWN: the time-out of 1 s was reached\nT  bound\n"
        );
        let v = r.to_json();
        assert_eq!(v["verdict"], "unknown");
        assert_eq!(v["stats"]["timed_out"], true);
        assert_eq!(v["stats"]["periods_solved"], 2);
        assert_eq!(v["warnings"][0], "the time-out of 1 s was reached");
        let ctx = RunContext::new(Format::Json, 1, Some(std::time::Duration::from_secs(2)), 0);
        let t = Report::timed_out("lang", "eval", "stopped", &ctx).to_json();
        assert_eq!(
            (t["engine"].as_str(), t["verdict"].as_str()),
            (Some("lang"), Some("unknown"))
        );
        assert_eq!(t["stats"]["timeout_s"], 2.0);
        assert_eq!(t["results"]["reason"], "stopped");
    }

    #[test]
    fn sha256_of_known_text() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
