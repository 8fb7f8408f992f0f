//! The `[preprocessor.gpulab]` table of `book.toml`, with defaults.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// When directives run kernels: `mode` in `book.toml`, `build --mode` on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[cfg_attr(feature = "mdbook", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Run stale points when a GPU is present, else use the recordings.
    #[default]
    Auto,
    /// Never run kernels; render from `data/`.
    Recorded,
    /// Always run stale points; fail without a GPU.
    Live,
}

impl Mode {
    /// Whether a build in this mode runs stale points, given whether a GPU (or a runner standing
    /// in for one) is here. The one place the mode is decided; `gpu_present` is asked only in
    /// `auto` mode. In `live` mode a missing GPU then fails the run with a clear message.
    pub fn runs_kernels(self, gpu_present: impl FnOnce() -> bool) -> bool {
        match self {
            Mode::Recorded => false,
            Mode::Auto => gpu_present(),
            Mode::Live => true,
        }
    }
}

/// The keys mdBook itself reads from a preprocessor's table.
const MDBOOK_KEYS: &[&str] = &["command", "renderers", "before", "after", "optional"];
/// This tool's keys: the fields of [`Config`] (a test checks that each one is read).
const OWN_KEYS: &[&str] = &[
    "mode",
    "strict",
    "device",
    "data",
    "kernels",
    "cache",
    "timeout_s",
    "max_samples",
    "min_samples",
    "noise",
    "budget_s",
    "watchdog_s",
    "max_buffer_bytes",
];

/// Book-wide options. Keys that mdBook itself uses (`command`, `renderers`, …) are left to it; any
/// other key is an error (a typo such as `stritc = true` would otherwise be silently ignored).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Config {
    pub mode: Mode,
    /// A stale or unreadable recording, or an invalid directive, is an error, not a warning (an
    /// experiment awaiting its first GPU run and a failed point stay warnings).
    pub strict: bool,
    /// Device slug shown by default (else the device with the newest recording).
    pub device: Option<String>,
    /// Folders relative to the book root.
    pub data: PathBuf,
    pub kernels: PathBuf,
    /// Cache for compiled PTX (outside `book/`, so `mdbook serve` does not loop).
    pub cache: PathBuf,
    /// Default measurement rules (a directive's `measure` overrides them).
    #[serde(alias = "timeout-s")]
    pub timeout_s: Option<f64>,
    #[serde(alias = "max-samples")]
    pub max_samples: Option<usize>,
    #[serde(alias = "min-samples")]
    pub min_samples: Option<usize>,
    pub noise: Option<f64>,
    /// Default time budget per point for CPU baselines and long launch sequences, seconds.
    #[serde(alias = "budget-s")]
    pub budget_s: Option<f64>,
    /// Seconds a point may run without a result before its worker is killed as hung (default:
    /// derived from the timeout and budget, at least 60 s).
    #[serde(alias = "watchdog-s")]
    pub watchdog_s: Option<f64>,
    /// Bytes all buffers of one point may take when no GPU is known (default
    /// [`crate::limits::DEFAULT_MAX_BUFFER_BYTES`]); a live run also checks the device's memory.
    #[serde(alias = "max-buffer-bytes")]
    pub max_buffer_bytes: Option<u64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: Mode::Auto,
            strict: false,
            device: None,
            data: "data".into(),
            kernels: "kernels".into(),
            cache: ".cache/gpulab".into(),
            timeout_s: None,
            max_samples: None,
            min_samples: None,
            noise: None,
            budget_s: None,
            watchdog_s: None,
            max_buffer_bytes: None,
        }
    }
}

impl Config {
    /// Reads `[preprocessor.gpulab]` from mdBook's config.
    #[cfg(feature = "mdbook")]
    pub fn from_mdbook(cfg: &mdbook_preprocessor::config::Config) -> anyhow::Result<Config> {
        const TABLE: &str = "book.toml [preprocessor.gpulab]";
        let config = cfg
            .get::<Config>("preprocessor.gpulab")
            .map_err(|e| anyhow::anyhow!("{TABLE}: {e:#}"))?
            .unwrap_or_default();
        let mut problems = unknown_keys(
            cfg.get::<toml::Table>("preprocessor.gpulab")
                .ok()
                .flatten()
                .unwrap_or_default()
                .keys()
                .map(String::as_str),
        );
        problems.extend(config.problems());
        if !problems.is_empty() {
            anyhow::bail!("{TABLE}: {}", problems.join("; "));
        }
        Ok(config)
    }

    /// What is wrong with these options: folders outside the book, measurement rules that cannot
    /// work, durations that are not positive.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (key, dir) in [
            ("data", &self.data),
            ("kernels", &self.kernels),
            ("cache", &self.cache),
        ] {
            if let Err(e) = crate::confine::relative_folder(dir) {
                out.push(format!("`{key}`: {e}"));
            }
        }
        out.extend(crate::limits::measure_problems(
            self.timeout_s,
            self.min_samples,
            self.max_samples,
            self.noise,
        ));
        for (key, s) in [("budget_s", self.budget_s), ("watchdog_s", self.watchdog_s)] {
            if let Some(why) = s.and_then(crate::limits::seconds_problem) {
                out.push(format!("`{key} = {}` {why}", s.unwrap_or_default()));
            }
        }
        if self.max_buffer_bytes == Some(0) {
            out.push("`max_buffer_bytes = 0` leaves no room for any buffer".into());
        }
        out
    }

    /// The most bytes the buffers of one point may take, without a device.
    pub fn max_buffer_bytes(&self) -> u64 {
        self.max_buffer_bytes
            .unwrap_or(crate::limits::DEFAULT_MAX_BUFFER_BYTES)
    }

    pub fn data_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.data)
    }
    pub fn kernels_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.kernels)
    }
    pub fn cache_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.cache)
    }
}

