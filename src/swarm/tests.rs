//! Unit tests of the swarm engine: hand-computed values, a brute-force
//! recursive oracle beside the CSR value iteration, the abstraction's bounds
//! against concrete sizes, the cutoff quotient against S(n), witnesses, and
//! located errors.

use super::decide::mdp::{Semantics, Successors};
use super::decide::property::{self, Sem};
use super::front::props::{parse_properties, Opt, Path};
use super::semantics::concrete::Concrete;
use super::semantics::counting::Counting;
use super::{load_sources, Loaded};
use crate::lang::{num, Rat, Source, Value};
use crate::report::Deadline;
use std::collections::HashMap;

const FORAGING: &str = include_str!("../../examples/foraging/foraging_small.swarm");
const FAULTS: &str = include_str!("../../examples/foraging/foraging_small.faults");

pub(super) fn load(
    model: &str,
    faults: Option<&str>,
    sets: &[(&str, &str)],
) -> Result<Loaded, String> {
    let sets: Vec<(String, Value)> = sets
        .iter()
        .map(|(n, v)| (n.to_string(), crate::lang::parse_value_text(v).unwrap()))
        .collect();
    let f = faults.map(|t| Source::new("test.faults", t));
    load_sources(
        &Source::new("test.swarm", model),
        f.as_ref(),
        &sets,
        None,
        false,
    )
    .map_err(|e| match e {
        crate::report::RunError::Input(r) => r.to_string(),
        crate::report::RunError::Internal(m)
        | crate::report::RunError::TimedOut(m)
        | crate::report::RunError::Undetermined(m) => m,
        crate::report::RunError::Limit(m) => m,
    })
}

fn foraging(pf: &str) -> Loaded {
    load(FORAGING, Some(FAULTS), &[("pf", pf)]).expect("the example loads")
}

/// A property's values on an explored MDP, without rewards or phases, in
/// f64 (and exactly with `exact`), recording a witness with `witness`.
fn compute_on(
    mdp: &crate::swarm::decide::mdp::Mdp,
    prop: &crate::swarm::front::props::Property,
    truth: &[Vec<bool>],
    exact: bool,
    witness: bool,
) -> Result<property::Values, crate::report::Expired> {
    let asked = property::Asked {
        mdp,
        prop,
        truth,
        rewards: None,
        phases: None,
    };
    let how = property::Numerics {
        exact,
        witness,
        ..property::Numerics::F64
    };
    let at = (Deadline::NONE, &crate::report::meter::Meter::none());
    property::compute(&asked, how, at)
}

/// Value of one property on a semantics: (f64, exact) at the first initial state, optimum over initials.
fn value(l: &Loaded, sem: &Sem, prop: &str, exact: bool) -> (f64, Option<Rat>) {
    let props = parse_properties(&Source::new("p", prop), &l.model).expect("property parses");
    let p = &props.props[0];
    let mdp = property::build(sem, exact, 10_000_000, None).expect("small");
    let truth = property::evaluate_formulas(
        sem,
        &mdp,
        &l.model,
        &props.refs,
        &property::path_formulas(&p.path),
    )
    .truth;
    let v = compute_on(&mdp, p, &truth, exact, false).unwrap();
    let (f, e, _) = property::over_initials(&v, p.opt);
    (f, e)
}

fn concrete<'a>(l: &'a Loaded, n: usize) -> Sem<'a> {
    Sem::Concrete(Concrete::new(
        &l.model,
        &l.sys,
        &vec![n; l.model.templates.len()],
    ))
}

