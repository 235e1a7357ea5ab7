//! Exact sizes and budgets.
//!
//! Sizes and budgets are decimals held in whole millionths, so arithmetic on
//! them never drifts: three items of size `0.1` fill a budget of `0.3`
//! exactly. A value finer than a millionth is rejected with a clear error
//! rather than rounded.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Millionths in one unit.
const SCALE: u128 = 1_000_000;

/// The largest size or budget accepted, in whole units (10^15).
///
/// Larger numbers cannot be told apart from their neighbours as JSON numbers
/// and have no use as a size; they are rejected.
pub const MAX_UNITS: u128 = 1_000_000_000_000_000;

/// An exact non-negative decimal with six fractional digits: an item's size,
/// a budget, or a total of sizes.
///
/// ```
/// use bevy_container::decimal::Decimal;
///
/// let spark: Decimal = "0.1".parse().unwrap();
/// let budget: Decimal = "0.3".parse().unwrap();
/// assert_eq!(spark.times(3), budget);
/// assert_eq!(budget.to_string(), "0.3");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Decimal {
    micros: u128,
}

/// Why a number is not an exact [`Decimal`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecimalError {
    /// The number is below zero.
    #[error("it is negative; use zero or more")]
    Negative,
    /// The number has digits below a millionth.
    #[error("it has digits finer than a millionth (0.000001); round it to six decimals")]
    TooFine,
    /// The number is larger than [`MAX_UNITS`].
    #[error("it is larger than 10^15; use a smaller unit")]
    TooLarge,
    /// The number is NaN, infinite or not a number at all.
    #[error("it is not a finite number")]
    NotANumber,
}

impl Decimal {
    /// Zero.
    pub const ZERO: Decimal = Decimal { micros: 0 };

    /// A whole number of units.
    pub fn from_units(units: u64) -> Decimal {
        Decimal {
            micros: u128::from(units) * SCALE,
        }
    }

    /// The value in millionths.
    pub fn micros(self) -> u128 {
        self.micros
    }

    /// A value from millionths.
    pub fn from_micros(micros: u128) -> Decimal {
        Decimal { micros }
    }

    /// Reads a JSON or RON number exactly: the number's shortest decimal
    /// form is what the designer wrote, and that text is converted without
    /// floating-point arithmetic.
    pub fn from_f64(value: f64) -> Result<Decimal, DecimalError> {
        if !value.is_finite() {
            return Err(DecimalError::NotANumber);
        }
        // `{}` prints the shortest text that reads back as the same f64,
        // which for any number a designer types is the text they typed.
        format!("{value}").parse()
    }

    /// `self * amount`, exact.
    #[inline]
    pub fn times(self, amount: u32) -> Decimal {
        Decimal {
            micros: self.micros * u128::from(amount),
        }
    }

    /// `self + other`, exact (sizes are bounded, so this cannot overflow).
    #[inline]
    pub fn plus(self, other: Decimal) -> Decimal {
        Decimal {
            micros: self.micros.saturating_add(other.micros),
        }
    }

    /// `self - other`, or zero when `other` is larger.
    #[inline]
    pub fn minus(self, other: Decimal) -> Decimal {
        Decimal {
            micros: self.micros.saturating_sub(other.micros),
        }
    }

    /// How many whole items of size `self` fit in `room`; `None` when the
    /// size is zero (any number fits).
    pub fn how_many_fit(self, room: Decimal) -> Option<u128> {
        (self.micros != 0).then(|| room.micros / self.micros)
    }

    /// How many items of size `self` it takes to cover `need`; `None` when
    /// the size is zero (no number covers it).
    pub fn how_many_cover(self, need: Decimal) -> Option<u128> {
        (self.micros != 0).then(|| need.micros.div_ceil(self.micros))
    }

    /// Whether this is zero.
    pub fn is_zero(self) -> bool {
        self.micros == 0
    }

    /// The nearest `f64`, for output formats that only carry floats. Values
    /// of fifteen significant digits or fewer print back exactly.
    pub fn to_f64(self) -> f64 {
        self.to_string().parse().unwrap_or(f64::MAX)
    }
}

impl std::str::FromStr for Decimal {
    type Err = DecimalError;

