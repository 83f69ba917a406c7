//! A writer killed at a random point leaves no partial output file (issue
//! 33): every `-o`, `--out`, plot, export and shard part is written to a
//! temporary file and renamed when complete. Each case starts one writer and
//! kills it either with SIGKILL after a random delay or, so that the kill
//! surely falls inside a write, with SIGXFSZ when one of its files reaches a
//! random size (`prlimit --fsize`: the writer dies mid-file, which a random
//! delay rarely hits on outputs of a few kilobytes: at 9bc46e6, whose
//! exports wrote to the final name, the delay-only test passed). It then
//! checks that each output is either absent or whole (the bytes of a complete run, or for a shard part
//! a part that merges), and that `mavis merge` refuses whatever else is
//! left in the folder (the temporary files).

#[path = "support/cli.rs"]
mod cli;

use cli::repo;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

const SPEC: &str = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)";

/// The writers: the arguments (`{dir}` stands for the output folder) and
/// the names of the files they write there.
fn writers() -> Vec<(Vec<String>, Vec<&'static str>)> {
    let table = repo("examples/guarding/guarding_thresholds.nis");
    let (swarm, faults) = (
        repo("examples/foraging/foraging_small.swarm"),
        repo("examples/foraging/foraging_small.faults"),
    );
    let seed = (
        repo("examples/foraging/foraging.swarm"),
        repo("examples/foraging/foraging.faults"),
    );
    let robust = repo("examples/robust/icy_ramp.ma");
    let w = |args: &[&str], outs: Vec<&'static str>| {
        (args.iter().map(|s| s.to_string()).collect(), outs)
    };
    vec![
        w(
            &[
                "nis",
                "table",
                &table,
                "--spec",
                SPEC,
                "--k",
                "1..4",
                "--agents",
                "2..4",
                "--shard",
                "1/2",
                "--format",
                "json",
                "-o",
                "{dir}/part1.json",
            ],
            vec!["part1.json"],
        ),
        w(
            &[
                "swarm",
                "export",
                &seed.0,
                "--faults",
                &seed.1,
                "--agents",
                "3",
                "--to",
                "prism",
                "-o",
                "{dir}/model.prism",
            ],
            vec!["model.prism"],
        ),
        w(
            &[
                "swarm",
                "sweep",
                &swarm,
                "--faults",
                &faults,
                "--prop",
                "Pmax=? [ F<k \"deposited2\" ]",
                "--sweep",
                "pf=0:0.25:1",
                "--k",
                "8..11",
                "--agents",
                "2",
                "--no-times",
                "--out",
                "{dir}/sweep",
                "-o",
                "{dir}/sweep.txt",
            ],
            vec!["sweep.csv", "sweep.svg", "sweep.png", "sweep.txt"],
        ),
        w(
            &[
                "robust",
                "faults",
                &robust,
                "--period",
                "1..7",
                "--no-times",
                "--plot",
                "{dir}/tradeoff.svg",
                "-o",
                "{dir}/faults.txt",
            ],
            vec!["tradeoff.svg", "faults.txt"],
        ),
    ]
}

fn args_in(args: &[String], dir: &Path) -> Vec<String> {
    let d = dir.display().to_string();
    args.iter().map(|a| a.replace("{dir}", &d)).collect()
}

/// Each writer run to its end once: its files, and the second shard of the
/// table (what a complete first part must merge with).
struct Reference {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    part2: String,
}

fn reference() -> &'static Reference {
    static R: OnceLock<Reference> = OnceLock::new();
    R.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        for (args, _) in writers() {
            cli::run(
                &args_in(&args, &path)
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            )
            .success();
        }
        let mut second = args_in(&writers()[0].0, &path);
        let n = second.len();
        second[n - 1] = path.join("part2.json").display().to_string();
        let at = second.iter().position(|a| a == "1/2").unwrap();
        second[at] = "2/2".into();
        cli::run(&second.iter().map(String::as_str).collect::<Vec<_>>()).success();
        Reference {
            part2: path.join("part2.json").display().to_string(),
            dir: path,
            _dir: dir,
        }
    })
}

/// How a case ends its writer.
#[derive(Clone, Copy, Debug)]
enum Kill {
    /// SIGKILL after this many milliseconds.
    After(u64),
    /// SIGXFSZ when a file it writes would pass this many bytes.
    AtFileSize(u64),
}

fn merge(files: &[&str]) -> cli::Run {
    let mut args = vec!["merge"];
    args.extend_from_slice(files);
    cli::run(&args)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_killed_writer_leaves_no_partial_output(
        which in 0usize..4, kill in prop_oneof![(0u64..600).prop_map(Kill::After), (1u64..20_000).prop_map(Kill::AtFileSize)],
    ) {
        let r = reference();
        let (args, outs) = writers().swap_remove(which);
        let dir = tempfile::tempdir().unwrap();
        let args = args_in(&args, dir.path());
        let mut child = match kill {
            Kill::After(_) => Command::new(assert_cmd::cargo::cargo_bin("mavis")),
            Kill::AtFileSize(bytes) => {
                let mut c = Command::new("prlimit");
                c.arg(format!("--fsize={bytes}")).arg(assert_cmd::cargo::cargo_bin("mavis"));
                c
            }
        }
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        if let Kill::After(ms) = kill {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            let _ = child.kill();
        }
        child.wait().unwrap();
        for name in &outs {
            let path = dir.path().join(name);
            if !path.exists() {
                continue;
            }
            if name.ends_with(".json") {
                // A part: complete means it merges with the other shard.
                let run = merge(&[path.to_str().unwrap(), &r.part2]);
                prop_assert_eq!(run.code, 0, "{} left a part that does not merge: {}", name, run.stderr);
            } else {
                // A report names the files it wrote: in the reference's folder there.
                let here = |bytes: Vec<u8>, from: &Path| -> Vec<u8> {
                    match String::from_utf8(bytes) {
                        Ok(t) if name.ends_with(".txt") => t
                            .replace(&from.display().to_string(), "{dir}")
                            .into_bytes(),
                        Ok(t) => t.into_bytes(),
                        Err(e) => e.into_bytes(),
                    }
                };
                let whole = here(std::fs::read(r.dir.join(name)).unwrap(), &r.dir);
                let left = here(std::fs::read(&path).unwrap(), dir.path());
                prop_assert!(left == whole, "{} is not the complete file ({} of {} bytes)", name, left.len(), whole.len());
            }
        }
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if outs.contains(&name.as_str()) {
                continue;
            }
            // A temporary file of the killed run: never taken for a part.
            let path = dir.path().join(&name);
            let run = merge(&[path.to_str().unwrap(), &r.part2]);
            prop_assert_eq!(run.code, 2, "merge took the leftover {}: {}", name, run.stdout);
        }
    }
}
