//! Matching a directive's planned points with recordings: cells, staleness, provenance, claims.

use crate::claims::{Claim, ClaimData, ClaimGroup, ClaimOutcome};
use crate::directive::{DeviceSelection, Directive};
use crate::expr::Num;
use crate::metrics::{BUILTINS, STAT_SUFFIXES, Source, TIME_MS};
use crate::papers::PaperTable;
use crate::plan::PlannedPoint;
use crate::record::{DataDir, Outcome, Point, PointProvenance, Recording, StoreError, TimingMode};
use crate::spec::Experiment;
use crate::value::ParamValue;
use event_offset::EventOffset;
use point_index::PointIndex;
use std::collections::{BTreeMap, HashMap};
use view::{
    Cell, ClaimStatus, ClaimView, DeviceResults, DirectiveView, OtherDeviceClaims, Provenance,
};

pub mod anchors;
pub mod code;
pub mod device_files;
pub mod event_offset;
pub mod ncu_check;
pub mod point_index;
pub mod view;

/// Recordings loaded lazily, once per (device, experiment), with each device's event-overhead calibration.
pub struct Recordings {
    data: DataDir,
    devices: Vec<String>,
    offsets: HashMap<String, event_offset::EventOffset>,
    /// (device, message) of each calibration that could not be read (its times are shown uncorrected).
    offset_errors: Vec<(String, String)>,
    loaded: HashMap<(String, String), Option<Recording>>,
}

impl Recordings {
    pub fn new(data: DataDir) -> Result<Self, StoreError> {
        let devices = data.devices()?;
        let (offsets, offset_errors) = load_offsets(&data, &devices);
        Ok(Recordings {
            data,
            devices,
            offsets,
            offset_errors,
            loaded: HashMap::new(),
        })
    }

    /// Whether `device` has a calibration that cannot be read (its times are shown uncorrected).
    pub(crate) fn calibration_unreadable(&self, device: &str) -> bool {
        self.offset_errors.iter().any(|(d, _)| d == device)
    }

    /// A message for each event-overhead calibration that could not be read.
    pub fn unreadable_calibrations(&self) -> impl Iterator<Item = &String> {
        self.offset_errors.iter().map(|(_, message)| message)
    }

    /// The event-overhead calibration of `device`'s points, if it has one.
    pub fn event_offset(&self, device: &str) -> Option<&event_offset::EventOffset> {
        self.offsets.get(device)
    }

    pub fn data(&self) -> &DataDir {
        &self.data
    }

    /// Forgets cached files (after the engine wrote new recordings).
    pub fn reload(&mut self) -> Result<(), StoreError> {
        self.devices = self.data.devices()?;
        (self.offsets, self.offset_errors) = load_offsets(&self.data, &self.devices);
        self.loaded.clear();
        Ok(())
    }

