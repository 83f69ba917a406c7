//! Unit tests of the expression core: parsing, precedence, exact arithmetic,
//! type errors with positions, and the no-panic property.

use super::*;
use num::{int, rat};
use proptest::prelude::*;

fn parse(text: &str) -> Expr {
    parse_expr(&Source::new("t", text)).unwrap()
}

/// Fully parenthesised print of a parse.
fn shape(text: &str) -> String {
    parse(text).to_string()
}

fn value(text: &str) -> Value {
    parse_value_text(text).unwrap()
}

struct Vars;
impl Scope for Vars {
    fn lookup(&self, name: &str) -> Option<Symbol> {
        match name {
            "x" => Some(Symbol::Var {
                slot: 0,
                ty: Ty::Int,
            }),
            "y" => Some(Symbol::Var {
                slot: 1,
                ty: Ty::Real,
            }),
            "b" => Some(Symbol::Var {
                slot: 2,
                ty: Ty::Bool,
            }),
            "N" => Some(Symbol::Const(Value::Num(int(4)))),
            _ => None,
        }
    }
}

fn check_err(text: &str) -> Box<SourceError> {
    let src = Source::new("model.txt", text);
    let e = parse_expr(&src).unwrap();
    check(&src, &e, &Vars).unwrap_err()
}

#[test]
fn precedence() {
    assert_eq!(shape("1 + 2 * 3"), "(1 + (2 * 3))");
    assert_eq!(shape("1 - 2 - 3"), "((1 - 2) - 3)");
    assert_eq!(shape("a & b | c"), "((a & b) | c)");
    assert_eq!(shape("a | b & c"), "(a | (b & c))");
    assert_eq!(shape("!x = 1 & y"), "(!((x = 1)) & y)");
    assert_eq!(shape("a => b => c"), "(a => (b => c))");
    assert_eq!(shape("a <=> b => c"), "(a <=> (b => c))");
    assert_eq!(shape("x + 1 < y * 2"), "((x + 1) < (y * 2))");
    assert_eq!(shape("-x * 2"), "(-(x) * 2)");
    assert_eq!(shape("c ? 1 : 2 + 3"), "(if c then 1 else (2 + 3))");
    assert_eq!(
        shape("if c then 1 else 2 + 3"),
        "(if c then 1 else (2 + 3))"
    );
    assert_eq!(shape("clamp(h - 2, 0, Mh)"), "clamp((h - 2), 0, Mh)");
    assert_eq!(
        shape("V.x2 - V.x1 < 5/2 & car1@braking"),
        "(((V.x2 - V.x1) < (5 / 2)) & car1@braking)"
    );
}

#[test]
fn exact_arithmetic() {
    assert_eq!(value("0.15"), Value::Num(rat(3, 20)));
    assert_eq!(value("1/3 + 0.15"), Value::Num(rat(29, 60)));
    assert_eq!(value("0.1 + 0.2 = 0.3"), Value::Bool(true));
    assert_eq!(value("min(3, 1/2, 2)"), Value::Num(rat(1, 2)));
    assert_eq!(value("clamp(7 - 2, 0, 4)"), Value::Num(int(4)));
    assert_eq!(value("clamp(1 - 3, 0, 4)"), Value::Num(int(0)));
    assert_eq!(value("mod(-7, 3)"), Value::Num(int(2)));
    assert_eq!(value("floor(7/2) + ceil(1/3)"), Value::Num(int(4)));
    assert_eq!(value("if 1 < 2 then 10 else 20"), Value::Num(int(10)));
    assert_eq!(value("abs(-5/4)"), Value::Num(rat(5, 4)));
    assert_eq!(value("1e-3 * 1000"), Value::Num(int(1)));
}

