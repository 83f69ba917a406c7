//! The Slurm recipe of docs/cluster.md, run as Slurm would run it: the
//! script body (the first ```bash block of "## Slurm job arrays") once per
//! array task with `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT` set,
//! from a directory that holds only the model and its network (copied
//! alone), then the merge command of the recipe's `--wrap '...'`. The
//! merged table must be the unsharded run's, times aside.

#[path = "support/cli.rs"]
mod cli;

use std::path::Path;
use std::process::Command;

/// The recipe's two bash blocks: the sbatch script and the submit lines.
fn recipe() -> (String, String) {
    let doc = std::fs::read_to_string(cli::root().join("docs/cluster.md")).unwrap();
    let section = &doc[doc.find("## Slurm job arrays").expect("the Slurm section")..];
    let mut blocks = section
        .split("```bash\n")
        .skip(1)
        .map(|b| b[..b.find("```").unwrap()].to_string());
    (
        blocks.next().expect("the script"),
        blocks.next().expect("the submit lines"),
    )
}

/// The command of `--wrap '...'`.
fn merge_command(submit: &str) -> String {
    let at = submit.find("--wrap '").expect("a --wrap command") + "--wrap '".len();
    submit[at..at + submit[at..].find('\'').unwrap()].to_string()
}

/// Durations in a rendered table (`T 0.001s`), which differ between runs.
fn without_times(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut number = c.to_string();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit() || **d == '.') {
                number.push(d);
                chars.next();
            }
            if number.contains('.') && chars.peek() == Some(&'s') {
                chars.next();
                out.push_str("<time>");
            } else {
                out.push_str(&number);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn bash(dir: &Path, path_dir: &Path, command: &str, env: &[(&str, &str)]) -> (i32, String) {
    let path = format!(
        "{}:{}",
        path_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_slurm_script_body_runs_each_task_and_the_merge_gives_the_unsharded_table() {
    let (script, submit) = recipe();
    assert!(script.contains("#SBATCH --array="), "{script}");
    assert!(submit.contains("mkdir -p logs parts"), "{submit}");
    assert!(submit.contains("--dependency=afterany:"), "{submit}");
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("submit");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mavis"), bin.join("mavis")).unwrap();
    // The model copied alone, beside its network.
    std::fs::copy(
        cli::root().join("examples/guarding/guarding.nis"),
        work.join("guarding.nis"),
    )
    .unwrap();
    std::fs::copy(
        cli::root().join("networks/guarding.onnx"),
        work.join("guarding.onnx"),
    )
    .unwrap();
    std::fs::write(work.join("table.sbatch"), &script).unwrap();
    let grid = [("K", "1..4"), ("AGENTS", "2..4")];
    let count = 3;
    for task in 1..=count {
        let (id, n) = (task.to_string(), count.to_string());
        let env = [
            grid[0],
            grid[1],
            ("SLURM_ARRAY_TASK_ID", id.as_str()),
            ("SLURM_ARRAY_TASK_COUNT", n.as_str()),
        ];
        let (code, text) = bash(&work, &bin, "bash table.sbatch", &env);
        assert_eq!(code, 0, "task {task}: {text}");
        assert!(
            work.join(format!("parts/part{task}.json")).is_file(),
            "task {task}: {text}"
        );
    }
    let (code, text) = bash(&work, &bin, &merge_command(&submit), &[]);
    assert_eq!(code, 0, "merge: {text}");
    let merged = std::fs::read_to_string(work.join("table.txt")).unwrap();
    let whole = cli::run(&[
        "nis",
        "table",
        &cli::repo("examples/guarding/guarding.nis"),
        "--spec",
        "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)",
        "--k",
        "1..4",
        "--agents",
        "2..4",
    ])
    .success();
    let cells = |t: &str| -> Vec<String> {
        without_times(t)
            .lines()
            .filter(|l| l.contains("<time>") || l.starts_with("n "))
            .map(str::to_string)
            .collect()
    };
    assert!(!cells(&merged).is_empty(), "{merged}");
    assert_eq!(
        cells(&merged),
        cells(&whole.stdout),
        "merged:\n{merged}\nunsharded:\n{}",
        whole.stdout
    );
}
