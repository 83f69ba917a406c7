use super::*;
use crate::milp::{tolerance, LinExpr, Model, Objective, SolveOptions, Status};
use crate::nn::vnnlib::Case;
use crate::nn::vnnlib::{parse, Atom};
use crate::nn::{Layer, Network};
use ndarray::{array, Array1, Array2};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// y0 = relu(x0 - x1), y1 = x0 + x1.
fn diff_net() -> Network {
    Network::from_layers(vec![
        Layer {
            weights: array![[1.0, -1.0], [1.0, 1.0]],
            bias: array![0.0, 0.0],
            activation: Activation::Relu,
        },
        Layer {
            weights: array![[1.0, 0.0], [0.0, 1.0]],
            bias: array![0.0, 0.0],
            activation: Activation::Identity,
        },
    ])
    .unwrap()
}

fn prop_text(output: &str) -> String {
    format!(
        "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)(declare-const Y_1 Real)
         (assert (>= X_0 0))(assert (<= X_0 1))(assert (>= X_1 0))(assert (<= X_1 1)){output}"
    )
}

fn decide(net: &Network, text: &str, opts: &VerifyOptions) -> Verification {
    verify(net, &parse("t.vnnlib", text).unwrap(), opts).unwrap()
}

use crate::nn::Activation;

#[test]
fn hand_computed_answers() {
    let net = diff_net();
    let opts = VerifyOptions::default();
    // max of relu(x0 - x1) over the unit square is 1 (at (1, 0)).
    assert!(matches!(
        decide(&net, &prop_text("(assert (>= Y_0 1.5))"), &opts).answer,
        Answer::Holds
    ));
    let v = decide(&net, &prop_text("(assert (>= Y_0 0.99))"), &opts);
    let Answer::Violated(c) = v.answer else {
        panic!("{:?}", v.answer)
    };
    assert!(c.input[0] - c.input[1] >= 0.99);
    // y0 >= 0.5 and y1 <= 0.5: x0 - x1 >= 0.5 forces x0 >= 0.5, so x0 + x1 >= 0.5,
    // equality only at (0.5, 0): a single point, which sampling misses and the MILP finds.
    let opts_no_sampling = VerifyOptions {
        falsify: FalsifyOptions {
            samples: 1,
            starts: 0,
            steps: 0,
            seed: 0,
        },
        box_falsify: FalsifyOptions {
            samples: 1,
            starts: 0,
            steps: 0,
            seed: 0,
        },
        ..VerifyOptions::default()
    };
    let v = decide(
        &net,
        &prop_text("(assert (>= Y_0 0.5))(assert (<= Y_1 0.5))"),
        &opts_no_sampling,
    );
    let Answer::Violated(c) = v.answer else {
        panic!("{:?}", v.answer)
    };
    assert_eq!(c.source, Source::Milp);
    assert!(
        (c.input[0] - 0.5).abs() < 1e-5 && c.input[1].abs() < 1e-5,
        "{:?}",
        c.input
    );
    // ... and nothing is unsafe once y1 must stay below 0.4.
    let v = decide(
        &net,
        &prop_text("(assert (>= Y_0 0.5))(assert (<= Y_1 0.4))"),
        &opts_no_sampling,
    );
    assert!(matches!(v.answer, Answer::Holds), "{:?}", v.answer);
    assert!(v.stats.milp.solves >= 1 || v.stats.boxes >= 1);
}

#[test]
fn splitting_alone_decides_when_no_milp_is_allowed() {
    let net = diff_net();
    let opts = VerifyOptions {
        milp_unstable: 0,
        lp_tighten: false,
        ..VerifyOptions::default()
    };
    // relu(x0 - x1) <= 1 everywhere, and the bounds prove y0 >= 1.01 impossible after splits.
    let v = decide(&net, &prop_text("(assert (>= Y_0 1.01))"), &opts);
    assert!(matches!(v.answer, Answer::Holds), "{:?}", v.answer);
}

