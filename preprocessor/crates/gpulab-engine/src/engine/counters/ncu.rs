//! Nsight Compute on this machine: where it is (`$NCU`, else `ncu` on PATH), its version, and the
//! command line of the profiled pass. Every flag is written here, once.

use std::path::PathBuf;
use std::process::Command;

/// Environment variable naming the `ncu` binary to use.
pub(crate) const NCU_ENV: &str = "NCU";

/// The profiler's cache and clock settings, recorded with the counters: caches flushed per replay
/// (cold, like the timing pass), clocks left to the driver.
pub(crate) const SETTINGS: &[&str] = &["--cache-control", "all", "--clock-control", "none"];

/// A usable `ncu`.
#[derive(Debug, Clone)]
pub struct Ncu {
    pub path: PathBuf,
    /// The last line of `ncu --version` ("Version 2025.3.0.0 (build …)").
    pub version: String,
}

/// `$NCU` when set, else `ncu` on PATH; `Err` says why there is none (the pass is then skipped).
pub fn find() -> Result<Ncu, String> {
    let path = match std::env::var_os(NCU_ENV).filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => on_path("ncu").ok_or_else(|| {
            format!("Nsight Compute (`ncu`) is not on PATH (set {NCU_ENV}=/path/to/ncu)")
        })?,
    };
    let out = Command::new(&path)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run {} --version: {e}", path.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} --version failed: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("unknown version")
        .trim()
        .to_string();
    Ok(Ncu { path, version })
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

impl Ncu {
    /// `ncu … --csv <worker…>`: profiles the worker's `kernels` (by exact name) for `metrics`,
    /// printing CSV after the worker's own lines (read by `csv::parse`).
    pub(crate) fn profile_command(
        &self,
        kernels: &[String],
        metrics: &[String],
        worker: &[String],
    ) -> Command {
        let mut cmd = Command::new(&self.path);
        cmd.args(["--target-processes", "all", "--replay-mode", "kernel"])
            .args(SETTINGS)
            .arg("--kernel-name")
            .arg(kernel_filter(kernels))
            .arg("--metrics")
            .arg(metrics.join(","))
            .arg("--csv")
            .args(worker);
        cmd
    }
}

/// `regex:^(a|b)$` over the kernels' function names (plain C identifiers: nothing to escape).
fn kernel_filter(kernels: &[String]) -> String {
    let mut k: Vec<&str> = kernels.iter().map(String::as_str).collect();
    k.sort();
    k.dedup();
    format!("regex:^({})$", k.join("|"))
}

/// The settings as recorded on the points.
pub(crate) fn settings_text() -> String {
    format!("--replay-mode kernel {}", SETTINGS.join(" "))
}

#[cfg(test)]
#[path = "ncu_tests.rs"]
mod tests;
