//! The MILP decider against the explicit one on the guarding example (the
//! paper's Table 1 grid (Kouvaros et al., IJCAI 2024), with the bundled
//! network), hand-checked cells, and the replay rejecting corrupted MILP
//! traces.

use super::*;
use crate::nis::engine::{decide, decide_with, EngineChoice, Target};
use crate::nis::semantics::concrete::{CMove, CState};
use crate::nis::witness::WitnessTree;
use crate::nis::{load_model, parse_sentence, LoadOptions};
use std::path::Path;

fn guarding() -> Model {
    load_model(
        Path::new("examples/guarding/guarding.nis"),
        &LoadOptions::default(),
    )
    .unwrap()
}

fn milp(symmetry_breaking: bool) -> MilpOptions {
    MilpOptions {
        symmetry_breaking,
        ..MilpOptions::default()
    }
}

fn verdict(model: &Model, spec: &str, n: usize, engine: EngineChoice, sym: bool) -> bool {
    let s = parse_sentence(spec).unwrap();
    decide_with(
        engine,
        &milp(sym),
        model,
        &s,
        Target::Concrete { agents: n },
    )
    .unwrap()
    .holds
}

#[test]
fn table1_grid_milp_equals_explicit_with_and_without_symmetry_breaking() {
    let model = guarding();
    let mut milp_grid = Vec::new();
    for k in 1..=6 {
        let spec = format!("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)");
        for n in 2..=6 {
            let x = verdict(&model, &spec, n, EngineChoice::Explicit, true);
            let with = verdict(&model, &spec, n, EngineChoice::Milp, true);
            let without = verdict(&model, &spec, n, EngineChoice::Milp, false);
            assert_eq!((with, without), (x, x), "k = {k}, n = {n}");
            milp_grid.push(((k, n), with));
        }
    }
    // Hand-checked (the paper's Section 4): k <= 2 holds from n = 2; for k >= 3 two
    // agents cannot both stay alive (one must guard each round and guarding
    // costs 2 of 4 health), three can take turns.
    let cell = |k: usize, n: usize| milp_grid.iter().find(|c| c.0 == (k, n)).unwrap().1;
    assert!(cell(1, 2) && cell(2, 2));
    assert!(!cell(3, 2) && !cell(6, 2));
    assert!(cell(3, 3) && cell(6, 3) && cell(6, 6));
    assert_eq!(milp_grid.iter().filter(|c| !c.1).count(), 4);
}

#[test]
fn universal_guarding_fails_with_a_replayed_counterexample() {
    let model = guarding();
    for k in 1..=3 {
        let spec = format!("forall v1, v2: AX^{k} (alive, v1) & (alive, v2)");
        let s = parse_sentence(&spec).unwrap();
        let r = decide(
            EngineChoice::Both,
            &model,
            &s,
            Target::Concrete { agents: 3 },
        )
        .unwrap();
        assert!(!r.holds, "{spec}");
        // `both` keeps the explicit record first; the MILP one must carry a trace too.
        let m =
            check_concrete(&model, &Lowered::new(&s, &model).unwrap(), 3, &milp_alone()).unwrap();
        let w = m.witness.expect("a counterexample");
        let json = crate::nis::verbs::json::witness(&w);
        assert_eq!(json["kind"], "counterexample");
        assert_eq!(json["branches"][0].as_array().unwrap().len(), k + 1);
        assert!(crate::nis::verbs::text::witness(&w).contains("agent 3"));
        assert_eq!(m.stats.sizes.milps, 1);
    }
    // Negated atoms: two agents resting in the first round both die (h = 3 - 3).
    let s = parse_sentence("forall v: AX !(dead, v)").unwrap();
    assert!(!check_concrete(
        &model,
        &Lowered::new(&s, &model).unwrap(),
        2,
        &MilpOptions::default()
    )
    .unwrap()
    .holds());
    // A tautology on the labels holds: the dual is infeasible, no trace.
    let s = parse_sentence("forall v: AX^2 (alive, v) | (dead, v)").unwrap();
    let m = check_concrete(
        &model,
        &Lowered::new(&s, &model).unwrap(),
        3,
        &MilpOptions::default(),
    )
    .unwrap();
    assert!(m.holds() && m.witness.is_none());
}

