//! `cli::run_in_process`, the path the Python package takes: a command line
//! run in process gives the binary's JSON report, networks and models given
//! in memory win over files exactly as `--network` would, and a time-out is
//! a report with verdict unknown.

use mavis::cli::{run_in_process, Given};
use mavis::nis::{self, LoadOptions};
use mavis::nn::{Layer, Network};
use mavis::report::{RunError, Verdict};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

const MODEL: &str = "examples/guarding/guarding.nis";
const SPECS: [&str; 5] = [
    "forall v1, v2: EX^1 (alive, v1) & (alive, v2)",
    "forall v1, v2: EX^2 (alive, v1) & (alive, v2)",
    "forall v1, v2: EX^3 (alive, v1) & (alive, v2)",
    "forall v1, v2: AX^1 (alive, v1) & (alive, v2)",
    "forall v1, v2: AX^2 (alive, v1) & (alive, v2)",
];

fn argv(args: &[&str]) -> Vec<String> {
    std::iter::once("mavis")
        .chain(args.iter().copied())
        .map(String::from)
        .collect()
}

/// The report without its timings, the only values that differ between runs.
fn without_times(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(k, _)| k != "stats" && !(k.contains("time") && k.ends_with("_s")))
                .map(|(k, v)| (k, without_times(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(without_times).collect()),
        other => other,
    }
}

#[test]
fn a_command_line_gives_the_binary_report() {
    for spec in SPECS {
        let args = ["nis", "verify", MODEL, "--spec", spec, "--format", "json"];
        let report = run_in_process(argv(&args), Given::default()).expect("a report");
        let out = assert_cmd::Command::cargo_bin("mavis")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            without_times(report.to_json()),
            without_times(cli),
            "{spec}"
        );
        assert_eq!(Some(i32::from(report.exit_code())), out.status.code());
    }
}

/// The bundled network with its two outputs swapped: another decision pattern.
fn flipped() -> Network {
    let net = mavis::nn::load(Path::new("networks/guarding.onnx")).unwrap();
    let mut layers: Vec<Layer> = net.layers().to_vec();
    let last = layers.last_mut().unwrap();
    last.weights.invert_axis(ndarray::Axis(0));
    last.bias.invert_axis(ndarray::Axis(0));
    Network::from_layers(layers).unwrap()
}

fn verdicts(given: &Given) -> Vec<(Option<Verdict>, Value)> {
    SPECS
        .iter()
        .map(|spec| {
            let r = run_in_process(
                argv(&["nis", "verify", MODEL, "--spec", spec]),
                given.clone(),
            )
            .unwrap();
            (r.verdict, without_times(r.results))
        })
        .collect()
}

#[test]
fn networks_in_memory_loaded_or_replaced_give_the_same_answers() {
    let networks: HashMap<String, Network> = [("policy".to_string(), flipped())].into();
    let by_name = Given {
        networks: networks.clone(),
        nis_model: None,
    };
    let opts = LoadOptions {
        in_memory: networks.clone(),
        ..LoadOptions::default()
    };
    let loaded = nis::load_model(Path::new(MODEL), &opts).unwrap();
    let original = nis::load_model(Path::new(MODEL), &LoadOptions::default()).unwrap();
    let replaced = nis::with_networks(&original, &networks).unwrap();
    let with = |m: nis::Model| Given {
        networks: HashMap::new(),
        nis_model: Some(Arc::new(m)),
    };
    let expected = verdicts(&by_name);
    assert_eq!(verdicts(&with(loaded)), expected);
    assert_eq!(verdicts(&with(replaced.clone())), expected);
    assert_ne!(
        verdicts(&Given::default()),
        expected,
        "the flipped network changes a verdict"
    );
    // No file stands for a network given in memory.
    assert!(replaced.networks[0].path.as_os_str().is_empty());
}

#[test]
fn a_replacement_keeps_the_shape_and_the_name() {
    let original = nis::load_model(Path::new(MODEL), &LoadOptions::default()).unwrap();
    let one_output = Network::from_layers(vec![Layer {
        weights: ndarray::array![[1.0]],
        bias: ndarray::array![0.0],
        activation: mavis::nn::Activation::Identity,
    }])
    .unwrap();
    let wrong_shape: HashMap<String, Network> = [("policy".to_string(), one_output)].into();
    let err = input_message(nis::with_networks(&original, &wrong_shape).unwrap_err());
    assert_eq!(
        err,
        "network `policy` has 1 input(s) and 1 output(s), but the model's has 1 and 2"
    );
    let unknown: HashMap<String, Network> = [("value".to_string(), flipped())].into();
    let err = input_message(nis::with_networks(&original, &unknown).unwrap_err());
    assert!(err.contains("declares no network `value`"), "{err}");
}

fn input_message(err: RunError) -> String {
    match err {
        RunError::Input(e) => e.to_string(),
        other => panic!("expected bad input, got {other:?}"),
    }
}

#[test]
fn bad_usage_is_bad_input() {
    match run_in_process(argv(&["nis", "verify", MODEL]), Given::default()) {
        Err(RunError::Input(e)) => assert!(e.to_string().contains("--spec"), "{e}"),
        other => panic!("expected bad input, got {other:?}"),
    }
}

#[test]
fn a_timeout_is_a_report_with_verdict_unknown() {
    let spec = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)";
    let args = [
        "nis",
        "table",
        MODEL,
        "--spec",
        spec,
        "--k",
        "1..6",
        "--agents",
        "2..6",
        "--engine",
        "milp",
        "--timeout",
        "0.2",
    ];
    let report = run_in_process(argv(&args), Given::default()).expect("a report");
    assert_eq!(report.verdict, Some(Verdict::Unknown));
    assert_eq!(report.stats.get("timed_out"), Some(&Value::Bool(true)));
}
