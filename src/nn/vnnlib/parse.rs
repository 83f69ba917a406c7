//! Reading VNN-LIB text: a logos lexer, S-expressions with spans, then the
//! commands (`declare-const`, `assert`) interpreted into linear atoms and
//! brought to disjunctive normal form, grouped by input box.
//!
//! Every error names `file:line:column` and shows the line (miette).

use super::property::{Atom, Case, Property};
use crate::nn::InputBox;
use logos::Logos;
use miette::{Diagnostic, NamedSource, SourceSpan};
use std::sync::Arc;

/// The DNF of a file is the product of its assertions' disjunctions; past
/// this many terms the file is refused rather than expanded.
const MAX_TERMS: usize = 1 << 16;

/// S-expressions nested deeper than this are refused (no stack overflow on
/// hostile input).
const MAX_DEPTH: usize = 256;

/// A VNN-LIB file that cannot be read, located at `file:line:column`.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{location}: {message}")]
pub struct VnnlibError {
    pub location: String,
    pub message: String,
    #[source_code]
    src: NamedSource<Arc<String>>,
    #[label("here")]
    span: SourceSpan,
    /// 1-based line and column.
    pub line: usize,
    pub column: usize,
}

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r";[^\n]*")]
enum Tok {
    #[token("(")]
    Open,
    #[token(")")]
    Close,
    #[regex(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?", priority = 5)]
    Number,
    #[regex(r"[A-Za-z_<>=+*/!.\-][A-Za-z0-9_<>=+*/!.\-]*", priority = 3)]
    Symbol,
}

/// A parsed S-expression with the byte range it covers.
#[derive(Debug)]
enum Sexp {
    Number(f64, (usize, usize)),
    Symbol(String, (usize, usize)),
    List(Vec<Sexp>, (usize, usize)),
}

impl Sexp {
    fn span(&self) -> (usize, usize) {
        match self {
            Sexp::Number(_, s) | Sexp::Symbol(_, s) | Sexp::List(_, s) => *s,
        }
    }
}

struct Reader<'a> {
    name: &'a str,
    text: Arc<String>,
}

impl Reader<'_> {
    /// 1-based line and column of a byte offset.
    fn line_column(&self, at: usize) -> (usize, usize) {
        let before = &self.text[..at.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, column)
    }

    /// `file:line:column` of a span's start.
    fn location(&self, span: (usize, usize)) -> String {
        let (line, column) = self.line_column(span.0);
        format!("{}:{line}:{column}", self.name)
    }

    fn error(&self, span: (usize, usize), message: impl Into<String>) -> Box<VnnlibError> {
        let start = span.0.min(self.text.len());
        let (line, column) = self.line_column(start);
        Box::new(VnnlibError {
            location: self.location(span),
            message: message.into(),
            src: NamedSource::new(self.name, self.text.clone()),
            span: SourceSpan::new(start.into(), span.1.min(self.text.len()) - start),
            line,
            column,
        })
    }

    /// A number or a name ends at a space, a parenthesis, a comment or the
    /// end: `1.2.3` or `2-1` is one malformed atom, not two numbers (the
    /// lexer alone would read `1.2` `.3` and `2` `-1`, and a chain of
    /// comparisons would silently change the property).
    fn ends_at_delimiter(&self, span: (usize, usize)) -> Result<(), Box<VnnlibError>> {
        let rest = &self.text[span.1..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ';'))
            .unwrap_or(rest.len());
        if end == 0 {
            return Ok(());
        }
        let atom = &self.text[span.0..span.1 + end];
        Err(self.error(
            (span.0, span.1 + end),
            format!("'{atom}' is neither a number nor a name (an atom ends at a space or a parenthesis)"),
        ))
    }

    fn sexps(&self) -> Result<Vec<Sexp>, Box<VnnlibError>> {
        let mut stack: Vec<(usize, Vec<Sexp>)> = vec![(0, Vec::new())];
        let mut lex = Tok::lexer(self.text.as_str());
        while let Some(tok) = lex.next() {
            let span = (lex.span().start, lex.span().end);
            let slice = lex.slice();
            if matches!(tok, Ok(Tok::Number | Tok::Symbol)) {
                self.ends_at_delimiter(span)?;
            }
            let item = match tok {
                Err(()) => return Err(self.error(span, format!("unexpected text '{slice}'"))),
                Ok(Tok::Open) => {
                    if stack.len() > MAX_DEPTH {
                        return Err(self.error(span, "expressions nested too deeply"));
                    }
                    stack.push((span.0, Vec::new()));
                    continue;
                }
                Ok(Tok::Close) => {
                    if stack.len() == 1 {
                        return Err(self.error(span, "')' without a matching '('"));
                    }
                    let (start, items) = stack.pop().expect("an open list");
                    Sexp::List(items, (start, span.1))
                }
                Ok(Tok::Number) => match slice.parse::<f64>() {
                    Ok(v) if v.is_finite() => Sexp::Number(v, span),
                    _ => return Err(self.error(span, format!("'{slice}' is not a finite number"))),
                },
                Ok(Tok::Symbol) => Sexp::Symbol(slice.to_string(), span),
            };
            stack.last_mut().expect("the top level").1.push(item);
        }
        if stack.len() > 1 {
            let start = stack.last().expect("an open list").0;
            return Err(self.error((start, start + 1), "'(' is never closed"));
        }
        Ok(stack.pop().expect("the top level").1)
    }
}