#[test]
fn one_robot_matches_the_hand_computation() {
    let l = foraging("0.4");
    let sem = concrete(&l, 1);
    // start 1/2, find 3/10, keep the food 3/5, deposit: 9/100.
    let (f, e) = value(&l, &sem, "Pmax=? [ F<=4 \"deposited1\" ]", true);
    assert_eq!(e, Some(num::rat(9, 100)));
    assert!((f - 0.09).abs() < 1e-15);
    // Length-5 paths add 1/2*9/100 (one failed start) and 1/2*7/10*3/10*3/5 (one failed search).
    let (_, e) = value(&l, &sem, "Pmax=? [ F<6 \"deposited1\" ]", true);
    assert_eq!(
        e,
        Some(num::rat(9, 100) + num::rat(45, 1000) + num::rat(63, 1000))
    );
    // One robot alone needs 8 steps for two units.
    let (f, _) = value(&l, &sem, "Pmax=? [ F<=7 \"deposited2\" ]", false);
    assert_eq!(f, 0.0);
    let (_, e) = value(&l, &sem, "Pmax=? [ F<=8 \"deposited2\" ]", true);
    assert_eq!(e, Some(num::rat(9, 100) * num::rat(9, 100)));
    // G is the complement of F: P[G<=4 !deposited1] = 1 - 9/100.
    let (_, e) = value(&l, &sem, "Pmin=? [ G<=4 !\"deposited1\" ]", true);
    assert_eq!(e, Some(num::rat(91, 100)));
}

#[test]
fn faults_change_the_value_and_pf_one_never_deposits() {
    let p = "Pmax=? [ F<13 \"deposited2\" ]";
    let v: Vec<f64> = ["0", "0.4", "1"]
        .iter()
        .map(|pf| {
            let l = foraging(pf);
            value(&l, &concrete(&l, 2), p, false).0
        })
        .collect();
    assert!(v[0] > v[1] && v[1] > 0.0, "{v:?}");
    assert_eq!(v[2], 0.0);
    // Without a faults file the model equals pf = 0 (the fault never fires).
    let l = load(FORAGING, None, &[]).unwrap();
    assert!((value(&l, &concrete(&l, 2), p, false).0 - v[0]).abs() < 1e-12);
}

/// A second decider: the recursive definition of bounded Pmax/Pmin, straight
/// on the semantics (no CSR, no maybe-set pruning), memoised by (state, steps).
fn oracle(
    sem: &dyn Semantics,
    target: &dyn Fn(&[u64]) -> bool,
    state: Vec<u64>,
    steps: usize,
    opt: Opt,
    memo: &mut HashMap<(Vec<u64>, usize), f64>,
) -> f64 {
    if target(&state) {
        return 1.0;
    }
    if steps == 0 {
        return 0.0;
    }
    if let Some(v) = memo.get(&(state.clone(), steps)) {
        return *v;
    }
    let mut succ = Successors::new(sem.words());
    sem.successors(&state, false, &mut succ);
    let mut best: Option<f64> = None;
    for c in 0..succ.choices() {
        let entries: Vec<(Vec<u64>, f64)> =
            succ.choice(c).map(|(t, p, _)| (t.to_vec(), p)).collect();
        let v: f64 = entries
            .into_iter()
            .map(|(t, p)| p * oracle(sem, target, t, steps - 1, opt, memo))
            .sum();
        best = Some(match (best, opt) {
            (None, _) => v,
            (Some(b), Opt::Max) => b.max(v),
            (Some(b), Opt::Min) => b.min(v),
        });
    }
    let v = best.unwrap_or(0.0);
    memo.insert((state, steps), v);
    v
}

#[test]
fn value_iteration_agrees_with_the_recursive_oracle() {
    for (pf, n, k, opt) in [
        ("0.4", 2, 9, Opt::Max),
        ("0.25", 2, 11, Opt::Min),
        ("0.1", 3, 9, Opt::Max),
        ("0.7", 3, 8, Opt::Min),
    ] {
        let l = foraging(pf);
        let Sem::Concrete(c) = concrete(&l, n) else {
            unreachable!()
        };
        let food = l
            .model
            .env
            .vars
            .iter()
            .position(|v| v.name == "foodDeposited")
            .unwrap();
        let target = |s: &[u64]| l.sys.env.states[c.env_local(s) as usize][food] > 1;
        let o = oracle(
            &c,
            &target,
            c.initial_states()[0].clone(),
            k,
            opt,
            &mut HashMap::new(),
        );
        let word = if opt == Opt::Max { "Pmax" } else { "Pmin" };
        let (f, e) = value(
            &l,
            &Sem::Concrete(Concrete::new(&l.model, &l.sys, &[n])),
            &format!("{word}=? [ F<={k} \"deposited2\" ]"),
            true,
        );
        assert!((f - o).abs() < 1e-12, "pf={pf} n={n}: {f} vs oracle {o}");
        assert!((num::to_f64(&e.unwrap()) - f).abs() < 1e-12);
    }
}

