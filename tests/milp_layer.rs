//! The MILP layer's builders, each checked by solving and against values
//! computed by hand; statuses; refusals; LP files.

use mavis::milp::{
    not, EncodeOptions, LinExpr, Linear, MilpError, Model, Obbt, Objective, SolveOptions, Status,
    Var,
};
use mavis::nn::{Activation, Layer, Network};
use ndarray::array;
use std::time::Duration;

fn opts() -> SolveOptions {
    SolveOptions::default()
}

fn maximise(m: &Model, e: impl Into<LinExpr>) -> (f64, mavis::milp::Solution) {
    let out = m.solve(&Objective::Maximise(e.into()), &opts()).unwrap();
    assert_eq!(out.status, Status::Optimal, "{:?}", out.reason);
    let s = out.solution.unwrap();
    m.check(&s, 1e-6).unwrap();
    (out.objective.unwrap(), s)
}

fn minimise(m: &Model, e: impl Into<LinExpr>) -> (f64, mavis::milp::Solution) {
    let out = m.solve(&Objective::Minimise(e.into()), &opts()).unwrap();
    assert_eq!(out.status, Status::Optimal, "{:?}", out.reason);
    (out.objective.unwrap(), out.solution.unwrap())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-7 * (1.0 + b.abs())
}

#[test]
fn max_min_clamp_by_hand() {
    // y = max(x, 1 - x, 0.2) on x in [0, 1]: min at x = 0.5 (0.5), max 1 at both ends.
    let mut m = Model::new();
    let x = m.continuous("x", 0.0, 1.0);
    let y = m
        .max_of(
            "y",
            &[x.into(), LinExpr::constant(1.0) - x, LinExpr::constant(0.2)],
        )
        .unwrap();
    assert_eq!(m.var_bounds(y), (0.2, 1.0));
    let (lo, s) = minimise(&m, y);
    assert!(close(lo, 0.5) && close(s.value(x), 0.5));
    assert!(close(maximise(&m, y).0, 1.0));
    // Fixing x = 0.9 forces y = 0.9: y is max, not just an upper bound.
    let mut fixed = m.clone();
    fixed.eq("fix", x, 0.9);
    assert!(close(minimise(&fixed, y).0, 0.9) && close(maximise(&fixed, y).0, 0.9));

    // z = min(x, 0.3); c = clamp(2x - 0.5, 0, 1)
    let z = m.min_of("z", &[x.into(), LinExpr::constant(0.3)]).unwrap();
    let c = m
        .clamp("c", &(LinExpr::from(x) * 2.0 - 0.5), 0.0, 1.0)
        .unwrap();
    for (xv, zv, cv) in [(0.1, 0.1, 0.0), (0.5, 0.3, 0.5), (0.9, 0.3, 1.0)] {
        let mut f = m.clone();
        f.eq("fix", x, xv);
        assert!(
            close(maximise(&f, z).0, zv) && close(minimise(&f, z).0, zv),
            "min at x = {xv}"
        );
        assert!(
            close(maximise(&f, c).0, cv) && close(minimise(&f, c).0, cv),
            "clamp at x = {xv}"
        );
    }
}

#[test]
fn relu_uses_a_binary_only_when_unstable() {
    let mut m = Model::new();
    let x = m.continuous("x", -1.0, 2.0);
    let before = m.stats().binaries;
    let r = m.relu("r", &x.into()).unwrap();
    assert_eq!(m.stats().binaries, before + 1);
    let p = m.continuous("p", 0.5, 2.0);
    let rp = m.relu("rp", &p.into()).unwrap();
    assert_eq!(
        m.stats().binaries,
        before + 1,
        "stable ReLU needs no binary"
    );
    let mut f = m.clone();
    f.eq("fix", x, -0.5);
    assert!(close(maximise(&f, r).0, 0.0));
    let mut f = m.clone();
    f.eq("fix", x, 1.5);
    assert!(close(minimise(&f, r).0, 1.5));
    assert!(
        close(minimise(&m, LinExpr::from(rp) - p).0, 0.0)
            && close(maximise(&m, LinExpr::from(rp) - p).0, 0.0)
    );
}

#[test]
fn argmax_allows_every_tied_maximum_and_nothing_else() {
    // Outputs (a, b, c) with a = b = 0.7 > c = 0.2: choices a and b possible, c impossible.
    let mut m = Model::new();
    let a = m.continuous("a", 0.0, 1.0);
    let b = m.continuous("b", 0.0, 1.0);
    let c = m.continuous("c", 0.0, 1.0);
    m.eq("fa", a, 0.7);
    m.eq("fb", b, 0.7);
    m.eq("fc", c, 0.2);
    let choice = m.argmax("pick", &[a.into(), b.into(), c.into()]).unwrap();
    let possible = |i: usize| {
        let mut f = m.clone();
        f.eq("force", choice[i].clone(), 1.0);
        f.solve(&Objective::Feasibility, &opts()).unwrap().status
    };
    assert_eq!(possible(0), Status::Optimal);
    assert_eq!(possible(1), Status::Optimal);
    assert_eq!(possible(2), Status::Infeasible);
    // argmin picks c only.
    let low = m.argmin("low", &[a.into(), b.into(), c.into()]).unwrap();
    let (v, s) = maximise(&m, low[0].clone() + low[1].clone());
    assert!(close(v, 0.0) && close(s.eval(&low[2]), 1.0));
}

