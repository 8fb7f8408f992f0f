//! A recording's points looked up by variant and parameter values in constant time.

use crate::plan::PlannedPoint;
use crate::record::{Point, Recording};
use crate::value::ParamValue;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

/// The points of one recording, bucketed by a hash of (variant, parameter values).
pub struct PointIndex<'a> {
    points: &'a [Point],
    buckets: HashMap<u64, Vec<usize>>,
}

impl<'a> PointIndex<'a> {
    pub fn new(rec: &'a Recording) -> PointIndex<'a> {
        let mut buckets: HashMap<u64, Vec<usize>> = HashMap::with_capacity(rec.points.len());
        for (i, p) in rec.points.iter().enumerate() {
            buckets
                .entry(hash_of(&p.variant, &p.params))
                .or_default()
                .push(i);
        }
        PointIndex {
            points: &rec.points,
            buckets,
        }
    }

    /// The first recorded point with the planned one's variant and parameter values.
    pub fn find(&self, planned: &PlannedPoint) -> Option<&'a Point> {
        let points = self.points;
        self.buckets
            .get(&hash_of(&planned.variant, &planned.params))?
            .iter()
            .map(|&i| &points[i])
            .find(|p| p.variant == planned.variant && p.params == planned.params)
    }
}

/// Equal (variant, values) hash equally: `-0.0` as `0.0`, since they compare equal.
fn hash_of(variant: &str, params: &BTreeMap<String, ParamValue>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    variant.hash(&mut h);
    for (name, value) in params {
        name.hash(&mut h);
        match value {
            ParamValue::Int(i) => (0u8, *i).hash(&mut h),
            ParamValue::Float(f) => (1u8, if *f == 0.0 { 0 } else { f.to_bits() }).hash(&mut h),
            ParamValue::Str(s) => (2u8, s).hash(&mut h),
        }
    }
    h.finish()
}

#[cfg(test)]
#[path = "point_index_tests.rs"]
mod tests;
