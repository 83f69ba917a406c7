//! The stable-toolchain counterpart of `fuzz/`: every reader of
//! `mavis::parsers` gets a few thousand deterministic mutants of the
//! repository's own files (byte flips, truncations, splices, duplicated
//! tokens). None may panic, and every refusal of a format with lines must say
//! where (line and column, or the JSON field). The seeds themselves must be
//! accepted, so the test reads each format with the right reader.

// Every fuzz target has its own `mod common;`, as cargo-fuzz builds each
// target as a crate of its own; compiled together here, `common.rs` is one
// module per target.
#![allow(clippy::duplicate_mod)]

use mavis::parsers::{read, Context, Format};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;

// The fuzz targets themselves, compiled here on the stable toolchain: the
// name `libfuzzer_sys` is this crate (an `extern crate` at the root joins the
// extern prelude), whose `fuzz_target!` turns a target's body into a
// function `run`. The targets' `#![no_main]` only matters to their own
// crate; in a module it is an unused attribute.
extern crate self as libfuzzer_sys;

/// The stand-in, in a module of its own so that the targets reach it only
/// through their `use libfuzzer_sys::fuzz_target`, as with cargo-fuzz.
mod stand_in {
    /// cargo-fuzz's `fuzz_target!(|data: &[u8]| body)`, as a plain function.
    macro_rules! fuzz_target {
        (|$data:ident: &[u8]| $body:block) => {
            pub fn run($data: &[u8]) {
                $body
            }
        };
    }
    pub(crate) use fuzz_target;
}
pub(crate) use stand_in::fuzz_target;

// One module per file of `fuzz/fuzz_targets/` (each with its own copy of
// the targets' `common` check).
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/expression.rs"]
mod target_expression;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/ma.rs"]
mod target_ma;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/ma_json.rs"]
mod target_ma_json;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/mapt.rs"]
mod target_mapt;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/mapt_json.rs"]
mod target_mapt_json;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/nis.rs"]
mod target_nis;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/nis_spec.rs"]
mod target_nis_spec;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/onnx.rs"]
mod target_onnx;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/pgsolver_game.rs"]
mod target_pgsolver_game;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/pgsolver_solution.rs"]
mod target_pgsolver_solution;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/strategy.rs"]
mod target_strategy;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/swarm.rs"]
mod target_swarm;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/swarm_faults.rs"]
mod target_swarm_faults;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/swarm_props.rs"]
mod target_swarm_props;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/timed_query.rs"]
mod target_timed_query;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/vnnlib.rs"]
mod target_vnnlib;

/// The fuzz target of each format; the match fails to compile when a format
/// has no target.
fn target(format: Format) -> fn(&[u8]) {
    match format {
        Format::Expression => target_expression::run,
        Format::Nis => target_nis::run,
        Format::NisSpec => target_nis_spec::run,
        Format::Swarm => target_swarm::run,
        Format::SwarmFaults => target_swarm_faults::run,
        Format::SwarmProperties => target_swarm_props::run,
        Format::Mapt => target_mapt::run,
        Format::MaptJson => target_mapt_json::run,
        Format::TimedQuery => target_timed_query::run,
        Format::Ma => target_ma::run,
        Format::MaJson => target_ma_json::run,
        Format::Strategy => target_strategy::run,
        Format::PgGame => target_pgsolver_game::run,
        Format::PgSolution => target_pgsolver_solution::run,
        Format::Onnx => target_onnx::run,
        Format::Vnnlib => target_vnnlib::run,
    }
}

/// Mutants per format; 16 formats, so 64,000 reads in all (a few seconds).
const MUTANTS: usize = 4_000;
/// Fixed, so that a failure is replayed by rerunning the test.
const SEED: u64 = 0x6d61_7669_735f_3133;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn texts(items: &[&str]) -> Vec<Vec<u8>> {
    items.iter().map(|t| t.as_bytes().to_vec()).collect()
}