#[test]
fn argmax_drops_items_the_bounds_rule_out() {
    // c <= 0.5 < 0.6 <= a: c is never maximal, so its choice is the constant 0;
    // with b gone too the choice is constant (no binary at all).
    let mut m = Model::new();
    let a = m.continuous("a", 0.6, 0.8);
    let b = m.continuous("b", 0.0, 0.7);
    let c = m.continuous("c", 0.0, 0.5);
    let before = m.stats().binaries;
    let choice = m.argmax("pick", &[a.into(), b.into(), c.into()]).unwrap();
    assert_eq!(choice[2], LinExpr::constant(0.0));
    assert_eq!(m.stats().binaries, before + 2);
    let only = m.argmax("only", &[a.into(), c.into()]).unwrap();
    assert_eq!(only, vec![LinExpr::constant(1.0), LinExpr::constant(0.0)]);
    assert_eq!(m.stats().binaries, before + 2);
}

#[test]
fn implication_by_big_m_from_bounds() {
    // on = 1 implies x <= 0.25; on = 0 leaves x free in [0, 1].
    let mut m = Model::new();
    let x = m.continuous("x", 0.0, 1.0);
    let on = m.binary("on");
    m.implies("cap", &on.into(), &Linear::le(x, 0.25)).unwrap();
    let mut f = m.clone();
    f.eq("set", on, 1.0);
    assert!(close(maximise(&f, x).0, 0.25));
    let mut f = m.clone();
    f.eq("set", on, 0.0);
    assert!(close(maximise(&f, x).0, 1.0));
    // Equality implication: on2 = 1 implies x = 0.6.
    let on2 = m.binary("on2");
    m.implies("pin", &on2.into(), &Linear::eq(x, 0.6)).unwrap();
    m.eq("set2", on2, 1.0);
    assert!(close(minimise(&m, x).0, 0.6) && close(maximise(&m, x).0, 0.6));
    // An unbounded variable is refused, by name.
    let free = m.continuous("speed", 0.0, f64::INFINITY);
    let err = m
        .implies("limit", &on.into(), &Linear::le(free, 3.0))
        .unwrap_err();
    assert!(
        matches!(&err, MilpError::Unbounded { var, side: "upper", .. } if var == "speed"),
        "{err}"
    );
    assert!(err.to_string().contains("the implication 'limit'"));
    let err = m.max_of("m", &[free.into(), x.into()]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("variable 'speed' has no finite upper bound"),
        "{err}"
    );
}

#[test]
fn disjunction_and_boolean_connectives() {
    // x in [0, 10] with (x <= 2) or (x >= 8): max of -(x - 5)^2-like distance: min of x subject to x >= 3 is 8.
    let mut m = Model::new();
    let x = m.continuous("x", 0.0, 10.0);
    let d = m
        .disjunction(
            "either",
            &[vec![Linear::le(x, 2.0)], vec![Linear::ge(x, 8.0)]],
        )
        .unwrap();
    assert_eq!(d.len(), 2);
    let mut f = m.clone();
    f.ge("mid", x, 3.0);
    assert!(close(minimise(&f, x).0, 8.0));
    f.le("mid2", x, 7.0);
    assert_eq!(
        f.solve(&Objective::Feasibility, &opts()).unwrap().status,
        Status::Infeasible
    );

    // Truth tables of or/and over two binaries.
    for (p, q) in [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)] {
        let mut m = Model::new();
        let a = m.binary("a");
        let b = m.binary("b");
        let or = m.or("or", vec![a.into(), b.into()]);
        let and = m.and("and", vec![a.into(), b.into()]);
        let not_a: LinExpr = not(a);
        m.eq("pa", a, p);
        m.eq("pb", b, q);
        let want_or = if p + q > 0.0 { 1.0 } else { 0.0 };
        let want_and = p * q;
        for (v, want) in [(or, want_or), (and, want_and)] {
            assert!(
                close(maximise(&m, v.clone()).0, want) && close(minimise(&m, v).0, want),
                "{p} {q}"
            );
        }
        assert!(close(maximise(&m, not_a.clone()).0, 1.0 - p));
    }
}