/// The declared variables: `X_i` are inputs, `Y_j` outputs, numbered from 0
/// without gaps.
struct Names {
    inputs: usize,
    outputs: usize,
    /// Where each input is declared, for errors about its bounds.
    input_spans: Vec<(usize, usize)>,
    output_spans: Vec<(usize, usize)>,
}

/// `i` for a name `PREFIXi` (decimal digits only).
fn var_index(name: &str, prefix: &str) -> Option<usize> {
    name.strip_prefix(prefix)
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<usize>().ok())
}

/// A linear term over the declared variables (inputs then outputs) and a constant.
#[derive(Clone)]
struct Linear {
    coefs: Vec<f64>,
    constant: f64,
}

impl Linear {
    fn scaled(mut self, c: f64) -> Linear {
        self.coefs.iter_mut().for_each(|v| *v *= c);
        self.constant *= c;
        self
    }

    fn plus(mut self, other: &Linear) -> Linear {
        self.coefs
            .iter_mut()
            .zip(&other.coefs)
            .for_each(|(a, b)| *a += b);
        self.constant += other.constant;
        self
    }

    fn is_constant(&self) -> bool {
        self.coefs.iter().all(|&c| c == 0.0)
    }
}

/// A formula in DNF: a disjunction of conjunctions of atoms.
type Dnf = Vec<Vec<Atom>>;

/// Reads a VNN-LIB text; `name` is the file name used in errors.
pub fn parse(name: &str, text: &str) -> Result<Property, Box<VnnlibError>> {
    // A leading byte-order mark (editors on Windows write one) is not text:
    // lines and columns are counted without it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let reader = Reader {
        name,
        text: Arc::new(text.to_string()),
    };
    let commands = reader.sexps()?;
    let names = declarations(&reader, &commands)?;
    let mut dnf: Dnf = vec![Vec::new()];
    for c in &commands {
        let Sexp::List(items, _) = c else {
            unreachable!("checked by declarations")
        };
        if let [Sexp::Symbol(head, _), body] = items.as_slice() {
            if head == "assert" {
                let f = formula(&reader, &names, body, 0)?;
                dnf = conjoin(&reader, dnf, f, body.span())?;
            }
        }
    }
    let mut warnings = Vec::new();
    let cases = group_cases(&reader, &names, dnf, &mut warnings)?;
    Ok(Property {
        inputs: names.inputs,
        outputs: names.outputs,
        cases,
        warnings,
        input_decls: names
            .input_spans
            .iter()
            .map(|&s| reader.location(s))
            .collect(),
        output_decls: names
            .output_spans
            .iter()
            .map(|&s| reader.location(s))
            .collect(),
    })
}

/// Checks every command's form and collects the declarations.
fn declarations(reader: &Reader, commands: &[Sexp]) -> Result<Names, Box<VnnlibError>> {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for c in commands {
        let Sexp::List(items, span) = c else {
            return Err(reader.error(
                c.span(),
                "expected a command '(declare-const ...)' or '(assert ...)'",
            ));
        };
        match items.as_slice() {
            [Sexp::Symbol(h, _), Sexp::Symbol(v, vs), Sexp::Symbol(t, ts)]
                if h == "declare-const" =>
            {
                if t != "Real" {
                    return Err(
                        reader.error(*ts, format!("sort '{t}' is not supported (only Real)"))
                    );
                }
                match (var_index(v, "X_"), var_index(v, "Y_")) {
                    (Some(i), _) => xs.push((i, *vs)),
                    (_, Some(j)) => ys.push((j, *vs)),
                    _ => {
                        return Err(reader.error(
                            *vs,
                            format!("'{v}' is neither an input X_i nor an output Y_j"),
                        ))
                    }
                }
            }
            [Sexp::Symbol(h, _), ..] if h == "declare-const" => {
                return Err(reader.error(*span, "expected '(declare-const NAME Real)'"));
            }
            [Sexp::Symbol(h, _), _] if h == "assert" => {}
            [Sexp::Symbol(h, hs), ..] if h == "assert" => {
                return Err(reader.error(*hs, "'assert' takes exactly one formula"));
            }
            [Sexp::Symbol(h, hs), ..] => {
                return Err(reader.error(
                    *hs,
                    format!("command '{h}' is not supported (declare-const, assert)"),
                ));
            }
            _ => {
                return Err(reader.error(
                    *span,
                    "expected a command '(declare-const ...)' or '(assert ...)'",
                ))
            }
        }
    }
    let inputs = numbered(reader, &mut xs, "X")?;
    let outputs = numbered(reader, &mut ys, "Y")?;
    if inputs == 0 || outputs == 0 {
        return Err(reader.error(
            (0, 0),
            "the property declares no inputs X_i or no outputs Y_j",
        ));
    }
    Ok(Names {
        inputs,
        outputs,
        input_spans: xs.iter().map(|(_, s)| *s).collect(),
        output_spans: ys.iter().map(|(_, s)| *s).collect(),
    })
}

