//! `mavis nn`: inspect, evaluate and bound ONNX networks.

use super::Given;
use crate::layer_verbs::nn as commands;
use crate::layer_verbs::nn_bounds;
use crate::layer_verbs::nn_instances::{self, Instance};
use crate::layer_verbs::nn_verify;
use crate::report::{Report, RunContext, RunError};
use clap::Subcommand;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Subcommand, Debug)]
pub enum NnCmd {
    /// Layers, sizes, parameter count and opset of an ONNX network.
    #[command(after_help = "Example:\n  mavis nn info tests/fixtures/policy_1_4_4_2.onnx")]
    Info {
        /// The ONNX file.
        net: PathBuf,
    },
    /// Evaluate a network in f64 on one or more inputs.
    #[command(
        after_help = "Examples:\n  mavis nn eval tests/fixtures/policy_1_4_4_2.onnx --input 0.75\n  \
mavis nn eval tests/fixtures/policy_1_4_4_2.onnx --input 0,0.25,0.5   # three 1-D inputs\n  \
mavis nn eval tests/fixtures/mlp_2_16_16_3.onnx --input 0.1,0.2 --input -1,1   # two 2-D inputs\n  \
mavis nn eval tests/fixtures/mlp_2_16_16_3.onnx --csv inputs.csv --format json"
    )]
    Eval {
        /// The ONNX file.
        net: PathBuf,
        /// An input vector, comma-separated (repeatable). For a network with one
        /// input, `--input 0,0.5,1` is three inputs.
        #[arg(long = "input", value_name = "VALUES", value_parser = commands::parse_vector, allow_hyphen_values = true)]
        input: Vec<Vec<f64>>,
        /// A CSV file of inputs, one per line (an optional header line is skipped).
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
    },
    /// Output bounds over an input box: interval, symbolic and exact (MILP).
    #[command(
        after_help = "Examples:\n  mavis nn bounds tests/fixtures/policy_1_4_4_2.onnx --box '[0,1]'\n  \
mavis nn bounds tests/fixtures/mlp_2_16_16_3.onnx --box '[-1,1]x[0,2]' --lp-tighten\n  \
mavis nn bounds tests/fixtures/mlp_2_16_16_3.onnx --box '[-1,1]' --dump-lp model.lp --format json"
    )]
    Bounds {
        /// The ONNX file.
        net: PathBuf,
        /// The input box: one interval for every input (`[0,1]`), or one per
        /// input (`[0,1]x[-1,1]`).
        #[arg(long = "box", value_name = "BOX")]
        input_box: String,
        /// Tighten the unstable neurons' bounds by LP before the MILP.
        #[arg(long)]
        lp_tighten: bool,
        /// Skip the exact MILP stage.
        #[arg(long)]
        no_exact: bool,
        /// Write the MILP (without objective) as an LP file.
        #[arg(long, value_name = "FILE", value_parser = crate::report::output::writable)]
        dump_lp: Option<PathBuf>,
    },
    /// Decide a VNN-LIB property: holds (VNN-COMP unsat), violated with a
    /// replayed counterexample (sat), or unknown.
    #[command(
        after_help = "Examples:\n  mavis nn verify net.onnx prop.vnnlib --timeout 60\n  \
mavis nn verify net.onnx prop.vnnlib --vnncomp-output result.txt --format json\n  \
mavis nn verify --instances benchmark/instances.csv --out-dir results   # resumable\n\n\
Files may be gzip compressed (net.onnx.gz, prop.vnnlib.gz).\n\
With --instances, each row `network,property,timeout` (paths relative to the CSV) is decided within its \
timeout; DIR gets NAME.txt (the VNN-COMP result), NAME.json (the report) and summary.csv. \
A finished instance is not run again. Exit status: 0 all decided, 2 an instance in error, 3 some undecided."
    )]
    Verify {
        /// The ONNX file (`.onnx` or `.onnx.gz`).
        #[arg(required_unless_present = "instances")]
        net: Option<PathBuf>,
        /// The VNN-LIB property (the unsafe inputs and outputs; `.vnnlib` or `.vnnlib.gz`).
        #[arg(required_unless_present = "instances")]
        property: Option<PathBuf>,
        /// Run every instance of a VNN-COMP instances file (`network,property,timeout` per row).
        #[arg(long, value_name = "FILE.csv", conflicts_with_all = ["net", "property", "vnncomp_output"], requires = "out_dir")]
        instances: Option<PathBuf>,
        /// Where --instances writes its result files and summary.csv.
        #[arg(long, value_name = "DIR", requires = "instances")]
        out_dir: Option<PathBuf>,
        /// Write VNN-COMP's result file (unsat | sat and the assignment | timeout | unknown).
        #[arg(long, value_name = "FILE", value_parser = crate::report::output::writable)]
        vnncomp_output: Option<PathBuf>,
        /// Boxes with at most this many unstable ReLUs go to the MILP; others are split first.
        #[arg(long, value_name = "N", default_value_t = 4)]
        milp_unstable: usize,
        /// Skip LP tightening before each MILP.
        #[arg(long)]
        no_lp_tighten: bool,
        /// Which input to halve when a box is split.
        #[arg(long, value_enum, default_value_t = SplitArg::Influence)]
        split: SplitArg,
        /// Split a part on an unstable ReLU once this many input splits in a row
        /// have not lowered its unstable ReLUs (0: only when its box is too small to split).
        #[arg(long, value_name = "N", default_value_t = crate::milp::verify::BRANCH_AFTER)]
        relu_split_after: usize,
    },
}

