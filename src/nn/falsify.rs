//! Cheap falsification of a VNN-LIB case: seeded uniform sampling of the
//! input box, then a gradient-free local search (pattern search with
//! shrinking steps) from the best samples, minimising the case's excess
//! ([`Case::excess`]). A point counts only when the network, evaluated in
//! f64 at it, satisfies a disjunct exactly (excess `<= 0`, no tolerance):
//! the search's own arithmetic is the replay.

use super::network::Network;
use super::vnnlib::Case;
use super::InputBox;
use ndarray::Array2;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How hard to look.
#[derive(Clone, Debug)]
pub struct FalsifyOptions {
    /// Uniform samples of the box (the centre and the corners nearest to it
    /// are not special: all samples are uniform).
    pub samples: usize,
    /// Local searches, each from one of the best samples.
    pub starts: usize,
    /// Network evaluations per local search.
    pub steps: usize,
    pub seed: u64,
}

impl Default for FalsifyOptions {
    fn default() -> Self {
        FalsifyOptions {
            samples: 2000,
            starts: 4,
            steps: 400,
            seed: 0,
        }
    }
}

/// A point of the box where the network's output is unsafe.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub input: Vec<f64>,
    pub output: Vec<f64>,
    /// Found by sampling (false) or by the local search (true).
    pub by_local_search: bool,
}

/// What a falsification run did.
#[derive(Clone, Debug, Default)]
pub struct Falsified {
    pub hit: Option<Hit>,
    /// Network evaluations.
    pub evaluations: usize,
    /// The smallest excess seen (`<= 0` exactly when there is a hit).
    pub best_excess: f64,
}

/// Looks for an unsafe point of `case` inside `region` (a sub-box of the
/// case's box). `stop` is polled between batches; when it says stop, the
/// run ends with what it has.
pub fn falsify(
    net: &Network,
    case: &Case,
    region: &InputBox,
    opts: &FalsifyOptions,
    stop: &dyn Fn() -> bool,
) -> Falsified {
    let n = region.len();
    let mut rng = StdRng::seed_from_u64(opts.seed);
    let mut points = Array2::<f64>::zeros((opts.samples.max(1), n));
    for mut row in points.rows_mut() {
        for (i, v) in row.iter_mut().enumerate() {
            *v = sample(&mut rng, region.lo[i], region.hi[i]);
        }
    }
    let outputs = net.eval_batch(points.view());
    let mut scored: Vec<(f64, usize)> = (0..points.nrows())
        .map(|r| {
            let x = points.row(r).to_vec();
            (case.excess(&x, &outputs.row(r).to_vec()), r)
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut result = Falsified {
        hit: None,
        evaluations: points.nrows(),
        best_excess: scored[0].0,
    };
    if scored[0].0 <= 0.0 {
        let x = points.row(scored[0].1).to_vec();
        result.hit = Some(Hit {
            output: net.eval(&x),
            input: x,
            by_local_search: false,
        });
        return result;
    }
    for &(_, r) in scored.iter().take(opts.starts) {
        if stop() {
            break;
        }
        let (x, excess, evals) =
            local_search(net, case, region, points.row(r).to_vec(), opts.steps);
        result.evaluations += evals;
        result.best_excess = result.best_excess.min(excess);
        if excess <= 0.0 {
            result.hit = Some(Hit {
                output: net.eval(&x),
                input: x,
                by_local_search: true,
            });
            break;
        }
    }
    result
}

/// A uniform point of `[lo, hi]`; a range whose width overflows f64
/// (`[-1e308, 1e308]`, where `gen_range` panics) is drawn as a convex
/// combination of its ends.
fn sample(rng: &mut StdRng, lo: f64, hi: f64) -> f64 {
    if hi > lo && (hi - lo).is_finite() {
        rng.gen_range(lo..=hi)
    } else if hi > lo {
        let t: f64 = rng.gen_range(0.0..=1.0);
        (lo * (1.0 - t) + hi * t).clamp(lo, hi)
    } else {
        lo
    }
}

/// Pattern search: try `x +- step_i` along each input, keep any improvement,
/// halve the steps when none improves. Returns the best point, its excess
/// and the evaluations spent.
fn local_search(
    net: &Network,
    case: &Case,
    region: &InputBox,
    mut x: Vec<f64>,
    budget: usize,
) -> (Vec<f64>, f64, usize) {
    let score = |x: &[f64]| case.excess(x, &net.eval(x));
    let mut best = score(&x);
    let mut evals = 1;
    let mut step: Vec<f64> = (0..x.len())
        .map(|i| (region.hi[i] - region.lo[i]) / 4.0)
        .collect();
    while evals < budget && best > 0.0 && step.iter().any(|&s| s > 1e-9) {
        let mut improved = false;
        for i in 0..x.len() {
            for sign in [1.0, -1.0] {
                let mut y = x.clone();
                y[i] = (y[i] + sign * step[i]).clamp(region.lo[i], region.hi[i]);
                let s = score(&y);
                evals += 1;
                if s < best {
                    best = s;
                    x = y;
                    improved = true;
                    // Keep going in a good direction: a bigger step next time.
                    step[i] = (step[i] * 2.0).min(region.hi[i] - region.lo[i]);
                    break;
                }
            }
        }
        if !improved {
            step.iter_mut().for_each(|s| *s /= 2.0);
        }
    }
    (x, best, evals)
}