    /// Reads the recordings of `experiments` in parallel; one that cannot be read is left for `preload`.
    pub fn preload_all<'e>(&mut self, experiments: impl Iterator<Item = &'e Experiment>) {
        use rayon::prelude::*;
        let mut wanted: Vec<(String, &Experiment)> = Vec::new();
        for exp in experiments {
            for dev in &self.devices {
                let key = (dev.clone(), exp.name.clone());
                if !self.loaded.contains_key(&key)
                    && !wanted.iter().any(|(d, e)| *d == key.0 && e.name == key.1)
                {
                    wanted.push((dev.clone(), exp));
                }
            }
        }
        let read: Vec<_> = wanted
            .into_par_iter()
            .filter_map(|(dev, exp)| {
                let rec = self.read(&dev, exp).ok()?;
                Some(((dev, exp.name.clone()), rec))
            })
            .collect();
        self.loaded.extend(read);
    }

    /// One device's recording of `exp`, with its derived metrics.
    fn read(&self, dev: &str, exp: &Experiment) -> Result<Option<Recording>, StoreError> {
        let mut rec = self.data.load(dev, &exp.name)?;
        if let Some(r) = rec.as_mut() {
            derive_metrics(r, exp, self.offsets.get(dev));
        }
        Ok(rec)
    }

    /// Loads every device's recording of `exp` into the cache, with its derived metrics.
    pub fn preload(&mut self, exp: &Experiment) -> Result<(), StoreError> {
        for dev in self.devices.clone() {
            let key = (dev.clone(), exp.name.clone());
            if !self.loaded.contains_key(&key) {
                let rec = self.read(&dev, exp)?;
                self.loaded.insert(key, rec);
            }
        }
        Ok(())
    }

    /// The points of directive `d` (of `experiment`) that must run on `device`: see [`needs_run`].
    pub fn to_run(
        &mut self,
        device: &str,
        d: &Directive,
        exp: &Experiment,
        points: &[PlannedPoint],
    ) -> Result<Vec<PlannedPoint>, StoreError> {
        let mine = self.on_device(device, exp)?.map(PointIndex::new);
        let mode = d.measure.mode.unwrap_or(TimingMode::Cold);
        Ok(points
            .iter()
            .filter(|p| needs_run(mine.as_ref().and_then(|r| r.find(p)), p, device, mode))
            .cloned()
            .collect())
    }

    /// The planned `points` whose recording on `device` none of `commits` made (`--rerun-unless-from`).
    pub fn recorded_by_other_commits(
        &mut self,
        device: &str,
        exp: &Experiment,
        points: &[PlannedPoint],
        commits: &[String],
    ) -> Result<Vec<PlannedPoint>, StoreError> {
        let mine = self.on_device(device, exp)?.map(PointIndex::new);
        Ok(points
            .iter()
            .filter(|p| {
                mine.as_ref()
                    .and_then(|r| r.find(p))
                    .is_some_and(|q| !commits.iter().any(|c| made_by(q, c)))
            })
            .cloned()
            .collect())
    }

    /// The recording of `exp` on `device`, if any (loaded on first use).
    fn on_device(
        &mut self,
        device: &str,
        exp: &Experiment,
    ) -> Result<Option<&Recording>, StoreError> {
        self.preload(exp)?;
        Ok(self
            .of(&exp.name)
            .into_iter()
            .find(|r| r.device.slug == device))
    }

    /// Recordings of `experiment` (call `preload` first), by device slug.
    pub fn of(&self, experiment: &str) -> Vec<&Recording> {
        self.devices
            .iter()
            .filter_map(|d| {
                self.loaded
                    .get(&(d.clone(), experiment.to_string()))?
                    .as_ref()
            })
            .collect()
    }
}

/// Every device's calibration, and (device, message) for each one that cannot be read.
fn load_offsets(
    data: &DataDir,
    devices: &[String],
) -> (
    HashMap<String, event_offset::EventOffset>,
    Vec<(String, String)>,
) {
    let (mut out, mut errors) = (HashMap::new(), Vec::new());
    for d in devices {
        match event_offset::load(data, d) {
            Ok(c) => out.extend(c.map(|c| (d.clone(), c))),
            Err(e) => errors.push((
                d.clone(),
                format!("{e}; {d}'s times are shown without the event-overhead correction"),
            )),
        }
    }
    (out, errors)
}

/// Replaces every point's `metrics` with the spec's formulas at its time as shown: computed when the
/// book renders, never taken from the file, so fixing a formula needs no GPU.
pub fn derive_metrics(rec: &mut Recording, exp: &Experiment, cal: Option<&EventOffset>) {
    let device = rec.device.clone();
    for p in &mut rec.points {
        let time_ms = event_offset::metric(p, cal, TIME_MS);
        p.metrics = match time_ms {
            Some(t) => {
                let at = (t, p.attributes.as_ref());
                crate::spec::metrics::derive(exp, &p.variant, &p.params, at, &device)
            }
            None => BTreeMap::new(),
        };
        if p.outcome != Outcome::Ok {
            continue;
        }
        if let Some(c) = p.counters.as_ref().filter(|c| c.current_for(&p.key)) {
            let cx = crate::metrics::counters::Context {
                time_ms,
                flops: crate::spec::metrics::flops_at(exp, &p.variant, &p.params, &device),
            };
            p.metrics
                .extend(crate::metrics::counters::derive(&c.values, cx));
        }
    }
}

