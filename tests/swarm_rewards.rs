//! Reward structures and R properties through the `mavis swarm` binary:
//! every malformed one is refused with its file, line and column and exit 2
//! (issue 35), and the answers over every size (`check --abstract`) are
//! checked against the concrete S(1)..S(6), each explored on its own.

#[path = "support/cli.rs"]
mod cli;
use cli::{repo, run, Run};

const MODEL: &str = "examples/foraging/foraging_small.swarm";
const FAULTS: &str = "examples/foraging/foraging_small.faults";

/// Reward structures over what labels read (the environment) and the
/// actions: `starts` grows with the number of robots (a resting robot can
/// start at every step while one is left), `steps` counts steps.
const REWARDS: &str = r#"
rewards "starts"
  [start] true : 1;
  foodDeposited_E>0 : 1/2;
endrewards
rewards "steps"
  true : 1;
endrewards
"#;

/// The small foraging model followed by `extra`, written to `dir/name`.
fn model_with(dir: &std::path::Path, name: &str, extra: &str) -> String {
    let text = std::fs::read_to_string(repo(MODEL)).unwrap() + extra;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// `mavis [--format json] swarm check MODEL --faults FAULTS ARGS`.
fn check(json: bool, model: &str, args: &[&str]) -> Run {
    let faults = repo(FAULTS);
    let mut all: Vec<&str> = if json {
        vec!["--format", "json"]
    } else {
        vec![]
    };
    all.extend(["swarm", "check", model, "--faults", &faults]);
    all.extend_from_slice(args);
    run(&all)
}

/// The line of the model file where `needle` first stands (1-based).
fn line_of(model: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(model).unwrap();
    1 + text.lines().position(|l| l.contains(needle)).expect(needle)
}

/// A malformed reward structure: exit 2, a message naming `file:line:col`
/// (`at`: the line `below` the one where `needle` stands, and the column)
/// and saying `what`, and no panic.
#[track_caller]
fn refused(dir: &std::path::Path, rewards: &str, at: (&str, usize, usize), what: &str) {
    let model = model_with(dir, "bad.swarm", rewards);
    let r = check(
        false,
        &model,
        &["--agents", "2", "--prop", "Rmin=? [ C<=3 ]"],
    )
    .expect_code(2);
    let (needle, below, col) = at;
    let place = format!("bad.swarm:{}:{col}:", line_of(&model, needle) + below);
    assert!(
        r.stderr.contains(&place) && r.stderr.contains(what),
        "wanted {place} {what}\n{}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn malformed_reward_structures_are_refused_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let one = |body: &str| format!("\nrewards \"w\"\n{body}\nendrewards\n");
    // (the reward structures, (needle, lines below it, column), message)
    let cases = [
        (
            one("  [fly] true : 1;"),
            ("[fly]", 0, 4),
            "action `fly` of a reward is not declared",
        ),
        (
            one("  foodDeposited_E : 1;"),
            ("foodDeposited_E :", 0, 3),
            "expected a bool expression, found int",
        ),
        (
            one("  true : unknown_E;"),
            ("unknown_E", 0, 10),
            "unknown name `unknown_E`",
        ),
        (
            one("  true : \"deposited2\";"),
            ("true : \"", 0, 10),
            "expected an expression",
        ),
        (
            "\nrewards \"w\"\n  true : 1\nendrewards\n".into(),
            ("endrewards", 0, 1),
            "expected `;`, found `endrewards`",
        ),
        (
            "\nrewards \"w\"\n  true : 1;\n".into(),
            ("true : 1;", 1, 1),
            "found the end of the file",
        ),
        (
            "\nrewards w\n  true : 1;\nendrewards\n".into(),
            ("rewards w", 0, 9),
            "expected a string, found `w`",
        ),
        // The second declaration is the wrong one.
        (
            one("  true : 1;") + "rewards \"w\" // again\n  true : 2;\nendrewards\n",
            ("// again", 0, 9),
            "reward structure `w` is declared twice",
        ),
        // Only a reachable state shows a negative reward: foodDeposited_E = 0 at the start.
        (
            one("  true : foodDeposited_E - 1;"),
            ("foodDeposited_E - 1", 0, 3),
            "found -1 at a reachable state",
        ),
    ];
    for (rewards, at, what) in &cases {
        refused(d, rewards, *at, what);
    }
}

#[test]
fn malformed_reward_properties_are_refused_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with(dir.path(), "r.swarm", REWARDS);
    let cases = [
        (
            r#"R{"nope"}min=? [ F "deposited2" ]"#,
            3,
            "the model has no reward structure \"nope\"",
        ),
        (
            r#"R>=-1 [ F "deposited2" ]"#,
            4,
            "a reward bound must be at least 0, found -1",
        ),
        (
            "Rmin=? [ C<=-1 ]",
            13,
            "a step bound must be a natural number, found -1",
        ),
        ("Rmin=? [ I=x ]", 12, "unknown name `x`"),
        (
            r#"Rmin=? [ F<5 "deposited2" ]"#,
            11,
            "a step-bounded `F` under `R` is not supported",
        ),
        (
            r#"Rmin=? [ G "deposited2" ]"#,
            10,
            "expected `F`, `C<=k` or `I=k`",
        ),
        ("Rmax [ C<=3 ]", 6, "expected `=`, found `[`"),
        ("Rmin=? [ C<3 ]", 11, "`C<k` is not PRISM syntax"),
    ];
    for (prop, col, what) in cases {
        let r = check(false, &model, &["--agents", "2", "--prop", prop]).expect_code(2);
        let place = format!("<--prop>:1:{col}:");
        assert!(
            r.stderr.contains(&place) && r.stderr.contains(what),
            "{prop}: wanted {place} {what}\n{}",
            r.stderr
        );
    }
    // In a properties file the place is the file's line.
    let props = dir.path().join("r.props");
    std::fs::write(&props, "Rmin=? [ C<=3 ]\nR{\"steps\"}min=? [ I=x ]\n").unwrap();
    let r = check(
        false,
        &model,
        &["--agents", "2", "--props", props.to_str().unwrap()],
    );
    let r = r.expect_code(2);
    assert!(
        r.stderr.contains("r.props:2:21: unknown name `x`"),
        "{}",
        r.stderr
    );
    // A model without reward structures.
    let r = check(
        false,
        &repo(MODEL),
        &["--agents", "2", "--prop", "Rmin=? [ C<=3 ]"],
    );
    let r = r.expect_code(2);
    assert!(
        r.stderr
            .contains("<--prop>:1:1: the model has no reward structure"),
        "{}",
        r.stderr
    );
}

