//! `mavis batch FILE [--line L]`: many independent queries, one mavis
//! command line per line of FILE, each run as `mavis` would run it and
//! reported as one JSON object, so that a Slurm array task or GNU parallel
//! runs one line (`--line $SLURM_ARRAY_TASK_ID`). Parsing and dispatch only.

use super::Given;
use crate::report::output::write_file;
use crate::report::{error_json, print_out, stdout_failed, Format, Report, RunContext, RunError};
use clap::Args;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `mavis batch`.
#[derive(Args, Debug)]
#[command(
    after_help = "Each line holds the arguments of one mavis command line (a leading `mavis` is allowed; \
quotes as in a shell: '...', \"...\", \\). Blank lines and lines starting with # are skipped but counted.\n\n\
Examples:\n  mavis batch queries.txt --out-dir reports          # every line, reports/line-L.json\n  \
mavis batch queries.txt --line $SLURM_ARRAY_TASK_ID --out-dir reports\n  \
seq 1 $(wc -l < queries.txt) | parallel mavis batch queries.txt --line {} --out-dir reports\n\n\
Exit status: that of the line with --line, else the largest of the lines' statuses."
)]
pub struct BatchArgs {
    /// The queries, one command line per line.
    pub file: PathBuf,
    /// Run only line L (from 1).
    #[arg(long, value_name = "L")]
    pub line: Option<usize>,
    /// Write each line's report to DIR/line-L.json (pretty) instead of
    /// standard output (one compact JSON object a line).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Runs the lines and gathers their reports.
pub fn run(args: BatchArgs, ctx: &RunContext) -> Result<Report, RunError> {
    // Capped and checked as every model file is (`/dev/zero` or a FIFO
    // must not fill the memory).
    let source = crate::lang::Source::read(&args.file)
        .map_err(|e| RunError::input(format!("cannot read {}: {e}", args.file.display())))?;
    let text = source.text();
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let chosen: Vec<(usize, &str)> = match args.line {
        None => lines,
        Some(l) => vec![*lines.iter().find(|(i, _)| *i == l).ok_or_else(|| {
            RunError::input(format!(
                "{}:{l}: no query on line {l} (blank, a comment, or past the end)",
                args.file.display()
            ))
        })?],
    };
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| RunError::input(format!("cannot create {}: {e}", dir.display())))?;
    }
    let mut output = String::new();
    let mut worst = 0u8;
    let mut counts = [0usize; 4];
    // Text output streams a line's report when it is done, so that a reader
    // that has gone (a closed pipe) stops the batch instead of every line
    // running for nobody.
    let stream = args.out_dir.is_none() && ctx.format == Format::Text;
    for (number, line) in chosen {
        ctx.deadline().check()?;
        let (code, json) = run_line(&args.file, number, line);
        worst = worst.max(code);
        counts[usize::from(code.min(3))] += 1;
        match &args.out_dir {
            Some(dir) => write_report(dir, number, &json)?,
            None if stream => {
                print_out(&format!("{json}\n"));
                if stdout_failed() {
                    break;
                }
            }
            None => output.push_str(&format!("{json}\n")),
        }
    }
    let mut r = Report::new("batch", "run");
    r.line(format!(
        "{} queries: {} exit 0, {} exit 1, {} exit 2, {} exit 3",
        counts.iter().sum::<usize>(),
        counts[0],
        counts[1],
        counts[2],
        counts[3]
    ));
    if args.out_dir.is_none() {
        r.output = Some(output);
    }
    r.results = serde_json::json!({ "exit_counts": counts });
    r.exit_status = Some(worst);
    Ok(r)
}

/// One line run in this process: its exit status and its report (or error)
/// as JSON, with the keys `line` and `exit_status` added.
fn run_line(file: &Path, number: usize, line: &str) -> (u8, Value) {
    let outcome = words(line)
        .map_err(|column| {
            RunError::input(format!(
                "{}:{number}:{column}: unclosed quote",
                file.display()
            ))
        })
        .and_then(|mut w| {
            if w.first().map(String::as_str) == Some("mavis") {
                w.remove(0);
            }
            if matches!(w.first().map(String::as_str), Some("batch" | "merge")) {
                return Err(RunError::input(format!(
                    "{}:{number}: a batch line cannot run `{}`",
                    file.display(),
                    w[0]
                )));
            }
            let argv = std::iter::once("mavis".to_string()).chain(w).collect();
            super::run_in_process(argv, Given::default())
        });
    let (code, mut json) = match outcome {
        Ok(report) => (report.exit_code(), report.to_json()),
        Err(e) => (e.exit_code(), error_json(&e)),
    };
    if let Some(m) = json.as_object_mut() {
        m.insert("line".into(), number.into());
        m.insert("exit_status".into(), code.into());
    }
    (code, json)
}

fn write_report(dir: &Path, number: usize, json: &Value) -> Result<(), RunError> {
    let path = dir.join(format!("line-{number}.json"));
    let text = serde_json::to_string_pretty(json).expect("JSON values serialise");
    Ok(write_file(&path, format!("{text}\n").as_bytes())?)
}

/// A line split into words as a POSIX shell splits them (no expansions):
/// `'...'` literally, `"..."` with `\"` and `\\`, `\` before any character
/// outside quotes. Err: the column (from 1) of a quote left open.
pub fn words(line: &str) -> Result<Vec<String>, usize> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => out.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, c)) => w.push(c),
                        None => return Err(at + 1),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) if matches!(chars.peek(), Some((_, '"' | '\\'))) => {
                            w.push(chars.next().expect("peeked").1);
                        }
                        Some((_, c)) => w.push(c),
                        None => return Err(at + 1),
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                if let Some((_, next)) = chars.next() {
                    w.push(next);
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_split_as_a_shell_does() {
        assert_eq!(
            words(r#"nis table m.nis --spec 'EX^{k} (a, v1)' "x \"y\"" a\ b"#).unwrap(),
            [
                "nis",
                "table",
                "m.nis",
                "--spec",
                "EX^{k} (a, v1)",
                "x \"y\"",
                "a b"
            ]
        );
        assert_eq!(words("  ''  x").unwrap(), ["", "x"]);
        assert_eq!(words("a 'open"), Err(3));
        assert_eq!(words("ab \"open"), Err(4));
    }
}
