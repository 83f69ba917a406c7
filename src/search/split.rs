//! Input splitting: which input of a box to halve, and the halves.

use crate::nn::InputBox;

/// Boxes narrower than this on every input are not split (the leaf
/// decision on them decides, or a branch, or the part stays undecided).
pub const MIN_WIDTH: f64 = 1e-9;

/// Which input to halve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SplitRule {
    /// The input with the largest width times influence
    /// ([`super::Problem::influence`]); the widest when every score is 0.
    #[default]
    Influence,
    /// The input with the largest width times sensitivity of the bounds
    /// (for a network: the open atoms' linear lower bounds' coefficients),
    /// through [`super::Problem::influence`] too.
    Sensitivity,
    /// The widest input.
    Widest,
}

pub fn can_split(b: &InputBox) -> bool {
    b.lo.iter().zip(&b.hi).any(|(l, h)| h - l > MIN_WIDTH)
}

/// The input to halve: by `influence` (one score per input, or empty for
/// none) times width, unless the rule is [`SplitRule::Widest`] or no
/// score is positive: then the widest.
pub fn pick(b: &InputBox, influence: &[f64], rule: SplitRule) -> usize {
    let width: Vec<f64> = b.lo.iter().zip(&b.hi).map(|(l, h)| h - l).collect();
    let widest = argmax(&width);
    if rule == SplitRule::Widest || influence.len() != width.len() {
        return widest;
    }
    let score: Vec<f64> = influence.iter().zip(&width).map(|(g, w)| g * w).collect();
    let best = argmax(&score);
    if score[best] > 0.0 && width[best] > MIN_WIDTH {
        best
    } else {
        widest
    }
}

/// The two halves of `b` along input `i`: their union is `b`, and they
/// share only the face `x_i = mid`.
pub fn halves(b: &InputBox, i: usize) -> (InputBox, InputBox) {
    let mid = midpoint(b.lo[i], b.hi[i]);
    let (mut lo_half, mut hi_half) = (b.clone(), b.clone());
    lo_half.hi[i] = mid;
    hi_half.lo[i] = mid;
    (lo_half, hi_half)
}

/// The first index of a largest value (NaN never wins).
fn argmax(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, i| if v[i] > v[best] { i } else { best })
}

/// The middle of `[lo, hi]`, also when `hi - lo` overflows f64.
pub fn midpoint(lo: f64, hi: f64) -> f64 {
    let w = hi - lo;
    if w.is_finite() {
        lo + w / 2.0
    } else {
        lo / 2.0 + hi / 2.0
    }
}

/// `lo + t (hi - lo)` for `t` in [0, 1], inside `[lo, hi]` also when
/// `hi - lo` overflows f64.
pub fn lerp(lo: f64, hi: f64, t: f64) -> f64 {
    let w = hi - lo;
    let x = if w.is_finite() {
        lo + t * w
    } else {
        lo * (1.0 - t) + hi * t
    };
    x.clamp(lo, hi)
}