fn random_net(seed: u64, inputs: usize, hidden: &[usize], outputs: usize) -> Network {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut sizes = vec![inputs];
    sizes.extend_from_slice(hidden);
    sizes.push(outputs);
    let layers = sizes
        .windows(2)
        .enumerate()
        .map(|(k, w)| Layer {
            weights: Array2::from_shape_fn((w[1], w[0]), |_| rng.gen_range(-1.0..1.0)),
            bias: Array1::from_shape_fn(w[1], |_| rng.gen_range(-0.5..0.5)),
            activation: if k + 2 == sizes.len() {
                Activation::Identity
            } else {
                Activation::Relu
            },
        })
        .collect();
    Network::from_layers(layers).unwrap()
}

/// A Lipschitz constant of every output in the infinity norm: the product of
/// the layers' largest absolute row sums.
fn lipschitz(net: &Network) -> f64 {
    net.layers()
        .iter()
        .map(|l| {
            l.weights
                .rows()
                .into_iter()
                .map(|r| r.iter().map(|v| v.abs()).sum::<f64>())
                .fold(0.0, f64::max)
        })
        .product()
}

/// Over a grid of spacing h: the least excess, and a Lipschitz constant of the excess.
fn grid_excess(net: &Network, case: &Case, per_dim: usize) -> (f64, f64, f64) {
    let n = case.input.len();
    let mut best = f64::INFINITY;
    let mut idx = vec![0usize; n];
    loop {
        let x: Vec<f64> = (0..n)
            .map(|i| {
                case.input.lo[i]
                    + (case.input.hi[i] - case.input.lo[i]) * idx[i] as f64 / (per_dim - 1) as f64
            })
            .collect();
        best = best.min(case.excess(&x, &net.eval(&x)));
        let mut i = 0;
        while i < n && idx[i] + 1 == per_dim {
            idx[i] = 0;
            i += 1;
        }
        if i == n {
            break;
        }
        idx[i] += 1;
    }
    let l = lipschitz(net);
    let k = case
        .disjuncts
        .iter()
        .flatten()
        .map(|a: &Atom| {
            a.inputs.iter().map(|v| v.abs()).sum::<f64>()
                + a.outputs.iter().map(|v| v.abs()).sum::<f64>() * l
        })
        .fold(0.0, f64::max);
    let h = (0..n)
        .map(|i| case.input.hi[i] - case.input.lo[i])
        .fold(0.0, f64::max)
        / (per_dim - 1) as f64;
    (best, k, h)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random 1-2 input networks and output DNFs: a violation must be found
    /// where a grid point is unsafe; "holds" is required where the grid's
    /// least excess exceeds what the Lipschitz constant lets the network
    /// reach between grid points; no answer may be unknown; every
    /// counterexample is checked again here.
    #[test]
    fn verdicts_agree_with_a_grid(seed in any::<u64>(), inputs in 1usize..3, width in 3usize..7, shift in -1.0..1.5f64, two in any::<bool>()) {
        let net = random_net(seed, inputs, &[width, width], 2);
        let decl: String = (0..inputs).map(|i| format!("(declare-const X_{i} Real)(assert (>= X_{i} -1))(assert (<= X_{i} 1))")).collect();
        let second = if two { format!("(and (<= Y_0 (- Y_1 {shift})) (>= X_0 0.25))") } else { String::new() };
        let text = format!("{decl}(declare-const Y_0 Real)(declare-const Y_1 Real)(assert (or (and (>= Y_0 (+ Y_1 {shift}))) {second}))");
        let prop = parse("r.vnnlib", &text).unwrap();
        let opts = VerifyOptions { falsify: FalsifyOptions { samples: 50, ..FalsifyOptions::default() }, ..VerifyOptions::default() };
        let v = verify(&net, &prop, &opts).unwrap();
        let per_dim = if inputs == 1 { 4001 } else { 201 };
        let grids: Vec<_> = prop.cases.iter().map(|c| grid_excess(&net, c, per_dim)).collect();
        // Violated must be found where a grid point is unsafe; holds must be
        // answered where every case's grid minimum beats its Lipschitz slack.
        let best = grids.iter().map(|g| g.0).fold(f64::INFINITY, f64::min);
        let must_hold = grids.iter().all(|(b, k, h)| *b > k * h / 2.0 + 1e-6);
        match &v.answer {
            Answer::Violated(c) => {
                let y = net.eval(&c.input);
                prop_assert_eq!(&y, &c.output);
                prop_assert!(prop.cases[c.case].satisfied_disjunct(&c.input, &y, tolerance::COUNTEREXAMPLE).is_some());
                prop_assert!(!must_hold, "violated, but the grid and Lipschitz bound say holds: {grids:?}");
            }
            Answer::Holds => prop_assert!(best > 0.0, "holds, but grid point with excess {best}"),
            Answer::Unknown(why) => prop_assert!(false, "unknown: {why}"),
        }
    }
}