/// The count of `X_0..X_{n-1}` declared once each.
fn numbered(
    reader: &Reader,
    found: &mut [(usize, (usize, usize))],
    prefix: &str,
) -> Result<usize, Box<VnnlibError>> {
    found.sort();
    for (k, (i, span)) in found.iter().enumerate() {
        if *i != k {
            let what = if *i < k {
                "declared twice"
            } else {
                "declared without the ones before it"
            };
            return Err(reader.error(*span, format!("{prefix}_{i} is {what}")));
        }
    }
    Ok(found.len())
}

fn formula(
    reader: &Reader,
    names: &Names,
    e: &Sexp,
    depth: usize,
) -> Result<Dnf, Box<VnnlibError>> {
    let Sexp::List(items, span) = e else {
        return Err(reader.error(
            e.span(),
            "expected a formula: (<= a b), (>= a b), (and ...) or (or ...)",
        ));
    };
    let Some(Sexp::Symbol(head, hs)) = items.first() else {
        return Err(reader.error(
            *span,
            "expected a formula: (<= a b), (>= a b), (and ...) or (or ...)",
        ));
    };
    let args = &items[1..];
    if depth > MAX_DEPTH {
        return Err(reader.error(*span, "formula nested too deeply"));
    }
    match head.as_str() {
        "and" => {
            let mut acc: Dnf = vec![Vec::new()];
            for a in args {
                acc = conjoin(reader, acc, formula(reader, names, a, depth + 1)?, a.span())?;
            }
            Ok(acc)
        }
        "or" => {
            let mut acc: Dnf = Vec::new();
            for a in args {
                acc.extend(formula(reader, names, a, depth + 1)?);
                if acc.len() > MAX_TERMS {
                    return Err(reader.error(
                        *span,
                        format!("the disjunction has more than {MAX_TERMS} terms"),
                    ));
                }
            }
            Ok(acc)
        }
        "<=" | ">=" | "<" | ">" | "=" => {
            if args.len() < 2 {
                return Err(reader.error(*hs, format!("'{head}' needs two terms")));
            }
            let terms = args
                .iter()
                .map(|a| term(reader, names, a, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            let mut atoms = Vec::new();
            for pair in terms.windows(2) {
                let (a, b) = (&pair[0], &pair[1]);
                let le = |lhs: &Linear, rhs: &Linear| {
                    atom(names, lhs.clone().plus(&rhs.clone().scaled(-1.0)))
                };
                match head.as_str() {
                    "<=" | "<" => atoms.push(le(a, b)),
                    ">=" | ">" => atoms.push(le(b, a)),
                    _ => atoms.extend([le(a, b), le(b, a)]),
                }
            }
            Ok(vec![atoms])
        }
        other => Err(reader.error(
            *hs,
            format!("'{other}' is not a supported connective (and, or, <=, >=, <, >, =)"),
        )),
    }
}

/// `d <= 0` as an atom.
fn atom(names: &Names, d: Linear) -> Atom {
    Atom {
        inputs: d.coefs[..names.inputs].to_vec(),
        outputs: d.coefs[names.inputs..].to_vec(),
        rhs: -d.constant,
    }
}

fn term(
    reader: &Reader,
    names: &Names,
    e: &Sexp,
    depth: usize,
) -> Result<Linear, Box<VnnlibError>> {
    let zero = || Linear {
        coefs: vec![0.0; names.inputs + names.outputs],
        constant: 0.0,
    };
    match e {
        Sexp::Number(v, _) => Ok(Linear {
            constant: *v,
            ..zero()
        }),
        Sexp::Symbol(s, span) => {
            let slot = match (var_index(s, "X_"), var_index(s, "Y_")) {
                (Some(i), _) if i < names.inputs => i,
                (_, Some(j)) if j < names.outputs => names.inputs + j,
                _ => return Err(reader.error(*span, format!("'{s}' is not a declared variable"))),
            };
            let mut t = zero();
            t.coefs[slot] = 1.0;
            Ok(t)
        }
        Sexp::List(items, span) => {
            let Some(Sexp::Symbol(op, os)) = items.first() else {
                return Err(reader.error(
                    *span,
                    "expected a term: a number, a variable, (+ ..), (- ..) or (* ..)",
                ));
            };
            if depth > MAX_DEPTH {
                return Err(reader.error(*span, "term nested too deeply"));
            }
            let args = items[1..]
                .iter()
                .map(|a| term(reader, names, a, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            if args.is_empty() {
                return Err(reader.error(*os, format!("'{op}' needs at least one term")));
            }
            match op.as_str() {
                "+" => Ok(args.iter().fold(zero(), |acc, a| acc.plus(a))),
                "-" if args.len() == 1 => Ok(args[0].clone().scaled(-1.0)),
                "-" => Ok(args[1..]
                    .iter()
                    .fold(args[0].clone(), |acc, a| acc.plus(&a.clone().scaled(-1.0)))),
                "*" => {
                    let mut product: Option<Linear> = None;
                    let mut factor = 1.0;
                    for a in args {
                        if a.is_constant() {
                            factor *= a.constant;
                        } else if product.is_some() {
                            return Err(
                                reader.error(*span, "a product of two variables is not linear")
                            );
                        } else {
                            product = Some(a);
                        }
                    }
                    Ok(product.map_or(
                        Linear {
                            constant: factor,
                            ..zero()
                        },
                        |p| p.scaled(factor),
                    ))
                }
                other => Err(reader.error(
                    *os,
                    format!("'{other}' is not a supported operation (+, -, *)"),
                )),
            }
        }
    }
}

/// The DNF of `a and b`.
fn conjoin(reader: &Reader, a: Dnf, b: Dnf, span: (usize, usize)) -> Result<Dnf, Box<VnnlibError>> {
    if a.len().saturating_mul(b.len()) > MAX_TERMS {
        return Err(reader.error(
            span,
            format!("the formula's disjunctive normal form has more than {MAX_TERMS} terms"),
        ));
    }
    Ok(a.iter()
        .flat_map(|l| b.iter().map(move |r| l.iter().chain(r).cloned().collect()))
        .collect())
}

/// Splits each DNF term into its input box (atoms of one input) and the rest,
/// and groups terms with the same box into one [`Case`]. Terms whose box is
/// empty are unsatisfiable and dropped; a term that leaves an input unbounded
/// is an error.
fn group_cases(
    reader: &Reader,
    names: &Names,
    dnf: Dnf,
    warnings: &mut Vec<String>,
) -> Result<Vec<Case>, Box<VnnlibError>> {
    let mut cases: Vec<Case> = Vec::new();
    'terms: for conj in dnf {
        let mut lo = vec![f64::NEG_INFINITY; names.inputs];
        let mut hi = vec![f64::INFINITY; names.inputs];
        let mut rest = Vec::new();
        for a in conj {
            let used: Vec<usize> = (0..names.inputs).filter(|&i| a.inputs[i] != 0.0).collect();
            let reads_outputs = a.outputs.iter().any(|&b| b != 0.0);
            match used.as_slice() {
                [i] if !reads_outputs => {
                    let bound = a.rhs / a.inputs[*i];
                    if a.inputs[*i] > 0.0 {
                        hi[*i] = hi[*i].min(bound);
                    } else {
                        lo[*i] = lo[*i].max(bound);
                    }
                }
                // `0 <= rhs`: always true, or never.
                [] if !reads_outputs => {
                    if a.rhs < 0.0 {
                        continue 'terms;
                    }
                }
                _ => rest.push(a),
            }
        }
        if let Some(i) = (0..names.inputs).find(|&i| !lo[i].is_finite() || !hi[i].is_finite()) {
            return Err(reader.error(
                names.input_spans[i],
                format!(
                    "X_{i} has no finite lower and upper bound in some disjunct of the property"
                ),
            ));
        }
        if let Some(i) = (0..names.inputs).find(|&i| lo[i] > hi[i]) {
            let why = format!(
                "{}: X_{i} has lower bound {} above its upper bound {} in some disjunct of the property: its input box is empty, so no input can violate it and it is left out",
                reader.location(names.input_spans[i]),
                lo[i],
                hi[i]
            );
            if !warnings.contains(&why) {
                warnings.push(why);
            }
            continue;
        }
        let input = InputBox::new(lo, hi).map_err(|e| reader.error((0, 0), e))?;
        match cases.iter_mut().find(|c| c.input == input) {
            Some(c) => c.disjuncts.push(rest),
            None => cases.push(Case {
                input,
                disjuncts: vec![rest],
            }),
        }
    }
    Ok(cases)
}
