//! A linear f64 coordinate whose tick and grid positions are chosen by us ([`super::axis`]).

use super::axis::AxisPlan;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use std::ops::Range;

/// Maps like plotters' `RangedCoordf64`, with the plan's ticks and minor lines as key points.
pub(crate) struct Ticked {
    inner: RangedCoordf64,
    ticks: Vec<f64>,
    minor: Vec<f64>,
}

impl Ticked {
    pub(super) fn new(plan: &AxisPlan) -> Ticked {
        Ticked {
            inner: (plan.range.start..plan.range.end).into(),
            ticks: plan.ticks.clone(),
            minor: plan.minor.clone(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            let mut all = self.ticks.clone();
            all.extend(self.minor.iter().copied());
            all
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }
}