#[test]
fn the_abstraction_bounds_every_concrete_size() {
    let l = foraging("0.4");
    let prop = "Pmax=? [ F<11 \"deposited2\" ]";
    let abs = Sem::Counting(Counting::new(&l.model, &l.sys, &[0], 1, vec![vec![1]]));
    let (upper, _) = value(&l, &abs, prop, false);
    let min_prop = "Pmin=? [ F<11 \"deposited1\" ]";
    let (lower, _) = value(&l, &abs, min_prop, false);
    for n in 1..=3 {
        let (c, _) = value(&l, &concrete(&l, n), prop, false);
        assert!(c <= upper + 1e-12, "n={n}: {c} > abstract {upper}");
        let (m, _) = value(&l, &concrete(&l, n), min_prop, false);
        assert!(m >= lower - 1e-12, "n={n}: {m} < abstract {lower}");
    }
    // A higher threshold is tighter and still sound.
    let abs2 = Sem::Counting(Counting::new(&l.model, &l.sys, &[0], 2, vec![vec![1, 2]]));
    let (upper2, _) = value(&l, &abs2, prop, false);
    assert!(upper2 <= upper + 1e-12);
    let (c3, _) = value(&l, &concrete(&l, 3), prop, false);
    assert!(c3 <= upper2 + 1e-12);
}

#[test]
fn exact_counts_are_the_symmetry_quotient_of_the_concrete_system() {
    // Counting below the threshold is exact: initial count n gives S(n)'s value.
    let l = foraging("0.3");
    for n in 1..=3u32 {
        let q = Sem::Counting(Counting::new(&l.model, &l.sys, &[0], n + 1, vec![vec![n]]));
        for prop in [
            "Pmax=? [ F<=9 \"deposited2\" ]",
            "Pmin=? [ F<=6 \"deposited1\" ]",
        ] {
            let (a, ae) = value(&l, &q, prop, true);
            let (c, ce) = value(&l, &concrete(&l, n as usize), prop, true);
            assert_eq!(ae, ce, "n={n} {prop}");
            assert!((a - c).abs() < 1e-12);
        }
    }
}

#[test]
fn states_are_keyed_by_value() {
    use super::decide::mdp::StateTable;
    let mut t = StateTable::new(2);
    let keys: Vec<[u64; 2]> = (0..5000u64)
        .map(|i| [i.wrapping_mul(0x9e37_79b9_7f4a_7c15), i % 7])
        .collect();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(t.insert(k), (i as u32, true));
    }
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(t.insert(k), (i as u32, false));
        assert_eq!(t.get(i as u32), k);
    }
    assert_eq!(t.lookup(&[1, 2]), None);
}

#[test]
fn a_witness_replays_and_is_at_most_the_value() {
    let l = foraging("0.4");
    let sem = concrete(&l, 2);
    let props = parse_properties(
        &Source::new("p", "Pmax=? [ F<=9 \"deposited2\" ]"),
        &l.model,
    )
    .unwrap();
    let p = &props.props[0];
    let mdp = property::build(&sem, false, 1_000_000, None).unwrap();
    let truth = property::evaluate_formulas(
        &sem,
        &mdp,
        &l.model,
        &props.refs,
        &property::path_formulas(&p.path),
    )
    .truth;
    let v = compute_on(&mdp, p, &truth, false, true).unwrap();
    let path = v.witness.clone().expect("reachable");
    let all = vec![true; mdp.num_states()];
    let prob = property::replay(&sem, &mdp, &path, &truth[0], &all, 9).expect("replays");
    assert!(path.len() >= 8 && path.len() <= 9);
    assert!(prob > 0.0 && prob <= v.f64s[0]);
    // A tampered witness does not replay.
    let mut bad = path.clone();
    bad[0].prob /= 2.0;
    assert!(property::replay(&sem, &mdp, &bad, &truth[0], &all, 9).is_err());
    let Path::Until { steps, .. } = p.path else {
        unreachable!()
    };
    assert_eq!(steps, Some(9));
}

