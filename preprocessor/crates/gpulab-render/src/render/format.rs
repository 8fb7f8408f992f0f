//! Consistent number formatting by unit: three significant digits, thin-space thousands.

use crate::value::Unit;

/// Narrow no-break space between groups of thousands (`1 234`).
pub(crate) const THOUSANDS_SEP: char = '\u{202f}';

/// A value as a cell shows it: three significant digits, never rounding away integer digits
/// (`1 234`); ratios two (`4.3×`); counts and bytes exactly.
pub fn format_value(value: f64, unit: Unit) -> String {
    if value.is_nan() {
        return "n/a".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "∞" } else { "−∞" }.into();
    }
    match unit {
        Unit::Percent => format!("{}\u{a0}%", significant(value, 3)),
        Unit::Ratio => format!("{}×", significant(value, 2)),
        Unit::Count | Unit::Bytes if value.fract() == 0.0 => group_integer(value),
        _ => significant(value, 3),
    }
}

/// A compact axis tick label: like [`format_value`] without trailing zeros.
pub(crate) fn format_tick(value: f64, unit: Unit) -> String {
    let text = format_value(value, unit);
    let (number, suffix) = match text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '−' || c == THOUSANDS_SEP))
    {
        Some(at) => text.split_at(at),
        None => (text.as_str(), ""),
    };
    format!("{}{suffix}", trim_zeros(number))
}

/// A decimal number without its trailing zeros (`1.50` → `1.5`, `2.0` → `2`).
pub(crate) fn trim_zeros(number: &str) -> &str {
    match number.contains('.') {
        true => number.trim_end_matches('0').trim_end_matches('.'),
        false => number,
    }
}

/// A whole multiple of 1024, 1024², … in binary prefixes (`128 Mi`); `None` for other values.
pub(crate) fn binary_multiple(value: f64) -> Option<String> {
    // Ticks come back from log space: 2^20 as 1048576.0000000002.
    let rounded = value.round();
    if value.is_nan()
        || value < 1024.0
        || (value - rounded).abs() > 1e-9 * value
        || value > 2f64.powi(60)
    {
        return None;
    }
    let value = rounded;
    let v = value as u64;
    let (count, prefix) = ["Ki", "Mi", "Gi", "Ti", "Pi"]
        .iter()
        .enumerate()
        .map(|(i, p)| (1u64 << (10 * (i + 1)), *p))
        .rfind(|(unit, _)| v.is_multiple_of(*unit))?;
    Some(format!("{}\u{a0}{prefix}", v / count))
}

/// `digits` significant digits; values of `10^digits` and more print as grouped integers.
fn significant(value: f64, digits: i32) -> String {
    if value == 0.0 {
        return "0".into();
    }
    if value < 0.0 {
        return format!("−{}", significant(-value, digits));
    }
    let magnitude = value.abs().log10().floor() as i32;
    let mut decimals = (digits - 1 - magnitude).max(0);
    let mut rounded = round_to(value, decimals);
    // 9.996 → 10.00 with two decimals: one digit too many, round again.
    if decimals > 0 && rounded.abs().log10().floor() as i32 > magnitude {
        decimals -= 1;
        rounded = round_to(value, decimals);
    }
    if decimals == 0 {
        return group_integer(rounded);
    }
    format!("{rounded:.prec$}", prec = decimals as usize)
}

fn round_to(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

/// `1234567.0` → `1 234 567`; `-1234.0` → `−1 234`.
fn group_integer(value: f64) -> String {
    let digits = format!("{:.0}", value.abs().round());
    let mut out = String::with_capacity(digits.len() + 8);
    if value.round() < 0.0 {
        out.push('−');
    }
    let len = digits.len();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (len - i) % 3 == 0 {
            out.push(THOUSANDS_SEP);
        }
        out.push(c);
    }
    out
}

/// Full-precision value for CSV export (shortest text that round-trips).
pub(crate) fn csv_number(value: f64) -> String {
    format!("{value}")
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
