//! Sharding a run over N GPUs or machines: points (bundled where they share a costly buffer set)
//! dealt longest first to the least-loaded shard, by predicted wall time; deterministic.

use super::job::{BudgetHints, JobPoint, size_of};
use super::recorder::JobGroup;
use crate::record::{Outcome, Point};
use std::collections::{BTreeMap, HashMap};

/// Per-point work outside the timed samples: inputs, reference, verification run (seconds).
pub(crate) const SETUP_S: f64 = 0.05;
/// A point of a variant with no recording at any size: a guess scaled by size within the variant.
pub(crate) const UNRECORDED_S: f64 = 0.1;

/// A buffer set cheaper than this to make is not kept together: its points are dealt one by one.
pub(crate) const BUNDLE_MIN_S: f64 = 0.5;

/// Points dealt together, by [`point_id`]: (their bundle, the seconds its buffer set costs once).
pub type Bundles = HashMap<String, (String, f64)>;

/// The bundles of points that share a buffer set, from each point's (id, set, seconds the set costs).
pub fn bundles(points: impl IntoIterator<Item = (String, String, f64)>) -> Bundles {
    points
        .into_iter()
        .filter(|(_, _, shared)| *shared >= BUNDLE_MIN_S)
        .map(|(id, set, shared)| (id, (set, shared)))
        .collect()
}

/// A `--shard K/N` selection (`index` is K − 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// The most shards a run may be split into: one per machine or job, and a slot is kept for each.
pub(crate) const MAX_SHARDS: usize = 10_000;

impl Shard {
    /// Parses `K/N` with 1 ≤ K ≤ N ≤ [`MAX_SHARDS`].
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (k, n) = s.split_once('/').ok_or("expected K/N, e.g. 2/4")?;
        let k: usize = k.trim().parse().map_err(|_| "K must be a number")?;
        let n: usize = n.trim().parse().map_err(|_| "N must be a number")?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k}/{n}: need 1 <= K <= N"));
        }
        if n > MAX_SHARDS {
            return Err(format!(
                "shard {k}/{n}: at most {MAX_SHARDS} shards (one per machine or job)"
            ));
        }
        Ok(Shard {
            index: k - 1,
            count: n,
        })
    }
}

/// The predicted wall time (s) of a point from its last recording: setup plus its runs as the
/// cost model counts them (`estimate::runs_s`); `None` when the recording says nothing about its time.
pub(crate) fn recorded_cost(recorded: &Point) -> Option<f64> {
    match recorded.outcome {
        // A point skipped by the budget is skipped again after a prediction: setup only.
        Outcome::Skipped => Some(SETUP_S),
        Outcome::Failed => None,
        Outcome::Ok => {
            let median_ms = recorded.timing.as_ref()?.median_ms;
            (median_ms.is_finite() && median_ms >= 0.0)
                .then(|| SETUP_S + super::estimate::runs_s(recorded))
        }
    }
}

/// A point's identity across machines: experiment, variant and typed parameter values.
pub fn point_id(experiment: &str, p: &JobPoint) -> String {
    let mut id = format!("{experiment}\u{1f}{}", p.variant);
    for (name, value) in &p.params {
        id.push('\u{1f}');
        id.push_str(name);
        id.push('=');
        id.push_str(&value.typed_text());
    }
    id
}

/// Predicted cost of each point of `groups` from its recordings (`recorded`, this kind of GPU
/// first), else [`UNRECORDED_S`] scaled by size within its variant.
pub fn predict(
    groups: &[JobGroup],
    recorded: &dyn Fn(&str, &JobPoint) -> Vec<Point>,
) -> Vec<Vec<f64>> {
    let known = from_recordings(groups, recorded, &recorded_cost);
    groups
        .iter()
        .zip(known)
        .map(|(g, known)| {
            let smallest = |variant: &str| {
                g.points
                    .iter()
                    .filter(|q| q.variant == variant)
                    .map(|q| size_of(&q.params))
                    .fold(f64::INFINITY, f64::min)
            };
            g.points
                .iter()
                .zip(known)
                .map(|(p, c)| {
                    c.unwrap_or_else(|| {
                        UNRECORDED_S * size_of(&p.params) / smallest(&p.variant).max(1.0)
                    })
                })
                .collect()
        })
        .collect()
}

/// Sets each point's `predicted_s` (its watchdog's scale) where a verified recording predicts it.
pub fn set_predictions(groups: &mut [JobGroup], recorded: &dyn Fn(&str, &JobPoint) -> Vec<Point>) {
    let verified = |p: &Point| recorded_cost(p).filter(|_| p.outcome == Outcome::Ok);
    let known = from_recordings(groups, recorded, &verified);
    for (g, known) in groups.iter_mut().zip(known) {
        for (p, c) in g.points.iter_mut().zip(known) {
            p.predicted_s = c;
        }
    }
}

