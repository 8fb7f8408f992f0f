//! Deterministic buffer initialisers: seeded uniform random, iota, constant, zero.
//!
//! Random values are counter-based: element `i` is `splitmix64(seed + (i + 1)·γ)` (the `i`-th output of a
//! splitmix64 stream), so the data depend only on the seed and the index — never on the machine or on the
//! number of threads that filled the buffer.

use super::{ElemType, Element, HostData, each};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How a buffer is initialised (the `init` field of a `[[buffer]]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Init {
    /// Uniform random: integers in `[lo, hi]` (inclusive), floats in `[lo, hi)`.
    Random { lo: f64, hi: f64 },
    /// `0, 1, 2, …`: the index converted by the element rules (integers wrap modulo 2^bits past
    /// their range, so a `u8` buffer holds 0…255, 0…; floats round to nearest, so `f16` is exact
    /// up to 2048 and `bf16` up to 256).
    Iota,
    /// Every element equal to this value (an integer within an integer type's range; a float type
    /// rounds it to nearest).
    Constant(f64),
    /// All zero.
    Zero,
}

/// An initialiser that cannot produce values of the requested type.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InitError {
    #[error("random range [{lo}, {hi}] is empty for {ty} (lo must not exceed hi)")]
    EmptyRange { lo: f64, hi: f64, ty: ElemType },
    #[error("random range bound {value} is not a finite number")]
    NotFinite { value: f64 },
    #[error("{value} is outside the range of {ty}")]
    OutOfRange { value: f64, ty: ElemType },
    #[error("constant {value} is not an integer, but the buffer's type is {ty}")]
    NotInteger { value: f64, ty: ElemType },
}

/// Elements generated per parallel task (fixed, so the work split never changes the result).
const CHUNK: usize = 1 << 16;
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The splitmix64 output function (a strong 64-bit mixer).
pub(crate) fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `i`-th random 64-bit word of the stream with this seed.
#[inline]
pub fn random_word(seed: u64, i: u64) -> u64 {
    splitmix64(seed.wrapping_add(i.wrapping_add(1).wrapping_mul(GAMMA)))
}

/// A seed for one named buffer, derived from a base seed (FNV-1a of the name, mixed).
pub fn seed_for(base: u64, name: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    splitmix64(base ^ h)
}

/// A new buffer of `len` elements of type `ty`, initialised by `init`.
pub fn generate(ty: ElemType, len: usize, init: &Init, seed: u64) -> Result<HostData, InitError> {
    let mut data = match init {
        // zeros() is calloc-backed: no need to write the pages twice.
        Init::Zero => return Ok(HostData::zeros(ty, len)),
        _ => HostData::zeros(ty, len),
    };
    fill(&mut data, init, seed)?;
    Ok(data)
}

/// Overwrites every element of `data` according to `init`.
pub fn fill(data: &mut HostData, init: &Init, seed: u64) -> Result<(), InitError> {
    let ty = data.elem_type();
    match init {
        Init::Zero => each!(data, v => fill_constant(v, 0.0)),
        Init::Constant(value) => {
            check_constant(*value, ty)?;
            each!(data, v => fill_constant(v, *value));
        }
        Init::Iota => each!(data, v => par_fill(v, Element::from_index)),
        Init::Random { lo, hi } => fill_random(data, *lo, *hi, seed)?,
    }
    Ok(())
}

/// A constant must be representable: an integer within an integer type's range, a finite value
/// within a float type's (it is then rounded to the nearest value of the type).
fn check_constant(value: f64, ty: ElemType) -> Result<(), InitError> {
    if let Some((min, max)) = ty.int_range() {
        if value.fract() != 0.0 || !value.is_finite() {
            return Err(InitError::NotInteger { value, ty });
        }
        if value < min as f64 || value > max as f64 {
            return Err(InitError::OutOfRange { value, ty });
        }
    } else if let Some(max) = ty.float_max()
        && value.is_finite()
        && value.abs() > max
    {
        return Err(InitError::OutOfRange { value, ty });
    }
    Ok(())
}

fn fill_constant<T: Element>(v: &mut [T], value: f64) {
    let c = T::from_f64(value);
    v.par_iter_mut().for_each(|x| *x = c);
}

/// Fills `v[i] = f(i)` in parallel, in fixed-size chunks.
fn par_fill<T: Send>(v: &mut [T], f: impl Fn(u64) -> T + Sync) {
    v.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
        let base = (c * CHUNK) as u64;
        for (j, x) in chunk.iter_mut().enumerate() {
            *x = f(base + j as u64);
        }
    });
}

/// A uniform integer in `[lo, lo + range)` from a 64-bit word (multiply-shift, no modulo bias to speak
/// of); `range` is at most 2⁶⁴.
#[inline]
fn uniform_int(word: u64, lo: i128, range: u128) -> i128 {
    lo + ((u128::from(word) * range) >> 64) as i128
}

/// A uniform float in `[0, 1)` with 53 random bits.
#[inline]
fn unit_f64(word: u64) -> f64 {
    (word >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The largest value of a float type strictly below `x`.
fn below<T: Element>(x: f64) -> T {
    let v = T::from_f64(x);
    if v.to_f64() < x { v } else { v.next_down() }
}

fn random_floats<T: Element>(v: &mut [T], lo: f64, hi: f64, seed: u64) {
    let width = hi - lo;
    let below_hi = below::<T>(hi);
    let lo_t = T::from_f64(lo);
    let floor = if below_hi.to_f64() < lo_t.to_f64() {
        lo_t
    } else {
        below_hi
    };
    par_fill(v, |i| {
        let x = T::from_f64(lo + unit_f64(random_word(seed, i)) * width);
        if width > 0.0 && x.to_f64() >= hi {
            floor
        } else {
            x
        }
    });
}

fn random_ints<T: Element>(v: &mut [T], lo: i128, range: u128, seed: u64) {
    par_fill(v, |i| {
        T::from_i64(uniform_int(random_word(seed, i), lo, range) as i64)
    });
}

fn fill_random(data: &mut HostData, lo: f64, hi: f64, seed: u64) -> Result<(), InitError> {
    let ty = data.elem_type();
    for value in [lo, hi] {
        if !value.is_finite() {
            return Err(InitError::NotFinite { value });
        }
    }
    if let Some((min, max)) = ty.int_range() {
        let (lo_i, hi_i) = (lo.ceil(), hi.floor());
        if lo_i > hi_i {
            return Err(InitError::EmptyRange { lo, hi, ty });
        }
        for value in [lo_i, hi_i] {
            if value < min as f64 || value > max as f64 {
                return Err(InitError::OutOfRange { value, ty });
            }
        }
        let (lo_i, hi_i) = (lo_i as i128, (hi_i as i128).min(max));
        let range = (hi_i - lo_i + 1) as u128;
        each!(data, v => random_ints(v, lo_i, range, seed));
        return Ok(());
    }
    if lo > hi {
        return Err(InitError::EmptyRange { lo, hi, ty });
    }
    let max = ty.float_max().unwrap_or(f64::MAX);
    for value in [lo, hi] {
        if value.abs() > max {
            return Err(InitError::OutOfRange { value, ty });
        }
    }
    each!(data, v => random_floats(v, lo, hi, seed));
    Ok(())
}

#[cfg(test)]
#[path = "init_tests.rs"]
mod tests;
