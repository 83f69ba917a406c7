//! The documents' examples are real runs: every `$ mavis ...` command shown
//! in README.md and docs/tutorial.md is run, and what the documents show
//! under it must be what the binary prints today, so that the front door
//! cannot drift from the tool again.
//!
//! What a document shows is checked as follows (conventions for writers):
//! - in a fenced code block, a line `$ mavis ARGS` is a command (a trailing
//!   `\` continues it on the next line; a trailing `# exit N` is the exit
//!   status it must end with); the lines after it, up to the next `$ ` line
//!   or the end of the block, are its output (stdout, or stderr when stdout
//!   is empty);
//! - the first shown line is the verdict line: it must equal the first
//!   printed line byte for byte;
//! - every further shown line must equal the printed line in its place once
//!   timings are masked (`0.012 s`, `time_s: 0.01`, the cells of a `time`
//!   column) and runs of spaces are taken as one (a longer time may widen a
//!   column); a shown line `...` stands for any number of printed lines;
//!   without a final `...` the output must end where the shown text ends;
//! - a block whose info string names a file (```` ```text examples/x.nis ````)
//!   shows that file's whole text.

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The documents whose commands are checked.
const DOCUMENTS: &[&str] = &["README.md", "docs/tutorial.md"];

/// One shown command and the output shown under it.
#[derive(Clone, Debug)]
struct Example {
    /// `FILE:LINE` of the `$` line.
    place: String,
    /// The words after `mavis`.
    args: Vec<String>,
    exit: Option<i32>,
    shown: Vec<String>,
}

/// A fenced block that shows a file of the repository.
struct ShownFile {
    place: String,
    path: String,
    text: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(doc: &str) -> String {
    std::fs::read_to_string(root().join(doc)).unwrap_or_else(|e| panic!("{doc}: {e}"))
}

/// The fenced blocks of a Markdown text: (line of the opening fence, info
/// string, lines inside).
fn blocks(text: &str) -> Vec<(usize, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, Vec<String>)> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match (&mut open, fence) {
            (None, true) => {
                let info = line.trim_start().trim_start_matches('`').trim().to_string();
                open = Some((i + 1, info, Vec::new()));
            }
            (Some(_), true) => out.push(open.take().expect("open block")),
            (Some((_, _, lines)), false) => lines.push(line.to_string()),
            (None, false) => {}
        }
    }
    out
}

/// Splits a command line as a POSIX shell does (no expansions): `'...'`
/// literally, `"..."` with `\"` and `\\`, `\` before a character outside quotes.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => out.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\')) => {
                            w.push(chars.next().expect("peeked"))
                        }
                        c => w.push(c),
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.next());
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

/// The `$ mavis` examples of one document.
fn examples(doc: &str, text: &str) -> Vec<Example> {
    let exit = Regex::new(r"\s+# exit (\d+)$").expect("regex");
    let mut out: Vec<Example> = Vec::new();
    for (first, _, lines) in blocks(text) {
        let mut current: Option<Example> = None;
        let mut i = 0;
        while i < lines.len() {
            let line = &lines[i];
            if let Some(rest) = line.strip_prefix("$ ") {
                out.extend(current.take());
                let mut command = rest.to_string();
                while command.ends_with('\\') && i + 1 < lines.len() {
                    command.pop();
                    i += 1;
                    command.push(' ');
                    command.push_str(lines[i].trim());
                }
                let code = exit
                    .captures(&command)
                    .map(|c| c[1].parse().expect("digits"));
                let command = exit.replace(&command, "").to_string();
                let mut args = words(&command);
                if args.first().map(String::as_str) == Some("mavis") {
                    args.remove(0);
                    let place = format!("{doc}:{}", first + i + 1);
                    current = Some(Example {
                        place,
                        args,
                        exit: code,
                        shown: Vec::new(),
                    });
                }
            } else if let Some(example) = current.as_mut() {
                example.shown.push(line.trim_end().to_string());
            }
            i += 1;
        }
        out.extend(current);
    }
    for example in &mut out {
        while example.shown.last().is_some_and(|l| l.is_empty()) {
            example.shown.pop();
        }
    }
    out
}

/// The blocks of a document that show a repository file.
fn shown_files(doc: &str, text: &str) -> Vec<ShownFile> {
    blocks(text)
        .into_iter()
        .filter_map(|(line, info, lines)| {
            let path = info.split_whitespace().nth(1)?.to_string();
            let text = lines.iter().map(|l| format!("{l}\n")).collect();
            Some(ShownFile {
                place: format!("{doc}:{line}"),
                path,
                text,
            })
        })
        .collect()
}