    fn from_str(text: &str) -> Result<Decimal, DecimalError> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix('-') {
            return match rest.parse::<Decimal>() {
                Ok(d) if d.is_zero() => Ok(Decimal::ZERO),
                Ok(_) => Err(DecimalError::Negative),
                Err(e) => Err(e),
            };
        }
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(i) => {
                let exp: i64 = text[i + 1..]
                    .parse()
                    .map_err(|_| DecimalError::NotANumber)?;
                (&text[..i], exp)
            }
            None => (text, 0),
        };
        let (whole, frac) = match mantissa.split_once('.') {
            Some((w, f)) => (w, f),
            None => (mantissa, ""),
        };
        if (whole.is_empty() && frac.is_empty())
            || !whole.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(DecimalError::NotANumber);
        }
        // digits as one integer, with `scale` digits after the point
        let digits: String = format!("{whole}{frac}");
        let digits = digits.trim_start_matches('0');
        let point = i64::try_from(frac.len())
            .map_err(|_| DecimalError::TooLarge)?
            .saturating_sub(exponent);
        // value = digits * 10^-point ; micros = digits * 10^(6 - point)
        let shift = 6i64.saturating_sub(point);
        let digits = if digits.is_empty() { "0" } else { digits };
        if digits == "0" {
            return Ok(Decimal::ZERO);
        }
        if shift < 0 {
            let cut = usize::try_from(-shift).map_err(|_| DecimalError::TooFine)?;
            if cut >= digits.len() || !digits[digits.len() - cut..].bytes().all(|b| b == b'0') {
                return Err(DecimalError::TooFine);
            }
            let kept = &digits[..digits.len() - cut];
            return from_digits(kept, 0);
        }
        from_digits(digits, shift)
    }
}

fn from_digits(digits: &str, zeros: i64) -> Result<Decimal, DecimalError> {
    if (digits.len() as i64).saturating_add(zeros) > 22 {
        return Err(DecimalError::TooLarge);
    }
    let mut micros: u128 = 0;
    for b in digits.bytes() {
        micros = micros * 10 + u128::from(b - b'0');
    }
    for _ in 0..zeros {
        micros *= 10;
    }
    if micros > MAX_UNITS * SCALE {
        return Err(DecimalError::TooLarge);
    }
    Ok(Decimal { micros })
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.micros / SCALE;
        let frac = self.micros % SCALE;
        if frac == 0 {
            write!(f, "{whole}")
        } else {
            let frac = format!("{frac:06}");
            write!(f, "{whole}.{}", frac.trim_end_matches('0'))
        }
    }
}

impl Serialize for Decimal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.to_f64())
    }
}

impl<'de> Deserialize<'de> for Decimal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Decimal, D::Error> {
        let value = f64::deserialize(deserializer)?;
        Decimal::from_f64(value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn parses_and_prints_exactly() {
        for (text, shown) in [
            ("0", "0"),
            ("0.1", "0.1"),
            ("12.5", "12.5"),
            ("1e3", "1000"),
            ("2.5E-1", "0.25"),
            ("0.000001", "0.000001"),
            ("007.50", "7.5"),
            ("-0", "0"),
        ] {
            assert_eq!(d(text).to_string(), shown, "{text}");
        }
    }

    #[test]
    fn rejects_what_is_not_exact() {
        assert_eq!("0.0000001".parse::<Decimal>(), Err(DecimalError::TooFine));
        assert_eq!("-1".parse::<Decimal>(), Err(DecimalError::Negative));
        assert_eq!("1e16".parse::<Decimal>(), Err(DecimalError::TooLarge));
        assert_eq!("1e400".parse::<Decimal>(), Err(DecimalError::TooLarge));
        assert_eq!("abc".parse::<Decimal>(), Err(DecimalError::NotANumber));
        assert_eq!(Decimal::from_f64(f64::NAN), Err(DecimalError::NotANumber));
        assert_eq!(
            Decimal::from_f64(f64::INFINITY),
            Err(DecimalError::NotANumber)
        );
    }

    #[test]
    fn floats_read_as_typed() {
        assert_eq!(Decimal::from_f64(0.1).unwrap(), d("0.1"));
        assert_eq!(Decimal::from_f64(0.25).unwrap().to_f64(), 0.25);
        assert_eq!(d("0.1").times(3), d("0.3"));
        assert_eq!(d("0.1").times(3).to_f64(), 0.3);
    }

    #[test]
    fn fit_and_cover() {
        assert_eq!(d("0.1").how_many_fit(d("0.3")), Some(3));
        assert_eq!(d("4").how_many_cover(d("10")), Some(3));
        assert_eq!(Decimal::ZERO.how_many_fit(d("1")), None);
    }
}