/// A directive's view: its planned points matched with the recordings it shows (preload `exp` first).
pub fn directive_view<'a>(
    d: &'a Directive,
    exp: &Experiment,
    points: &[PlannedPoint],
    recordings: &'a Recordings,
    default_device: Option<&str>,
    paper: Option<&'a PaperTable>,
) -> DirectiveView<'a> {
    let recs = select_devices(recordings.of(&exp.name), &d.devices, default_device, points);
    let other_devices = other_devices_claims(d, exp, points, recordings, &recs);
    DirectiveView {
        directive: d,
        experiment_title: exp.title.clone(),
        variant_labels: d
            .variants
            .iter()
            .map(|v| {
                (
                    v.clone(),
                    exp.variant(v).map(|x| x.label.clone()).unwrap_or_default(),
                )
            })
            .collect(),
        metrics: crate::directive::metrics::directive_metric_infos(d, exp),
        devices: recs
            .iter()
            .map(|r| {
                let cal = recordings.event_offset(&r.device.slug);
                let mut dev = device_results(r, d, points, cal);
                dev.provenance.calibration_unreadable =
                    recordings.calibration_unreadable(&r.device.slug);
                dev
            })
            .collect(),
        other_devices,
        paper,
        self_check: paper.into_iter().map(|p| vec![p]).collect(),
        expected_cells: points.len(),
        code: Vec::new(),
    }
}

/// The claims on every device with a recording that the directive does not show (`shown`).
fn other_devices_claims(
    d: &Directive,
    exp: &Experiment,
    points: &[PlannedPoint],
    recordings: &Recordings,
    shown: &[&Recording],
) -> Vec<OtherDeviceClaims> {
    if d.expect.is_empty() {
        return Vec::new();
    }
    recordings
        .of(&exp.name)
        .into_iter()
        .filter(|r| !shown.iter().any(|s| s.device.slug == r.device.slug))
        .filter_map(|r| {
            let cells = cells_of(r, d, points, recordings.event_offset(&r.device.slug));
            cells
                .iter()
                .any(|c| c.point.is_some())
                .then(|| OtherDeviceClaims {
                    device: r.device.name.clone(),
                    claims: claims_of(&cells, d),
                })
        })
        .collect()
}

/// The self-check's data sets: the `paper` table (unless a set merges it), then each `paper_check` set.
pub fn self_check_sets<'a>(
    paper: Option<&'a PaperTable>,
    checks: Vec<Vec<&'a PaperTable>>,
) -> Vec<Vec<&'a PaperTable>> {
    let merged = |p: &PaperTable| checks.iter().flatten().any(|t| t.id == p.id);
    let mut sets: Vec<Vec<&PaperTable>> = paper
        .filter(|p| !merged(p))
        .into_iter()
        .map(|p| vec![p])
        .collect();
    sets.extend(checks);
    sets
}

/// Whether `point` was recorded by `commit` (short hashes of any length match by prefix).
pub(crate) fn made_by(point: &Point, commit: &str) -> bool {
    point
        .commit
        .as_deref()
        .is_some_and(|c| crate::record::schema::same_commit(c, commit))
}

/// Whether a planned point must run (again): nothing recorded, a new key, or another timing mode. A
/// failed point with a current key is current: retrying a hung kernel would cost its watchdog each build.
pub fn needs_run(
    recorded: Option<&Point>,
    planned: &PlannedPoint,
    device: &str,
    mode: TimingMode,
) -> bool {
    let Some(q) = recorded else { return true };
    if q.key != planned.key.on(device) || !q.measured_the_current_way() {
        return true;
    }
    match q.timing.as_ref().map(|t| t.mode) {
        Some(recorded @ (TimingMode::Cold | TimingMode::Hot)) => recorded != mode,
        // A CPU baseline is timed on the host whatever the directive asks.
        Some(TimingMode::Host) | None => false,
    }
}

/// Whether `name` names the device `slug`: a run of its `-`-separated parts (`h100`).
pub fn device_matches(name: &str, slug: &str) -> bool {
    format!("-{slug}-").contains(&format!("-{name}-"))
}