/// Timings masked, so that only behaviour is compared (after
/// scripts/golden.py): numbers with a time unit, `key: value` lines whose key
/// is a time, and the cells of table columns headed `time`.
struct Mask {
    unit: Regex,
    key: Regex,
    number: Regex,
}

impl Mask {
    fn new() -> Self {
        Mask {
            unit: Regex::new(r"-?\d[\d,]*(\.\d+)?(e[+-]?\d+)?\s?(s|ms|µs|us|ns|min|/s)\b")
                .expect("regex"),
            key: Regex::new(r"^(\s*[a-z_.]*(time|_s)[a-z_]*): .*$").expect("regex"),
            number: Regex::new(r"^-?\d+\.\d+$").expect("regex"),
        }
    }

    /// Each line masked and its runs of spaces made one.
    fn lines(&self, lines: &[String]) -> Vec<String> {
        let mut out: Vec<String> = lines.to_vec();
        self.mask_time_columns(&mut out);
        out.iter()
            .map(|l| {
                let l = self.key.replace(l, "$1: T");
                let l = self.unit.replace_all(&l, "T");
                l.split_whitespace().collect::<Vec<_>>().join(" ")
            })
            .collect()
    }

    /// Under a header whose dashes line marks the columns, the decimal cells
    /// of a column headed `time...`, down to the next empty line.
    fn mask_time_columns(&self, lines: &mut [String]) {
        for i in 1..lines.len() {
            let dashes = &lines[i];
            if !dashes.starts_with('-') || !dashes.chars().all(|c| c == '-' || c == ' ') {
                continue;
            }
            let spans = column_spans(dashes);
            let header = lines[i - 1].clone();
            for (k, &(from, to)) in spans.iter().enumerate() {
                let title = header.get(from..to.min(header.len())).unwrap_or("").trim();
                if !title.starts_with("time") {
                    continue;
                }
                let last = k + 1 == spans.len();
                for row in lines[i + 1..].iter_mut() {
                    if row.is_empty() {
                        break;
                    }
                    let end = if last { row.len() } else { to.min(row.len()) };
                    let Some(cell) = row.get(from..end) else {
                        continue;
                    };
                    if self.number.is_match(cell.trim()) {
                        row.replace_range(from..end, "T");
                    }
                }
            }
        }
    }
}

