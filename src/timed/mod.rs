//! The timed engine: multi-agent systems with timed periodic tasks (MAPT,
//! seed 003). Text or JSON -> [`ast::ModelAst`] -> validated [`model::Model`]
//! -> [`semantics`] (plain or accelerated) -> [`explore`] (bfs, dfs, layered,
//! best-first; [`explore::sweep`]-line) -> [`check`] (EF, AG, nested, max/min) -> report.

pub mod check;
pub mod explore;
pub mod export;
pub mod front;
pub mod semantics;
pub mod verbs;

#[cfg(test)]
mod tests;

use crate::lang::{LangResult, Source, Value};
use front::{ast, build, json, model, parse};
use std::collections::HashMap;

/// Whether a file name denotes the JSON form (`*.json`).
pub fn is_json_path(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Parses text or JSON (chosen by `json`) into the written model.
pub fn parse_source(source: &Source, json: bool) -> LangResult<ast::ModelAst> {
    let ast = if json {
        json::parse_json(source)?
    } else {
        parse::parse_model(source)?
    };
    if ast.agents.is_empty() {
        // Located in the file itself (the JSON `agents` key, or the end of
        // the text, where the first agent is missing), not in a made-up source.
        const KEY: &str = "\"agents\"";
        let text = source.text();
        let span = match text.find(KEY) {
            Some(i) if json => crate::lang::Span::new(i, i + KEY.len()),
            _ if json => crate::lang::Span::new(0, 0),
            _ => crate::lang::Span::new(text.len(), text.len()),
        };
        return Err(crate::lang::error_at(
            source,
            span,
            "the model declares no agent: write `agent NAME period P { ... }`",
        ));
    }
    Ok(ast)
}

/// Parses and validates a model text.
pub fn load_str(
    name: &str,
    text: &str,
    overrides: HashMap<String, Value>,
) -> LangResult<model::Model> {
    let source = Source::new(name, text);
    let ast = parse_source(&source, name.ends_with(".json"))?;
    build::build_model(&ast, overrides)
}
