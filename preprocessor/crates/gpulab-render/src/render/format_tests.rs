//! Tests of `format`.

use super::*;

#[test]
fn powers_of_two_in_binary_prefixes() {
    assert_eq!(binary_multiple(134217728.0).as_deref(), Some("128\u{a0}Mi"));
    assert_eq!(binary_multiple(1024.0).as_deref(), Some("1\u{a0}Ki"));
    assert_eq!(binary_multiple(3.0 * 1024.0).as_deref(), Some("3\u{a0}Ki"));
    assert_eq!(binary_multiple(1073741824.0).as_deref(), Some("1\u{a0}Gi"));
    assert_eq!(binary_multiple(1000.0), None);
    assert_eq!(binary_multiple(1536.5), None);
    assert_eq!(binary_multiple(512.0), None);
}

fn nb(s: &str) -> String {
    s.replace(' ', &THOUSANDS_SEP.to_string())
}

#[test]
fn milliseconds_three_significant_digits() {
    assert_eq!(format_value(0.012345, Unit::Millis), "0.0123");
    assert_eq!(format_value(1.2345, Unit::Millis), "1.23");
    assert_eq!(format_value(12.345, Unit::Millis), "12.3");
    assert_eq!(format_value(123.45, Unit::Millis), "123");
    assert_eq!(format_value(1234.4, Unit::Millis), nb("1 234"));
    assert_eq!(format_value(1234567.0, Unit::Millis), nb("1 234 567"));
    assert_eq!(format_value(9.996, Unit::Millis), "10.0");
    assert_eq!(format_value(0.0, Unit::Millis), "0");
    assert_eq!(format_value(0.5, Unit::Millis), "0.500");
}

#[test]
fn throughput_and_suffixes() {
    assert_eq!(format_value(1234.0, Unit::GigabytesPerSec), nb("1 234"));
    assert_eq!(format_value(56.72, Unit::GflopsPerSec), "56.7");
    assert_eq!(format_value(85.24, Unit::Percent), "85.2\u{a0}%");
    assert_eq!(format_value(4.31, Unit::Ratio), "4.3×");
    assert_eq!(format_value(0.0523, Unit::Ratio), "0.052×");
    assert_eq!(format_value(32.0, Unit::Count), "32");
    assert_eq!(format_value(49152.0, Unit::Bytes), nb("49 152"));
    assert_eq!(format_value(-1234.0, Unit::Millis), nb("−1 234"));
    assert_eq!(format_value(-0.5, Unit::Millis), "−0.500");
    assert_eq!(format_value(f64::NAN, Unit::Millis), "n/a");
    assert_eq!(format_value(f64::INFINITY, Unit::Millis), "∞");
}

#[test]
fn ticks_drop_trailing_zeros() {
    assert_eq!(format_tick(0.1, Unit::Millis), "0.1");
    assert_eq!(format_tick(1.0, Unit::Millis), "1");
    assert_eq!(format_tick(10.0, Unit::Millis), "10");
    assert_eq!(format_tick(1000.0, Unit::Millis), nb("1 000"));
    assert_eq!(format_tick(0.25, Unit::Millis), "0.25");
    assert_eq!(format_tick(50.0, Unit::Percent), "50\u{a0}%");
    assert_eq!(format_tick(2.5, Unit::Ratio), "2.5×");
    assert_eq!(format_tick(-0.5, Unit::Millis), "−0.5");
}

#[test]
fn csv_keeps_full_precision() {
    assert_eq!(csv_number(0.123456789), "0.123456789");
    assert_eq!(csv_number(2.0), "2");
}
