//! Planning: a directive's axes expanded into points, each with the cache key that decides
//! whether a recording is still current. Pure: no GPU, no clock.

use crate::directive::{Axis, Directive};
use crate::error::Result;
use crate::key::VariantKey;
pub use crate::key::{KEY_VERSION, PointKey, SourceCache, point_key};
use crate::spec::Experiment;
use crate::value::ParamValue;
use std::collections::BTreeMap;

/// One point a directive asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedPoint {
    pub variant: String,
    /// Every spec parameter: defaults overridden by the directive's axes.
    pub params: BTreeMap<String, ParamValue>,
    /// The directive's axes only.
    pub axes: BTreeMap<String, ParamValue>,
    /// The key before the device is named: `key.on(slug)` is what a recording stores.
    pub key: PointKey,
}

/// Combinations of axis values: cartesian over axes, except zipped groups advance together.
/// Order follows the axes as written (the first axis varies slowest).
pub(crate) fn combinations(
    axes: &[Axis],
    zip: &[Vec<String>],
) -> Vec<BTreeMap<String, ParamValue>> {
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
        let variant_key = VariantKey::new(exp, variant, sources)?;
        for axes in &combos {
            if directive
                .inline
                .as_ref()
                .is_some_and(|i| !i.names(vname, axes))
            {
                continue;
            }
            let mut params: BTreeMap<String, ParamValue> = exp.params.iter().cloned().collect();
            params.extend(axes.iter().map(|(k, v)| (k.clone(), v.clone())));
            let key = variant_key.at(&params);
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
#[path = "plan_tests.rs"]
mod tests;