/// Picks the recordings a directive shows: all, one slug, or the default device.
pub(crate) fn select_devices<'a>(
    recs: Vec<&'a Recording>,
    selection: &DeviceSelection,
    default_device: Option<&str>,
    points: &[PlannedPoint],
) -> Vec<&'a Recording> {
    match selection {
        DeviceSelection::All => recs,
        DeviceSelection::Slug(slug) => recs
            .into_iter()
            .filter(|r| device_matches(slug, &r.device.slug))
            .collect(),
        DeviceSelection::Default => {
            if let Some(d) = default_device
                && let Some(r) = recs.iter().find(|r| r.device.slug == d)
            {
                return vec![*r];
            }
            // The device that recorded most of these points; ties go to the newest recording.
            let score = |r: &Recording| {
                let index = PointIndex::new(r);
                let matched = points
                    .iter()
                    .filter_map(|p| index.find(p))
                    .collect::<Vec<_>>();
                let newest = matched.iter().map(|p| p.recorded_at).max();
                (matched.len(), newest)
            };
            recs.into_iter()
                .max_by_key(|r| score(r))
                .into_iter()
                .collect()
        }
    }
}

/// One device's cells, provenance and claims for a directive, less its event overhead `cal`.
pub(crate) fn device_results<'a>(
    rec: &'a Recording,
    directive: &Directive,
    points: &[PlannedPoint],
    cal: Option<&'a EventOffset>,
) -> DeviceResults<'a> {
    let cells = cells_of(rec, directive, points, cal);
    let shown: Vec<&Point> = cells.iter().filter_map(|c| c.point).collect();
    let newest = shown.iter().max_by_key(|p| p.recorded_at);
    let made: Vec<&PointProvenance> = shown.iter().filter_map(|p| p.provenance.as_ref()).collect();
    let cuda = distinct(made.iter().map(|m| Some(m.cuda_version.as_str())));
    let driver = distinct(made.iter().map(|m| m.driver_version.as_deref()));
    let details = [
        (
            "NVRTC",
            distinct(made.iter().map(|m| Some(m.nvrtc_version.as_str()))),
        ),
        ("GPU", distinct(made.iter().map(|m| m.gpu_uuid.as_deref()))),
        (
            "compiled for",
            distinct(made.iter().map(|m| m.code_target.as_deref())),
        ),
        (
            "counters by Nsight Compute",
            distinct(shown.iter().map(|p| {
                p.counters
                    .as_ref()
                    .filter(|c| c.current_for(&p.key))
                    .map(|c| c.profiler.as_str())
            })),
        ),
    ];
    let details = details
        .into_iter()
        .filter_map(|(label, v)| Some(format!("{label} {}", v?)));
    let provenance = Provenance {
        device_name: rec.device.name.clone(),
        // The points' own versions when they name them (the file's device record is the last run's).
        cuda_version: cuda.unwrap_or_else(|| rec.device.cuda_version.clone()),
        driver_version: driver.or_else(|| rec.device.driver_version.clone()),
        date: date_range(&shown),
        commit: commits(&shown),
        tool_version: newest.map(|p| p.tool_version.clone()).unwrap_or_default(),
        details: details.collect(),
        event_offset_us: event_offset_range(&shown, cal),
        calibration_unreadable: false,
    };
    let claims = claims_of(&cells, directive);
    DeviceResults {
        device: &rec.device,
        cells,
        provenance,
        claims,
    }
}

/// A claim naming a variant this GPU cannot run: not evaluated, and the view says why.
fn not_applicable(claim: &Claim, cells: &[Cell<'_>]) -> Option<ClaimView> {
    let refs = claim.result_refs();
    let why = refs.iter().find_map(|(variant, _)| {
        let mine = cells.iter().filter(|c| &c.variant == variant);
        let points: Vec<&Point> = mine.filter_map(|c| c.point).collect();
        let needs = |p: &&Point| {
            let f = p.failure.as_ref()?;
            (f.kind == crate::record::FailureKind::NotApplicable).then(|| f.message.clone())
        };
        let first = points.first().and_then(needs)?;
        points
            .iter()
            .all(|p| needs(p).is_some())
            .then(|| format!("`{variant}` {first}"))
    })?;
    Some(ClaimView {
        text: claim.text().to_string(),
        status: ClaimStatus::NotEvaluated,
        detail: format!("not applicable on this GPU: {why}"),
    })
}

/// One device's cell for each planned point, with the relative metrics the directive names.
fn cells_of<'a>(
    rec: &'a Recording,
    directive: &Directive,
    points: &[PlannedPoint],
    cal: Option<&'a EventOffset>,
) -> Vec<Cell<'a>> {
    let slug = &rec.device.slug;
    let index = PointIndex::new(rec);
    let mut cells: Vec<Cell<'a>> = points
        .iter()
        .map(|p| {
            let point = index.find(p);
            Cell {
                variant: p.variant.clone(),
                axes: p.axes.clone(),
                point,
                stale: point.is_some_and(|r| r.key != p.key.on(slug)),
                relative: BTreeMap::new(),
                calibration: cal,
                device: &rec.device,
            }
        })
        .collect();
    add_relative_metrics(&mut cells, directive);
    cells
}

