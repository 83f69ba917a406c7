//! What the swarm verbs print: `-q` silences notes (sizes and timings, the
//! "wrote ..." lines) but never the answer, the witness, an export or a
//! sweep's table (issue 13, section 4).

#[path = "support/cli.rs"]
mod cli;
use cli::{repo, run, Run};

const MODEL: &str = "examples/foraging/foraging_small.swarm";
const FAULTS: &str = "examples/foraging/foraging_small.faults";
const QUERY: &str = "Pmax=? [ F<13 \"deposited2\" ]";

/// `mavis [-q] swarm VERB MODEL --faults FAULTS ARGS`.
fn swarm(quiet: bool, verb: &str, args: &[&str]) -> Run {
    let (model, faults) = (repo(MODEL), repo(FAULTS));
    let mut all: Vec<&str> = if quiet { vec!["-q"] } else { vec![] };
    all.extend(["swarm", verb, &model, "--faults", &faults]);
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn quiet_check_keeps_the_answer_and_the_witness_and_drops_the_sizes() {
    let args = ["--agents", "2", "--prop", QUERY, "--witness"];
    let full = swarm(false, "check", &args).success();
    let quiet = swarm(true, "check", &args).success();
    let sizes = full
        .stdout
        .lines()
        .find(|l| l.contains(" states, ") && l.contains(" transitions; built in "))
        .expect("the sizes line without -q");
    // The answer and the witness, line for line; only the sizes line goes.
    let expected: Vec<&str> = full.stdout.lines().filter(|l| *l != sizes).collect();
    let got: Vec<&str> = quiet.stdout.lines().collect();
    assert_eq!(
        got.iter().filter(|l| !l.is_empty()).collect::<Vec<_>>(),
        expected
            .iter()
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
    );
    assert!(quiet.stdout.starts_with(&format!("{QUERY}: 0.")));
    assert!(quiet.stdout.contains("most likely witness"));
    assert_eq!(quiet.stderr, "");
}

#[test]
fn quiet_check_with_a_verdict_prints_the_verdict_line_only() {
    let prop = "P<=0.9 [ F<13 \"deposited2\" ]";
    let quiet = swarm(true, "check", &["--agents", "2", "--prop", prop]).success();
    assert_eq!(quiet.stdout.lines().count(), 1, "{}", quiet.stdout);
    assert!(quiet.stdout.starts_with(&format!("{prop}: HOLDS")));
    assert_eq!(quiet.stderr, "");
}

#[test]
fn quiet_export_writes_the_same_file_and_says_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.prism"), dir.path().join("b.prism"));
    let full = swarm(
        false,
        "export",
        &["--agents", "2", "-o", a.to_str().unwrap()],
    )
    .success();
    assert!(full.stdout.starts_with("wrote S(2) to "), "{}", full.stdout);
    let quiet = swarm(
        true,
        "export",
        &["--agents", "2", "-o", b.to_str().unwrap()],
    )
    .success();
    assert_eq!((quiet.stdout.as_str(), quiet.stderr.as_str()), ("", ""));
    let file = std::fs::read_to_string(&b).unwrap();
    assert_eq!(std::fs::read_to_string(&a).unwrap(), file);
    assert!(file.contains("\nmdp\n"));
    // On stdout the export is the output itself: -q never cuts it.
    let to_stdout = swarm(true, "export", &["--agents", "2"]).success();
    assert_eq!(to_stdout.stdout, file);
}

#[test]
fn quiet_sweep_keeps_the_table_and_drops_the_wrote_line() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("s");
    let args = [
        "--prop",
        "Pmax=? [ F<k \"deposited2\" ]",
        "--sweep",
        "pf=0:0.5:1",
        "--k",
        "9..10",
        "--agents",
        "1",
        "--out",
        prefix.to_str().unwrap(),
    ];
    let full = swarm(false, "sweep", &args).success();
    assert!(full.stdout.contains("\nwrote "), "{}", full.stdout);
    let quiet = swarm(true, "sweep", &args).success();
    assert!(!quiet.stdout.contains("wrote"), "{}", quiet.stdout);
    // Every row of the table (3 values of pf times 2 values of k) is kept.
    let table = |s: &str| s.lines().filter(|l| l.starts_with(['0', '1'])).count();
    assert_eq!(table(&quiet.stdout), 6, "{}", quiet.stdout);
    assert_eq!(table(&quiet.stdout), table(&full.stdout));
    assert_eq!(quiet.stderr, "");
    assert!(prefix.with_extension("csv").exists() && prefix.with_extension("svg").exists());
}

