//! Bounds over a box, checked against independent oracles: samples (every
//! bound must contain them), and on 1-D and 2-D inputs the exact range from
//! enumerating the network's linear regions (the maximum of a piecewise-linear
//! function over a box is attained at a vertex of one of its regions).

use mavis::milp::tolerance::EXACT_AGREEMENT;
use mavis::milp::{
    exact_output_bounds, lp_tighten, BoundsMethod, EncodeOptions, LinExpr, Model, Objective,
    SolveOptions, Status,
};
use mavis::nn::{
    interval_bounds, load, symbolic_bounds, symbolic_bounds_within, Activation, InputBox, Layer,
    Network, NetworkBounds,
};
use ndarray::{Array1, Array2};

#[path = "support/cli.rs"]
mod cli;
use proptest::prelude::*;
use rand::{rngs::StdRng, Rng, SeedableRng};
use std::path::Path;

fn random_net(seed: u64, sizes: &[usize]) -> Network {
    let mut rng = StdRng::seed_from_u64(seed);
    let layers = sizes
        .windows(2)
        .enumerate()
        .map(|(k, w)| Layer {
            weights: Array2::from_shape_fn((w[1], w[0]), |_| rng.gen_range(-1.5..1.5)),
            bias: Array1::from_shape_fn(w[1], |_| rng.gen_range(-1.0..1.0)),
            activation: if k + 2 == sizes.len() {
                Activation::Identity
            } else {
                Activation::Relu
            },
        })
        .collect();
    Network::from_layers(layers).unwrap()
}

/// Pre-activations of every layer at one input.
fn pre_activations(net: &Network, x: &[f64]) -> Vec<Vec<f64>> {
    let mut a = Array1::from(x.to_vec());
    let mut out = Vec::new();
    for l in net.layers() {
        let z = l.weights.dot(&a) + &l.bias;
        out.push(z.to_vec());
        a = if l.activation == Activation::Relu {
            z.mapv(|v| v.max(0.0))
        } else {
            z
        };
    }
    out
}

fn samples(input: &InputBox, n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let d = input.len();
    let mut pts: Vec<Vec<f64>> = (0..1usize << d)
        .map(|corner| {
            (0..d)
                .map(|i| {
                    if corner >> i & 1 == 1 {
                        input.hi[i]
                    } else {
                        input.lo[i]
                    }
                })
                .collect()
        })
        .collect();
    pts.extend((0..n).map(|_| {
        (0..d)
            .map(|i| rng.gen_range(input.lo[i]..=input.hi[i]))
            .collect()
    }));
    pts
}

