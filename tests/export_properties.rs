//! The properties an export carries (issue 34): the PRISM properties file,
//! JANI's `properties`, UPPAAL's `<queries>`, each written from what the
//! user gave, by hand-checked text; refusals with exit 2. Storm reads the
//! PRISM and JANI ones in tests/peers/test_storm_carried.py.

use assert_cmd::Command;
use std::collections::HashMap;

const EX: &str = "examples/foraging";

fn mavis() -> Command {
    Command::cargo_bin("mavis").unwrap()
}

fn export_args(to: &str) -> Vec<String> {
    [
        "swarm",
        "export",
        &format!("{EX}/foraging_small.swarm"),
        "--faults",
        &format!("{EX}/foraging_small.faults"),
        "--agents",
        "2",
        "--to",
        to,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

const PROPS: [&str; 4] = [
    "Pmax=? [ F<13 \"deposited2\" ]",
    "P>=1/3 [ !\"deposited2\" U<=10 \"deposited1\" ]",
    "Pmin=? [ G<=4 !\"deposited1\" ]",
    "Pmax=? [ X foodDeposited_E=1 ]",
];

#[test]
fn a_prism_export_writes_the_properties_file_beside_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("s2.prism");
    let mut cmd = mavis();
    cmd.args(export_args("prism")).arg("-o").arg(&model);
    for p in PROPS {
        cmd.args(["--prop", p]);
    }
    let out = cmd.assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let props_path = dir.path().join("s2.props");
    assert!(
        text.contains(&format!("its 4 properties to {}", props_path.display())),
        "{text}"
    );
    let written = std::fs::read_to_string(&props_path).unwrap();
    // F<13 is F<=12 (discrete time); P>=p is decided with the minimum, as
    // PRISM reads it; the user's text is the comment above each.
    let expected = "// Pmax=? [ F<13 \"deposited2\" ]\n\
        Pmax=? [ F<=12 \"deposited2\" ];\n\
        // P>=1/3 [ !\"deposited2\" U<=10 \"deposited1\" ]\n\
        P>=1/3 [ !(\"deposited2\") U<=10 \"deposited1\" ];\n\
        // Pmin=? [ G<=4 !\"deposited1\" ]\n\
        Pmin=? [ G<=4 !(\"deposited1\") ];\n\
        // Pmax=? [ X foodDeposited_E=1 ]\n\
        Pmax=? [ X (foodDeposited_E = (1)) ];\n";
    assert_eq!(written, expected);
}

#[test]
fn a_jani_export_fills_its_properties() {
    let mut cmd = mavis();
    cmd.args(export_args("jani"))
        .args(["--prop", PROPS[0], "--prop", PROPS[1]]);
    let out = cmd.assert().success().get_output().stdout.clone();
    let j: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let props = j["properties"].as_array().unwrap();
    assert_eq!(props.len(), 2);
    let first = &props[0];
    assert_eq!(first["name"], "p1");
    assert_eq!(first["comment"], PROPS[0]);
    let e = &first["expression"];
    assert_eq!(
        (&e["op"], &e["fun"], &e["states"]["op"]),
        (&"filter".into(), &"max".into(), &"initial".into())
    );
    let path = &e["values"]["exp"];
    assert_eq!(e["values"]["op"], "Pmax");
    assert_eq!(path["op"], "U");
    assert_eq!(path["left"], true);
    assert_eq!(path["step-bounds"]["upper"], 12);
    // The label's expression, inlined: foodDeposited_E > 1.
    assert_eq!(path["right"]["op"], ">");
    assert_eq!(path["right"]["left"], "foodDeposited_E");
    let bound = &props[1]["expression"];
    assert_eq!(bound["fun"], "∀");
    assert_eq!(bound["values"]["op"], "≥");
    assert_eq!(bound["values"]["left"]["op"], "Pmin");
    assert_eq!(
        bound["values"]["right"],
        serde_json::json!({"op": "/", "left": 1, "right": 3})
    );
}

#[test]
fn properties_that_cannot_be_carried_are_refused_with_exit_2() {
    // A PRISM export to standard output has nowhere to put its properties.
    let mut cmd = mavis();
    cmd.args(export_args("prism")).args(["--prop", PROPS[0]]);
    let err = cmd.assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&err).contains("--props-output"));
    // A property in error points into its text.
    let mut cmd = mavis();
    cmd.args(export_args("jani"))
        .args(["--prop", "Pmax=? [ F<13 \"nolabel\" ]"]);
    let err = cmd.assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8_lossy(&err);
    assert!(err.contains("<--prop>:1:"), "{err}");
}

#[test]
fn the_uppaal_export_writes_the_model_queries() {
    let model = "var x: int = 0;\n\
        agent a period 10 {\n  p -> q in [1, 4] do x := x + 1;\n}\n\
        query reach: EF x >= 2;\n\
        query safe: AG (x <= 5 & a@p => a.clock <= 10);\n\
        query never: !(EF (a@q & x = 7));\n\
        query most: max x subject to a@q;\n\
        query nested: AG (x >= 1 => EF x = 0);\n\
        query timed: EF time >= 3;\n";
    let m = mavis::timed::load_str("m.mapt", model, HashMap::new()).unwrap();
    let out = mavis::timed::export::export(&m, mavis::timed::export::Target::Uppaal).unwrap();
    // Uppaal's files start with a DOCTYPE; roxmltree refuses DTDs unless asked.
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&out.text, opts).unwrap();
    let queries: Vec<(String, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("query"))
        .map(|q| {
            let child = |t: &str| {
                let node = q.children().find(|c| c.has_tag_name(t)).unwrap();
                node.text().unwrap_or("").to_string()
            };
            (child("formula"), child("comment"))
        })
        .collect();
    let expected = [
        ("E<> (x >= 2)", "reach: EF x >= 2"),
        (
            "A[] (!(((x <= 5) && P_a.p)) || (P_a.c <= 10))",
            "safe: AG (x <= 5 & a@p => a.clock <= 10)",
        ),
        ("A[] !((P_a.q && (x == 7)))", "never: !(EF (a@q & x = 7))"),
        ("sup{P_a.q}: x", "most: max x subject to a@q"),
    ];
    let got: Vec<(&str, &str)> = queries
        .iter()
        .map(|(f, c)| (f.as_str(), c.as_str()))
        .collect();
    assert_eq!(got, expected);
    // The nested query and the one over the global time are named in notes.
    let w = out.notes.join("\n");
    assert!(
        w.contains("query `nested`") && w.contains("query `timed`"),
        "{w}"
    );
}