/// Valid inputs of every format, from examples/ and tests/fixtures.
fn seeds() -> HashMap<Format, Vec<Vec<u8>>> {
    let mut s = HashMap::new();
    s.insert(
        Format::Expression,
        texts(&[
            "1/3 + 0.15",
            "clamp(3 - 2*2, 0, 4)",
            "if 1 < 2 then min(1, 2, 3) else max(4, 5)",
            "true & !(1 = 2) | false => 3 >= 2",
            "abs(-7/2) + floor(2.5) * ceil(0.5) - mod(7, 3)",
            "(1 < 2) ? 1e-3 : -4",
        ]),
    );
    let mut nis = files("examples/guarding", ".nis");
    nis.extend(files("examples/guarding_real", ".nis"));
    s.insert(Format::Nis, nis);
    s.insert(
        Format::NisSpec,
        texts(&[
            "forall v1, v2: EX^3 (alive, v1) & (alive, v2)",
            "forall v1: AX^2 ((alive, v1) | !(dead, v1))",
            "forall v1, v2: EX^2 ((alive, v1) | (dead, v2)) & EX (alive, v2)",
        ]),
    );
    s.insert(Format::Swarm, files("examples/foraging", "foraging.swarm"));
    s.insert(
        Format::SwarmFaults,
        files("examples/foraging", "foraging.faults"),
    );
    s.insert(
        Format::SwarmProperties,
        files("examples/foraging", ".props"),
    );
    let mapt = files("examples/cav", ".mapt");
    let mapt_json = mapt
        .iter()
        .map(|t| {
            let src = mavis::lang::Source::new("m.mapt", String::from_utf8(t.clone()).unwrap());
            let ast = mavis::timed::parse_source(&src, false).unwrap();
            serde_json::to_vec_pretty(&mavis::timed::front::json::to_json(&ast)).unwrap()
        })
        .collect();
    s.insert(Format::Mapt, mapt);
    s.insert(Format::MaptJson, mapt_json);
    s.insert(
        Format::TimedQuery,
        texts(&[
            "EF x1 - x2 <= 0",
            "min x1 - x2",
            "AG(brake2 & time <= 300 * TU => EF x1 - x2 >= SAFE)",
            "EF x2 - x1 < 1",
        ]),
    );
    let ma = files("examples/robust", ".ma");
    let ma_json = ma
        .iter()
        .map(|t| {
            let src = mavis::lang::Source::new("m.ma", String::from_utf8(t.clone()).unwrap());
            let (a, _) =
                mavis::robust::load_source(&src, &mut mavis::lang::Constants::default()).unwrap();
            serde_json::to_vec_pretty(&mavis::robust::read::json::write(&a)).unwrap()
        })
        .collect();
    s.insert(Format::Ma, ma);
    s.insert(Format::MaJson, ma_json);
    s.insert(Format::Strategy, files("examples/robust", ".strat"));
    let games = files("examples/robust", ".pg");
    let solutions = games
        .iter()
        .map(|t| {
            let src = mavis::lang::Source::new("g.pg", String::from_utf8(t.clone()).unwrap());
            let g = mavis::robust::read::pgsolver::read_game(&src).unwrap();
            let sol = mavis::robust::parity::zielonka::solve(&g);
            mavis::robust::read::pgsolver::write_solution(&g, &sol).into_bytes()
        })
        .collect();
    s.insert(Format::PgGame, games);
    s.insert(Format::PgSolution, solutions);
    let onnx = [
        "policy_1_4_4_2",
        "mlp_2_16_16_3",
        "double_2_3_1",
        "normalised_2_6_2",
    ];
    s.insert(
        Format::Onnx,
        onnx.iter()
            .map(|n| std::fs::read(root().join(format!("tests/fixtures/{n}.onnx"))).unwrap())
            .collect(),
    );
    s.insert(Format::Vnnlib, files("tests/fixtures", ".vnnlib"));
    s
}

/// Bytes that change a text's structure when flipped in.
const INTERESTING: &[u8] = b"(){}[];:,=<>-+*/.\"'\n 0912eE_&|!?@#^\\\t\xff\xc3";

/// Token boundaries: runs of alphanumerics, or single other bytes.
fn tokens(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let start = i;
        if text[i].is_ascii_alphanumeric() {
            while i < text.len() && text[i].is_ascii_alphanumeric() {
                i += 1;
            }
        } else {
            i += 1;
        }
        out.push((start, i));
    }
    out
}