#[test]
fn fast_and_exact_agree() {
    let src = Source::new("t", "if b then clamp(x - 2, 0, N) else min(y, x + 1/2)");
    let e = check(&src, &parse_expr(&src).unwrap(), &Vars).unwrap();
    for (x, y, b) in [
        (3, 0.25, true),
        (1, 0.25, true),
        (9, 3.5, false),
        (0, -1.0, false),
    ] {
        let exact = eval(
            &e,
            &vec![
                Value::Num(int(x)),
                Value::Num(num::from_f64(y).unwrap()),
                Value::Bool(b),
            ],
        )
        .unwrap();
        let fast = eval_f64(&e, &[x as f64, y, f64::from(u8::from(b))][..]);
        assert_eq!(exact.to_f64(), fast, "x={x} y={y} b={b}");
    }
}

#[test]
fn type_errors_have_positions() {
    let e = check_err("x + b");
    assert_eq!((e.line, e.column), (1, 5));
    assert!(e.message.contains("needs a number"), "{}", e.message);
    let e = check_err("\n  b & (x + 1)");
    assert_eq!((e.line, e.column), (2, 7));
    assert!(e.message.contains("needs a bool"));
    let e = check_err("if x then 1 else 2");
    assert!(e.message.contains("condition of `if`"));
    let e = check_err("if b then 1 else false");
    assert!(e.message.contains("different types"));
    let e = check_err("foo(1)");
    assert_eq!(e.message, "unknown function `foo`");
    let e = check_err("z + 1");
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (1, 1, "unknown name `z`")
    );
    let e = check_err("clamp(x, 1)");
    assert!(e.message.contains("takes 3 arguments"));
    assert!(e.location.starts_with("model.txt:1:1"));
}

#[test]
fn parse_errors_say_what_was_expected() {
    let err = |t: &str| parse_expr(&Source::new("f.nis", t)).unwrap_err();
    let e = err("1 + ");
    assert_eq!(
        e.message,
        "expected an expression, found the end of the file"
    );
    let e = err("(1 + 2");
    assert!(e.message.starts_with("expected `)`"), "{}", e.message);
    let e = err("1 < 2 < 3");
    assert_eq!(e.message, "comparisons do not chain");
    assert_eq!((e.line, e.column), (1, 7));
    let e = err("x $ y");
    assert_eq!(e.message, "unexpected character `$`");
    assert_eq!(e.location, "f.nis:1:3");
    let e = err("if a then b");
    assert!(e.message.contains("`else`"));
}

#[test]
fn constants_and_types() {
    let src = Source::new(
        "c",
        "const N = 4; const double p = 0.3; const int M = N * 2; [0..M] real[0..p] {on, off} bool",
    );
    let mut p = Parser::new(&src).unwrap();
    let mut consts = Constants::default();
    for _ in 0..3 {
        p.expect_keyword("const").unwrap();
        consts.parse_decl(&mut p).unwrap();
    }
    assert_eq!(consts.get("M"), Some(&Value::Num(int(8))));
    assert_eq!(consts.get("p"), Some(&Value::Num(rat(3, 10))));
    let mut enums = EnumTable::default();
    let mut types = Vec::new();
    for _ in 0..4 {
        let (t, span) = parse_type(&mut p).unwrap();
        types.push(resolve_type(&src, &t, span, &consts, &mut enums).unwrap());
    }
    assert_eq!(types[0].describe(), "[0..8]");
    assert_eq!(types[1].describe(), "real[0..3/10]");
    assert_eq!(types[2].describe(), "{on, off}");
    assert!(types[0].contains(&Value::Num(int(8))));
    assert!(!types[0].contains(&Value::Num(int(9))));
    assert!(!types[0].contains(&Value::Num(rat(1, 2))));
    assert!(types[1].contains(&Value::Num(rat(1, 4))));
    assert_eq!(enums.member("off"), Some(Value::Enum(0, 1)));
    assert!(p.at_eof());
}

