//! `mdbook-gpulab ncu-verdicts` (hidden): a check's verdicts as the book computes them, as JSON.

use crate::results::ncu_check::NcuCheckFile;
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;

pub(super) fn run(file: &Path) -> anyhow::Result<ExitCode> {
    let text =
        std::fs::read_to_string(file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let check: NcuCheckFile = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{} cannot be read: {e}", file.display()))?;
    let rows = check
        .rows()
        .iter()
        .map(|r| {
            let mut v = serde_json::to_value(r)?;
            v["experiment"] = json!(r.point.experiment);
            v["variant"] = json!(r.point.variant);
            v["params"] = json!(r.point.params);
            v["within"] = json!(r.verdict());
            Ok(v)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    println!("{}", serde_json::to_string_pretty(&rows)?);
    Ok(ExitCode::SUCCESS)
}
