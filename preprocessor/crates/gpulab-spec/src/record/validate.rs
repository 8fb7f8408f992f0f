//! What a file under `data/` must be before it is believed, one rule set for `check`, builds and
//! `merge`: recordings whose values a measurement can give, and device files (library anchors,
//! calibration, profiler check) of a known schema, with known keys and a real date.

use super::schema::Recording;
use crate::limits::{MAX_SAMPLES, MAX_SECONDS};
use chrono::{DateTime, FixedOffset};

/// The longest string a file under `data/` may hold (a failure's compiler log included), bytes.
pub const MAX_STRING_BYTES: usize = 1 << 20;

/// The longest time a point may have taken, ms: a day, the longest `timeout_s` and `budget_s`.
const MAX_TIME_MS: f64 = MAX_SECONDS * 1e3;

/// The first string of JSON `text` longer than [`MAX_STRING_BYTES`], as a message naming its
/// line; a linear scan of the bytes, before anything is parsed.
pub(crate) fn oversized_string(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let (mut i, mut line) = (0, 1);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i - start > MAX_STRING_BYTES {
                    return Some(format!(
                        "line {line}: a string of {} bytes; at most {MAX_STRING_BYTES} are read",
                        i - start
                    ));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The 1-based line where the `index`-th point of recording `text` starts, when it can be found.
fn point_line(text: &str, index: usize) -> Option<usize> {
    #[derive(serde::Deserialize)]
    struct Points<'a> {
        #[serde(borrow)]
        points: Vec<&'a serde_json::value::RawValue>,
    }
    let points: Points = serde_json::from_str(text).ok()?;
    let at = points.points.get(index)?.get().as_ptr() as usize - text.as_ptr() as usize;
    Some(
        1 + text.as_bytes()[..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
    )
}

/// What makes a parsed recording impossible, for the first point it finds (named with its line
/// in `text`): a timing no measurement gives (not finite, not positive, longer than a day, min ≤
/// q1 ≤ median ≤ q3 ≤ max broken, no samples or more than any rule takes, negative noise), an
/// `ok` point carrying a failure, or a point recorded twice. The tool never writes such a file;
/// one edited by hand would render (and be judged by claims) as if measured.
pub(crate) fn implausible(rec: &Recording, text: &str) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    let device = &rec.device;
    let peaks = [
        Some(device.fp32_peak_gflops),
        device.theoretical_bandwidth_gbps,
    ];
    if peaks.iter().flatten().any(|x| !(0.0..1e9).contains(x)) {
        return Some("the device's peak bandwidth or FP32 rate is not a plausible number".into());
    }
    for (index, p) in rec.points.iter().enumerate() {
        let problem = if !seen.insert(point_identity(&p.variant, &p.params)) {
            Some("is recorded twice")
        } else if p.outcome == crate::record::Outcome::Ok && p.failure.is_some() {
            Some("outcome `ok` but a failure is recorded")
        } else {
            p.timing.as_ref().and_then(timing_problem)
        };
        if let Some(problem) = problem {
            let line = point_line(text, index).map_or_else(String::new, |l| format!(" (line {l})"));
            return Some(format!(
                "point `{}` at {:?}{line}: {problem}",
                p.variant, p.params
            ));
        }
    }
    None
}

/// Why a stored timing is one no measurement gives, if it is.
fn timing_problem(t: &super::Timing) -> Option<&'static str> {
    let values = [t.min_ms, t.q1_ms, t.median_ms, t.q3_ms, t.max_ms];
    let times = values.iter().chain(&t.empty_kernel_ms);
    if values.iter().chain([&t.noise]).any(|x| !x.is_finite()) {
        Some("a timing value is not a finite number")
    } else if t.median_ms <= 0.0 || t.min_ms <= 0.0 || t.empty_kernel_ms.is_some_and(|e| e <= 0.0) {
        Some("a time is not positive")
    } else if times.into_iter().any(|x| *x > MAX_TIME_MS) {
        Some("a time is longer than a day")
    } else if values.windows(2).any(|w| w[0] > w[1]) {
        Some("min ≤ q1 ≤ median ≤ q3 ≤ max does not hold")
    } else if t.samples == 0 {
        Some("a timing of no samples")
    } else if t.samples > MAX_SAMPLES {
        Some("more samples than any measurement rule takes")
    } else if t.noise < 0.0 {
        Some("negative noise")
    } else {
        None
    }
}

/// A point's (variant, parameter values) as one string: two points are the same cell when their
/// identities are equal (`merge` indexes by it, the check above finds repeats by it).
pub(crate) fn point_identity(
    variant: &str,
    params: &std::collections::BTreeMap<String, crate::value::ParamValue>,
) -> String {
    format!("{variant}\u{1f}{params:?}")
}

/// What a device file must be: the schema versions this tool reads, the top-level keys its
/// script writes (older versions' too), and where its date is.
#[derive(Debug)]
pub struct DeviceSchema {
    pub schemas: &'static [u64],
    /// Separated by white space.
    pub keys: &'static str,
    /// JSON pointer to the RFC 3339 time the file was measured (a file may state none).
    pub date: &'static str,
}

impl DeviceSchema {
    /// The file's JSON, checked: sizes, a known `schema`, only known keys, a real date.
    pub fn check(&self, text: &str) -> Result<serde_json::Value, String> {
        if let Some(why) = oversized_string(text) {
            return Err(why);
        }
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let object = value.as_object().ok_or("not a JSON object")?;
        let schema = object.get("schema").ok_or("no `schema` version field")?;
        if !schema.as_u64().is_some_and(|s| self.schemas.contains(&s)) {
            return Err(format!(
                "schema version {schema}: this mdbook-gpulab reads {}",
                self.schemas
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" or ")
            ));
        }
        let known = || self.keys.split_whitespace();
        if let Some(key) = object.keys().find(|k| !known().any(|n| n == *k)) {
            let hint = crate::diagnostic::did_you_mean(key, known())
                .map_or_else(String::new, |h| format!("; {h}"));
            return Err(format!("unknown key `{key}`{hint}"));
        }
        self.date(&value)?;
        Ok(value)
    }

    /// The date the file states: `None` when it states none, an error when it is no RFC 3339
    /// time (compared as instants, so `…+02:00` and `…Z` order correctly).
    pub fn date(&self, value: &serde_json::Value) -> Result<Option<DateTime<FixedOffset>>, String> {
        let Some(date) = value.pointer(self.date) else {
            return Ok(None);
        };
        let text = date
            .as_str()
            .ok_or_else(|| format!("`{}` is not a string", self.date))?;
        DateTime::parse_from_rfc3339(text)
            .map(Some)
            .map_err(|_| format!("`{}` = \"{text}\" is not an RFC 3339 time", self.date))
    }
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
