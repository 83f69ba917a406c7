//! Exact numbers. Every literal in a model is read as a rational: `0.15` is
//! 3/20, `1e-3` is 1/1000; engines decide later whether to move to f64.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// The exact number type of the language.
pub type Rat = BigRational;

/// Parses the text of a [`super::lexer::Tok::Number`] token exactly.
/// Returns `None` only for texts the lexer cannot produce, or absurd exponents.
pub fn parse_decimal(text: &str) -> Option<Rat> {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    if exponent.abs() > 10_000 {
        return None;
    }
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((a, b)) => (a, b),
        None => (mantissa, ""),
    };
    if int_part.is_empty() || !int_part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !frac_part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits: BigInt = format!("{int_part}{frac_part}").parse().ok()?;
    let scale = exponent - frac_part.len() as i64;
    let ten = BigInt::from(10);
    let value = if scale >= 0 {
        Rat::from_integer(digits * num_traits::pow(ten, scale as usize))
    } else {
        Rat::new(digits, num_traits::pow(ten, (-scale) as usize))
    };
    Some(value)
}

pub fn rat(n: i64, d: i64) -> Rat {
    Rat::new(BigInt::from(n), BigInt::from(d))
}

pub fn int(n: i64) -> Rat {
    Rat::from_integer(BigInt::from(n))
}

/// Nearest f64 (exact for dyadic rationals in range).
pub fn to_f64(r: &Rat) -> f64 {
    r.to_f64().unwrap_or_else(|| {
        if r.is_negative() {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }
    })
}

/// The rational equal to a finite f64 (every finite f64 is a dyadic rational).
pub fn from_f64(x: f64) -> Option<Rat> {
    Rat::from_float(x)
}

/// `Some(i)` when the rational is an integer that fits in i64.
pub fn to_i64(r: &Rat) -> Option<i64> {
    if r.is_integer() {
        r.to_integer().to_i64()
    } else {
        None
    }
}

/// Prints `3/20` or `7`, the way users write them.
pub fn display(r: &Rat) -> String {
    if r.denom().is_one() {
        r.numer().to_string()
    } else {
        format!("{}/{}", r.numer(), r.denom())
    }
}

pub fn is_zero(r: &Rat) -> bool {
    r.is_zero()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(parse_decimal("0.15").unwrap(), rat(3, 20));
        assert_eq!(parse_decimal("7").unwrap(), int(7));
        assert_eq!(parse_decimal("1e-3").unwrap(), rat(1, 1000));
        assert_eq!(parse_decimal("2.5E2").unwrap(), int(250));
        assert_eq!(
            parse_decimal("0.1").unwrap() + parse_decimal("0.2").unwrap(),
            rat(3, 10)
        );
        assert_eq!(display(&rat(6, 40)), "3/20");
        assert_eq!(to_i64(&int(-4)), Some(-4));
        assert_eq!(to_i64(&rat(1, 2)), None);
    }
}