/// The witness tree of `spec` on M(n) straight from the MILP.
fn milp_tree(model: &Model, spec: &str, n: usize) -> WitnessTree<CState, CMove> {
    let s = parse_sentence(spec).unwrap();
    let core = Lowered::new(&s, model).unwrap().core;
    let mut sem = Semantics::new(model).unwrap();
    let env = sem.initial_envs().unwrap()[0];
    let mut sizes = Sizes::default();
    let opts = MilpOptions::default();
    let start = Start::Codes(sem.env_codes(env).to_vec());
    let mut u = Concrete::new(
        model,
        &opts,
        (n, s.agents()),
        start,
        Exact { sem: &mut sem },
    );
    match solve(&mut u, &core, &opts, &mut sizes).unwrap() {
        decide::Answer::Witness(w) => w,
        _ => panic!("{spec} should be feasible on M({n})"),
    }
}

#[test]
fn corrupted_milp_traces_do_not_replay() {
    let model = guarding();
    let spec = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)";
    let tree = milp_tree(&model, spec, 3);
    let mut sem = Semantics::new(&model).unwrap();
    let trace = replay_concrete(&mut sem, &tree).unwrap().unwrap();
    assert_eq!(trace.len(), 1);
    assert_eq!(trace[0].len(), 4);
    // Agent 1 takes the other action in the first round: the successor no longer fits.
    let mut bad = tree.clone();
    let a = &mut bad.children[0].0.indexed[0];
    *a = 1 - *a;
    let why = replay_concrete(&mut sem, &bad).unwrap().unwrap_err();
    assert!(why.contains("step 1"), "{why}");
    // A final state where agent 2 is at h = 0: the literal (alive, 2) fails on replay.
    let mut bad = tree.clone();
    let mut node = &mut bad;
    while !node.children.is_empty() {
        node = &mut node.children[0].1;
    }
    node.state.indexed[1] = sem.with_percept(&[0], 2);
    assert!(replay_concrete(&mut sem, &bad).unwrap().is_err());
    // An action the protocol forbids (expire while volunteering).
    let mut bad = tree;
    bad.children[0].0.indexed[1] = 2;
    let why = replay_concrete(&mut sem, &bad).unwrap().unwrap_err();
    assert!(why.contains("protocol") || why.contains("step 1"), "{why}");
}

#[test]
fn too_few_agents_are_refused() {
    let model = guarding();
    let s = parse_sentence("forall v: EX (alive, v)").unwrap();
    // M_ab(m) has its own MILP decider now (abstract_tests.rs).
    assert!(
        decide(EngineChoice::Milp, &model, &s, Target::Abstract)
            .unwrap()
            .holds
    );
    assert!(matches!(
        check_concrete(
            &model,
            &Lowered::new(&s, &model).unwrap(),
            0,
            &MilpOptions::default()
        ),
        Err(RunError::Input(_))
    ));
}

#[test]
fn milp_sizes_are_reported() {
    let model = guarding();
    let s = parse_sentence("forall v1, v2: EX^6 (alive, v1) & (alive, v2)").unwrap();
    let m = check_concrete(&model, &Lowered::new(&s, &model).unwrap(), 6, &milp_alone()).unwrap();
    assert!(m.holds());
    let sizes = &m.stats.sizes;
    assert!(sizes.variables > 0 && sizes.binaries > 0 && sizes.constraints > 0);
    assert!(sizes.solving.solve_s > 0.0);
    // One observation per agent and round (the initial percept is given).
    assert_eq!(sizes.network_copies, 36);
    assert_eq!(sizes.symmetry_rows, 3);
}