/// The largest margin `t` by which some input of the case's box violates a
/// disjunct (every atom `<= rhs - t`), by enumerating the ReLU patterns of
/// a one-hidden-layer network: on each pattern's region the network is
/// affine, so each (pattern, disjunct) is one LP. `-inf` when none is
/// feasible. Independent of the bounds, splits and MILP of the search.
fn pattern_margin(net: &Network, case: &Case) -> f64 {
    let (l1, l2) = (&net.layers()[0], &net.layers()[1]);
    let (h, n) = (l1.weights.nrows(), l1.weights.ncols());
    let mut best = f64::NEG_INFINITY;
    for pattern in 0..1u32 << h {
        for d in &case.disjuncts {
            let mut m = Model::new();
            let xs: Vec<_> = (0..n)
                .map(|i| m.continuous(&format!("x{i}"), case.input.lo[i], case.input.hi[i]))
                .collect();
            let t = m.continuous("t", -100.0, 100.0);
            let z = |j: usize| {
                let mut e = LinExpr::constant(l1.bias[j]);
                for (i, &x) in xs.iter().enumerate() {
                    e.add_term(x, l1.weights[[j, i]]);
                }
                e
            };
            for j in 0..h {
                if pattern >> j & 1 == 1 {
                    m.ge(&format!("on{j}"), z(j), 0.0);
                } else {
                    m.le(&format!("off{j}"), z(j), 0.0);
                }
            }
            for (r, a) in d.iter().enumerate() {
                // lhs = a.inputs . x + sum_o a.outputs[o] (b2_o + sum_j W2_oj relu(z_j)) + t <= rhs
                let mut lhs = LinExpr::term(t, 1.0);
                for (i, &x) in xs.iter().enumerate() {
                    lhs.add_term(x, a.inputs[i]);
                }
                let mut constant = 0.0;
                for (o, &c) in a.outputs.iter().enumerate() {
                    constant += c * l2.bias[o];
                    for j in (0..h).filter(|j| pattern >> j & 1 == 1) {
                        lhs += z(j) * (c * l2.weights[[o, j]]);
                    }
                }
                m.le(&format!("atom{r}"), lhs, a.rhs - constant);
            }
            let out = m
                .solve(&Objective::Maximise(t.into()), &SolveOptions::default())
                .unwrap();
            if out.status == Status::Optimal {
                best = best.max(out.objective.unwrap());
            }
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random 2-input networks with one hidden layer of up to 6 ReLUs: the
    /// search (with ReLU splitting forced early, 1 and 2 threads) agrees
    /// with the pattern enumeration wherever its margin is clear of the
    /// tolerances, and the two thread counts give the same answer.
    #[test]
    fn verdicts_agree_with_pattern_enumeration(seed in any::<u64>(), width in 2usize..7, shift in -1.0..1.5f64, two in any::<bool>()) {
        let net = random_net(seed, 2, &[width], 2);
        let second = if two { format!("(and (<= Y_0 (- Y_1 {shift})) (>= X_0 0.25))") } else { String::new() };
        let text = format!("(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)(declare-const Y_1 Real)
            (assert (>= X_0 -1))(assert (<= X_0 1))(assert (>= X_1 -1))(assert (<= X_1 1))
            (assert (or (and (>= Y_0 (+ Y_1 {shift}))) {second}))");
        let prop = parse("r.vnnlib", &text).unwrap();
        let margin = prop.cases.iter().map(|c| pattern_margin(&net, c)).fold(f64::NEG_INFINITY, f64::max);
        let mut answers = Vec::new();
        for threads in [1, 2] {
            let opts = VerifyOptions {
                falsify: FalsifyOptions { samples: 10, ..FalsifyOptions::default() },
                milp_unstable: 0,
                branch_after: 1,
                threads,
                ..VerifyOptions::default()
            };
            let v = verify(&net, &prop, &opts).unwrap();
            match &v.answer {
                Answer::Violated(c) => {
                    prop_assert!(margin > -1e-6, "violated at {:?}, but the patterns' margin is {margin}", c.input);
                    prop_assert!(prop.cases[c.case].satisfied_disjunct(&c.input, &net.eval(&c.input), tolerance::COUNTEREXAMPLE).is_some());
                }
                Answer::Holds => prop_assert!(margin < 1e-6, "holds, but the patterns' margin is {margin}"),
                Answer::Unknown(why) => prop_assert!(false, "unknown: {why}"),
            }
            answers.push(matches!(v.answer, Answer::Holds));
        }
        prop_assert_eq!(answers[0], answers[1]);
    }
}

#[test]
fn relu_branches_cover_their_parent_and_bounds_contain_samples() {
    // Relational (symbolic) bounds with fixed phases contain every sampled
    // point whose ReLUs are in those phases; the two children of a branch
    // hold every point of the parent between them.
    let net = random_net(7, 2, &[6, 6], 2);
    let b = crate::nn::InputBox::new(vec![-1.0, -1.0], vec![1.0, 1.0]).unwrap();
    let root = phases::bounds(&net, &b, None, &[]).unwrap();
    let (layer, neuron) = phases::pick_neuron(&root).expect("an unstable ReLU");
    let child = |active| {
        phases::bounds(
            &net,
            &b,
            Some(&root),
            &[phases::Phase {
                layer,
                neuron,
                active,
            }],
        )
    };
    let (on, off) = (child(true), child(false));
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..2000 {
        let x = vec![rng.gen_range(-1.0..=1.0), rng.gen_range(-1.0..=1.0)];
        let pre = pre_activations(&net, &x);
        let within = |nb: &crate::nn::NetworkBounds| {
            pre.iter().zip(&nb.pre).all(|(z, lb)| {
                z.iter()
                    .zip(lb.lo.iter().zip(&lb.hi))
                    .all(|(v, (l, h))| *l - 1e-9 <= *v && *v <= *h + 1e-9)
            })
        };
        assert!(within(&root));
        let holder = if pre[layer][neuron] >= 0.0 { &on } else { &off };
        let holder = holder
            .as_ref()
            .expect("a part with a sampled point is not empty");
        assert!(within(holder), "x = {x:?}");
    }
}

/// Every layer's pre-activations at `x`, computed here layer by layer.
fn pre_activations(net: &Network, x: &[f64]) -> Vec<Vec<f64>> {
    let mut a = Array1::from(x.to_vec());
    let mut out = Vec::new();
    for l in net.layers() {
        let z = l.weights.dot(&a) + &l.bias;
        a = match l.activation {
            Activation::Relu => z.mapv(|v| v.max(0.0)),
            Activation::Identity => z.clone(),
        };
        out.push(z.to_vec());
    }
    out
}
