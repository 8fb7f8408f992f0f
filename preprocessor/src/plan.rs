//! Planning: a directive's axes expanded into points, each with the cache key that decides
//! whether a recording is still current. Pure: no GPU, no clock.

use crate::directive::{Axis, Directive};
use crate::error::{Error, Result};
use crate::spec::{Exec, Experiment, Variant};
use crate::value::ParamValue;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bump when the meaning of a key changes (e.g. the engine's measurement method).
pub const KEY_VERSION: &str = "gpulab-key-1";

/// One point a directive asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedPoint {
    pub variant: String,
    /// Every spec parameter: defaults overridden by the directive's axes.
    pub params: BTreeMap<String, ParamValue>,
    /// The directive's axes only.
    pub axes: BTreeMap<String, ParamValue>,
    pub key: String,
}

/// Combinations of axis values: cartesian over axes, except zipped groups advance together.
/// Order follows the axes as written (the first axis varies slowest).
pub fn combinations(axes: &[Axis], zip: &[Vec<String>]) -> Vec<BTreeMap<String, ParamValue>> {
    // Units: each zip group, or a lone axis; each unit is a list of assignments.
    let mut units: Vec<Vec<Vec<(String, ParamValue)>>> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for axis in axes {
        if seen.contains(&axis.name.as_str()) {
            continue;
        }
        let group = zip.iter().find(|g| g.contains(&axis.name));
        let members: Vec<&Axis> = match group {
            Some(g) => axes.iter().filter(|a| g.contains(&a.name)).collect(),
            None => vec![axis],
        };
        seen.extend(members.iter().map(|a| a.name.as_str()));
        let len = members.iter().map(|a| a.values.len()).min().unwrap_or(0);
        units.push(
            (0..len)
                .map(|i| {
                    members
                        .iter()
                        .map(|a| (a.name.clone(), a.values[i].clone()))
                        .collect()
                })
                .collect(),
        );
    }
    let mut out = vec![BTreeMap::new()];
    for unit in units {
        let mut next = Vec::with_capacity(out.len() * unit.len());
        for base in &out {
            for assignment in &unit {
                let mut m = base.clone();
                m.extend(assignment.iter().cloned());
                next.push(m);
            }
        }
        out = next;
    }
    out
}

/// Reads kernel sources once per process; keys hash their bytes.
#[derive(Default)]
pub struct SourceCache {
    files: Mutex<HashMap<PathBuf, std::result::Result<String, String>>>,
}

impl SourceCache {
    pub fn read(&self, path: &Path) -> Result<String> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        let entry = files
            .entry(path.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(path).map_err(|e| e.to_string()));
        entry.clone().map_err(|e| Error::io(path, e))
    }
}

/// The cache key of a variant at some parameter values: kernel source and includes, the spec
/// text it depends on, the parameter values and the key version.
pub fn point_key(
    exp: &Experiment,
    variant: &Variant,
    params: &BTreeMap<String, ParamValue>,
    sources: &SourceCache,
) -> Result<String> {
    let mut h = Sha256::new();
    h.update(KEY_VERSION);
    h.update([0]);
    h.update(&exp.name);
    h.update([0]);
    if let Exec::Kernel { source, .. } = &variant.exec {
        h.update(sources.read(source)?);
        h.update([0]);
    }
    for inc in &exp.includes {
        h.update(sources.read(inc)?);
        h.update([0]);
    }
    h.update(&exp.common_key_text);
    h.update([0]);
    h.update(&variant.key_text);
    h.update([0]);
    h.update(serde_json::to_string(params).unwrap_or_default());
    let digest = h.finalize();
    Ok(digest.iter().take(16).map(|b| format!("{b:02x}")).collect())
}

/// The points a directive asks for, in display order (variant-major).
pub fn plan(
    directive: &Directive,
    exp: &Experiment,
    sources: &SourceCache,
) -> Result<Vec<PlannedPoint>> {
    let combos = combinations(&directive.axes, &directive.zip);
    let mut points = Vec::with_capacity(combos.len() * directive.variants.len());
    for vname in &directive.variants {
        let Some(variant) = exp.variant(vname) else {
            continue;
        };
        for axes in &combos {
            let mut params: BTreeMap<String, ParamValue> = exp.params.iter().cloned().collect();
            params.extend(axes.iter().map(|(k, v)| (k.clone(), v.clone())));
            let key = point_key(exp, variant, &params, sources)?;
            points.push(PlannedPoint {
                variant: vname.clone(),
                params,
                axes: axes.clone(),
                key,
            });
        }
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(name: &str, vals: &[i64]) -> Axis {
        Axis {
            name: name.into(),
            values: vals.iter().map(|v| ParamValue::Int(*v)).collect(),
        }
    }

    #[test]
    fn cartesian_product_first_axis_slowest() {
        let c = combinations(&[axis("N", &[1, 2]), axis("M", &[10, 20, 30])], &[]);
        assert_eq!(c.len(), 6);
        assert_eq!(c[0]["N"], ParamValue::Int(1));
        assert_eq!(c[1]["M"], ParamValue::Int(20));
        assert_eq!(c[3]["N"], ParamValue::Int(2));
    }

    #[test]
    fn zipped_axes_advance_together() {
        let zip = vec![vec!["BX".to_string(), "BY".to_string()]];
        let c = combinations(
            &[
                axis("BX", &[32, 16]),
                axis("BY", &[1, 2]),
                axis("N", &[5, 6]),
            ],
            &zip,
        );
        assert_eq!(c.len(), 4);
        assert_eq!(
            (c[0]["BX"].clone(), c[0]["BY"].clone()),
            (ParamValue::Int(32), ParamValue::Int(1))
        );
        assert_eq!(
            (c[2]["BX"].clone(), c[2]["BY"].clone()),
            (ParamValue::Int(16), ParamValue::Int(2))
        );
    }

    #[test]
    fn no_axes_gives_one_combination() {
        assert_eq!(combinations(&[], &[]).len(), 1);
    }
}