/// `cost` of each point's own recording, else of its variant's nearest recorded size, scaled.
fn from_recordings(
    groups: &[JobGroup],
    recorded: &dyn Fn(&str, &JobPoint) -> Vec<Point>,
    cost: &dyn Fn(&Point) -> Option<f64>,
) -> Vec<Vec<Option<f64>>> {
    groups
        .iter()
        .map(|g| {
            let known: Vec<Vec<Point>> = g
                .points
                .iter()
                .map(|p| recorded(&g.experiment, p))
                .collect();
            g.points
                .iter()
                .zip(&known)
                .map(|(p, own)| {
                    if let Some(c) = own.first().and_then(cost) {
                        return Some(c);
                    }
                    let size = size_of(&p.params);
                    let nearest = g
                        .points
                        .iter()
                        .zip(&known)
                        .filter(|(q, _)| q.variant == p.variant)
                        .filter_map(|(q, k)| Some((size_of(&q.params), cost(k.first()?)?)))
                        .min_by(|a, b| {
                            let d = |s: f64| (s.ln() - size.ln()).abs();
                            d(a.0).total_cmp(&d(b.0))
                        });
                    nearest.map(|(s, c)| SETUP_S + (c - SETUP_S).max(0.0) * size / s.max(1.0))
                })
                .collect()
        })
        .collect()
}

/// The predicted cost of each point of `groups`, by [`point_id`].
pub fn cost_map(groups: &[JobGroup], costs: &[Vec<f64>]) -> HashMap<String, f64> {
    groups
        .iter()
        .zip(costs)
        .flat_map(|(g, c)| {
            g.points
                .iter()
                .zip(c)
                .map(|(p, c)| (point_id(&g.experiment, p), *c))
        })
        .collect()
}

/// Costs of `groups`' points looked up in a [`cost_map`] (0 for an unknown point).
pub fn costs_of(groups: &[JobGroup], map: &HashMap<String, f64>) -> Vec<Vec<f64>> {
    groups
        .iter()
        .map(|g| {
            g.points
                .iter()
                .map(|p| map.get(&point_id(&g.experiment, p)).copied().unwrap_or(0.0))
                .collect()
        })
        .collect()
}

/// Points dealt whole: (cost, identity, the points as (group, point) indices).
type Unit = (f64, String, Vec<(usize, usize)>);

/// [`assign`], with each shard's predicted seconds.
fn deal(
    groups: &[JobGroup],
    costs: &[Vec<f64>],
    bundles: &Bundles,
    count: usize,
) -> (Vec<Vec<usize>>, Vec<f64>) {
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of: HashMap<&str, usize> = HashMap::new();
    for (gi, g) in groups.iter().enumerate() {
        for (pi, p) in g.points.iter().enumerate() {
            let id = point_id(&g.experiment, p);
            let cost = costs[gi][pi];
            match bundles.get(&id) {
                Some((bundle, shared)) => match unit_of.get(bundle.as_str()) {
                    Some(&u) => {
                        let unit = &mut units[u];
                        unit.0 += cost;
                        unit.2.push((gi, pi));
                        if id < unit.1 {
                            unit.1 = id;
                        }
                    }
                    None => {
                        unit_of.insert(bundle, units.len());
                        units.push((cost + shared, id, vec![(gi, pi)]));
                    }
                },
                None => units.push((cost, id, vec![(gi, pi)])),
            }
        }
    }
    units.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut load = vec![0.0f64; count.max(1)];
    let mut out: Vec<Vec<usize>> = groups.iter().map(|g| vec![0; g.points.len()]).collect();
    for (cost, _, points) in units {
        let (k, _) = load
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .unwrap_or((0, &0.0));
        load[k] += cost;
        for (gi, pi) in points {
            out[gi][pi] = k;
        }
    }
    (out, load)
}

/// Splits `groups` into `count` shards of non-empty groups, with each shard's predicted seconds.
pub fn split(
    groups: &[JobGroup],
    costs: &[Vec<f64>],
    bundles: &Bundles,
    count: usize,
) -> Vec<(Vec<JobGroup>, f64)> {
    let (owner, load) = deal(groups, costs, bundles, count);
    (0..count.max(1))
        .map(|k| {
            let mine = groups
                .iter()
                .enumerate()
                .filter_map(|(gi, g)| {
                    let points: Vec<JobPoint> = g
                        .points
                        .iter()
                        .enumerate()
                        .filter(|(pi, _)| owner[gi][*pi] == k)
                        .map(|(_, p)| p.clone())
                        .collect();
                    (!points.is_empty()).then(|| JobGroup {
                        points,
                        ..g.clone()
                    })
                })
                .collect();
            (mine, load[k])
        })
        .collect()
}

/// Per variant of a dealt job, the largest recorded (size, seconds per run), so the budget rule
/// still sees sizes run on another shard.
pub(crate) fn budget_hints(
    group: &JobGroup,
    recorded: &dyn Fn(&str, &JobPoint) -> Vec<Point>,
    all_points: &[JobPoint],
) -> BudgetHints {
    let mut hints: BudgetHints = BTreeMap::new();
    for p in all_points {
        if !group.points.iter().any(|q| q.variant == p.variant) {
            continue;
        }
        let Some(t) = recorded(&group.experiment, p)
            .into_iter()
            .find_map(|q| (q.outcome == Outcome::Ok).then_some(q.timing).flatten())
        else {
            continue;
        };
        let size = size_of(&p.params);
        let e = hints.entry(p.variant.clone()).or_insert((0.0, 0.0));
        if size >= e.0 {
            *e = (size, t.min_ms / 1e3);
        }
    }
    hints
}

#[cfg(test)]
#[path = "shard_tests.rs"]
mod tests;