#[test]
fn leaving_a_declared_range_is_an_input_error() {
    let text = "
agent t {
  var x : [0..3] = 1;
  percept : {p} = p;
  actions : {up, stay};
  observe = p;
  protocol { p -> {up, stay}; }
  update { up -> x := x + 1; }
}
label top = x = 3;
";
    let model = crate::nis::tests::model_with(text, &[]).unwrap();
    // Two rounds of `up` reach 3 without leaving the range; three leave it.
    let s = parse_sentence("forall v: EX^2 (top, v)").unwrap();
    assert!(check_concrete(
        &model,
        &Lowered::new(&s, &model).unwrap(),
        1,
        &MilpOptions::default()
    )
    .unwrap()
    .holds());
    let s = parse_sentence("forall v: EX^3 (top, v)").unwrap();
    let err = check_concrete(
        &model,
        &Lowered::new(&s, &model).unwrap(),
        2,
        &MilpOptions::default(),
    )
    .err()
    .unwrap();
    let msg = format!("{err:?}");
    assert!(matches!(err, RunError::Input(_)), "{msg}");
    assert!(
        msg.contains("leaves the declared range [0..3] of `x`"),
        "{msg}"
    );
    assert!(msg.contains("value 4"), "{msg}");
    // The explicit decider meets the same error on this model.
    assert!(decide(
        EngineChoice::Explicit,
        &model,
        &s,
        Target::Concrete { agents: 2 }
    )
    .is_err());
}

#[test]
fn environment_scalar_outputs_ties_and_tree_witnesses_agree_with_explicit() {
    use crate::nis::tests::{fixture_policy, model_with, GUARDING, WITH_ENV};
    // Two initial environment states, strict comparisons of network outputs,
    // `env_action` in update guards; and the fixture with an exact tie at h = 2.
    let with_env = model_with(WITH_ENV, &[("policy", fixture_policy(0.6))]).unwrap();
    let tie = model_with(GUARDING, &[("policy", fixture_policy(0.5))]).unwrap();
    let cases: [(&Model, &str); 8] = [
        (&with_env, "forall v: EX^4 (low, v)"),
        (&with_env, "forall v: EX^3 (low, v)"),
        (&with_env, "forall v: AX^3 !(low, v)"),
        (
            &with_env,
            "forall v1, v2: (EX^2 (low, v1)) & (EX !(low, v2))",
        ),
        (&tie, "forall v1, v2: EX^3 (alive, v1) & (alive, v2)"),
        (&tie, "forall v1, v2: AX^2 (alive, v1) | (alive, v2)"),
        (&tie, "forall v1: (EX^2 (alive, v1)) & (EX (dead, v1))"),
        (&tie, "forall v1, v2: E((alive, v1) U^3 (dead, v2))"),
    ];
    for (model, spec) in cases {
        for n in 2..=3 {
            let x = verdict(model, spec, n, EngineChoice::Explicit, true);
            assert_eq!(
                verdict(model, spec, n, EngineChoice::Milp, true),
                x,
                "{spec}, n = {n}"
            );
            assert_eq!(
                verdict(model, spec, n, EngineChoice::Milp, false),
                x,
                "{spec}, n = {n}"
            );
        }
    }
    // The paper-style facts of WITH_ENV (as the explicit tests state them).
    assert!(verdict(
        &with_env,
        "forall v: EX^4 (low, v)",
        2,
        EngineChoice::Milp,
        true
    ));
    assert!(!verdict(
        &with_env,
        "forall v: EX^3 (low, v)",
        2,
        EngineChoice::Milp,
        true
    ));
    // A conjunction of EX subformulas gets a witness tree: two branches.
    let s = parse_sentence("forall v1: (EX^2 (alive, v1)) & (EX (dead, v1))").unwrap();
    let m = check_concrete(&tie, &Lowered::new(&s, &tie).unwrap(), 2, &milp_alone()).unwrap();
    assert!(m.holds());
    let branches = crate::nis::verbs::json::witness(&m.witness.unwrap())["branches"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(branches, 2);
    // Two initial environment states: one MILP (and one replayed witness) each.
    let s = parse_sentence("forall v: EX^4 (low, v)").unwrap();
    let m = check_concrete(
        &with_env,
        &Lowered::new(&s, &with_env).unwrap(),
        2,
        &milp_alone(),
    )
    .unwrap();
    assert_eq!(m.stats.sizes.milps, 2);
    assert_eq!(
        crate::nis::verbs::json::witness(&m.witness.unwrap())["initial_states"],
        2
    );
}

/// The MILP alone (no search first, issue 32): for the tests that count
/// MILPs and their sizes.
fn milp_alone() -> MilpOptions {
    MilpOptions {
        falsify: super::FalsifyOptions::off(),
        ..MilpOptions::default()
    }
}