/// `check --abstract` of `P<=0 [ F<k "deposited2" ]` on `model` at pf:
/// the abstraction's bound and, where it applies, the cutoff's exact value.
fn checked_over_all_n(model: &str, pf: &str, k: usize) -> (f64, Option<f64>) {
    let prop = format!("P<=0 [ F<{k} \"deposited2\" ]");
    let faults = repo(FAULTS);
    let set = format!("pf={pf}");
    let r = run(&[
        "--format",
        "json",
        "swarm",
        "check",
        model,
        "--faults",
        &faults,
        "--set",
        &set,
        "--abstract",
        "--prop",
        &prop,
    ]);
    let v = r.json();
    let p = &v["results"]["properties"][0];
    (
        p["abstract_bound"].as_f64().unwrap(),
        p["cutoff"]["value"].as_f64(),
    )
}

/// The concrete Pmax of S(n), a lower bound of the supremum over n.
fn checked_at(n: &str, pf: &str, k: usize) -> f64 {
    let prop = format!("Pmax=? [ F<{k} \"deposited2\" ]");
    let (model, faults, set) = (repo(MODEL), repo(FAULTS), format!("pf={pf}"));
    let r = run(&[
        "--format", "json", "swarm", "check", &model, "--faults", &faults, "--set", &set,
        "--agents", n, "--prop", &prop,
    ]);
    r.json()["results"]["properties"][0]["value"]
        .as_f64()
        .unwrap()
}

/// A row of a sweep's CSV over all n: (pf exact, k, p, bound, "exact" or "bound").
type CsvRow = (String, usize, f64, f64, String);

/// The rows of a sweep's CSV over all n.
fn csv_rows(csv: &str) -> Vec<CsvRow> {
    csv.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 6, "{line}");
            // Read as the JSON reports are (serde_json may land an ulp
            // away from `str::parse`): both texts are the shortest that
            // round-trips, so equal values have equal texts, read alike.
            let number = |t: &str| serde_json::from_str::<f64>(t).unwrap();
            let k = f[1].parse().unwrap();
            // The swept value as a decimal first, its exact value last.
            let exact = f[5].split_once('/').map_or_else(
                || f[5].parse::<f64>().unwrap(),
                |(a, b)| a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap(),
            );
            assert_eq!(f[0].parse::<f64>().unwrap(), exact, "{line}");
            (
                f[5].to_string(),
                k,
                number(f[2]),
                number(f[3]),
                f[4].to_string(),
            )
        })
        .collect()
}

/// `sweep` over all n of `model` (pf = 0 and 0.5, k = 9..11) into `dir`:
/// the JSON report, the SVG's text and the CSV's rows.
fn sweep_all_n(model: &str, dir: &std::path::Path) -> (serde_json::Value, String, Vec<CsvRow>) {
    let prefix = dir.join("all");
    let faults = repo(FAULTS);
    let r = run(&[
        "--format",
        "json",
        "swarm",
        "sweep",
        model,
        "--faults",
        &faults,
        "--prop",
        "Pmax=? [ F<k \"deposited2\" ]",
        "--sweep",
        "pf=0:0.5:0.5",
        "--k",
        "9..11",
        "--out",
        prefix.to_str().unwrap(),
    ]);
    let v = r.json();
    let svg = std::fs::read_to_string(prefix.with_extension("svg")).unwrap();
    let csv = std::fs::read_to_string(prefix.with_extension("csv")).unwrap();
    assert!(prefix.with_extension("png").exists());
    (v, svg, csv_rows(&csv))
}

