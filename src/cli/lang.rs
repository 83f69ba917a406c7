//! `mavis lang`: the expression language on its own.

use crate::lang;
use crate::layer_verbs::lang_eval;
use crate::report::{Report, RunContext, RunError};
use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub enum LangCmd {
    /// Evaluate a closed expression exactly.
    #[command(
        after_help = "Examples:\n  mavis lang eval '1/3 + 0.15'          # 29/60\n  mavis lang eval 'clamp(3 - 2*2, 0, 4)' --set N=4"
    )]
    Eval {
        /// The expression (it may start with `-`).
        #[arg(allow_hyphen_values = true)]
        expr: String,
        /// Constants the expression may use: NAME=VALUE (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = lang::parse_assignment)]
        set: Vec<lang::Assignment>,
    },
}

pub fn run(cmd: LangCmd, ctx: &RunContext) -> Result<Report, RunError> {
    match cmd {
        LangCmd::Eval { expr, set } => lang_eval::eval(&expr, super::set_constants(&set, ctx)?),
    }
}
