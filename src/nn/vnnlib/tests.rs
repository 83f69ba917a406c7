use super::*;
use crate::nn::InputBox;
use proptest::prelude::*;

const ACAS_PROP_3: &str = "; ACAS Xu property 3
(declare-const X_0 Real)
(declare-const X_1 Real)
(declare-const Y_0 Real)
(declare-const Y_1 Real)
(declare-const Y_2 Real)
(assert (<= X_0 0.679857769))
(assert (>= X_0 0.6))
(assert (<= X_1 -0.45))
(assert (>= X_1 -0.5))
(assert (<= Y_0 Y_1))
(assert (<= Y_0 Y_2))
";

#[test]
fn reads_a_box_and_one_output_conjunction() {
    let p = parse("p3.vnnlib", ACAS_PROP_3).unwrap();
    assert_eq!((p.inputs, p.outputs), (2, 3));
    assert_eq!(p.cases.len(), 1);
    let c = &p.cases[0];
    assert_eq!(c.input.lo, vec![0.6, -0.5]);
    assert_eq!(c.input.hi, vec![0.679857769, -0.45]);
    // Y_0 - Y_1 <= 0 and Y_0 - Y_2 <= 0.
    assert_eq!(
        c.disjuncts,
        vec![vec![
            Atom {
                inputs: vec![0.0, 0.0],
                outputs: vec![1.0, -1.0, 0.0],
                rhs: 0.0
            },
            Atom {
                inputs: vec![0.0, 0.0],
                outputs: vec![1.0, 0.0, -1.0],
                rhs: 0.0
            },
        ]]
    );
    // Inside the box with y0 smallest: unsafe; y0 largest: safe.
    assert!(c.excess(&[0.6, -0.5], &[0.0, 1.0, 2.0]) <= 0.0);
    assert!(c.excess(&[0.6, -0.5], &[3.0, 1.0, 2.0]) > 0.0);
}

#[test]
fn reads_output_dnf_and_a_disjunction_of_boxes() {
    let text = "(declare-const X_0 Real)(declare-const Y_0 Real)(declare-const Y_1 Real)
(assert (or (and (>= X_0 0) (<= X_0 1)) (and (>= X_0 2) (<= X_0 3))))
(assert (or (and (>= Y_0 (+ 1 (* 2 Y_1)))) (and (< (- Y_1 X_0) -0.5) (> Y_0 1e-3))))";
    let p = parse("d.vnnlib", text).unwrap();
    assert_eq!(p.cases.len(), 2);
    assert_eq!(p.cases[1].input.lo, vec![2.0]);
    assert_eq!(p.cases[1].input.hi, vec![3.0]);
    for c in &p.cases {
        assert_eq!(c.disjuncts.len(), 2);
        // Y_0 >= 1 + 2 Y_1  is  -Y_0 + 2 Y_1 <= -1.
        assert_eq!(
            c.disjuncts[0],
            vec![Atom {
                inputs: vec![0.0],
                outputs: vec![-1.0, 2.0],
                rhs: -1.0
            }]
        );
        // Y_1 - X_0 < -0.5 (closure), Y_0 > 1e-3  is  -Y_0 <= -1e-3.
        assert_eq!(
            c.disjuncts[1],
            vec![
                Atom {
                    inputs: vec![-1.0],
                    outputs: vec![0.0, 1.0],
                    rhs: -0.5
                },
                Atom {
                    inputs: vec![0.0],
                    outputs: vec![-1.0, 0.0],
                    rhs: -1e-3
                },
            ]
        );
    }
    // y = (5, 1): 5 >= 1 + 2 holds; the point x = 2.5 is unsafe in case 1 only.
    assert_eq!(
        p.cases[1].satisfied_disjunct(&[2.5], &[5.0, 1.0], 0.0),
        Some(0)
    );
    assert_eq!(
        p.cases[0].satisfied_disjunct(&[2.5], &[5.0, 1.0], 0.0),
        None
    );
}

#[test]
fn an_empty_box_drops_its_case() {
    let text = "(declare-const X_0 Real)(declare-const Y_0 Real)
(assert (or (and (>= X_0 1) (<= X_0 0)) (and (>= X_0 0) (<= X_0 1))))(assert (>= Y_0 0))";
    let p = parse("e.vnnlib", text).unwrap();
    assert_eq!(p.cases.len(), 1);
    assert_eq!(p.cases[0].input.lo, vec![0.0]);
}

fn error_of(text: &str) -> (usize, usize, String) {
    let e = parse("bad.vnnlib", text).unwrap_err();
    assert!(e
        .to_string()
        .starts_with(&format!("bad.vnnlib:{}:{}: ", e.line, e.column)));
    (e.line, e.column, e.message.clone())
}