/// The (start, end) byte ranges of the runs of dashes of a table's rule.
fn column_spans(dashes: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in dashes.char_indices() {
        match (c, start) {
            ('-', None) => start = Some(i),
            (' ', Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    spans.extend(start.map(|s| (s, dashes.len())));
    spans
}

/// Why the printed lines differ from the shown ones, if they do.
fn compare(mask: &Mask, shown: &[String], printed: &[String]) -> Result<(), String> {
    let Some(verdict) = shown.first() else {
        return Ok(());
    };
    let first = printed.first().map(String::as_str).unwrap_or("");
    if verdict != first {
        return Err(format!(
            "verdict line\n  shown:   {verdict}\n  printed: {first}"
        ));
    }
    let (shown, printed) = (mask.lines(&shown[1..]), mask.lines(&printed[1..]));
    let mut at = 0;
    let mut skipping = false;
    for want in &shown {
        if want == "..." {
            skipping = true;
            continue;
        }
        let found = if skipping {
            printed[at..]
                .iter()
                .position(|got| got == want)
                .map(|p| at + p)
        } else {
            (printed.get(at) == Some(want)).then_some(at)
        };
        let Some(found) = found else {
            let got = printed
                .get(at)
                .map(String::as_str)
                .unwrap_or("(end of output)");
            return Err(format!(
                "line {}\n  shown:   {want}\n  printed: {got}",
                at + 2
            ));
        };
        at = found + 1;
        skipping = false;
    }
    if !skipping && at < printed.len() {
        return Err(format!("more output than shown, from: {}", printed[at]));
    }
    Ok(())
}

/// Runs one example; its printed lines and exit status.
fn run(example: &Example) -> (Vec<String>, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_mavis"))
        .args(&example.args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{}: mavis does not start: {e}", example.place));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = if stdout.is_empty() {
        String::from_utf8_lossy(&out.stderr).into_owned()
    } else {
        stdout
    };
    let lines = text.lines().map(|l| l.trim_end().to_string()).collect();
    (lines, out.status.code().unwrap_or(-1))
}

/// What is wrong with one example, if anything.
fn check(mask: &Mask, example: &Example) -> Result<(), String> {
    let (printed, code) = run(example);
    if let Some(exit) = example.exit {
        if exit != code {
            return Err(format!("exit status {code}, the document says {exit}"));
        }
    }
    compare(mask, &example.shown, &printed)
        .map_err(|e| format!("{e}\nprinted:\n{}", printed.join("\n")))
}

fn all_examples() -> Vec<Example> {
    DOCUMENTS
        .iter()
        .flat_map(|doc| examples(doc, &read(doc)))
        .collect()
}

#[test]
fn every_shown_command_prints_what_the_documents_show() {
    let mask = Mask::new();
    let failures: Vec<String> = all_examples()
        .iter()
        .filter_map(|e| {
            check(&mask, e)
                .err()
                .map(|why| format!("{}: mavis {}\n{why}", e.place, e.args.join(" ")))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} examples differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_shown_file_is_the_file() {
    for doc in DOCUMENTS {
        for shown in shown_files(doc, &read(doc)) {
            let path = Path::new(&shown.path);
            let text = std::fs::read_to_string(root().join(path))
                .unwrap_or_else(|e| panic!("{}: {}: {e}", shown.place, shown.path));
            assert_eq!(
                shown.text, text,
                "{}: the block differs from {}",
                shown.place, shown.path
            );
        }
    }
}

/// The check is not vacuous: the documents show a command of every engine,
/// each with its output and its exit status.
#[test]
fn the_documents_show_every_engine() {
    let examples = all_examples();
    for engine in ["nis", "nn", "swarm", "timed", "robust"] {
        for doc in DOCUMENTS {
            let shown = examples.iter().any(|e| {
                e.place.starts_with(doc)
                    && e.args.iter().any(|a| a == engine)
                    && !e.shown.is_empty()
                    && e.exit.is_some()
            });
            assert!(
                shown,
                "{doc} shows no `mavis {engine}` command with its output and exit status"
            );
        }
    }
}

/// An edited verdict line, an edited line further down, a line left out or
/// a wrong exit status is caught: the quick start with each edit fails.
#[test]
fn an_edited_document_fails() {
    let mask = Mask::new();
    let quick = all_examples()
        .into_iter()
        .next()
        .expect("README has examples");
    assert!(quick.shown.len() > 3, "the first example shows its output");
    check(&mask, &quick).expect("the quick start as shown");
    let mut verdict = quick.clone();
    verdict.shown[0] = verdict.shown[0]
        .replace("HOLDS", "VIOLATED")
        .replace("n >= 2", "n >= 3");
    assert_ne!(verdict.shown[0], quick.shown[0]);
    assert!(check(&mask, &verdict)
        .unwrap_err()
        .starts_with("verdict line"));
    let mut verdict_digit = quick.clone();
    verdict_digit.shown[0].push(' ');
    assert!(
        check(&mask, &verdict_digit).is_err(),
        "a trailing space in the verdict line"
    );
    let last = quick.shown.len() - 2;
    let mut witness = quick.clone();
    witness.shown[last].push_str(" rest");
    assert!(check(&mask, &witness).is_err(), "an edited witness line");
    let mut shorter = quick.clone();
    shorter.shown.remove(last);
    assert!(check(&mask, &shorter).is_err(), "a line left out");
    let mut status = quick.clone();
    status.exit = Some(
        1 - quick
            .exit
            .expect("the quick start shows its exit status")
            .min(1),
    );
    assert!(check(&mask, &status).is_err(), "a wrong exit status");
}

#[test]
fn masking_keeps_values_and_hides_times() {
    let mask = Mask::new();
    let lines = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
    let table = lines("q  states  time (s)\n-  ------  --------\na  4862    0.094\n\nvalue 0.094");
    assert_eq!(
        mask.lines(&table),
        [
            "q states time (s)",
            "- ------ --------",
            "a 4862 T",
            "",
            "value 0.094"
        ]
    );
    let stats = lines("total_time_s: 0.0019\nmilps: 1\nbuilt in 0.179 s, checked in 0.304 s");
    assert_eq!(
        mask.lines(&stats),
        ["total_time_s: T", "milps: 1", "built in T, checked in T"]
    );
    assert_eq!(
        words(r#"nis --spec 'a b' "c \" d" e\ f"#),
        ["nis", "--spec", "a b", "c \" d", "e f"]
    );
}