/// The verdict of each of the directive's claims on one device's cells.
fn claims_of(cells: &[Cell], directive: &Directive) -> Vec<ClaimView> {
    if directive.expect.is_empty() {
        return Vec::new();
    }
    let groups = CellGroups { cells }.groups();
    directive
        .expect
        .iter()
        .map(|claim| not_applicable(claim, cells).unwrap_or_else(|| verdict(claim, &groups)))
        .collect()
}

/// The distinct values, sorted and joined with ", "; `None` when there are none.
fn distinct<'v>(values: impl Iterator<Item = Option<&'v str>>) -> Option<String> {
    let mut v: Vec<&str> = values.flatten().collect();
    v.sort_unstable();
    v.dedup();
    (!v.is_empty()).then(|| v.join(", "))
}

/// The event overhead subtracted from `points`, per launch (µs), least and most.
fn event_offset_range(points: &[&Point], cal: Option<&EventOffset>) -> Option<(f64, f64)> {
    points
        .iter()
        .filter_map(|p| {
            let s = event_offset::shown(p, cal)?;
            Some(s.overhead_ms? * s.timing.runs_per_sample.max(1) as f64 * 1e3)
        })
        .fold(None, extend)
}

/// `span` widened to hold `x` (fold with `None` for the smallest and largest of some values).
pub(crate) fn extend(span: Option<(f64, f64)>, x: f64) -> Option<(f64, f64)> {
    let (lo, hi) = span.unwrap_or((x, x));
    Some((lo.min(x), hi.max(x)))
}

/// "2026-11-19", or "2026-11-19 – 2026-11-21" when the points shown were recorded on several days.
fn date_range(points: &[&Point]) -> String {
    let day = |p: &&Point| p.recorded_at.format("%Y-%m-%d").to_string();
    match (points.iter().map(day).min(), points.iter().map(day).max()) {
        (Some(a), Some(b)) if a != b => format!("{a} – {b}"),
        (_, Some(b)) => b,
        _ => String::new(),
    }
}

/// The commits the points shown were recorded from ("a1, b2"), noting when some name none.
fn commits(points: &[&Point]) -> Option<String> {
    let known = distinct(points.iter().map(|p| p.commit.as_deref()))?;
    match points.iter().any(|p| p.commit.is_none()) {
        true => Some(format!("{known} (some points name none)")),
        false => Some(known),
    }
}