#[test]
fn errors_are_located() {
    let head = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n";
    let (l, c, m) = error_of(&format!("{head}(assert (<= X_0 (* X_0 Y_0)))"));
    assert_eq!((l, c), (3, 17), "{m}");
    assert!(m.contains("not linear"));
    let (l, c, m) = error_of(&format!("{head}(assert (<= X_0 1))\n  (assert (<= Z 1))"));
    assert_eq!((l, c), (4, 15), "{m}");
    assert!(m.contains("'Z' is not a declared variable"));
    let (l, c, m) = error_of(&format!("{head}(assert (<= X_0 1)"));
    assert_eq!((l, c), (3, 1), "{m}");
    assert!(m.contains("never closed"));
    let (l, c, m) = error_of(&format!("{head}(assert (<= X_0 1))(assert (>= Y_0 0))"));
    assert_eq!((l, c), (1, 16), "{m}");
    assert!(m.contains("X_0 has no finite lower"));
    let (l, c, m) = error_of("(declare-const X_1 Real)(declare-const Y_0 Real)");
    assert_eq!((l, c), (1, 16), "{m}");
    let (_, _, m) = error_of(&format!("{head}(assert (xor (<= X_0 1)))"));
    assert!(m.contains("'xor' is not a supported connective"));
    let (_, _, m) = error_of("(declare-const X_0 Int)");
    assert!(m.contains("only Real"));
}

fn atom_strategy(inputs: usize, outputs: usize) -> impl Strategy<Value = Atom> {
    let coef = prop_oneof![Just(0.0), Just(1.0), Just(-1.0), -10.0..10.0f64];
    (
        proptest::collection::vec(coef.clone(), inputs),
        proptest::collection::vec(coef, outputs),
        -100.0..100.0f64,
        0..outputs,
    )
        .prop_map(|(xs, mut ys, rhs, k)| {
            // The reader moves atoms that read no output into the box, so
            // every generated atom reads one.
            if ys.iter().all(|&b| b == 0.0) {
                ys[k] = 1.0;
            }
            Atom {
                inputs: xs,
                outputs: ys,
                rhs,
            }
        })
}

