//! Tests of `element`.

use super::*;

#[test]
fn integers_wrap_and_truncate() {
    assert_eq!(u8::from_i64(256 + 7), 7);
    assert_eq!(u8::from_i64(-1), 255);
    assert_eq!(i8::from_i64(128), -128);
    assert_eq!(u16::from_f64(65536.9), 0);
    assert_eq!(i16::from_f64(-2.9), -2);
    assert_eq!(u32::from_f64(-1.0), u32::MAX);
    assert_eq!(i32::from_f64(f64::NAN), 0);
    assert_eq!(u64::from_f64(1e30), u64::MAX);
    assert_eq!(i64::from_f64(-1e30), i64::MIN);
    assert_eq!(u64::from_num(Num::Int(-1)), u64::MAX);
    assert_eq!(i64::from_num(Num::Int(i64::MAX)), i64::MAX);
    assert_eq!(u8::from_index(300), 44);
}

#[test]
fn floats_round_to_nearest_even() {
    // 2049 lies halfway between the f16 neighbours 2048 and 2050: ties go to the even mantissa.
    assert_eq!(f16::from_index(2049).to_f64(), 2048.0);
    assert_eq!(f16::from_index(2051).to_f64(), 2052.0);
    assert_eq!(<f16 as Element>::from_f64(70000.0).to_f64(), f64::INFINITY);
    assert_eq!(bf16::from_index(257).to_f64(), 256.0);
    assert_eq!(<bf16 as Element>::from_f64(0.1).to_f64(), 0.10009765625);
    assert_eq!(<f32 as Element>::from_f64(0.1), 0.1f32);
    assert_eq!(f32::from_num(Num::Int(16_777_217)), 16_777_216.0);
}