#[test]
fn errors_are_located() {
    let bad_sum = FORAGING.replace("0.5:(state'=1) + 0.5:true", "0.5:(state'=1) + 0.4:true");
    let e = load(&bad_sum, None, &[]).unwrap_err();
    assert!(
        e.contains("test.swarm:15:") && e.contains("sum to 9/10"),
        "{e}"
    );
    // 0.1 + 0.2 + 0.7 is exactly 1 in rationals (not in f64).
    let exact_sum = FORAGING.replace(
        "0.5:(state'=1) + 0.5:true",
        "0.1:(state'=1) + 0.2:(state'=1) + 0.7:true",
    );
    assert!(load(&exact_sum, None, &[]).is_ok());
    let unknown = FORAGING.replace("(t'=1);", "(u'=1);");
    assert!(load(&unknown, None, &[])
        .unwrap_err()
        .contains("unknown variable `u`"));
    let unknown_action = FORAGING.replace("[move]    state=2", "[walk]    state=2");
    assert!(load(&unknown_action, None, &[])
        .unwrap_err()
        .contains("unknown action `walk`"));
    let two_types = FORAGING.replace("globalSynchronous = {};", "globalSynchronous = {move};");
    assert!(load(&two_types, None, &[])
        .unwrap_err()
        .contains("two types"));
    let range = FORAGING.replace("(state'=3);", "(state'=5);");
    let e = load(&range, None, &[]).unwrap_err();
    assert!(
        e.contains("outside [0..4]") && e.contains("state=2, t=0"),
        "{e}"
    );
    let e = load(FORAGING, Some("agent robot\n(fly, true) -> 1:true;"), &[]).unwrap_err();
    assert!(
        e.contains("test.faults:2:2") && e.contains("unknown action `fly`"),
        "{e}"
    );
    // A bound past the limit said "must be a natural number, found 1000001".
    let l = foraging("0.1");
    let bound = |k: &str| {
        let text = format!("Pmax=? [ F<{k} \"deposited2\" ]");
        parse_properties(&Source::new("p.props", text.as_str()), &l.model).map(|_| ())
    };
    assert!(bound("1000000").is_ok());
    let e = bound("1000001").unwrap_err().to_string();
    assert!(
        e.contains("p.props:1:12") && e.contains("beyond the limit of 1000000 steps"),
        "{e}"
    );
    let e = bound("-1").unwrap_err().to_string();
    assert!(e.contains("must be a natural number, found -1"), "{e}");
    let e = load(FORAGING, Some(FAULTS), &[("pf", "1.5")]).unwrap_err();
    assert!(
        e.contains("negative probability") || e.contains("outside"),
        "{e}"
    );
}