fn property_strategy() -> impl Strategy<Value = Property> {
    (1usize..4, 1usize..4).prop_flat_map(|(n, m)| {
        let case = (
            proptest::collection::vec((-5.0..5.0f64, 0.0..3.0f64), n),
            proptest::collection::vec(proptest::collection::vec(atom_strategy(n, m), 0..3), 1..3),
        );
        proptest::collection::vec(case, 0..3).prop_map(move |cases| {
            let mut out: Vec<Case> = Vec::new();
            for (k, (ranges, disjuncts)) in cases.into_iter().enumerate() {
                // Distinct boxes, so that reading back does not merge cases.
                let lo: Vec<f64> = ranges.iter().map(|r| r.0 + 20.0 * k as f64).collect();
                let hi: Vec<f64> = ranges.iter().zip(&lo).map(|(r, l)| l + r.1).collect();
                out.push(Case {
                    input: InputBox::new(lo, hi).unwrap(),
                    disjuncts,
                });
            }
            Property {
                inputs: n,
                outputs: m,
                cases: out,
                warnings: Vec::new(),
                input_decls: Vec::new(),
                output_decls: Vec::new(),
            }
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// What the writer writes, the reader reads back to the same property.
    #[test]
    fn written_properties_read_back(p in property_strategy()) {
        let text = to_vnnlib(&p);
        let back = parse("w.vnnlib", &text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        // The reader adds where each variable is declared; the rest is the property.
        prop_assert_eq!((back.inputs, back.outputs, &back.cases), (p.inputs, p.outputs, &p.cases));
        prop_assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    }

    /// Mutated files (bytes deleted, replaced, duplicated) are read or refused, never a panic.
    #[test]
    fn mutated_files_never_panic(edits in proptest::collection::vec((0usize..2000, 0u8..4, any::<u8>()), 1..8)) {
        let mut bytes = ACAS_PROP_3.as_bytes().to_vec();
        for (pos, op, b) in edits {
            let at = pos % (bytes.len() + 1);
            match op {
                0 if at < bytes.len() => { bytes.remove(at); }
                1 if at < bytes.len() => bytes[at] = b"()<=>+-*XY_0123.e; \n"[b as usize % 20],
                2 => bytes.insert(at, b"()<=>+-*XY_0123.e; \n"[b as usize % 20]),
                _ => { let tail = bytes[at.min(bytes.len())..].to_vec(); bytes.extend(tail.into_iter().take(40)); }
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = parse("m.vnnlib", &text) {
            prop_assert!(e.line >= 1 && e.column >= 1);
        }
    }

    /// Token soup: never a panic.
    #[test]
    fn garbage_never_panics(tokens in proptest::collection::vec(prop_oneof![
        Just("(".to_string()), Just(")".to_string()), Just("assert".to_string()),
        Just("declare-const".to_string()), Just("Real".to_string()), Just("and".to_string()),
        Just("or".to_string()), Just("<=".to_string()), Just(">=".to_string()), Just("*".to_string()),
        Just("-".to_string()), Just("+".to_string()), Just("X_0".to_string()), Just("Y_0".to_string()),
        Just("1e400".to_string()), Just("-0.5".to_string()), Just("\u{e9}".to_string()),
    ], 0..60)) {
        let _ = parse("g.vnnlib", &tokens.join(" "));
    }
}

#[test]
fn deep_nesting_is_refused() {
    let text = format!(
        "(declare-const X_0 Real)(declare-const Y_0 Real)(assert {}{})",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(parse("deep.vnnlib", &text)
        .unwrap_err()
        .message
        .contains("nested too deeply"));
}

/// One input in [0, 1] and two outputs; `assert` is the last line.
fn one_input(assert: &str) -> String {
    format!(
        "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n(assert (>= X_0 0))\n(assert (<= X_0 1))\n{assert}\n"
    )
}

/// Issue 33, item 2: `1.2.3` was read as `1.2 .3` (a chain that is always
/// false, so the property held) and `2-1` as `2 -1`.
#[test]
fn a_number_ends_at_a_delimiter() {
    for (bad, atom) in [
        ("(assert (<= Y_0 1.2.3))", "1.2.3"),
        ("(assert (>= Y_0 2-1))", "2-1"),
        ("(assert (>= Y_0 3X_0))", "3X_0"),
    ] {
        let e = parse("n.vnnlib", &one_input(bad)).unwrap_err();
        assert_eq!((e.line, e.column), (6, 17), "{bad}: {e}");
        assert!(e.message.contains(&format!("'{atom}'")), "{bad}: {e}");
    }
    // Delimiters: a space, a parenthesis, a comment, the end of the text.
    for good in [
        "(assert (<= Y_0 1.5))",
        "(assert (<= Y_0 (- 2 1)))",
        "(assert (<= Y_0 1.5;c\n))",
        "(assert (<=\tY_0\n-1e-3))",
    ] {
        let p = parse("n.vnnlib", &one_input(good)).unwrap();
        assert_eq!(p.cases.len(), 1, "{good}");
    }
}

#[test]
fn a_byte_order_mark_is_accepted_and_not_counted() {
    let text = format!("\u{feff}{}", one_input("(assert (<= Y_0 1.5))"));
    let p = parse("bom.vnnlib", &text).unwrap();
    assert_eq!(p.cases.len(), 1);
    // Columns on the first line do not count the mark.
    let e = parse("bom.vnnlib", "\u{feff}(declare-const Z Real)").unwrap_err();
    assert_eq!((e.line, e.column), (1, 16), "{e}");
}

#[test]
fn an_empty_input_box_is_left_out_with_a_located_warning() {
    let text = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (>= X_0 2))\n(assert (<= X_0 1))\n(assert (<= Y_0 0))\n";
    let p = parse("e.vnnlib", text).unwrap();
    assert!(p.cases.is_empty());
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    let w = &p.warnings[0];
    assert!(
        w.starts_with("e.vnnlib:1:16: X_0 has lower bound 2 above its upper bound 1"),
        "{w}"
    );
    // A box that is not empty gives no warning.
    let p = parse("e.vnnlib", &one_input("(assert (<= Y_0 0))")).unwrap();
    assert!(p.warnings.is_empty());
}

#[test]
fn a_size_mismatch_names_the_declaration() {
    let p = parse("s.vnnlib", &one_input("(assert (<= Y_0 0))")).unwrap();
    assert!(p.check_sizes("net.onnx", 1, 2).is_ok());
    // The network has one output: Y_1 (line 3, column 16) is one too many.
    let e = p.check_sizes("net.onnx", 1, 1).unwrap_err();
    assert!(e.starts_with("s.vnnlib:3:16: the property declares 2 outputs (Y_0..Y_1), but net.onnx has 1 (Y_0..Y_0)"), "{e}");
    // The network has three inputs: the last one declared is X_0.
    let e = p.check_sizes("net.onnx", 3, 2).unwrap_err();
    assert!(e.starts_with("s.vnnlib:1:16: the property declares 1 inputs (X_0..X_0), but net.onnx has 3 (X_0..X_2)"), "{e}");
}