/// The f64 value (the interval's ends for `F`) and the exact value of a
/// reward property on S(n).
fn concrete(model: &str, n: usize, prop: &str, exact: bool) -> serde_json::Value {
    let n = n.to_string();
    let mut args = vec!["--agents", n.as_str(), "--prop", prop];
    if exact {
        args.push("--exact");
    }
    let r = check(true, model, &args).success();
    r.json()["results"]["properties"][0].clone()
}

/// `C<=k` and `I=k` over every size: the cutoff's value is the optimum of
/// S(1)..S(h) (h = k = 5), exact, and every larger size repeats S(h):
/// checked against S(1)..S(6), each built concretely (S(1)..S(5) in
/// rationals; S(6) in f64, as exact S(6) takes minutes).
#[test]
fn the_all_sizes_answer_of_c_and_i_is_the_optimum_of_the_concrete_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with(dir.path(), "r.swarm", REWARDS);
    for (prop, max) in [
        (r#"R{"starts"}max=? [ C<=5 ]"#, true),
        (r#"R{"starts"}min=? [ C<=5 ]"#, false),
        (r#"R{"starts"}max=? [ I=5 ]"#, true),
        (r#"R{"starts"}min=? [ I=5 ]"#, false),
    ] {
        let all = check(true, &model, &["--abstract", "--exact", "--prop", prop]).success();
        let cutoff = all.json()["results"]["properties"][0]["cutoff"].clone();
        let exact = cutoff["exact"].as_str().expect("an exact cutoff value");
        let value = cutoff["value"].as_f64().unwrap();
        let (mut sizes, mut exacts) = (Vec::new(), Vec::new());
        for n in 1..=5 {
            let v = concrete(&model, n, prop, true);
            sizes.push(v["value"].as_f64().unwrap());
            exacts.push(v["exact"].as_str().unwrap().to_string());
            // The cutoff's values per size are S(n)'s.
            let per_n = cutoff["per_n"][n - 1].as_f64().unwrap();
            assert!((per_n - sizes[n - 1]).abs() < 1e-12, "{prop}: S({n})");
        }
        sizes.push(concrete(&model, 6, prop, false)["value"].as_f64().unwrap());
        let best = if max {
            sizes.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        } else {
            sizes.iter().cloned().fold(f64::INFINITY, f64::min)
        };
        assert_eq!(best, value, "{prop}: {sizes:?}");
        let at = sizes.iter().position(|&x| x == best).unwrap();
        assert!(
            at < 5 && exacts[at] == exact,
            "{prop}: {exact} against {exacts:?}"
        );
        assert!(
            (sizes[4] - sizes[5]).abs() < 1e-12,
            "{prop}: S(5), S(6) {sizes:?}"
        );
    }
    // By hand: S(1) starts at steps 0..4 with probabilities 1, 1/2, 1/4,
    // 37/100, 183/400 (a robot at rest starts with 1/2 and is back after a
    // deposit, a drop or two failed searches) and has deposited before
    // step 4 with 1/2 * 3/10 * 3/5: 1031/400 + 1/2 * 9/100 = 1049/400.
    // With 5 robots one is at rest at each of the 5 steps: 5. So the
    // optimum over n is not S(1)'s, and the cutoff finds it.
    let v = |n| concrete(&model, n, r#"R{"starts"}max=? [ C<=5 ]"#, true);
    assert_eq!(
        (v(1)["exact"].clone(), v(5)["exact"].clone()),
        ("1049/400".into(), "5".into())
    );
}

/// `F` over every size: no cutoff (an unbounded path may move every
/// agent), so the answer is the abstraction's bound, on the sound side of
/// every concrete size's certified interval (Rmin below, Rmax above).
#[test]
fn the_all_sizes_answer_of_f_bounds_every_concrete_size() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with(dir.path(), "r.swarm", REWARDS);
    for (prop, max) in [
        (r#"R{"steps"}min=? [ F "deposited2" ]"#, false),
        (r#"R{"steps"}max=? [ F "deposited2" ]"#, true),
        (r#"R{"starts"}min=? [ F "deposited1" ]"#, false),
    ] {
        let all = check(true, &model, &["--abstract", "--prop", prop]).success();
        let all = all.json()["results"]["properties"][0].clone();
        assert!(all["cutoff"].is_null(), "{prop}: {all}");
        // JSON has no infinity: an infinite bound is null, and says so.
        let infinite = all["abstract_bound_infinite"] == true;
        assert_eq!(infinite, all["abstract_bound"].is_null(), "{prop}: {all}");
        // Rmax: some scheduler misses the deposits with positive probability.
        assert_eq!(infinite, max, "{prop}: {all}");
        let bound = match max {
            true if infinite => f64::INFINITY,
            true => all["abstract_bound"].as_f64().unwrap(),
            false => all["abstract_bound_interval"][0].as_f64().unwrap(),
        };
        for n in 2..=6 {
            let v = concrete(&model, n, prop, false);
            let (lo, hi) = (
                v["interval"][0].as_f64().unwrap(),
                v["interval"][1].as_f64().unwrap(),
            );
            assert!(hi - lo <= 1e-6, "{prop}: S({n}) [{lo}, {hi}]");
            let sound = if max { bound >= lo } else { bound <= hi };
            assert!(sound, "{prop}: bound {bound}, S({n}) [{lo}, {hi}]");
        }
    }
}

/// `swarm sweep` of `prop` over pf = 0, 1/2 and k = 3..5 (`--agents` as
/// given, else every size), its CSV and SVG written: the JSON rows.
fn sweep(
    model: &str,
    prop: &str,
    agents: Option<&str>,
    dir: &std::path::Path,
) -> Vec<serde_json::Value> {
    let (faults, prefix) = (repo(FAULTS), dir.join("sweep"));
    let mut args = vec![
        "--format", "json", "swarm", "sweep", model, "--faults", &faults,
    ];
    args.extend(["--prop", prop, "--sweep", "pf=0:0.5:0.5", "--k", "3..5"]);
    let out = prefix.to_str().unwrap();
    args.extend(["--out", out]);
    if let Some(a) = agents {
        args.extend(["--agents", a]);
    }
    let v = run(&args).success().json();
    let svg = std::fs::read_to_string(prefix.with_extension("svg")).unwrap();
    let word = format!(
        "{}{}",
        &prop[..1],
        if prop.contains("max") { "max" } else { "min" }
    );
    assert!(svg.contains(&word), "the plot names the measure {word}");
    v["results"]["rows"].as_array().unwrap().clone()
}

/// The value `check` gives at pf and k (the property's k replaced).
fn checked(model: &str, prop: &str, pf: f64, k: u64, agents: Option<&str>) -> serde_json::Value {
    let (prop, pf) = (prop.replace('k', &k.to_string()), format!("pf={pf}"));
    let mut args = vec!["--set", pf.as_str(), "--prop", &prop];
    match agents {
        Some(a) => args.extend(["--agents", a]),
        None => args.push("--abstract"),
    }
    check(true, model, &args).success().json()["results"]["properties"][0].clone()
}

/// The value a sweep row must have, from `check`'s answer on its cell: the
/// sound end of a certified interval (the upper for a maximum), else the
/// cutoff's exact value over every size, else the value or the bound.
fn row_value(c: &serde_json::Value, max: bool) -> f64 {
    let end = usize::from(max);
    for interval in ["interval", "abstract_bound_interval"] {
        if let Some(i) = c[interval].as_array() {
            return i[end].as_f64().unwrap();
        }
    }
    c["cutoff"]["value"]
        .as_f64()
        .or(c["value"].as_f64())
        .or(c["abstract_bound"].as_f64())
        .unwrap()
}

/// Sweeps accept the reward properties and the unbounded ones (issue 35):
/// every row equals `check` on its cell, at a size and over every size
/// (the cutoff's exact value for `I=k`, the abstraction's bound for `F`,
/// whose rows are the same for every k).
#[test]
fn sweep_rows_of_reward_and_unbounded_properties_equal_check() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with(dir.path(), "r.swarm", REWARDS);
    let cases: [(&str, Option<&str>, &str); 4] = [
        (r#"R{"starts"}max=? [ C<=k ]"#, Some("2"), "at size"),
        (r#"R{"starts"}min=? [ I=k ]"#, None, "exact over n"),
        (
            r#"R{"steps"}min=? [ F "deposited2" ]"#,
            Some("2"),
            "at size",
        ),
        (r#"Pmax=? [ F "deposited2" ]"#, None, "bound"),
    ];
    for (prop, agents, is) in cases {
        let rows = sweep(&model, prop, agents, dir.path());
        assert_eq!(rows.len(), 6, "{prop}");
        for row in &rows {
            let (pf, k) = (row["value"].as_f64().unwrap(), row["k"].as_u64().unwrap());
            let want = row_value(&checked(&model, prop, pf, k, agents), prop.contains("max"));
            let got = row["p"].as_f64().unwrap();
            assert!(
                (got - want).abs() <= 1e-9 * want.max(1.0),
                "{prop} pf={pf} k={k}: {got} against {want}"
            );
            assert_eq!(row["is"], is, "{prop}");
        }
    }
}

/// A reward sweep in two shards merges back to the unsharded table: the
/// parts keep the rewards (above 1) as `reward_rows`.
#[test]
fn a_sharded_reward_sweep_merges_to_the_unsharded_table() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with(dir.path(), "r.swarm", REWARDS);
    let faults = repo(FAULTS);
    let args = [
        "swarm",
        "sweep",
        &model,
        "--faults",
        &faults,
        "--prop",
        r#"R{"starts"}max=? [ C<=k ]"#,
        "--sweep",
        "pf=0:0.5:0.5",
        "--k",
        "3..5",
        "--agents",
        "2",
    ];
    let whole = run(&args).success();
    let mut parts = Vec::new();
    for shard in ["1/2", "2/2"] {
        let out = dir.path().join(format!("part{}.json", &shard[..1]));
        let out = out.to_str().unwrap().to_string();
        let mut a = args.to_vec();
        a.extend(["--shard", shard, "--format", "json", "-o", &out]);
        run(&a).success();
        assert!(std::fs::read_to_string(&out)
            .unwrap()
            .contains("reward_rows"));
        parts.push(out);
    }
    let mut merge = vec!["merge"];
    merge.extend(parts.iter().map(String::as_str));
    let merged = run(&merge).success();
    assert_eq!(merged.stdout, whole.stdout);
    assert!(whole.stdout.contains("k  Rmax"), "{}", whole.stdout);
    assert!(
        whole.stdout.contains("0.5  5  3.685000"),
        "{}",
        whole.stdout
    );
}

/// The exports write the reward structures (PRISM `rewards`, JANI transient
/// variables; tests/peers checks their values in Storm), the explicit form
/// of the abstraction (explored state by state) too, without a warning.
#[test]
fn exports_write_the_rewards() {
    let dir = tempfile::tempdir().unwrap();
    let model = model_with(dir.path(), "r.swarm", REWARDS);
    let faults = repo(FAULTS);
    for (to, marker) in [
        ("prism", "rewards \"starts\""),
        ("jani", "\"name\":\"starts\""),
    ] {
        let out = dir.path().join(format!("s2.{to}"));
        let path = out.to_str().unwrap().to_string();
        let a = [
            "--format", "json", "swarm", "export", &model, "--faults", &faults, "--agents", "2",
            "--to", to, "-o", &path,
        ];
        let r = run(&a).success();
        let file = std::fs::read_to_string(&out)
            .unwrap()
            .replace([' ', '\n'], "");
        assert!(file.contains(&marker.replace(' ', "")), "{to}");
        assert_eq!(r.json()["warnings"], serde_json::json!([]), "{to}");
        let mut explicit = a.to_vec();
        explicit.retain(|x| *x != "--agents" && *x != "2");
        explicit.extend(["--abstract", "--faulty-fraction", "0.5"]);
        let r = run(&explicit).success();
        assert_eq!(r.json()["warnings"], serde_json::json!([]), "{to}");
        let file = std::fs::read_to_string(&out)
            .unwrap()
            .replace([' ', '\n'], "");
        assert!(file.contains(&marker.replace(' ', "")), "{to} explicit");
    }
}