/// Fills each cell's relative metrics (`speedup:<variant>`, `pct_of:<variant>`, …) from the baseline
/// cell at the same axis values, when both are verified and timed.
pub(crate) fn add_relative_metrics(cells: &mut [Cell<'_>], directive: &Directive) {
    let wanted = crate::directive::metrics::relative_metrics(directive);
    if wanted.is_empty() {
        return;
    }
    let times: HashMap<(String, String), f64> = cells
        .iter()
        .filter_map(|c| Some(((c.variant.clone(), axes_label(&c.axes)), ok_time(c)?)))
        .collect();
    for cell in cells.iter_mut() {
        let Some(this) = ok_time(cell) else {
            continue;
        };
        let at = axes_label(&cell.axes);
        for (name, rel) in &wanted {
            let value = rel
                .baseline_of(&cell.variant, &directive.variants)
                .and_then(|b| times.get(&(b.to_string(), at.clone())))
                .and_then(|base| rel.value(*base, this));
            if let Some(v) = value {
                cell.relative.insert(name.clone(), v);
            }
        }
    }
}

/// (relative values, of which the baseline comes from another or an unknown run); `None` without any.
pub(crate) fn relative_pairing(
    cells: &[Cell<'_>],
    directive: &Directive,
) -> Option<(usize, usize)> {
    let wanted = crate::directive::metrics::relative_metrics(directive);
    if wanted.is_empty() {
        return None;
    }
    let runs: HashMap<(String, String), Option<&str>> = cells
        .iter()
        .filter_map(|c| {
            let p = c.point?;
            Some(((c.variant.clone(), axes_label(&c.axes)), p.run.as_deref()))
        })
        .collect();
    let (mut paired, mut apart) = (0, 0);
    for cell in cells {
        let Some(point) = cell.point else { continue };
        let at = axes_label(&cell.axes);
        for (name, rel) in &wanted {
            if !cell.relative.contains_key(name) {
                continue;
            }
            let base = rel
                .baseline_of(&cell.variant, &directive.variants)
                .and_then(|b| runs.get(&(b.to_string(), at.clone())))
                .copied()
                .flatten();
            paired += 1;
            if base.is_none() || base != point.run.as_deref() {
                apart += 1;
            }
        }
    }
    Some((paired, apart))
}

/// The median time shown of a cell's verified, timed point.
fn ok_time(cell: &Cell<'_>) -> Option<f64> {
    cell.metric(TIME_MS).filter(|t| t.is_finite() && *t > 0.0)
}

/// The claim data of a directive's cells: one group per combination of axis values.
struct CellGroups<'c, 'a> {
    cells: &'c [Cell<'a>],
}

impl ClaimData for CellGroups<'_, '_> {
    fn groups(&self) -> Vec<ClaimGroup> {
        let mut groups: Vec<ClaimGroup> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for cell in self.cells {
            let label = axes_label(&cell.axes);
            let i = *index.entry(label.clone()).or_insert_with(|| {
                let axes = numeric_axes(&cell.axes);
                groups.push(ClaimGroup {
                    axes,
                    label,
                    values: HashMap::new(),
                });
                groups.len() - 1
            });
            // A point measured the old way is not compared with points measured the current way.
            if let Some(point) = cell.point.filter(|p| p.measured_the_current_way()) {
                for metric in metric_names(point) {
                    if let Some(v) = cell.metric(&metric) {
                        groups[i].values.insert((cell.variant.clone(), metric), v);
                    }
                }
            }
        }
        groups
    }
}

fn metric_names(point: &Point) -> Vec<String> {
    let timing = BUILTINS.iter().filter(|b| b.source == Source::Timing);
    let mut names: Vec<String> = timing
        .clone()
        .map(|b| b.name.to_string())
        .chain(timing.flat_map(|b| {
            // `median` last, as before: the plain name already is the median.
            let mut suffixes = STAT_SUFFIXES.to_vec();
            suffixes.rotate_left(1);
            suffixes.into_iter().map(move |s| format!("{}.{s}", b.name))
        }))
        .collect();
    names.extend(point.metrics.keys().cloned());
    names.extend(
        BUILTINS
            .iter()
            .filter(|b| matches!(b.source, Source::Attribute(_)))
            .map(|b| b.name.to_string()),
    );
    names
}

/// `N=640, M=16`
pub(crate) fn axes_label(axes: &BTreeMap<String, ParamValue>) -> String {
    axes.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The axis values a claim can use (numbers; string axes are left out).
pub(crate) fn numeric_axes(axes: &BTreeMap<String, ParamValue>) -> BTreeMap<String, Num> {
    axes.iter()
        .filter_map(|(k, v)| match v {
            ParamValue::Int(i) => Some((k.clone(), Num::Int(*i))),
            ParamValue::Float(f) => Some((k.clone(), Num::Float(*f))),
            ParamValue::Str(_) => None,
        })
        .collect()
}

/// The verdict of a parsed claim on groups already built (our cells, or a paper's table).
pub fn verdict(claim: &Claim, groups: &[crate::claims::ClaimGroup]) -> ClaimView {
    let outcome = claim.evaluate_groups(groups);
    ClaimView {
        text: claim.text().to_string(),
        status: match outcome {
            ClaimOutcome::Holds { .. } => ClaimStatus::Holds,
            ClaimOutcome::Fails { .. } => ClaimStatus::Fails,
            ClaimOutcome::NotEvaluated { .. } => ClaimStatus::NotEvaluated,
        },
        detail: crate::claims::describe(&outcome),
    }
}

#[cfg(test)]
#[path = "results_tests.rs"]
mod tests;