#[test]
fn network_copy_on_given_inputs_unrolled_twice() {
    // f(x) = relu(x - 0.5) - relu(-x); two copies chained: y1 = f(x), y2 = f(y1 + 0.75).
    let net = Network::from_layers(vec![
        Layer {
            weights: array![[1.0], [-1.0]],
            bias: array![-0.5, 0.0],
            activation: Activation::Relu,
        },
        Layer {
            weights: array![[1.0, -1.0]],
            bias: array![0.0],
            activation: Activation::Identity,
        },
    ])
    .unwrap();
    let f = |x: f64| (x - 0.5).max(0.0) - (-x).max(0.0);
    let mut m = Model::new();
    let x = m.continuous("x", -1.0, 1.0);
    let c1 = m
        .add_network("s0", &net, &[x.into()], None, &EncodeOptions::default())
        .unwrap();
    assert_eq!(c1.binaries.len(), 2);
    let next: LinExpr = LinExpr::from(c1.outputs[0]) + 0.75;
    let c2 = m
        .add_network("s1", &net, &[next], None, &EncodeOptions::default())
        .unwrap();
    // y1 in [-1, 0.5], so the input of copy 2 is in [-0.25, 1.25]: both neurons unstable again.
    assert!(
        close(c2.bounds.input.lo[0], -0.25) && close(c2.bounds.input.hi[0], 1.25),
        "{:?}",
        c2.bounds.input
    );
    assert_eq!(c2.binaries.len(), 2);
    let y2 = c2.outputs[0];
    let (hi, s) = maximise(&m, y2);
    let xv = s.value(x);
    assert!(close(f(f(xv) + 0.75), hi), "replay");
    // By hand: y2 is largest when y1 = 0.5 (x = 1): f(1.25) = 0.75.
    assert!(close(hi, 0.75));
    let (lo, s) = minimise(&m, y2);
    // Smallest: y1 + 0.75 as small as possible: y1 = -1 (x = -1): f(-0.25) = -0.25.
    assert!(close(lo, -0.25) && close(f(f(s.value(x)) + 0.75), lo));
    // A given input box is enforced, and the copy's sizes are checked.
    let box_ = mavis::nn::InputBox::new(vec![0.0], vec![0.25]).unwrap();
    let mut m2 = Model::new();
    let x2 = m2.continuous("x", -1.0, 1.0);
    let c = m2
        .add_network(
            "boxed",
            &net,
            &[x2.into()],
            Some(&box_),
            &EncodeOptions::default(),
        )
        .unwrap();
    assert!(
        c.binaries.is_empty(),
        "both neurons are stable on [0, 0.25]"
    );
    assert!(close(maximise(&m2, x2).0, 0.25));
    let err = m2
        .add_network(
            "bad",
            &net,
            &[x2.into(), x2.into()],
            None,
            &EncodeOptions::default(),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "network 'bad' takes 1 inputs but 2 were given"
    );
    let unbounded: Var = m2.continuous("h", 0.0, f64::INFINITY);
    let err = m2
        .add_network(
            "obs",
            &net,
            &[unbounded.into()],
            None,
            &EncodeOptions::default(),
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("variable 'h' has no finite upper bound, but input 0 of network copy 'obs'"),
        "{err}"
    );
}

#[test]
fn statuses_infeasible_unknown_and_integers() {
    let mut m = Model::new();
    let k = m.integer("k", 0.0, 10.0);
    m.ge("odd", LinExpr::from(k) * 2.0, 7.0);
    let (v, s) = minimise(&m, k);
    assert!(close(v, 4.0) && close(s.value(k), 4.0));
    m.le("none", k, 3.0);
    let out = m.solve(&Objective::Feasibility, &opts()).unwrap();
    assert_eq!(out.status, Status::Infeasible);
    assert!(out.solution.is_none());
    // An unbounded objective is unknown, not an answer.
    let mut u = Model::new();
    let free = u.continuous("free", 0.0, f64::INFINITY);
    let out = u.solve(&Objective::Maximise(free.into()), &opts()).unwrap();
    assert_eq!(out.status, Status::Unknown);
    // The options reach HiGHS: a time limit and a gap are accepted.
    let timed = SolveOptions {
        deadline: mavis::report::Deadline::after(Duration::from_secs(5)),
        mip_gap: Some(0.0),
        mip_abs_gap: Some(1e-7),
        threads: 1,
        verbose: false,
        feasibility_tolerance: Some(1e-9),
        presolve: false,
        meter: mavis::report::meter::Meter::none(),
    };
    let mut m = Model::new();
    let k = m.integer("k", 0.0, 10.0);
    let out = m.solve(&Objective::Maximise(k.into()), &timed).unwrap();
    assert_eq!((out.status, out.objective), (Status::Optimal, Some(10.0)));
    // Past the deadline no solve starts: the answer is unknown, for the time limit.
    let expired = SolveOptions {
        deadline: mavis::report::Deadline::starting_at(
            std::time::Instant::now() - Duration::from_secs(2),
            Some(Duration::from_secs(1)),
        ),
        ..SolveOptions::default()
    };
    let out = m.solve(&Objective::Maximise(k.into()), &expired).unwrap();
    assert_eq!(out.status, Status::Unknown);
    assert_eq!(out.reason.as_deref(), Some(mavis::milp::TIME_LIMIT));
    // Constant-only models are checked too.
    let mut c = Model::new();
    c.le("never", LinExpr::constant(1.0), 0.0);
    assert_eq!(
        c.solve(&Objective::Feasibility, &opts()).unwrap().status,
        Status::Infeasible
    );
}