#[test]
fn all_sizes_sweep_plots_the_exact_optimum_over_n_where_the_cutoff_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    let model = repo(MODEL);
    let (v, svg, csv) = sweep_all_n(&model, dir.path());
    let rows = v["results"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(csv.len(), 6);
    for (r, c) in rows.iter().zip(&csv) {
        let (k, pf) = (
            r["k"].as_u64().unwrap() as usize,
            r["value"].as_f64().unwrap(),
        );
        let pf = if pf == 0.0 { "0" } else { "1/2" };
        assert_eq!(r["is"], "exact over n", "{r}");
        let (bound, cutoff) = checked_over_all_n(&model, pf, k);
        assert_eq!(r["p"].as_f64(), cutoff, "{r}");
        assert_eq!(r["abstraction_bound"].as_f64(), Some(bound), "{r}");
        // The CSV (the plotted values, every digit) has the same row.
        assert_eq!((c.0.as_str(), c.1), (pf, k), "{c:?}");
        assert_eq!((Some(c.2), c.3, c.4.as_str()), (cutoff, bound, "exact"));
        // The supremum is at least every size's value and at most the bound.
        let p = r["p"].as_f64().unwrap();
        for n in ["1", "2", "3"] {
            assert!(checked_at(n, pf, k) <= p + 1e-12, "n = {n}: {r}");
        }
        assert!(p <= bound + 1e-12, "{r}");
    }
    // At pf = 0 the bound is loose, so an exact curve is not the bound's.
    assert!(rows
        .iter()
        .any(|r| r["p"].as_f64() < r["abstraction_bound"].as_f64()));
    // The figure says what it shows, and nothing in it is called a bound.
    assert!(svg.contains("all n (exact, by the cutoff)"), "{svg}");
    assert!(svg.contains("Pmax over all n (sup, exact)"), "{svg}");
    assert!(svg.contains("pf=0.5 (exact)"), "{svg}");
    assert!(!svg.contains("bound"), "{svg}");
}

#[test]
fn all_sizes_sweep_labels_the_abstraction_bound_as_a_bound() {
    // A global-synchronous no-op: the values are those of the model without
    // it, but the cutoff no longer applies (it moves every agent at once).
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo(MODEL)).unwrap();
    let text = text
        .replace("globalSynchronous = {};", "globalSynchronous = {tick};")
        .replace("endmodule", "  [tick] true -> true;\nendmodule");
    let model = dir.path().join("ticking.swarm");
    std::fs::write(&model, text).unwrap();
    let model = model.to_str().unwrap();
    let (v, svg, csv) = sweep_all_n(model, dir.path());
    let rows = v["results"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(csv.len(), 6);
    for (r, c) in rows.iter().zip(&csv) {
        let k = r["k"].as_u64().unwrap() as usize;
        let pf = if r["value"].as_f64() == Some(0.0) {
            "0"
        } else {
            "1/2"
        };
        assert_eq!(r["is"], "bound", "{r}");
        let (bound, cutoff) = checked_over_all_n(model, pf, k);
        assert_eq!(cutoff, None, "{r}");
        assert_eq!(r["p"].as_f64(), Some(bound), "{r}");
        assert_eq!((c.0.as_str(), c.1), (pf, k), "{c:?}");
        assert_eq!((c.2, c.3, c.4.as_str()), (bound, bound, "bound"));
    }
    assert!(
        svg.contains("Pmax bound (sup over n &lt;= this)")
            || svg.contains("Pmax bound (sup over n <= this)"),
        "{svg}"
    );
    assert!(
        svg.contains("all n (abstraction bound, threshold 1)"),
        "{svg}"
    );
    assert!(
        svg.contains("pf=0 (bound)") && svg.contains("pf=0.5 (bound)"),
        "{svg}"
    );
    assert!(!svg.contains("exact"), "{svg}");
    // The report warns that the rows are bounds, and why.
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("the cutoff does not apply"), "{warnings}");
}
