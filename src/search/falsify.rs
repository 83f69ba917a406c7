//! Falsification of one part: points of its box (the centre, corners, a
//! Halton sequence and seeded uniform points), scored by the problem's
//! excess, then a local search from the best of them: signed gradient steps
//! where the problem has a gradient, then a gradient-free pattern search.
//! A point counts only when its excess is `<= 0` in the problem's own f64
//! semantics; the driver replays it again before reporting it.

use super::problem::{Objective, Source};
use super::split::{lerp, midpoint};
use crate::nn::InputBox;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How hard to look.
#[derive(Clone, Debug)]
pub struct FalsifyOptions {
    /// Points of the box: the centre, the corners (when there are at most
    /// [`MAX_CORNERS`]), then half Halton points and half seeded uniform ones.
    pub samples: usize,
    /// Local searches, each from one of the best samples.
    pub starts: usize,
    /// Evaluations per local search.
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

/// Boxes with more corners than this are sampled without them.
pub const MAX_CORNERS: usize = 64;

/// A point with excess `<= 0`, and how it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub input: Vec<f64>,
    pub source: Source,
}

/// What one falsification did.
#[derive(Clone, Debug, Default)]
pub struct Falsified {
    pub hit: Option<Hit>,
    /// Evaluations of the excess.
    pub evaluations: usize,
}

/// Looks for a counterexample in `region` (a sub-box of root `root`'s box).
/// `stop` is polled between local searches.
pub fn falsify<P: Objective + ?Sized>(
    problem: &P,
    root: usize,
    region: &InputBox,
    opts: &FalsifyOptions,
    stop: &dyn Fn() -> bool,
) -> Falsified {
    let points = sample_points(region, opts.samples.max(1), opts.seed);
    let excess = problem.excess_batch(root, &points);
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| excess[a].total_cmp(&excess[b]).then(a.cmp(&b)));
    let mut result = Falsified {
        hit: None,
        evaluations: points.len(),
    };
    if excess[order[0]] <= 0.0 {
        result.hit = Some(Hit {
            input: points[order[0]].clone(),
            source: Source::Sampling,
        });
        return result;
    }
    for &i in order.iter().take(opts.starts) {
        if stop() {
            break;
        }
        let start = (points[i].clone(), excess[i]);
        let (x, e, evals) = local_search(
            Around {
                problem,
                root,
                region,
            },
            start,
            opts.steps,
        );
        result.evaluations += evals;
        if e <= 0.0 {
            result.hit = Some(Hit {
                input: x,
                source: Source::LocalSearch,
            });
            break;
        }
    }
    result
}

/// `n` points of the box, deterministic for a seed: the centre, the corners
/// (if at most [`MAX_CORNERS`] and they fit), then Halton and uniform points.
pub fn sample_points(b: &InputBox, n: usize, seed: u64) -> Vec<Vec<f64>> {
    let dim = b.len();
    let mut points = vec![b
        .lo
        .iter()
        .zip(&b.hi)
        .map(|(&l, &h)| midpoint(l, h))
        .collect()];
    let corners = if dim < 63 { 1usize << dim } else { usize::MAX };
    if corners <= MAX_CORNERS && corners < n {
        for mask in 0..corners {
            let corner = (0..dim)
                .map(|i| if mask >> i & 1 == 1 { b.hi[i] } else { b.lo[i] })
                .collect();
            points.push(corner);
        }
    }
    let rest = n.saturating_sub(points.len());
    let primes = first_primes(dim);
    // The Halton sequence starts at index 1 + seed, so seeds give different points.
    for k in 0..rest / 2 {
        let index = 1 + k as u64 + seed;
        let p = (0..dim)
            .map(|i| lerp(b.lo[i], b.hi[i], radical_inverse(index, primes[i])))
            .collect();
        points.push(p);
    }
    let mut rng = StdRng::seed_from_u64(seed);
    while points.len() < n {
        let p = (0..dim)
            .map(|i| uniform(&mut rng, b.lo[i], b.hi[i]))
            .collect();
        points.push(p);
    }
    points.truncate(n);
    points
}

