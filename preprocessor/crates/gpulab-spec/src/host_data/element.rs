//! One Rust type per buffer element type, with the conversions every buffer applies per element:
//! from a number (`init = { constant = … }`, a formula's value, a reference computed in `f64`) and
//! from an index (`init = "iota"`).
//!
//! The rules, stated once (the book's "Element types", in adding-an-experiment.md):
//! - integers: an integer value is taken modulo 2^bits (it wraps, as the kernel's own integer
//!   arithmetic does); a fractional value is truncated toward zero first; NaN is 0 and values beyond
//!   the 64-bit range saturate there before wrapping;
//! - floats: rounded to the nearest representable value, ties to even; beyond the type's largest
//!   finite value the result is ±∞ (`f16`: 65504, `bf16`: about 3.39e38).

use crate::expr::Num;
use half::{bf16, f16};

/// A buffer element: how a value of the element type is made from, and widened to, a number.
pub trait Element: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// The element widened to `f64` (exact, except 64-bit integers beyond 2⁵³).
    fn to_f64(self) -> f64;
    /// A number converted by the rules above.
    fn from_f64(x: f64) -> Self;
    /// An exact integer converted by the rules above (no detour through `f64`).
    fn from_i64(i: i64) -> Self;
    /// Element `i` of `iota`.
    fn from_index(i: u64) -> Self;
    /// A formula's value converted by the rules above.
    fn from_num(n: Num) -> Self {
        match n {
            Num::Int(i) => Self::from_i64(i),
            Num::Float(f) => Self::from_f64(f),
        }
    }
    /// The element as an exact integer (integers only; floats return `None`).
    fn to_i128(self) -> Option<i128>;
    /// The next smaller value (floats: toward −∞; integers: minus one, wrapping).
    fn next_down(self) -> Self;
}

/// A float truncated toward zero into the 64-bit integer range (`NaN` → 0), as an `i128`.
fn truncate(x: f64) -> i128 {
    if x >= 0.0 {
        i128::from(x as u64)
    } else {
        i128::from(x as i64)
    }
}

macro_rules! integer_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(x: f64) -> Self {
                truncate(x) as $t
            }
            fn from_i64(i: i64) -> Self {
                i as $t
            }
            fn from_index(i: u64) -> Self {
                i as $t
            }
            fn to_i128(self) -> Option<i128> {
                Some(self as i128)
            }
            fn next_down(self) -> Self {
                self.wrapping_sub(1)
            }
        }
    )*};
}
integer_element!(u8, i8, u16, i16, u32, i32, u64, i64);

macro_rules! float_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn from_i64(i: i64) -> Self {
                i as $t
            }
            fn from_index(i: u64) -> Self {
                i as $t
            }
            fn to_i128(self) -> Option<i128> {
                None
            }
            fn next_down(self) -> Self {
                <$t>::next_down(self)
            }
        }
    )*};
}
float_element!(f32, f64);

macro_rules! half_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
            fn from_f64(x: f64) -> Self {
                <$t>::from_f64(x)
            }
            fn from_i64(i: i64) -> Self {
                // Exact in f64 for every index and constant a buffer of this type can use, so
                // rounding once (to the half type) is the correct rounding.
                <$t>::from_f64(i as f64)
            }
            fn from_index(i: u64) -> Self {
                <$t>::from_f64(i as f64)
            }
            fn to_i128(self) -> Option<i128> {
                None
            }
            fn next_down(self) -> Self {
                // IEEE layout: stepping the magnitude's bits steps to the neighbouring value.
                let bits = self.to_bits();
                <$t>::from_bits(if bits & 0x7fff == 0 {
                    0x8001
                } else if bits & 0x8000 == 0 {
                    bits - 1
                } else {
                    bits + 1
                })
            }
        }
    )*};
}
half_element!(f16, bf16);

#[cfg(test)]
#[path = "element_tests.rs"]
mod tests;
