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
    /// Reads `[preprocessor.gpulab]` from mdBook's config of the book at `root`; each problem
    /// names its line of `book.toml` (mdBook's copy of the table has no lines: the file is read
    /// again for them).
    #[cfg(feature = "mdbook")]
    pub fn from_mdbook(
        cfg: &mdbook_preprocessor::config::Config,
        root: &Path,
    ) -> anyhow::Result<Config> {
        let text = std::fs::read_to_string(root.join("book.toml")).unwrap_or_default();
        let config = match cfg.get::<Config>("preprocessor.gpulab") {
            Ok(config) => config.unwrap_or_default(),
            Err(e) => anyhow::bail!(
                "{}",
                spanned_error(&text).unwrap_or(format!("{TABLE}: {e:#}"))
            ),
        };
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
            let located: Vec<String> = problems.iter().map(|p| located(&text, p)).collect();
            anyhow::bail!("{}", located.join("\n"));
        }
        Ok(config)
    }

    /// What is wrong with these options: folders outside the book, the same as or inside one
    /// another, measurement rules that cannot work, durations that are not positive. Each
    /// message names its key in backquotes first.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let folders = [
            ("data", &self.data),
            ("kernels", &self.kernels),
            ("cache", &self.cache),
        ];
        for (key, dir) in folders {
            if let Err(e) = crate::confine::relative_folder(dir) {
                out.push(format!("`{key}`: {e}"));
            }
        }
        out.extend(nested_folders(&folders));
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

    /// Why `device` cannot be shown, given the devices `data/` has recordings of (an empty list:
    /// none yet, when any slug may be the one a first run records).
    pub fn device_problem(&self, known: &[String]) -> Option<String> {
        let slug = self.device.as_deref()?;
        if known.is_empty() || known.iter().any(|k| k == slug) {
            return None;
        }
        let hint = crate::diagnostic::did_you_mean(slug, known.iter().map(String::as_str))
            .map_or_else(String::new, |h| format!("; {h}"));
        Some(format!(
            "`device = \"{slug}\"`: data/ has no recordings of this device (it has: {}){hint}",
            known.join(", ")
        ))
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

/// How book.toml's table is named in messages.
const TABLE: &str = "book.toml [preprocessor.gpulab]";

/// `problem` prefixed with `book.toml:<line>:` where the first key it names in backquotes
/// (`` `cache = "data"` ``) is written in book.toml's `text`.
pub(crate) fn located(text: &str, problem: &str) -> String {
    let line = problem
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|k| k.split([' ', '=']).next())
        .find_map(|key| key_line(text, key));
    match line {
        Some(line) => format!("book.toml:{line}: [preprocessor.gpulab] {problem}"),
        None => format!("{TABLE}: {problem}"),
    }
}

/// The 1-based line of `key` in the `[preprocessor.gpulab]` table of book.toml's `text`.
fn key_line(text: &str, key: &str) -> Option<usize> {
    fn find<'a, 'i>(
        t: &'a toml::de::DeTable<'i>,
        name: &str,
    ) -> Option<(std::ops::Range<usize>, &'a toml::de::DeValue<'i>)> {
        t.iter()
            .find(|(k, _)| k.get_ref().as_ref() == name)
            .map(|(k, v)| (k.span(), v.get_ref()))
    }
    let doc = toml::de::DeTable::parse(text).ok()?;
    let (_, preprocessor) = find(doc.get_ref(), "preprocessor")?;
    let (_, gpulab) = find(preprocessor.as_table()?, "gpulab")?;
    let (span, _) = find(gpulab.as_table()?, key)?;
    Some(1 + text[..span.start].matches('\n').count())
}

/// The error of reading `[preprocessor.gpulab]` from book.toml's `text` itself, with its line.
#[cfg(feature = "mdbook")]
fn spanned_error(text: &str) -> Option<String> {
    // Read only for their errors.
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Book {
        preprocessor: Option<Preprocessors>,
    }
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Preprocessors {
        gpulab: Option<Config>,
    }
    let e = toml::from_str::<Book>(text).err()?;
    let line = 1 + text[..e.span()?.start.min(text.len())]
        .matches('\n')
        .count();
    Some(format!(
        "book.toml:{line}: [preprocessor.gpulab] {}",
        e.message().trim()
    ))
}

/// Each pair of the book's folders of which one is the other or inside it (`cache = "data"`
/// would have every build write its cache, and a `.gitignore` of `*`, into `data/`).
fn nested_folders(folders: &[(&str, &PathBuf)]) -> Vec<String> {
    let plain = |p: &Path| -> PathBuf {
        p.components()
            .filter(|c| matches!(c, std::path::Component::Normal(_)))
            .collect()
    };
    let mut out = Vec::new();
    for (i, (a, da)) in folders.iter().enumerate() {
        if plain(da).as_os_str().is_empty() {
            out.push(format!(
                "`{a} = \"{}\"` is the book's root: name a folder inside it",
                da.display()
            ));
            continue;
        }
        for (b, db) in &folders[i + 1..] {
            let (pa, pb) = (plain(da), plain(db));
            if pb.as_os_str().is_empty() {
                continue;
            }
            let relation = if pa == pb {
                "the same folder as"
            } else if pa.starts_with(&pb) {
                "inside"
            } else if pb.starts_with(&pa) {
                "around"
            } else {
                continue;
            };
            out.push(format!(
                "`{a} = \"{}\"` is {relation} `{b} = \"{}\"`: the data, kernels and cache folders must be distinct, none inside another",
                da.display(),
                db.display()
            ));
        }
    }
    out
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
