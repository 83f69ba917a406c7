//! Strategy files for `mavis robust check`: one statement per state,
//! `STATE -> INPUT [, INPUT ...];` (`//` comments). States not listed allow no input.

use crate::lang::lexer::Tok;
use crate::lang::{LangResult, Parser, Source};
use crate::robust::front::Automaton;
use crate::robust::synth::reach::Strategy;

/// Parses a memoryless (possibly set-valued) strategy for `a`.
pub fn parse(source: &Source, a: &Automaton) -> LangResult<Strategy> {
    let mut p = Parser::new(source)?;
    let mut s: Strategy = vec![Vec::new(); a.len()];
    let mut given = vec![false; a.len()];
    while !p.at_eof() {
        let (q, span) = p.ident()?;
        let qi = a
            .states
            .iter()
            .position(|n| *n == q)
            .ok_or_else(|| p.error(span, format!("unknown state `{q}`")))?;
        if given[qi] {
            return Err(p.error(span, format!("state `{q}` is given twice")));
        }
        given[qi] = true;
        p.expect(Tok::Arrow)?;
        loop {
            let (input, span) = p.ident()?;
            let i = a.moves[qi]
                .iter()
                .position(|m| a.inputs[m.input as usize] == input)
                .ok_or_else(|| {
                    p.error(span, format!("input `{input}` is not available at `{q}`"))
                })?;
            if !s[qi].contains(&i) {
                s[qi].push(i);
            }
            if !p.eat(Tok::Comma) {
                break;
            }
        }
        p.expect(Tok::Semi)?;
    }
    Ok(s)
}

/// Writes a strategy in the same format (states without inputs are left out).
pub fn write(a: &Automaton, s: &Strategy) -> String {
    let mut out = String::new();
    for (q, set) in s.iter().enumerate() {
        if !set.is_empty() {
            let names: Vec<&str> = set.iter().map(|&i| a.input_name(&a.moves[q][i])).collect();
            out.push_str(&format!("{} -> {};\n", &a.states[q], names.join(", ")));
        }
    }
    out
}
