//! `mdbook-gpulab record --estimate`: predicts `record`'s wall time per experiment without a GPU.

use super::point_facts::point_facts;
use super::record::{RecordArgs, groups_to_run};
use crate::engine::estimate::{Estimate, estimate};
use crate::results::Recordings;
use std::path::Path;
use std::process::ExitCode;

/// Prints the estimate for `device` (a slug; the book's data's first device when empty).
pub(super) fn run(dir: &Path, device: &str, args: &RecordArgs) -> anyhow::Result<ExitCode> {
    let (ws, found) = super::book::load(dir)?;
    if found
        .iter()
        .filter_map(|f| f.parsed.as_ref().err())
        .any(|diags| !diags.is_empty())
    {
        anyhow::bail!("fix the invalid directives first (`mdbook-gpulab check`)");
    }
    let (ws, found) = (&ws, &found[..]);
    let mut recordings = Recordings::new(ws.data())?;
    if !device.is_empty() {
        crate::confine::plain_name(device)
            .map_err(|e| anyhow::anyhow!("--estimate {device}: not a device slug: {e}"))?;
    }
    let known = ws.data().devices()?;
    anyhow::ensure!(
        !known.is_empty(),
        "no recordings to estimate from: data/ has none yet (the estimate reads the recorded timings of some GPU)"
    );
    let device = if device.is_empty() {
        known[0].clone()
    } else {
        if !known.iter().any(|d| d == device) {
            let hint = crate::diagnostic::did_you_mean(device, known.iter().map(String::as_str))
                .map_or_else(String::new, |h| format!(" ({h})"));
            eprintln!(
                "note: data/ has no recordings of `{device}`{hint}: every point's time comes from the other devices' recordings ({})",
                known.join(", ")
            );
        }
        device.to_string()
    };
    let groups = groups_to_run(ws, found, &mut recordings, &device, args)?;
    let facts = point_facts(ws, &groups, &recordings, &device);
    print!("{}", report(&device, &estimate(&facts)));
    Ok(ExitCode::SUCCESS)
}

/// The table: per experiment, points and seconds in each lane (GPU | beside | alone).
fn report(device: &str, e: &Estimate) -> String {
    let mut s = format!(
        "predicted `record` on {device} (recorded timings, cost model engine::estimate)\n\
         {:<22} {:>6} {:>9} {:>8} {:>8}\n",
        "experiment", "points", "GPU", "beside", "alone"
    );
    for (name, n, l) in &e.experiments {
        s += &format!(
            "{name:<22} {n:>6} {:>9.1} {:>8.1} {:>8.1}\n",
            l.gpu, l.beside, l.alone
        );
    }
    s += &format!(
        "total: {:.0} s (GPU lane {:.0} s, single-threaded CPU baselines beside it {:.0} s, then \
         multi-threaded ones alone {:.0} s)\n",
        e.total_s(),
        e.lanes.gpu,
        e.lanes.beside,
        e.lanes.alone
    );
    s
}
