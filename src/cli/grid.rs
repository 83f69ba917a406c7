//! The options of the verbs that compute a grid or a sweep (`--shard`,
//! `-o`, `--no-times`) and `mavis merge`, which hands the parts to the
//! engine whose verb wrote them. Parsing and dispatch only: the checks of
//! the parts are in `report::shard`, the drawing in each engine.

use crate::nis::verbs::table::TableLook;
use crate::report::shard::{self, PartFile, Shard};
use crate::report::TableFormat;
use crate::report::{Report, RunContext, RunError};
use crate::robust::verbs::faults::{self as faults_report, FaultsLook};
use crate::swarm::{merge_sweep, SweepLook};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// `--table-format` of `nis table` and `merge`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableFormatArg {
    Text,
    Csv,
    Markdown,
}

impl TableFormatArg {
    pub fn format(self) -> TableFormat {
        match self {
            TableFormatArg::Text => TableFormat::Text,
            TableFormatArg::Csv => TableFormat::Csv,
            TableFormatArg::Markdown => TableFormat::Markdown,
        }
    }
}

/// `--shard`, `-o` and `--no-times`.
#[derive(Args, Debug, Clone)]
pub struct GridArgs {
    /// Compute only shard I of N (1 <= I <= N), a deterministic subset of
    /// the cells balanced by their estimated cost; the JSON report is a part
    /// for `mavis merge` (keys `shard` and `cells`).
    #[arg(long, value_name = "I/N", value_parser = shard::parse_shard)]
    pub shard: Option<Shard>,
    /// Write what would go to standard output to FILE instead.
    #[arg(short = 'o', long = "output", value_name = "FILE", value_parser = crate::report::output::writable)]
    pub output: Option<PathBuf>,
    /// Leave every measured time out of the output, so that two runs (or a
    /// run and a merge of its shards) print the same bytes.
    #[arg(long)]
    pub no_times: bool,
}

impl GridArgs {
    /// The report, to be written to `-o FILE` when one was given.
    pub fn written(&self, mut r: Report) -> Report {
        r.write_to.clone_from(&self.output);
        r
    }
}

/// `mavis merge`.
#[derive(Args, Debug)]
#[command(
    after_help = "Example:\n  parallel mavis nis table examples/guarding/guarding.nis --spec 'forall v1, v2: EX^{k} (alive, v1) & (alive, v2)' \\\n      --k 1..4 --agents 2..4 --shard {}/3 --format json -o part{}.json ::: 1 2 3\n  mavis merge part1.json part2.json part3.json\n\nThe output is what the unsharded run prints with the same drawing options \
(--format, --table-format, --out, --plot, --no-times, -o). Exit status 2: the parts are of different runs, \
a shard or a cell is missing or given twice."
)]
pub struct MergeArgs {
    /// The parts: the JSON reports of `--shard 1/N` ... `--shard N/N`.
    #[arg(required = true, value_name = "PART.json")]
    pub parts: Vec<PathBuf>,
    /// `nis table`: how the table is drawn in the text output.
    #[arg(long = "table-format", value_enum, default_value_t = TableFormatArg::Text)]
    pub table_format: TableFormatArg,
    /// `swarm sweep`: write PREFIX.csv, PREFIX.svg and PREFIX.png.
    #[arg(long, value_name = "PREFIX", value_parser = crate::report::output::writable_prefix)]
    pub out: Option<PathBuf>,
    /// `robust faults`: write the trade-off plot as SVG.
    #[arg(long, value_name = "FILE", value_parser = crate::report::output::writable)]
    pub plot: Option<PathBuf>,
    /// Write what would go to standard output to FILE instead.
    #[arg(short = 'o', long = "output", value_name = "FILE", value_parser = crate::report::output::writable)]
    pub output: Option<PathBuf>,
    /// Leave every measured time out of the output.
    #[arg(long)]
    pub no_times: bool,
    /// `nis table`: merge even when shards are missing (a Slurm task that
    /// never wrote its part): their cells are drawn as `.`, the missing
    /// shards are named, and the verdict is unknown (exit 3).
    #[arg(long)]
    pub allow_missing: bool,
}

/// Checks the parts and draws the report of the verb that wrote them.
pub fn merge(args: MergeArgs, ctx: &RunContext) -> Result<Report, RunError> {
    let mut files = Vec::with_capacity(args.parts.len());
    for path in &args.parts {
        files.push(PartFile {
            path,
            json: shard::read_part(path)?,
        });
    }
    let merged = shard::merge_parts(&files, args.allow_missing)?;
    let mut r = match (merged.engine.as_str(), merged.command.as_str()) {
        ("nis", "table") => {
            let look = TableLook {
                format: args.table_format.format(),
                no_times: args.no_times,
            };
            crate::nis::verbs::table::merge(merged, look)?
        }
        ("swarm", "sweep") => {
            let look = SweepLook {
                out: args.out,
                no_times: args.no_times,
                quiet: ctx.quiet(),
            };
            merge_sweep(merged, &look)?
        }
        ("robust", "faults") => {
            let look = FaultsLook {
                plot: args.plot,
                no_times: args.no_times,
            };
            faults_report::merge(merged, &look)?
        }
        (engine, command) => {
            return Err(RunError::input(format!(
                "`{engine} {command}` has no sharded form to merge"
            )))
        }
    };
    r.write_to = args.output;
    Ok(r)
}