/// One to three mutations of `seed`; `others` are splice partners.
fn mutate(rng: &mut StdRng, seed: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut t = seed.to_vec();
    for _ in 0..rng.gen_range(1..=3) {
        if t.is_empty() {
            t.push(INTERESTING[rng.gen_range(0..INTERESTING.len())]);
            continue;
        }
        match rng.gen_range(0..5) {
            0 => {
                let i = rng.gen_range(0..t.len());
                t[i] ^= 1 << rng.gen_range(0..8);
            }
            1 => {
                let i = rng.gen_range(0..t.len());
                t[i] = INTERESTING[rng.gen_range(0..INTERESTING.len())];
            }
            2 => {
                let cut = rng.gen_range(0..t.len());
                t.truncate(cut);
            }
            3 => {
                let other = &others[rng.gen_range(0..others.len())];
                let a = rng.gen_range(0..=t.len());
                let b = rng.gen_range(0..=other.len());
                t.truncate(a);
                t.extend_from_slice(&other[b..]);
            }
            _ => {
                let toks = tokens(&t);
                let i = rng.gen_range(0..toks.len());
                let j = (i + rng.gen_range(0..4)).min(toks.len() - 1);
                let (from, to) = (toks[i].0, toks[j].1);
                let copy = t[from..to].to_vec();
                let times = rng.gen_range(1..=3);
                for _ in 0..times {
                    t.splice(to..to, copy.iter().copied());
                }
            }
        }
    }
    t
}

fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let short: String = text.chars().take(300).collect();
    format!("{short:?}")
}

#[test]
fn readers_never_panic_and_locate_every_refusal() {
    let ctx = Context::new(root()).expect("the example models load");
    let seeds = seeds();
    let mut rng = StdRng::seed_from_u64(SEED);
    let started = Instant::now();
    let mut failures = Vec::new();
    let quiet_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for format in Format::ALL {
        let corpus = &seeds[&format];
        assert!(!corpus.is_empty(), "{format:?}: no seed");
        for (i, s) in corpus.iter().enumerate() {
            if let Err(r) = read(&ctx, format, s) {
                failures.push(format!("{format:?}: seed {i} is refused: {}", r.message));
            }
        }
        let mut refused = 0;
        for k in 0..MUTANTS {
            let seed = &corpus[k % corpus.len()];
            let input = mutate(&mut rng, seed, corpus);
            match catch_unwind(AssertUnwindSafe(|| read(&ctx, format, &input))) {
                Err(payload) => {
                    let why = payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.push(format!(
                        "{format:?}: mutant {k} panics ({why}): {}",
                        shown(&input)
                    ));
                }
                Ok(Err(r)) => {
                    refused += 1;
                    if format.has_lines() && !r.is_located() {
                        failures.push(format!(
                            "{format:?}: mutant {k} is refused without a place: {}\n  input: {}",
                            r.message,
                            shown(&input)
                        ));
                    }
                }
                Ok(Ok(())) => {}
            }
        }
        // Mutants are mostly broken: a reader that refuses none reads nothing.
        assert!(
            refused > MUTANTS / 10,
            "{format:?}: only {refused} of {MUTANTS} refused"
        );
    }
    std::panic::set_hook(quiet_hook);
    eprintln!(
        "{} formats x {MUTANTS} mutants in {:.1} s",
        Format::ALL.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Every fuzz target, built on the stable toolchain, accepts every seed of
/// its format, and runs on a few hundred mutants of them without a finding
/// (a panic: a reader's own, or the target's "refused without a place").
#[test]
fn the_fuzz_targets_run_on_the_seeds_and_mutants() {
    let mut rng = StdRng::seed_from_u64(SEED ^ 1);
    let mut findings = Vec::new();
    let seeds = seeds();
    let quiet_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for format in Format::ALL {
        let run = target(format);
        let corpus = &seeds[&format];
        let mutants = (0..300).map(|k| mutate(&mut rng, &corpus[k % corpus.len()], corpus));
        for input in corpus.iter().cloned().chain(mutants) {
            if catch_unwind(AssertUnwindSafe(|| run(&input))).is_err() {
                findings.push(format!("{format:?}: {}", shown(&input)));
            }
        }
    }
    std::panic::set_hook(quiet_hook);
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}