/// A uniform point of `[lo, hi]` (also when its width overflows f64).
fn uniform(rng: &mut StdRng, lo: f64, hi: f64) -> f64 {
    lerp(lo, hi, rng.gen_range(0.0..=1.0))
}

/// The van der Corput radical inverse of `index` in base `base`: the
/// digits of `index` mirrored behind the point, in [0, 1).
pub fn radical_inverse(mut index: u64, base: u64) -> f64 {
    let (mut value, mut scale) = (0.0, 1.0 / base as f64);
    while index > 0 {
        value += (index % base) as f64 * scale;
        index /= base;
        scale /= base as f64;
    }
    value
}

/// The first `n` primes (the Halton bases).
fn first_primes(n: usize) -> Vec<u64> {
    let mut primes: Vec<u64> = Vec::with_capacity(n);
    let mut c = 2u64;
    while primes.len() < n {
        if primes
            .iter()
            .take_while(|&&p| p * p <= c)
            .all(|&p| c % p != 0)
        {
            primes.push(c);
        }
        c += 1;
    }
    primes
}

/// Where a local search runs: the objective of one root over a region.
struct Around<'a, P: ?Sized> {
    problem: &'a P,
    root: usize,
    region: &'a InputBox,
}

impl<P: ?Sized> Clone for Around<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: ?Sized> Copy for Around<'_, P> {}

/// From `start`: signed gradient steps (half the budget, when the problem
/// has a gradient), then pattern search. Returns the best point, its excess
/// and the evaluations spent.
fn local_search<P: Objective + ?Sized>(
    around: Around<P>,
    start: (Vec<f64>, f64),
    budget: usize,
) -> (Vec<f64>, f64, usize) {
    let (x, e, used) = gradient_steps(around, start, budget / 2);
    if e <= 0.0 {
        return (x, e, used);
    }
    let (x, e, more) = pattern_search(around, (x, e), budget - used);
    (x, e, used + more)
}

/// Steps of a quarter of the box's width against the sign of the gradient,
/// clamped into the box; a step that does not improve halves the step.
fn gradient_steps<P: Objective + ?Sized>(
    Around {
        problem,
        root,
        region,
    }: Around<P>,
    (mut x, mut best): (Vec<f64>, f64),
    budget: usize,
) -> (Vec<f64>, f64, usize) {
    let mut scale = 0.25;
    let mut evals = 0;
    // The gradient at `x`, recomputed only when `x` moves.
    let mut g = problem.gradient(root, &x);
    while evals < budget && best > 0.0 && scale > 1e-6 {
        let Some(grad) = &g else {
            break;
        };
        let y: Vec<f64> = (0..x.len())
            .map(|i| {
                let w = region.hi[i] / 2.0 - region.lo[i] / 2.0;
                (x[i] - 2.0 * scale * w * grad[i].signum()).clamp(region.lo[i], region.hi[i])
            })
            .collect();
        let e = problem.excess(root, &y);
        evals += 1;
        if e < best {
            (x, best) = (y, e);
            g = problem.gradient(root, &x);
        } else {
            scale /= 2.0;
        }
    }
    (x, best, evals)
}

/// Try `x +- step_i` along each input, keep any improvement (and double
/// that step), halve the steps when none improves.
fn pattern_search<P: Objective + ?Sized>(
    Around {
        problem,
        root,
        region,
    }: Around<P>,
    (mut x, mut best): (Vec<f64>, f64),
    budget: usize,
) -> (Vec<f64>, f64, usize) {
    let mut evals = 0;
    let mut step: Vec<f64> = (0..x.len())
        .map(|i| region.hi[i] / 4.0 - region.lo[i] / 4.0)
        .collect();
    while evals < budget && best > 0.0 && step.iter().any(|&s| s > 1e-9) {
        let mut improved = false;
        for i in 0..x.len() {
            for sign in [1.0, -1.0] {
                let mut y = x.clone();
                y[i] = (y[i] + sign * step[i]).clamp(region.lo[i], region.hi[i]);
                let e = problem.excess(root, &y);
                evals += 1;
                if e < best {
                    (x, best) = (y, e);
                    improved = true;
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
