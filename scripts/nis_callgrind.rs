//! Instruction counts of the `benches/nis.rs` rows under callgrind (not part
//! of the build: copy it to `examples/` of the checkout to measure).
//!
//! ```text
//! cp scripts/nis_callgrind.rs examples/ && cargo build --release --example nis_callgrind
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured*' \
//!     target/release/examples/nis_callgrind 'verify/AX^6'
//! ```
//!
//! One row per run (names below, e.g. `table1_grid_explicit`, `verify/EX^3`,
//! `milp-slots/AX^2`); only `measured`, one iteration of the bench's loop
//! body, is counted, not the model loading. docs/nis.md (Performance) has the
//! figures of 7019d02 and of the redesign measured this way.
use mavis::lang::Source;
use mavis::nis::engine::{decide, EngineChoice, Target};
use mavis::nis::procedures::{verify, VerifyOptions};
use mavis::nis::{parse_model, parse_sentence, LoadOptions, Model, Sentence};
use mavis::nn::{Activation, Layer, Network};
use mavis::report::RunContext;
use ndarray::{array, Array1, Array2};
use std::path::Path;

fn guarding() -> Model {
    let mut w1 = Array2::zeros((4, 1));
    w1[[0, 0]] = 1.0;
    let mut w3 = Array2::zeros((2, 4));
    w3[[1, 0]] = 1.0;
    let net = Network::from_layers(vec![
        Layer {
            weights: w1,
            bias: Array1::zeros(4),
            activation: Activation::Relu,
        },
        Layer {
            weights: Array2::eye(4),
            bias: Array1::zeros(4),
            activation: Activation::Relu,
        },
        Layer {
            weights: w3,
            bias: array![0.6, 0.0],
            activation: Activation::Identity,
        },
    ])
    .unwrap();
    let opts = LoadOptions {
        in_memory: [("policy".to_string(), net)].into_iter().collect(),
        ..Default::default()
    };
    let text = include_str!("../examples/guarding/guarding.nis");
    parse_model(&Source::new("guarding.nis", text), Path::new("."), &opts).unwrap()
}

fn p(s: &str) -> Sentence {
    parse_sentence(s).unwrap()
}

fn ex2(k: u32) -> Sentence {
    p(&format!("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)"))
}
fn ax2(k: u32) -> Sentence {
    p(&format!("forall v1, v2: AX^{k} (alive, v1) & (alive, v2)"))
}
fn conj(m: usize) -> (String, String) {
    let vars: Vec<String> = (1..=m).map(|i| format!("v{i}")).collect();
    let atoms: Vec<String> = vars.iter().map(|v| format!("(alive, {v})")).collect();
    (vars.join(", "), atoms.join(" & "))
}

enum Job {
    Decide(EngineChoice, Vec<(Sentence, Target)>),
    Verify(EngineChoice, Sentence),
}

#[inline(never)]
fn measured(model: &Model, job: &Job) -> usize {
    let mut holds = 0;
    match job {
        Job::Decide(e, qs) => {
            for (s, t) in qs {
                holds += decide(*e, model, s, *t).unwrap().holds as usize;
            }
        }
        Job::Verify(e, s) => {
            let opts = VerifyOptions {
                engine: *e,
                cap: None,
                milp: Default::default(),
            };
            let r = verify(model, s, &opts, &RunContext::default()).unwrap();
            std::hint::black_box(&r);
        }
    }
    holds
}

fn main() {
    let row = std::env::args().nth(1).expect("row");
    let x = EngineChoice::Explicit;
    let m = EngineChoice::Milp;
    let conc = |n| Target::Concrete { agents: n };
    let grid1 = || {
        (1..=6)
            .flat_map(|k| (2..=6).map(move |n| (ex2(k), conc(n))))
            .collect::<Vec<_>>()
    };
    let grid2 = || {
        let mut g = Vec::new();
        for k in 1..=6 {
            for mm in [2, 3] {
                let (v, b) = conj(mm);
                g.push((p(&format!("forall {v}: AX^{k} {b}")), Target::Abstract));
            }
        }
        g
    };
    let real = || {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/guarding_real/guarding_real.nis");
        mavis::nis::load_model(&path, &LoadOptions::default()).unwrap()
    };
    let (model, job) = match row.as_str() {
        "table1_grid_explicit" => (guarding(), Job::Decide(x, grid1())),
        "table1_hardest_query_explicit" => (guarding(), Job::Decide(x, vec![(ex2(6), conc(6))])),
        "table2_grid_explicit" => (guarding(), Job::Decide(x, grid2())),
        "milp/table1_grid" => (guarding(), Job::Decide(m, grid1())),
        "milp/table1_hardest_query" => (guarding(), Job::Decide(m, vec![(ex2(6), conc(6))])),
        "milp/AX^6_counterexample" => (guarding(), Job::Decide(m, vec![(ax2(6), conc(6))])),
        "milp-abstract/table2_grid" => (guarding(), Job::Decide(m, grid2())),
        "milp-abstract/EX^6_witness" => {
            let (v, b) = conj(3);
            (guarding(), Job::Decide(m, vec![(p(&format!("forall {v}: EX^6 {b}")), Target::Abstract)]))
        }
        "milp-abstract/AX^6_valid" => (guarding(), Job::Decide(m, vec![(p("forall v1, v2, v3: AX^6 ((alive, v1) | (dead, v1)) & ((alive, v2) | (dead, v2)) & ((alive, v3) | (dead, v3))"), Target::Abstract)])),
        r => {
            if let Some(rest) = r.strip_prefix("verify/") {
                // verify/EX^3 or verify/AX^3 (explicit)
                let k: u32 = rest[3..].parse().unwrap();
                let s = if rest.starts_with("EX") { ex2(k) } else { ax2(k) };
                (guarding(), Job::Verify(x, s))
            } else if let Some(rest) = r.strip_prefix("milp-abstract/verify_EX^") {
                (guarding(), Job::Verify(m, ex2(rest.parse().unwrap())))
            } else if let Some(rest) = r.strip_prefix("milp-slots/") {
                let q = &rest[..2];
                let k: u32 = rest[3..].parse().unwrap();
                let s = p(&format!("forall v1, v2: {q}^{k} (alive, v1) & (alive, v2)"));
                (real(), Job::Decide(m, vec![(s, Target::Abstract)]))
            } else {
                panic!("unknown row {r}")
            }
        }
    };
    println!("{row}: {}", measured(&model, &job));
}