#[test]
fn global_synchronous_actions_move_everyone() {
    let m = "asynchronous = {flip}; agentEnvironment = {}; globalSynchronous = {tick};
agent module a
  x : [0..2] init 0;
  [flip] x=0 -> 0.5:(x'=1) + 0.5:true;
  [tick] x<2 -> (x'=x+1);
endmodule
environment module e
  c : [0..3] init 0;
  [tick] c<3 -> (c'=c+1);
endmodule
label \"done\" = c_E = 2 & x_1_1 = 2;";
    let l = load(m, None, &[]).unwrap();
    // Two ticks from x=0 reach x=2: Pmax[F<=2 done] = 1 for agent 1 of 2.
    let (f, _) = value(&l, &concrete(&l, 2), "Pmax=? [ F<=2 \"done\" ]", false);
    assert_eq!(f, 1.0);
    // Pmin: flipping first leads, after one tick, to x=2 with c=1, where tick is blocked.
    let (_, e) = value(&l, &concrete(&l, 1), "Pmin=? [ F<=3 \"done\" ]", true);
    assert_eq!(e, Some(num::int(0)));
    let (_, e) = value(&l, &concrete(&l, 1), "Pmax=? [ F<=3 \"done\" ]", true);
    assert_eq!(e, Some(num::int(1)));
    // x=1 with c=0 needs the flip: 1/2.
    let (_, e) = value(
        &l,
        &concrete(&l, 1),
        "Pmax=? [ F<=1 x_1_1=1 & c_E=0 ]",
        true,
    );
    assert_eq!(e, Some(num::rat(1, 2)));
    let nondet = m.replace(
        "[tick] x<2 -> (x'=x+1);",
        "[tick] x<2 -> 0.5:(x'=x+1) + 0.5:true;",
    );
    let l = load(&nondet, None, &[]).unwrap();
    assert!(super::semantics::counting::check_deterministic(&l.model, &l.sys).is_err());
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    fn try_all(model: &str, faults: &str, prop: &str) {
        if let Ok(l) = load(model, Some(faults), &[]) {
            let _ = parse_properties(&Source::new("p", prop), &l.model);
        }
        let _ = load(model, None, &[]);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn random_text_never_panics(s in "\\PC{0,200}") {
            try_all(&s, &s, &s);
        }

        #[test]
        fn mutated_models_never_panic(pos in 0usize..2000, len in 0usize..20, ins in "[ -~]{0,12}") {
            let cut = |t: &str| {
                let p = pos.min(t.len());
                let q = (p + len).min(t.len());
                if t.is_char_boundary(p) && t.is_char_boundary(q) { format!("{}{}{}", &t[..p], ins, &t[q..]) } else { t.to_string() }
            };
            try_all(&cut(FORAGING), &cut(FAULTS), &cut("Pmax=? [ F<13 \"deposited2\" ]"));
        }
    }
}

#[test]
fn the_cutoff_sizes_agree_and_depth_bounded_exploration_is_exact() {
    // An h-step property moves at most h counted agents: S(h) = S(h+1) = S(h+2).
    let l = foraging("0.4");
    for (prop, h) in [
        ("Pmax=? [ F<=5 \"deposited1\" ]", 5u32),
        ("Pmin=? [ F<=6 \"deposited1\" ]", 6),
    ] {
        let at = |n: u32| {
            let q = Sem::Counting(Counting::new(&l.model, &l.sys, &[0], n + 1, vec![vec![n]]));
            value(&l, &q, prop, true).1.unwrap()
        };
        assert_eq!(at(h), at(h + 1), "{prop}");
        assert_eq!(at(h), at(h + 2), "{prop}");
        // Depth-bounded exploration gives the same values at the initial states.
        let q = Sem::Counting(Counting::new(
            &l.model,
            &l.sys,
            &[0],
            h + 1,
            vec![(1..=h).collect()],
        ));
        let props = parse_properties(&Source::new("p", prop), &l.model).unwrap();
        let p = &props.props[0];
        let full = property::build(&q, true, 1_000_000, None).unwrap();
        let cut = property::build_to_depth(&q, true, 1_000_000, None, h as usize).unwrap();
        assert!(cut.num_states() <= full.num_states());
        let vals = |m: &super::decide::mdp::Mdp| {
            let t = property::evaluate_formulas(
                &q,
                m,
                &l.model,
                &props.refs,
                &property::path_formulas(&p.path),
            )
            .truth;
            compute_on(m, p, &t, true, false).unwrap().exact.unwrap()
        };
        assert_eq!(vals(&full), vals(&cut));
    }
}

/// Exact value of `prop` by `mavis swarm check` on the example with `--faulty-fraction f`.
fn faulty_fraction_value(f: Rat, pf: &str, agents: usize, prop: &str) -> Rat {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/foraging");
    let inputs = super::Inputs {
        model: dir.join("foraging_small.swarm"),
        faults: Some(dir.join("foraging_small.faults")),
        prop_texts: vec![prop.to_string()],
        sets: vec![("pf".into(), crate::lang::parse_value_text(pf).unwrap())],
        faulty_fraction: Some(f),
        ..Default::default()
    };
    let opts = super::CheckOptions {
        agents: Some(vec![agents]),
        exact: true,
        ..Default::default()
    };
    let mut l = super::load(&inputs).expect("the model loads");
    let props = super::load_props(&inputs, &mut l).expect("the property parses");
    let ctx = crate::report::RunContext::default();
    let outcome = super::decide::check::check(&l, &props, &opts, &ctx).expect("the check runs");
    match &outcome.properties[0].answer {
        super::decide::outcome::Answer::AtSize { value, .. } => {
            value.exact.clone().expect("an exact value")
        }
        other => panic!("not a value at a size: {other:?}"),
    }
}

/// Definition 15: each robot is faulty-prone with probability f, and the
/// property is read from the swarm's start. One robot: the value mixes the
/// faulty and the fault-free value, f * 9/100 + (1 - f) * 15/100 (start 1/2,
/// find 3/10, keep the food 1 - pf = 3/5 only when faulty-prone).
#[test]
fn faulty_fraction_mixes_faulty_and_fault_free_agents() {
    let prop = "Pmax=? [ F<=4 \"deposited1\" ]";
    for (fn_, fd) in [(0, 1), (1, 4), (1, 2), (1, 1)] {
        let f = num::rat(fn_, fd);
        let expected = f.clone() * num::rat(9, 100) + (num::int(1) - f.clone()) * num::rat(15, 100);
        assert_eq!(
            faulty_fraction_value(f, "0.4", 1, prop),
            expected,
            "f = {fn_}/{fd}"
        );
    }
    // Two robots: f = 1 is the faulty swarm, f = 0 the swarm without faults (pf = 0).
    let prop2 = "Pmax=? [ F<=8 \"deposited2\" ]";
    let faulty = foraging("0.4");
    let all_faulty = value(&faulty, &concrete(&faulty, 2), prop2, true)
        .1
        .unwrap();
    assert_eq!(
        faulty_fraction_value(num::int(1), "0.4", 2, prop2),
        all_faulty.clone()
    );
    let clean = foraging("0");
    let fault_free = value(&clean, &concrete(&clean, 2), prop2, true).1.unwrap();
    assert_eq!(
        faulty_fraction_value(num::rat(0, 1), "0.4", 2, prop2),
        fault_free.clone()
    );
    // In between, the value is the binomial mixture over how many robots are faulty-prone,
    // and so lies strictly between the two extremes.
    let half = faulty_fraction_value(num::rat(1, 2), "0.4", 2, prop2);
    assert!(all_faulty.clone() < half && half < fault_free.clone());
}

const SEED_FORAGING: &str = include_str!("../../examples/foraging/foraging.swarm");
const SEED_FAULTS: &str = include_str!("../../examples/foraging/foraging.faults");

/// Definition 13's flags split the seed robot's 14 local states into 27;
/// projected away (nothing reads them) the 14 remain, and a label reading
/// them brings them back. Values agree either way.
#[test]
fn unread_fault_flags_are_projected_away() {
    let src = Source::new("f.swarm", SEED_FORAGING);
    let faults = Source::new("f.faults", SEED_FAULTS);
    let build = |model: &Source, keep: bool| {
        load_sources(model, Some(&faults), &[], None, keep).expect("the example loads")
    };
    let projected = build(&src, false);
    let kept = build(&src, true);
    assert_eq!(projected.sys.agents[0].states.len(), 14);
    assert!(!projected.model.track_flags);
    assert_eq!(kept.sys.agents[0].states.len(), 27);
    assert!(kept.model.track_flags);
    let prop = "Pmax=? [ F<20 \"deposited2\" ]";
    for n in [1, 2] {
        let (a, b) = (
            value(&projected, &concrete(&projected, n), prop, true),
            value(&kept, &concrete(&kept, n), prop, true),
        );
        assert_eq!(a.1, b.1, "n = {n}");
    }
    let reading = Source::new(
        "r.swarm",
        format!("{SEED_FORAGING}\nlabel \"hurt\" = faulty_1_1;\n"),
    );
    let l = build(&reading, false);
    assert!(l.model.track_flags);
    assert_eq!(l.sys.agents[0].states.len(), 27);
}
