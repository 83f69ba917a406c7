//! The reports of `mavis nn info` and `mavis nn eval`.
//!
//! JSON `results` keys: `info`: `input_name`, `output_name`, `input_size`,
//! `output_size`, `parameters`, `opset`, `ir_version`, `producer`,
//! `onnx_nodes`, `layers` (list of `{inputs, outputs, activation}`).
//! `eval`: `inputs` and `outputs`, lists of lists (one row per input).

use crate::nn::{load_model, Activation, LoadedModel, Network};
use crate::report::{ModelRef, Report, RunError, Table};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Loads a network for a command: bad files are input errors (exit 2).
pub fn load_for_command(path: &Path) -> Result<(LoadedModel, Option<ModelRef>), RunError> {
    let model = load_model(path).map_err(RunError::input)?;
    Ok((model, ModelRef::from_path(path).ok()))
}

/// `1 -> 4 -> 4 -> 2`
pub fn shape_text(net: &Network) -> String {
    std::iter::once(net.input_size())
        .chain(net.layers().iter().map(|l| l.outputs()))
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(" -> ")
}

fn activation_name(a: Activation) -> &'static str {
    match a {
        Activation::Relu => "relu",
        Activation::Identity => "identity",
    }
}

/// `mavis nn info`: layers, sizes, parameter count, opset.
pub fn info(path: &Path) -> Result<Report, RunError> {
    let (model, model_ref) = load_for_command(path)?;
    let net = &model.network;
    let mut r = Report::new("nn", "info");
    r.model = model_ref;
    r.line(format!(
        "{}: {} ({} affine layers, {} parameters), opset {}",
        path.display(),
        shape_text(net),
        net.layers().len(),
        net.parameter_count(),
        model.opset
    ));
    let mut t = Table::new(["layer", "inputs", "outputs", "activation", "parameters"]);
    for (i, l) in net.layers().iter().enumerate() {
        t.row([
            i.to_string(),
            l.inputs().to_string(),
            l.outputs().to_string(),
            activation_name(l.activation).to_string(),
            (l.weights.len() + l.bias.len()).to_string(),
        ]);
    }
    r.line(t.render(crate::report::TableFormat::Text).trim_end());
    r.line(format!(
        "input '{}' ({} values), output '{}' ({} values); {} ONNX nodes, IR version {}, producer '{}'",
        net.input_name,
        net.input_size(),
        net.output_name,
        net.output_size(),
        model.node_count,
        model.ir_version,
        model.producer
    ));
    let layers: Vec<_> = net
        .layers()
        .iter()
        .map(|l| json!({"inputs": l.inputs(), "outputs": l.outputs(), "activation": activation_name(l.activation)}))
        .collect();
    r.results = json!({
        "input_name": net.input_name,
        "output_name": net.output_name,
        "input_size": net.input_size(),
        "output_size": net.output_size(),
        "parameters": net.parameter_count(),
        "opset": model.opset,
        "ir_version": model.ir_version,
        "producer": model.producer,
        "onnx_nodes": model.node_count,
        "layers": layers,
    });
    Ok(r)
}

/// Parses one input vector: comma-separated numbers, e.g. `0.75` or `0.1,-2`.
pub fn parse_vector(text: &str) -> Result<Vec<f64>, String> {
    let values: Result<Vec<f64>, String> = text
        .split(',')
        .map(|s| {
            let s = s.trim();
            match s.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(format!("`{s}` is not a finite number")),
            }
        })
        .collect();
    values
}

/// Reads input vectors from a CSV file, one per line; a first line that is
/// not numeric is taken as a header; blank lines and `#` comments are skipped.
pub fn read_csv(path: &Path) -> Result<Vec<Vec<f64>>, RunError> {
    let source = crate::lang::Source::read(path).map_err(|e| RunError::reading(path, e))?;
    let mut rows = Vec::new();
    for (i, line) in source.text().lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_vector(line) {
            Ok(v) => rows.push(v),
            Err(_) if rows.is_empty() && i == 0 => continue,
            Err(e) => {
                return Err(RunError::input(format!(
                    "{}:{}: {e}",
                    path.display(),
                    i + 1
                )))
            }
        }
    }
    Ok(rows)
}

/// `mavis nn eval`: the outputs for each input vector.
/// For a network with one input, a vector of k values is k inputs.
pub fn eval(path: &Path, inputs: &[Vec<f64>]) -> Result<Report, RunError> {
    let (model, model_ref) = load_for_command(path)?;
    let net = &model.network;
    let split: Vec<Vec<f64>>;
    let inputs = if net.input_size() == 1 {
        split = inputs.iter().flatten().map(|&v| vec![v]).collect();
        &split[..]
    } else {
        inputs
    };
    if inputs.is_empty() {
        return Err(RunError::input(
            "no input given: use --input VALUES or --csv FILE",
        ));
    }
    for (i, x) in inputs.iter().enumerate() {
        if x.len() != net.input_size() {
            return Err(RunError::input(format!(
                "input {} has {} values but {} takes {}",
                i + 1,
                x.len(),
                path.display(),
                net.input_size()
            )));
        }
    }
    let start = Instant::now();
    let outputs: Vec<Vec<f64>> = inputs.iter().map(|x| net.eval(x)).collect();
    let elapsed = start.elapsed().as_secs_f64();
    let mut r = Report::new("nn", "eval");
    r.model = model_ref;
    r.line(format!(
        "{}: {} input{} evaluated ({})",
        path.display(),
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" },
        shape_text(net)
    ));
    let mut t = Table::new(
        (0..net.input_size())
            .map(|i| format!("x{i}"))
            .chain((0..net.output_size()).map(|j| format!("y{j}"))),
    );
    for (x, y) in inputs.iter().zip(&outputs) {
        t.row(x.iter().chain(y).map(|v| format!("{v}")));
    }
    r.line(t.render(crate::report::TableFormat::Text).trim_end());
    r.results = json!({ "inputs": inputs, "outputs": outputs });
    r.stat("inputs", inputs.len());
    r.stat("eval_s", elapsed);
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_vectors() {
        assert_eq!(parse_vector("0.75"), Ok(vec![0.75]));
        assert_eq!(parse_vector(" 1, -2.5 ,3e-1"), Ok(vec![1.0, -2.5, 0.3]));
        assert!(parse_vector("1,,2").is_err());
        assert!(parse_vector("nan").is_err());
        assert!(parse_vector("inf").is_err());
    }
}