#[test]
fn lp_file_round_trip_is_readable() {
    let mut m = Model::new();
    let x = m.continuous("x", 0.0, 1.0);
    let y = m
        .max_of("y", &[x.into(), LinExpr::constant(1.0) - x])
        .unwrap();
    let lp = m.to_lp(&Objective::Minimise(y.into()));
    assert!(
        lp.starts_with("\\ written by mavis\nMinimize\n obj: + 1.0 x1_y\nSubject To\n"),
        "{lp}"
    );
    assert!(lp.contains("Binary\n x2_y.d\n"), "{lp}");
    assert!(lp.contains(" 0.0 <= x0_x <= 1.0\n"), "{lp}");
    assert!(lp.ends_with("End\n"));
}

/// relu(x + y - 0.5), relu(x - y), relu(x + y + 0.5), summed, on x, y in
/// [-1, 1] with the row y = -x: the box leaves all three unstable; in the
/// model's context the first is -0.5 (inactive), the third 0.5 (active),
/// the second 2x in [-2, 2] (unstable). Output: relu(2x) + 0.5.
#[test]
fn obbt_in_the_models_context_removes_the_binaries_the_rows_decide() {
    let net = Network::from_layers(vec![
        Layer {
            weights: array![[1.0, 1.0], [1.0, -1.0], [1.0, 1.0]],
            bias: array![-0.5, 0.0, 0.5],
            activation: Activation::Relu,
        },
        Layer {
            weights: array![[1.0, 1.0, 1.0]],
            bias: array![0.0],
            activation: Activation::Identity,
        },
    ])
    .unwrap();
    let build = |budget: Duration| {
        let mut m = Model::new();
        let x = m.continuous("x", -1.0, 1.0);
        let y = m.continuous("y", -1.0, 1.0);
        m.eq("y=-x", LinExpr::from(y) + LinExpr::from(x), 0.0);
        // OBBT's `-v` meter (issue 34): its LPs, and the copies tightened.
        let meter = mavis::report::meter::MeterGuard::start(
            mavis::report::meter::Counting {
                label: "OBBT".into(),
                unit: "LPs",
                level: Some("network copies"),
                total: None,
            },
            Some(mavis::report::meter::Show::Bar),
        );
        let opts = EncodeOptions {
            obbt_budget: budget,
            obbt_meter: meter.meter(),
            ..EncodeOptions::default()
        };
        let mut obbt = Obbt::new(&opts);
        let inputs = [LinExpr::from(x), LinExpr::from(y)];
        let copy = m
            .add_network_obbt("n", &net, &inputs, &opts, &mut obbt)
            .unwrap();
        let counted = meter.meter().read().expect("a live meter");
        (m, copy, obbt.stats, counted)
    };
    let (plain, plain_copy, none, counted) = build(Duration::ZERO);
    assert_eq!(plain_copy.binaries.len(), 3);
    assert_eq!((none.lps, none.binaries_removed), (0, 0));
    assert_eq!(counted, (0, 0));
    let (m, copy, stats, counted) = build(Duration::from_secs(30));
    assert_eq!(copy.binaries.iter().map(|b| b.1).collect::<Vec<_>>(), [1]);
    // n1 (widest) max and min, n0 max only (then inactive), n2 max and min.
    assert_eq!((stats.lps, stats.binaries_removed), (5, 2));
    assert_eq!(counted, (5, 1), "5 LPs in 1 copy");
    let pre = &copy.bounds.pre[0];
    assert!(close(pre.hi[0], -0.5) && close(pre.lo[2], 0.5), "{pre:?}");
    assert_eq!((pre.lo[1], pre.hi[1]), (-2.0, 2.0));
    // Both encodings have the hand-computed range of the output (within
    // HiGHS's primal feasibility tolerance, 1e-7 per row).
    for (model, out) in [(&plain, plain_copy.outputs[0]), (&m, copy.outputs[0])] {
        let (high, low) = (maximise(model, out).0, minimise(model, out).0);
        assert!(
            (high - 2.5).abs() < 1e-6 && (low - 0.5).abs() < 1e-6,
            "{low} {high}"
        );
    }
}