/// `--split`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum SplitArg {
    /// Largest width times |gradient| of the open atoms at the box's centre.
    Influence,
    /// Largest width times |coefficient| of the input in the open atoms' linear lower bounds.
    Sensitivity,
    /// The widest input.
    Widest,
}

pub fn run(cmd: NnCmd, ctx: &RunContext) -> Result<Report, RunError> {
    match cmd {
        NnCmd::Info { net } => commands::info(&net),
        NnCmd::Eval { net, input, csv } => {
            let mut inputs = input;
            if let Some(csv) = csv {
                inputs.extend(commands::read_csv(&csv)?);
            }
            commands::eval(&net, &inputs)
        }
        NnCmd::Bounds {
            net,
            input_box,
            lp_tighten,
            no_exact,
            dump_lp,
        } => {
            let req = nn_bounds::BoundsRequest {
                net,
                box_text: input_box,
                lp_tighten,
                exact: !no_exact,
                dump_lp,
            };
            nn_bounds::bounds_report(&req, ctx)
        }
        NnCmd::Verify {
            net,
            property,
            instances,
            out_dir,
            vnncomp_output,
            milp_unstable,
            no_lp_tighten,
            split,
            relu_split_after,
        } => {
            let req = nn_verify::VerifyRequest {
                net: net.unwrap_or_default(),
                property: property.unwrap_or_default(),
                vnncomp_output,
                milp_unstable,
                lp_tighten: !no_lp_tighten,
                relu_split_after,
                split: match split {
                    SplitArg::Influence => crate::milp::verify::SplitRule::Influence,
                    SplitArg::Sensitivity => crate::milp::verify::SplitRule::Sensitivity,
                    SplitArg::Widest => crate::milp::verify::SplitRule::Widest,
                },
            };
            match (instances, out_dir) {
                (Some(csv), Some(dir)) => {
                    let run_one = |i: &Instance, budget: Duration, result: &Path| {
                        super::run_in_process(
                            instance_argv(&req, split, i, budget, result, ctx),
                            Given::default(),
                        )
                    };
                    nn_instances::run_instances(&csv, &dir, ctx, &run_one)
                }
                _ => nn_verify::verify_report(&req, ctx),
            }
        }
    }
}

/// The command line deciding one instance, as `mavis nn verify` with the
/// options of the instances run and the instance's own timeout; run in this
/// process by `run_in_process`, which stops a verb that overruns its deadline.
fn instance_argv(
    req: &nn_verify::VerifyRequest,
    split: SplitArg,
    instance: &Instance,
    budget: Duration,
    result: &Path,
    ctx: &RunContext,
) -> Vec<String> {
    let mut argv: Vec<String> = ["mavis", "nn", "verify"].map(String::from).into();
    for path in [&instance.network, &instance.property] {
        argv.push(path.display().to_string());
    }
    argv.push("--vnncomp-output".into());
    argv.push(result.display().to_string());
    let split = match split {
        SplitArg::Influence => "influence",
        SplitArg::Sensitivity => "sensitivity",
        SplitArg::Widest => "widest",
    };
    for (option, value) in [
        ("--timeout", budget.as_secs_f64().to_string()),
        ("--threads", ctx.threads.to_string()),
        ("--milp-unstable", req.milp_unstable.to_string()),
        ("--relu-split-after", req.relu_split_after.to_string()),
        ("--split", split.to_string()),
        ("--format", "json".to_string()),
    ] {
        argv.push(option.into());
        argv.push(value);
    }
    if !req.lp_tighten {
        argv.push("--no-lp-tighten".into());
    }
    argv.push("-q".into());
    argv
}
