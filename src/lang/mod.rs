//! The shared model-language core: one expression language for every engine.
//!
//! Text flows `Source` -> tokens ([`lexer`]) -> untyped [`ast::Expr`]
//! ([`parser`]) -> checked [`types::TExpr`] (names resolved by the engine's
//! [`types::Scope`]) -> values ([`eval`], exact or f64). Every literal is an
//! exact rational; every error names file, line and column ([`diag`]).

pub mod ast;
pub mod chain;
pub mod decl;
pub mod diag;
pub mod eval;
pub mod interval;
pub mod lexer;
pub mod num;
pub mod parser;
mod read;
pub mod source;
pub mod types;
pub mod value;

pub use ast::{BinOp, Expr, ExprKind, UnOp};
pub use decl::{eval_const, parse_type, resolve_type, Constants, EnumTable, TypeSyntax};
pub use diag::{error_at, LangResult, SourceError};
pub use eval::{eval, eval_f64, Env, EnvF64, EvalError};
pub use num::Rat;
pub use parser::{parse_expr, ErrorExt, Parser};
pub use read::BYTE_ORDER_MARK;
pub use source::{Source, Span};
pub use types::{check, check_as, DeclType, Scope, Symbol, TExpr, TKind, Ty};
pub use value::Value;

/// Reads a constant given on the command line (`pf=0.1`, `N=4`, `b=true`) exactly.
pub fn parse_value_text(text: &str) -> Result<Value, String> {
    let source = Source::new("<command line>", text);
    let expr = parse_expr(&source).map_err(|e| e.message.clone())?;
    eval_const(&source, &expr, &Constants::default()).map_err(|e| e.message.clone())
}

/// A `--set NAME=VALUE` constant as given on the command line: the name is
/// checked when the command line is read, the value is kept as text and
/// evaluated by [`Assignment::evaluate`] on the verb's thread, where the
/// run's deadline bounds it (an exact value can be a long computation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub name: String,
    pub value: String,
}

/// Reads `NAME=VALUE` from the command line (clap's value parser for
/// `--set`): splits and checks the name only, so reading the command line
/// stays linear in its length.
pub fn parse_assignment(text: &str) -> Result<Assignment, String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found `{text}`"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(format!("`{name}` is not a constant name"));
    }
    Ok(Assignment {
        name: name.to_string(),
        value: value.to_string(),
    })
}

impl Assignment {
    /// The constant's exact value. An error is located in the option as the
    /// user wrote it: `<command line>:1:COL` counts from `--set`.
    pub fn evaluate(&self) -> LangResult<(String, Value)> {
        let prefix = format!("--set {}=", self.name);
        let original = Source::new("<command line>", format!("{prefix}{}", self.value));
        // The same text with the prefix blanked: spans found in it are spans
        // of `original`, and the parser sees the value alone.
        let blanked = Source::new(
            "<command line>",
            format!("{}{}", " ".repeat(prefix.len()), self.value),
        );
        let rebase = |e: Box<SourceError>| Box::new(e.rebased(&original, &blanked));
        let expr = parse_expr(&blanked).map_err(rebase)?;
        let value = eval_const(&blanked, &expr, &Constants::default()).map_err(rebase)?;
        Ok((self.name.clone(), value))
    }
}

/// The values of the `--set` constants, in order; the first error stops.
pub fn evaluate_assignments(set: &[Assignment]) -> LangResult<Vec<(String, Value)>> {
    set.iter().map(Assignment::evaluate).collect()
}

#[cfg(test)]
mod tests;

/// Parses, checks and evaluates a closed expression (the `mavis lang eval` verb).
pub fn eval_expression(source: &Source, consts: &Constants) -> LangResult<Value> {
    let expr = parse_expr(source)?;
    eval_const(source, &expr, consts)
}