fn contains_samples(b: &NetworkBounds, net: &Network, pts: &[Vec<f64>]) -> Result<(), String> {
    for x in pts {
        for (k, z) in pre_activations(net, x).iter().enumerate() {
            for (j, v) in z.iter().enumerate() {
                let tol = 1e-9 * (1.0 + v.abs());
                if *v < b.pre[k].lo[j] - tol || *v > b.pre[k].hi[j] + tol {
                    return Err(format!(
                        "layer {k} neuron {j} at {x:?}: {v} outside [{}, {}]",
                        b.pre[k].lo[j], b.pre[k].hi[j]
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A convex region of the input space (its vertices) and the affine map
/// `x -> A x + c` giving the current layer's values on it.
struct Region {
    verts: Vec<Vec<f64>>,
    a: Array2<f64>,
    c: Array1<f64>,
}

/// Clips a convex polygon (or, in 1-D, a segment) to `g(x) >= 0` (`keep_positive`) or `<= 0`.
fn clip(verts: &[Vec<f64>], g: &dyn Fn(&[f64]) -> f64, keep_positive: bool) -> Vec<Vec<f64>> {
    let sign = if keep_positive { 1.0 } else { -1.0 };
    let mut out = Vec::new();
    for i in 0..verts.len() {
        let (p, q) = (&verts[i], &verts[(i + 1) % verts.len()]);
        let (gp, gq) = (sign * g(p), sign * g(q));
        if gp >= 0.0 {
            out.push(p.clone());
        }
        if (gp > 0.0 && gq < 0.0) || (gp < 0.0 && gq > 0.0) {
            let t = gp / (gp - gq);
            out.push(p.iter().zip(q).map(|(a, b)| a + t * (b - a)).collect());
        }
    }
    out
}

/// The exact (min, max) of every output over a 1-D or 2-D box, by region enumeration.
fn exact_by_regions(net: &Network, input: &InputBox) -> Vec<(f64, f64)> {
    let d = input.len();
    let corners: Vec<Vec<f64>> = match d {
        1 => vec![vec![input.lo[0]], vec![input.hi[0]]],
        2 => vec![
            vec![input.lo[0], input.lo[1]],
            vec![input.hi[0], input.lo[1]],
            vec![input.hi[0], input.hi[1]],
            vec![input.lo[0], input.hi[1]],
        ],
        _ => panic!("1-D or 2-D only"),
    };
    let mut regions = vec![Region {
        verts: corners,
        a: Array2::eye(d),
        c: Array1::zeros(d),
    }];
    for layer in net.layers() {
        let mut next = Vec::new();
        for r in regions {
            let za = layer.weights.dot(&r.a);
            let zc = layer.weights.dot(&r.c) + &layer.bias;
            let mut parts = vec![Region {
                verts: r.verts,
                a: za.clone(),
                c: zc.clone(),
            }];
            if layer.activation == Activation::Relu {
                for j in 0..layer.outputs() {
                    let g = |x: &[f64]| {
                        za.row(j).iter().zip(x).map(|(w, v)| w * v).sum::<f64>() + zc[j]
                    };
                    let mut split = Vec::new();
                    for p in parts {
                        let pos = clip(&p.verts, &g, true);
                        let neg = clip(&p.verts, &g, false);
                        if !pos.is_empty() {
                            split.push(Region {
                                verts: pos,
                                a: p.a.clone(),
                                c: p.c.clone(),
                            });
                        }
                        if !neg.is_empty() {
                            let (mut a, mut c) = (p.a, p.c);
                            a.row_mut(j).fill(0.0);
                            c[j] = 0.0;
                            split.push(Region { verts: neg, a, c });
                        }
                    }
                    parts = split;
                }
            }
            next.extend(parts);
        }
        regions = next;
    }
    let mut range = vec![(f64::INFINITY, f64::NEG_INFINITY); net.output_size()];
    for r in &regions {
        for v in &r.verts {
            for (j, y) in net.eval(v).iter().enumerate() {
                range[j].0 = range[j].0.min(*y);
                range[j].1 = range[j].1.max(*y);
            }
        }
    }
    range
}

fn exact(net: &Network, input: &InputBox, method: BoundsMethod) -> mavis::milp::ExactBounds {
    exact_with(net, input, method, &SolveOptions::default())
}

fn exact_with(
    net: &Network,
    input: &InputBox,
    method: BoundsMethod,
    solve: &SolveOptions,
) -> mavis::milp::ExactBounds {
    let encode = EncodeOptions {
        bounds: method,
        lp: SolveOptions::default(),
        ..EncodeOptions::default()
    };
    exact_output_bounds(net, input, &encode, solve).unwrap()
}

/// The MILP's sound pairs against the region oracle: each side is exact, its
/// attained value is the true extremum within the tolerance, and its outer
/// bound is sound (never inside the true range) and tight.
fn assert_exact_equals_oracle(net: &Network, input: &InputBox, method: BoundsMethod) {
    assert_pairs_equal_oracle(net, input, method, &SolveOptions::default());
}

fn assert_pairs_equal_oracle(
    net: &Network,
    input: &InputBox,
    method: BoundsMethod,
    solve: &SolveOptions,
) {
    let ex = exact_with(net, input, method, solve);
    let oracle = exact_by_regions(net, input);
    let tol = |v: f64| EXACT_AGREEMENT * (1.0 + v.abs());
    for (j, (o, (lo, hi))) in ex.outputs.iter().zip(&oracle).enumerate() {
        assert_eq!(
            (o.min.status, o.max.status),
            (Status::Optimal, Status::Optimal)
        );
        assert!(o.is_exact(), "output {j} not exact: {o:?}");
        let (inner_hi, inner_lo) = (o.max.inner().unwrap(), o.min.inner().unwrap());
        // Attained values are network values, so they lie in the true range.
        assert!(
            inner_hi <= hi + 1e-12 && hi - inner_hi <= tol(*hi),
            "output {j}: attained max {inner_hi} vs regions {hi}"
        );
        assert!(
            inner_lo >= lo - 1e-12 && inner_lo - lo <= tol(*lo),
            "output {j}: attained min {inner_lo} vs regions {lo}"
        );
        assert!(
            o.max.outer >= *hi && o.max.outer - hi <= tol(*hi),
            "output {j}: proven max {} vs regions {hi}",
            o.max.outer
        );
        assert!(
            o.min.outer <= *lo && lo - o.min.outer <= tol(*lo),
            "output {j}: proven min {} vs regions {lo}",
            o.min.outer
        );
        assert_eq!((o.min.value(), o.max.value()), (inner_lo, inner_hi));
    }
    // Dense sampling never beats the oracle (the oracle itself is checked).
    for x in samples(input, 2000, 7) {
        for (j, y) in net.eval(&x).iter().enumerate() {
            assert!(
                *y <= oracle[j].1 + 1e-9 && *y >= oracle[j].0 - 1e-9,
                "sample above the region maximum"
            );
        }
    }
}

fn fixture(name: &str) -> Network {
    load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

#[test]
fn policy_exact_range_over_the_unit_interval() {
    let net = fixture("policy_1_4_4_2.onnx");
    let input = InputBox::parse("[0,1]", 1).unwrap();
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Interval);
}

#[test]
fn mlp_2_16_16_3_exact_range_over_a_square() {
    let net = fixture("mlp_2_16_16_3.onnx");
    let input = InputBox::parse("[-1,1]x[0,2]", 2).unwrap();
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
    assert_exact_equals_oracle(&net, &input, BoundsMethod::SymbolicLp);
}

#[test]
fn normalised_fixture_exact_range() {
    let net = fixture("normalised_2_6_2.onnx");
    assert_exact_equals_oracle(
        &net,
        &InputBox::parse("[0,1]x[-2,0]", 2).unwrap(),
        BoundsMethod::Symbolic,
    );
}

fn small_net() -> impl Strategy<Value = (Network, InputBox)> {
    (
        any::<u64>(),
        1usize..=3,
        prop::collection::vec(2usize..=6, 1..=2),
        1usize..=3,
        -1.0f64..1.0,
        0.1f64..2.0,
    )
        .prop_map(|(seed, d, hidden, outs, lo, width)| {
            let mut sizes = vec![d];
            sizes.extend(hidden);
            sizes.push(outs);
            let net = random_net(seed, &sizes);
            (
                net,
                InputBox::new(vec![lo; d], vec![lo + width; d]).unwrap(),
            )
        })
}

/// Found by `milp_optimum_is_attained_and_dominates_samples`: HiGHS's
/// presolve ended the minimisation of output 1 in an error status; the
/// solve without presolve must give the exact minimum.
#[test]
fn highs_presolve_error_is_retried() {
    let l1 = Layer {
        weights: Array2::from_shape_vec(
            (4, 2),
            vec![
                -0.3315764282896638,
                0.8763598048027501,
                1.3557579533359796,
                -0.4120723105351256,
                1.0780059065913123,
                0.02397904173946297,
                0.2199199103399878,
                1.1877054250036698,
            ],
        )
        .unwrap(),
        bias: Array1::from(vec![
            -0.852070829366657,
            -0.9894516721928501,
            -0.363794484177002,
            0.06164280052848792,
        ]),
        activation: Activation::Relu,
    };
    let l2 = Layer {
        weights: Array2::from_shape_vec(
            (3, 4),
            vec![
                -0.34072132218689455,
                0.35917630748431373,
                -0.37416075622040745,
                -0.8156127527310093,
                1.413316758504556,
                -0.1445839626641281,
                1.0144554727220414,
                1.0261284117761473,
                -0.37213250591493874,
                0.6116765270724418,
                0.296567431913495,
                -1.1172127507440028,
            ],
        )
        .unwrap(),
        bias: Array1::from(vec![
            0.39687428261621127,
            -0.33038300466663895,
            0.7534969657299531,
        ]),
        activation: Activation::Identity,
    };
    let net = Network::from_layers(vec![l1, l2]).unwrap();
    let input = InputBox {
        lo: vec![0.369603238012022; 2],
        hi: vec![0.9215377808205011; 2],
    };
    let ex = exact(&net, &input, BoundsMethod::Symbolic);
    assert!(ex
        .outputs
        .iter()
        .all(|o| o.min.status == Status::Optimal && o.max.status == Status::Optimal));
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// interval ⊇ symbolic ⊇ LP-tightened ⊇ every sample, neuron by neuron.
    #[test]
    fn bounds_nest_and_contain_samples((net, input) in small_net(), seed in any::<u64>()) {
        let pts = samples(&input, 200, seed);
        let i = interval_bounds(&net, &input);
        let s = symbolic_bounds(&net, &input);
        let t = lp_tighten(&net, &s, &SolveOptions::default()).unwrap();
        prop_assert!(s.within(&i, 1e-12), "symbolic looser than interval");
        prop_assert!(t.within(&s, 1e-12), "LP looser than symbolic");
        prop_assert!(t.unstable_count() <= s.unstable_count() && s.unstable_count() <= i.unstable_count());
        for b in [&i, &s, &t] {
            contains_samples(b, &net, &pts).map_err(TestCaseError::fail)?;
        }
    }

    /// Over a sub-box, the bounds refined from the parent box's lie within
    /// the parent's and contain every sample of the sub-box; and a ReLU
    /// stable over the parent stays stable.
    #[test]
    fn refined_bounds_of_a_sub_box_nest_and_contain_samples(
        (net, input) in small_net(),
        cut in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0), 1..=3),
        seed in any::<u64>(),
    ) {
        let parent = symbolic_bounds(&net, &input);
        let (lo, hi): (Vec<f64>, Vec<f64>) = input.lo.iter().zip(&input.hi).enumerate().map(|(i, (l, h))| {
            let (a, b) = cut[i % cut.len()];
            let (a, b) = (a.min(b), a.max(b));
            (l + a * (h - l), l + b * (h - l))
        }).unzip();
        let sub = InputBox::new(lo, hi).unwrap();
        let refined = symbolic_bounds_within(&net, &sub, &parent);
        prop_assert!(refined.within(&parent, 0.0), "refined looser than the parent");
        prop_assert!(refined.unstable_count() <= parent.unstable_count());
        contains_samples(&refined, &net, &samples(&sub, 200, seed)).map_err(TestCaseError::fail)?;
        // Not looser than the sub-box's own interval bounds either (one interval step per layer).
        prop_assert!(refined.within(&interval_bounds(&net, &sub), 1e-9));
    }

    /// The MILP maximum (and minimum) is >= (<=) every sample and attained by
    /// its returned input, replayed through eval.
    #[test]
    fn milp_optimum_is_attained_and_dominates_samples((net, input) in small_net(), seed in any::<u64>()) {
        let ex = exact(&net, &input, BoundsMethod::Symbolic);
        let pts = samples(&input, 300, seed);
        for (j, o) in ex.outputs.iter().enumerate() {
            prop_assert_eq!(o.max.status, Status::Optimal);
            prop_assert_eq!(o.min.status, Status::Optimal);
            for side in [&o.max, &o.min] {
                let (x, attained) = side.witness.clone().unwrap();
                prop_assert!(input.lo.iter().zip(&input.hi).zip(&x).all(|((l, h), v)| l <= v && v <= h));
                // The inner bound is the network's own value at the witness.
                prop_assert_eq!(net.eval(&x)[j], attained);
            }
            prop_assert!(o.max.inner().unwrap() <= o.max.outer && o.min.outer <= o.min.inner().unwrap());
            for p in &pts {
                // Outer bounds are sound: no sample beyond them, with no tolerance.
                let y = net.eval(p)[j];
                prop_assert!(y <= o.max.outer, "sample {y} above the proven max {}", o.max.outer);
                prop_assert!(y >= o.min.outer, "sample {y} below the proven min {}", o.min.outer);
            }
        }
        // The binaries are exactly the unstable neurons of the bounds used.
        prop_assert_eq!(ex.stats.binaries, ex.bounds.unstable_count());
    }

    /// On 1-D and 2-D inputs the MILP range is the exact range. (Once failed
    /// with "the MILP maximum of output 0 is 0.17556119544533075 at input
    /// [0.6876263874217572], but the network gives 0.1755590997016011":
    /// see `tolerance_level_replay_difference_is_not_an_error`.)
    #[test]
    fn milp_range_is_exact_in_low_dimension(seed in any::<u64>(), d in 1usize..=2, hidden in prop::collection::vec(2usize..=6, 1..=2), lo in -1.0f64..1.0, width in 0.1f64..2.0) {
        let mut sizes = vec![d];
        sizes.extend(hidden);
        sizes.push(2);
        let net = random_net(seed, &sizes);
        let input = InputBox::new(vec![lo; d], vec![lo + width; d]).unwrap();
        assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
    }
}

/// Issue 13's failing case of `milp_range_is_exact_in_low_dimension` (seed
/// 5637167554011463718): HiGHS's maximum of output 0 and the network's f64
/// value at the maximiser differed by 2e-6, which the old replay called an
/// internal error. Both are now reported as a sound pair, exact within the
/// tolerance, and equal to the region oracle.
#[test]
fn tolerance_level_replay_difference_is_not_an_error() {
    let net = random_net(5637167554011463718, &[1, 6, 2]);
    let lo = -0.7833515583790338;
    let input = InputBox::new(vec![lo], vec![lo + 1.4709789475299984]).unwrap();
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
    // At HiGHS's own feasibility tolerance (what the failing run used) the
    // 2e-6 difference is there, and is a tolerance-level one.
    let loose = SolveOptions {
        feasibility_tolerance: Some(1e-6),
        ..SolveOptions::default()
    };
    assert_pairs_equal_oracle(&net, &input, BoundsMethod::Symbolic, &loose);
}

/// Issue 13's CLI case: on this 2-6-4-2 network over [-1,1]x[-1,1] HiGHS's
/// maximum of output 0 (at its default feasibility tolerance) was
/// -0.17419017332430023 and the network's value at the maximiser
/// -0.17419235083993512, and `mavis nn bounds` stopped with exit 3
/// ("internal error: solution does not replay") and no bounds at all. Now
/// it exits 0 with every side exact, the attained values inside the true
/// range (the region oracle) and the proven bounds outside it, both within
/// the tolerance.
#[test]
fn cli_reports_sound_pairs_on_a_2_6_4_2_network() {
    let net = random_net(289, &[2, 6, 4, 2]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net_2_6_4_2.onnx");
    std::fs::write(&path, mavis::nn::to_onnx(&net)).expect("writes");
    assert_eq!(load(&path).unwrap().layers(), net.layers());
    let (v, code) = cli::json(&[
        "nn",
        "bounds",
        path.to_str().unwrap(),
        "--box",
        "[-1,1]x[-1,1]",
    ]);
    assert_eq!(code, 0, "{v}");
    let exact = &v["results"]["exact"];
    assert_eq!(exact["exact"], true);
    let input = InputBox::new(vec![-1.0; 2], vec![1.0; 2]).unwrap();
    let oracle = exact_by_regions(&net, &input);
    let tol = |v: f64| EXACT_AGREEMENT * (1.0 + v.abs());
    for (j, (lo, hi)) in oracle.iter().enumerate() {
        let o = &exact["outputs"][j];
        let f = |a: &str, b: &str| o[a][b].as_f64().unwrap();
        assert_eq!(
            (o["exact_lo"].as_bool(), o["exact_hi"].as_bool()),
            (Some(true), Some(true))
        );
        let (attained_lo, attained_hi) = (f("attained", "lo"), f("attained", "hi"));
        let (proven_lo, proven_hi) = (f("proven", "lo"), f("proven", "hi"));
        assert!(
            attained_hi <= hi + 1e-12 && hi - attained_hi <= tol(*hi),
            "y{j}"
        );
        assert!(
            attained_lo >= lo - 1e-12 && attained_lo - lo <= tol(*lo),
            "y{j}"
        );
        assert!(proven_hi >= *hi && proven_hi - hi <= tol(*hi), "y{j}");
        assert!(proven_lo <= *lo && lo - proven_lo <= tol(*lo), "y{j}");
        assert_eq!(o["hi"].as_f64(), Some(attained_hi));
        // The attained value is the network's own at the reported argmax
        // (up to rounding: serde_json's default float parser may read the
        // printed argmax one ulp off).
        let argmax: Vec<f64> = serde_json::from_value(o["argmax"].clone()).unwrap();
        let replayed = net.eval(&argmax)[j];
        assert!(
            (replayed - attained_hi).abs() <= 1e-12,
            "{replayed} against {attained_hi}"
        );
    }
}

/// A random-seed failure of `milp_range_is_exact_in_low_dimension` (seed
/// 16598500795953152910, d = 2, hidden = [2], lo = 0, width = 0.1): the
/// maximum of both outputs came back "infeasible" from HiGHS's presolve,
/// though every neuron is stable and the model is an LP with a box of
/// solutions. Without presolve the maxima are attained at (0.1, 0).
#[test]
fn a_tiny_stable_network_has_a_feasible_maximum() {
    let net = random_net(16598500795953152910, &[2, 2, 2]);
    let input = InputBox::new(vec![0.0; 2], vec![0.1; 2]).unwrap();
    let ex = exact(&net, &input, BoundsMethod::Symbolic);
    for o in &ex.outputs {
        assert_eq!(
            o.max.witness.as_ref().map(|w| w.0.clone()),
            Some(vec![0.1, 0.0])
        );
    }
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
}

/// Found by `milp_optimum_is_attained_and_dominates_samples` with a random
/// seed: with HiGHS's presolve, the maximum of output 2 of this 1-2-3
/// network came back "optimal" at x = 1.7798 (-0.16845) with a proven bound
/// there, while the network gives -0.10665 at the box's upper corner. By
/// hand: at x = hi both ReLUs are active (0.4582 * 1.8422 - 0.7603 =
/// 0.0837 and 0.7870 * 1.8422 - 0.9161 = 0.5336), output 2 is increasing
/// in x there, so its maximum is 1.3044 * 0.0837 + 0.5002 * 0.5336 -
/// 0.4827 = -0.10665, at x = hi.
#[test]
fn a_presolved_maximum_short_of_a_corner_is_not_trusted() {
    let l1 = Layer {
        weights: Array2::from_shape_vec((2, 1), vec![0.4581714024767427, 0.7869753341311316])
            .unwrap(),
        bias: Array1::from(vec![-0.7603362736247705, -0.9161063329461223]),
        activation: Activation::Relu,
    };
    let l2 = Layer {
        weights: Array2::from_shape_vec(
            (3, 2),
            vec![
                0.6359619447513483,
                -0.0625717710622451,
                0.01999480156065747,
                -1.1414301939605294,
                1.3043779954900954,
                0.5001953980665981,
            ],
        )
        .unwrap(),
        bias: Array1::from(vec![
            -0.4284888167134593,
            0.7529940432663418,
            -0.4827372115369366,
        ]),
        activation: Activation::Identity,
    };
    let net = Network::from_layers(vec![l1, l2]).unwrap();
    let input = InputBox {
        lo: vec![0.459757398084344],
        hi: vec![1.8421657816109018],
    };
    let ex = exact(&net, &input, BoundsMethod::Symbolic);
    let max = &ex.outputs[2].max;
    let at_corner = net.eval(&input.hi)[2];
    assert!((at_corner - -0.10665136289000798).abs() < 1e-12);
    assert!(
        max.outer >= at_corner,
        "outer {} below {at_corner}",
        max.outer
    );
    assert!(max.exact);
    assert!((max.inner().unwrap() - at_corner).abs() < 1e-9);
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
}

/// Found the same way with HiGHS's presolve off: the maximum came back at
/// x = 0.3618 (-0.97265) with a proven bound there. By hand, at x = lo =
/// 0.25917: neuron 0 is off (-0.4032 x - 0.9979 < 0), neuron 1 on (0.2567),
/// neuron 2 on (0.0957), neuron 3 off (0.5866 x - 0.3926 < 0), so y =
/// -0.5316 * 0.2567 + 0.3694 * 0.0957 - 0.8131 = -0.91416.
#[test]
fn a_maximum_missed_without_presolve_is_not_trusted() {
    let l1 = Layer {
        weights: Array2::from_shape_vec(
            (4, 1),
            vec![
                -0.4032047132709544,
                0.6476511506516056,
                -0.6102698619948919,
                0.5865798485890221,
            ],
        )
        .unwrap(),
        bias: Array1::from(vec![
            -0.9979004690451809,
            0.08876135507247307,
            0.2538387404362594,
            -0.39263009401805116,
        ]),
        activation: Activation::Relu,
    };
    let l2 = Layer {
        weights: Array2::from_shape_vec(
            (1, 4),
            vec![
                -1.4588380690674823,
                -0.5315845620568083,
                0.36943898126009445,
                -0.6580898372545096,
            ],
        )
        .unwrap(),
        bias: Array1::from(vec![-0.8130916401988868]),
        activation: Activation::Identity,
    };
    let net = Network::from_layers(vec![l1, l2]).unwrap();
    let input = InputBox {
        lo: vec![0.25916926145738706],
        hi: vec![2.184369043337708],
    };
    let at_corner = net.eval(&input.lo)[0];
    assert!((at_corner - -0.9141566722291402).abs() < 1e-12);
    let max = &exact(&net, &input, BoundsMethod::Symbolic).outputs[0].max;
    assert!(
        max.outer >= at_corner,
        "outer {} below {at_corner}",
        max.outer
    );
    assert!((max.inner().unwrap() - at_corner).abs() < 1e-9);
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
}

/// A 1-6-3-3 network on which HiGHS 1.16, with its default
/// `mip_root_presolve_only = false`, proved the maximum of output 0 about
/// 0.0045 short of the true one both with and without its presolve, so the
/// two-way solve of `nn bounds` did not catch it (found by a sweep of
/// random networks against exact breakpoint maxima, 2026-12-04).
fn missed_both_ways() -> (Network, InputBox) {
    let layer = |rows: usize, cols: usize, w: Vec<f64>, b: Vec<f64>, relu: bool| Layer {
        weights: Array2::from_shape_vec((rows, cols), w).unwrap(),
        bias: Array1::from(b),
        activation: if relu {
            Activation::Relu
        } else {
            Activation::Identity
        },
    };
    #[rustfmt::skip]
    let net = Network::from_layers(vec![
        layer(6, 1, vec![-0.6646442035478008, -1.182045349695885, 1.316908838675241, -0.5434804138622691, 1.0824118365489204, -0.48774217670098663],
            vec![-0.7888524614957997, 0.16908517299813175, 0.702044522569031, 0.6636931225936271, 0.6095659034156435, 0.6988127770834764], true),
        layer(3, 6, vec![-1.1162001949451696, -0.3656745947067326, 0.49695731828974776, -0.17382382584913847, -0.4300272370862044, -0.6591539151451165,
            1.3517058521596113, 1.4181613546542593, -0.11743507075121684, 1.305343205142707, -0.06551106733615564, -0.9768523147978028,
            -0.7840686445206986, 0.2128539153724145, -0.14234982934155394, 1.1522266693544365, 0.18326939094016104, 0.05431612012807574],
            vec![-0.6737191676412415, -0.607008973159862, -0.47636094161969655], true),
        layer(3, 3, vec![-0.6341089151887627, 0.9822056483771737, 0.03877022234432248, -0.15886409486453434, 0.2880171514385943,
            -1.0618647025602226, 0.1726872330385989, -0.8501146650060984, -1.107917252580961],
            vec![0.03110974143864631, 0.5529536310770098, 0.59646698106088], false),
    ]).unwrap();
    let input = InputBox {
        lo: vec![0.008886778041321541],
        hi: vec![0.9188866570340046],
    };
    (net, input)
}

#[test]
fn a_maximum_missed_both_ways_is_found() {
    let (net, input) = missed_both_ways();
    // The true maximum of output 0, by region enumeration (and by the
    // breakpoint enumeration that found the instance: 0.045305483566194266).
    let (_, hi) = exact_by_regions(&net, &input)[0];
    assert!((hi - 0.045305483566194266).abs() < 1e-12, "{hi}");
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
}

/// HiGHS's proven bound of one MILP solve of output `j` (maximum or
/// minimum), with or without its presolve: no two-way safeguard.
fn single_solve_bound(
    net: &Network,
    input: &InputBox,
    j: usize,
    maximise: bool,
    presolve: bool,
) -> f64 {
    let mut model = Model::new();
    let xs: Vec<LinExpr> = (0..input.len())
        .map(|i| LinExpr::from(model.continuous(&format!("x{i}"), input.lo[i], input.hi[i])))
        .collect();
    let copy = model
        .add_network("net", net, &xs, None, &EncodeOptions::default())
        .unwrap();
    let y = LinExpr::from(copy.outputs[j]);
    let objective = if maximise {
        Objective::Maximise(y)
    } else {
        Objective::Minimise(y)
    };
    let opts = SolveOptions {
        presolve,
        mip_gap: Some(0.0),
        feasibility_tolerance: Some(mavis::milp::tolerance::FEASIBILITY),
        ..SolveOptions::default()
    };
    let out = model.solve(&objective, &opts).unwrap();
    assert_eq!(out.status, Status::Optimal);
    out.bound.unwrap()
}

/// A single solve of [`missed_both_ways`] without presolve (which now means
/// none at all, the MIP solver's root LP included) proves bounds that no
/// value of the network passes. With HiGHS's root LP presolve left on, the
/// maximum of output 0 came back 0.0045 short.
#[test]
fn a_solve_without_any_presolve_is_sound_where_highs_erred() {
    let (net, input) = missed_both_ways();
    let regions = exact_by_regions(&net, &input);
    for (j, &(lo, hi)) in regions.iter().enumerate() {
        let max = single_solve_bound(&net, &input, j, true, false);
        let min = single_solve_bound(&net, &input, j, false, false);
        assert!(max >= hi - 1e-7, "max {j}: {max} < {hi}");
        assert!(min <= lo + 1e-7, "min {j}: {min} > {lo}");
    }
}

/// A failing case of `milp_range_is_exact_in_low_dimension` (random seed
/// 868022740): on the maximum of output 1, HiGHS found the optimum and then
/// rejected it (its final check saw a row violated by 1.15e-7 at a MIP
/// feasibility tolerance of 1e-9) with and without presolve, so the side was
/// `Unknown` with the propagated bound 5.60 instead of the true 3.44; the
/// second opinion (no presolve, 1e-7) failed the same way. `Model::solve`
/// now tries a third time at a ten times looser tolerance.
#[test]
fn an_optimum_highs_rejects_at_the_tight_tolerance_is_solved_again() {
    let net = random_net(7643057369918854164, &[2, 6, 4, 2]);
    let lo = -0.08746452090488153;
    let input = InputBox::new(vec![lo; 2], vec![lo + 1.7977616600482562; 2]).unwrap();
    let ex = exact(&net, &input, BoundsMethod::Symbolic);
    let max1 = &ex.outputs[1].max;
    assert_eq!(max1.status, Status::Optimal);
    // The region oracle's maximum (checked against it below): at the corner
    // (lo, lo + width), where the network gives 3.4439189846...
    assert!((max1.outer - 3.443_918_984_639).abs() < 1e-5, "{max1:?}");
    assert_exact_equals_oracle(&net, &input, BoundsMethod::Symbolic);
}