/// A message for each key of a `[preprocessor.gpulab]` table that neither mdBook nor this tool reads,
/// with the nearest known key.
pub fn unknown_keys<'a>(keys: impl Iterator<Item = &'a str>) -> Vec<String> {
    let known = || MDBOOK_KEYS.iter().chain(OWN_KEYS).copied();
    // mdBook writes `MDBOOK_PREPROCESSOR__GPULAB__TIMEOUT_S` as `timeout-s`: the same key.
    keys.filter(|k| !known().any(|n| n == k.replace('-', "_")))
        .map(|k| {
            let hint = crate::diagnostic::did_you_mean(k, known())
                .map_or_else(String::new, |h| format!("; {h}"));
            format!("unknown key `{k}`{hint}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key this tool lists as its own is read into the config (none is a leftover).
    #[test]
    fn every_own_key_is_a_config_field() {
        let values: &[(&str, &str)] = &[
            ("mode", "\"live\""),
            ("strict", "true"),
            ("device", "\"x\""),
            ("data", "\"d\""),
            ("kernels", "\"k\""),
            ("cache", "\"c\""),
            ("timeout_s", "9.5"),
            ("max_samples", "7"),
            ("min_samples", "3"),
            ("noise", "0.25"),
            ("budget_s", "8.5"),
            ("watchdog_s", "99.0"),
            ("max_buffer_bytes", "12345"),
        ];
        assert_eq!(values.len(), OWN_KEYS.len());
        let default = format!("{:?}", Config::default());
        for (key, value) in values {
            assert!(OWN_KEYS.contains(key), "{key}");
            let one: Config = toml::from_str(&format!("{key} = {value}")).unwrap();
            assert_ne!(format!("{one:?}"), default, "`{key}` is not read");
        }
    }

    /// The other way round: every field of the config is a listed key, so that adding a field
    /// without listing it (which would make `book.toml`'s new key an "unknown key" error) fails
    /// here. The field names come from the config's `Debug` form (all its fields are plain values).
    #[test]
    fn every_config_field_is_an_own_key() {
        let debug = format!("{:?}", Config::default());
        let body = debug
            .strip_prefix("Config { ")
            .and_then(|b| b.strip_suffix(" }"))
            .expect("the Debug form of a struct");
        let fields: Vec<&str> = body
            .split(", ")
            .filter_map(|part| part.split_once(": ").map(|(name, _)| name))
            .collect();
        assert_eq!(
            fields.len(),
            OWN_KEYS.len(),
            "{fields:?} against {OWN_KEYS:?}"
        );
        for f in fields {
            assert!(OWN_KEYS.contains(&f), "field `{f}` is not in OWN_KEYS");
        }
    }

    /// Regression (session 10): mdBook turns `MDBOOK_PREPROCESSOR__GPULAB__TIMEOUT_S=5` into the
    /// key `timeout-s`, which was ignored (and, with the unknown-key check, refused).
    #[test]
    fn an_environment_override_with_dashes_is_read() {
        let c: Config = toml::from_str("timeout-s = 5.0\nmax-samples = 9").unwrap();
        assert_eq!((c.timeout_s, c.max_samples), (Some(5.0), Some(9)));
    }

    #[test]
    fn an_unknown_key_is_named_with_the_nearest_known_one() {
        let problems = unknown_keys(
            [
                "command",
                "renderers",
                "stritc",
                "mode",
                "timeout-s",
                "max-samples",
            ]
            .into_iter(),
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("`stritc`"), "{problems:?}");
        assert!(problems[0].contains("strict"), "{problems:?}");
    }

    #[test]
    fn folders_outside_the_book_and_broken_rules_are_refused() {
        assert!(Config::default().problems().is_empty());
        let c = Config {
            data: "../elsewhere".into(),
            kernels: "/abs".into(),
            timeout_s: Some(f64::NAN),
            min_samples: Some(9),
            max_samples: Some(3),
            budget_s: Some(-1.0),
            ..Config::default()
        };
        let p = c.problems();
        assert_eq!(p.len(), 5, "{p:?}");
    }

    /// `recorded` never looks for a GPU, `live` never asks, `auto` follows the answer.
    #[test]
    fn the_mode_decides_whether_kernels_run() {
        let asked = std::cell::Cell::new(0);
        let ask = |answer| {
            asked.set(asked.get() + 1);
            answer
        };
        assert!(!Mode::Recorded.runs_kernels(|| ask(true)));
        assert!(Mode::Live.runs_kernels(|| ask(false)));
        assert_eq!(asked.get(), 0);
        assert!(Mode::Auto.runs_kernels(|| ask(true)));
        assert!(!Mode::Auto.runs_kernels(|| ask(false)));
        assert_eq!(asked.get(), 2);
    }
}