#[test]
fn constant_errors() {
    let run = |t: &str| {
        let src = Source::new("c", t);
        let mut p = Parser::new(&src).unwrap();
        p.expect_keyword("const").unwrap();
        Constants::default().parse_decl(&mut p).unwrap_err()
    };
    assert!(run("const int N = 1/2;").message.contains("declared int"));
    assert!(run("const pf;").message.contains("has no value"));
    assert!(run("const x = y;").message.contains("unknown name `y`"));
    let mut over = std::collections::HashMap::new();
    over.insert("pf".to_string(), Value::Num(rat(1, 10)));
    let src = Source::new("c", "const double pf;");
    let mut p = Parser::new(&src).unwrap();
    p.expect_keyword("const").unwrap();
    let mut c = Constants::with_overrides(over);
    c.parse_decl(&mut p).unwrap();
    assert_eq!(c.get("pf"), Some(&Value::Num(rat(1, 10))));
    assert_eq!(
        parse_assignment("pf = 0.25").unwrap().evaluate().unwrap(),
        ("pf".to_string(), Value::Num(rat(1, 4)))
    );
    assert!(parse_assignment("0.25").is_err());
    // The value is read when it is evaluated, and its errors are located
    // in the option as written: `--set pf=1 +` ends at column 13.
    let late = parse_assignment("pf=1 +").unwrap();
    let e = late.evaluate().unwrap_err();
    assert_eq!(e.location, "<command line>:1:13", "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    let e = parse_expr(&Source::new("t", text)).unwrap_err();
    assert_eq!(e.message, "expression nested too deeply");
    let text = format!("{}1", "-".repeat(5000));
    assert!(parse_expr(&Source::new("t", text)).is_err());
}

const PIECES: &[&str] = &[
    "x", "1", "0.5", "(", ")", "+", "-", "*", "/", "&", "|", "!", "=", "<", "<=", "=>", "<=>", "?",
    ":", "if", "then", "else", "min(", "clamp(", ",", "true", "\"s", "/*", "é", "..", "'", "@",
    "V.x", "1e99999",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random token soup: the parser and checker return, never panic.
    #[test]
    fn parser_never_panics_on_token_soup(pieces in proptest::collection::vec(0..PIECES.len(), 0..40)) {
        let text: Vec<&str> = pieces.iter().map(|&i| PIECES[i]).collect();
        let src = Source::new("fuzz", text.join(" "));
        if let Ok(e) = parse_expr(&src) {
            let _ = check(&src, &e, &Vars);
        }
    }

    /// Arbitrary bytes-as-text: never panics, and errors point inside the text.
    #[test]
    fn parser_never_panics_on_arbitrary_text(text in "\\PC{0,60}") {
        let src = Source::new("fuzz", text.clone());
        if let Err(e) = parse_expr(&src) {
            prop_assert!(e.line >= 1 && e.column >= 1);
        }
    }

    /// Mutations of a valid expression (one byte deleted or duplicated).
    #[test]
    fn parser_never_panics_on_mutations(at in 0usize..60, dup in any::<bool>()) {
        let good = "if b then clamp(x - 2, 0, N) else min(y, x + 1/2) <= 3";
        let at = at.min(good.len() - 1);
        let mut t = good.to_string();
        if dup { t.insert(at, good.as_bytes()[at] as char); } else { t.remove(at); }
        let src = Source::new("fuzz", t);
        if let Ok(e) = parse_expr(&src) { let _ = check(&src, &e, &Vars); }
    }

    /// Printing and re-parsing gives the same tree shape.
    #[test]
    fn print_parse_round_trip(a in 0i64..50, b in 1i64..50, c in 0i64..50, op in 0usize..4) {
        let ops = ["+", "-", "*", "/"];
        let text = format!("{a} {} {b} * ({c} - {a}) < {c}", ops[op]);
        let once = shape(&text);
        prop_assert_eq!(shape(&once), once.clone());
    }
}

#[test]
fn short_chains_keep_their_shape_and_long_ones_are_balanced() {
    // Up to eight operands: folded to the left, as written.
    let e = parse_expr(&Source::new("t", "1 - 2 - 3 + 4 - 5 - 6 + 7 - 8")).unwrap();
    assert_eq!(e.to_string(), "(((((((1 - 2) - 3) + 4) - 5) - 6) + 7) - 8)");
    assert_eq!(e.depth(), 8);
    // 100,000 operands: about log2(100,000) = 17 levels, the exact same value.
    let text = (0..100_000)
        .map(|i| if i % 3 == 0 { "-7" } else { "+2" })
        .collect::<String>();
    let src = Source::new("t", format!("1{text}"));
    let e = parse_expr(&src).unwrap();
    assert!(e.depth() <= 20, "depth {}", e.depth());
    let expected: i64 = 1
        + (0..100_000)
            .map(|i| if i % 3 == 0 { -7 } else { 2 })
            .sum::<i64>();
    let t = check(&src, &e, &Vars).unwrap();
    assert_eq!(
        eval(&t, &Vec::<Value>::new()).unwrap(),
        Value::Num(rat(expected, 1))
    );
}

#[test]
fn block_comments_are_skipped_and_an_open_one_is_located() {
    // Hand-checked values: the comments are whitespace to the grammar.
    assert_eq!(value("1 /* c*/ + 2"), value("3"));
    assert_eq!(value("1 /** c **/ + /* a * b / c */ 2"), value("3"));
    assert_eq!(value("/* first */ 4 /* x\n y */ * 2"), value("8"));
    assert_eq!(value("1 /**/ + 1"), value("2"));
    let err = parse_expr(&Source::new("t", "1 + /* open")).unwrap_err();
    let text = format!("{err:?}");
    assert!(text.contains("unterminated block comment"), "{text}");
    assert!(text.contains("t:1:5"), "{text}");
}

/// Interval variables for [`interval::eval_iv`]: x, y, b as in [`Vars`].
struct Boxes(Vec<interval::Iv>);
impl interval::EnvIv for Boxes {
    fn var(&self, slot: usize) -> interval::Iv {
        self.0[slot]
    }
}

const INTERVAL_EXPRS: [&str; 8] = [
    "if b then clamp(x - 2, 0, N) else min(y, x + 1/2)",
    "y * y - 3 * x * y + abs(y - x) / 4",
    "(y - 1) * (x + 2) - max(y, 0.5 * x)",
    "y / (x + 20) + floor(y) - ceil(y / 3)",
    "mod(x + 7, 3) + mod(x * x - 40, 6) - y",
    "y > x & !(x = 3) | b",
    "(y <= 2 * x) = b",
    "if y < 0 then -y else y * 2",
];

proptest! {
    /// The interval of an expression over a box contains its f64 value at
    /// every point of the box, and a condition decided over the box has
    /// that value at every point.
    #[test]
    fn intervals_contain_every_point(
        which in 0usize..INTERVAL_EXPRS.len(),
        x in (-10i64..10, 0i64..5), y in (-8.0f64..8.0, 0.0f64..4.0), b in 0u8..3,
        at in (0.0f64..=1.0, 0.0f64..=1.0, any::<bool>()),
    ) {
        let src = Source::new("t", INTERVAL_EXPRS[which]);
        let e = check(&src, &parse_expr(&src).unwrap(), &Vars).unwrap();
        let bool_iv = [interval::Iv::FALSE, interval::Iv::TRUE, interval::Iv::EITHER][b as usize];
        let boxes = Boxes(vec![
            interval::Iv::new(x.0 as f64, (x.0 + x.1) as f64),
            interval::Iv::new(y.0, y.0 + y.1),
            bool_iv,
        ]);
        let iv = interval::eval_iv(&e, &boxes);
        let px = (x.0 as f64 + (at.0 * x.1 as f64).round()).min((x.0 + x.1) as f64);
        let py = y.0 + at.1 * y.1;
        let pb = match b { 0 => 0.0, 1 => 1.0, _ => f64::from(u8::from(at.2)) };
        let v = eval_f64(&e, &[px, py, pb][..]);
        prop_assert!(v.is_nan() || iv.contains(v), "{} at ({px}, {py}, {pb}) = {v}, not in {iv:?}", INTERVAL_EXPRS[which]);
        if let Some(d) = iv.decided() {
            if e.ty == Ty::Bool {
                prop_assert_eq!(d, v != 0.0);
            }
        }
    }
}
