//! The driver version and clocks the driver API does not give, from `/proc` and `nvidia-smi`.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one `nvidia-smi` call may take before it is killed.
const SMI_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits [-i <id>]`; one line of values.
pub(crate) fn query(fields: &str, id: Option<&str>) -> Option<Vec<String>> {
    let mut cmd = Command::new("nvidia-smi");
    cmd.arg(format!("--query-gpu={fields}"))
        .arg("--format=csv,noheader,nounits");
    if let Some(id) = id {
        cmd.arg("-i").arg(id);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if start.elapsed() > SMI_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    parse_csv_line(&out)
}

/// The first line of `nvidia-smi` CSV output, split and trimmed.
pub(crate) fn parse_csv_line(out: &str) -> Option<Vec<String>> {
    let line = out.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.split(',').map(|s| s.trim().to_string()).collect())
}

/// A number from an `nvidia-smi` field (`"2619"`, `"2619 MHz"`); `None` for `[N/A]` and the like.
pub(crate) fn parse_number(field: &str) -> Option<f64> {
    field
        .split_whitespace()
        .next()?
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
}

/// The driver version from `/proc/driver/nvidia/version`'s text (`… Kernel Module  580.159.04  …`).
pub(crate) fn parse_proc_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("NVRM version"))?;
    line.split_whitespace()
        .find(|tok| {
            let parts: Vec<&str> = tok.split('.').collect();
            parts.len() >= 2
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_string)
}

/// The NVIDIA driver's version ("580.159.04"), or `None` if it cannot be read.
pub(crate) fn driver_version(pci_bus_id: Option<&str>) -> Option<String> {
    if let Ok(text) = std::fs::read_to_string("/proc/driver/nvidia/version")
        && let Some(v) = parse_proc_version(&text)
    {
        return Some(v);
    }
    query("driver_version", pci_bus_id)
        .and_then(|v| v.into_iter().next())
        .filter(|s| !s.is_empty())
}

/// A clock in MHz: `clocks.max.memory`, `clocks.max.sm` or `clocks.sm` (current, for throttling).
pub(crate) fn clock_mhz(field: &str, pci_bus_id: &str) -> Option<u32> {
    let v = query(field, Some(pci_bus_id))?;
    parse_number(v.first()?)
        .map(|x| x as u32)
        .filter(|&x| x > 0)
}

#[cfg(test)]
#[path = "smi_tests.rs"]
mod tests;
