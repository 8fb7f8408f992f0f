//! HTML of the Nsight Compute check: per device, ncu's time of each checked point beside the engine's
//! recorded median and its median in the check's own call, or "not run yet on this GPU".

use super::html::escape;
use crate::results::ncu_check::{
    DeviceCheck, NcuCheckFile, NcuPoint, OffsetUsed, SameRunInfo, SameRunPoint,
};

/// The tables, one per device (a note for a device without a check, or when there is no device).
pub fn ncu_check_html(devices: &[DeviceCheck]) -> String {
    if devices.is_empty() {
        return "<p class=\"gpulab-missing-note\">The Nsight Compute check has not run yet: no GPU has \
                recordings.</p>\n"
            .to_string();
    }
    devices
        .iter()
        .map(|d| match (&d.file, &d.unreadable) {
            (_, Some(why)) => format!(
                "<p class=\"gpulab-missing-note\"><strong>{}</strong>: its Nsight Compute check \
                 cannot be read ({}).</p>\n",
                escape(&d.slug),
                escape(why)
            ),
            (Some(f), None) => device_html(f),
            (None, None) => format!(
                "<p class=\"gpulab-missing-note\"><strong>{}</strong>: the Nsight Compute check has not \
                 run yet on this GPU (<code>STEPS=ncu bash scripts/gpu-suite.sh</code> on it runs \
                 <code>scripts/ncu_check.py</code>).</p>\n",
                escape(&d.slug)
            ),
        })
        .collect()
}

fn point_label(p: &NcuPoint) -> String {
    let params: Vec<String> = p.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "<code>{}/{}</code> {}",
        escape(&p.experiment),
        escape(&p.variant),
        escape(&params.join(" "))
    )
}

fn device_html(f: &NcuCheckFile) -> String {
    match &f.same_run {
        Some(run) => same_run_html(f, run),
        None => recordings_only_html(f),
    }
}

/// A millisecond cell less the event overhead (and the gaps between launches), with what was
/// measured in its tooltip.
fn corrected_cell(ms: f64, raw: Option<f64>, gaps_ms: Option<f64>) -> String {
    let gaps = gaps_ms.unwrap_or(0.0);
    match raw {
        Some(r) if r != ms => {
            let gaps_note = if gaps > 0.0 {
                format!(
                    " and {:.3} µs of gaps between its launches, which ncu's sum does not count",
                    gaps * 1e3
                )
            } else {
                String::new()
            };
            format!(
                "<td title=\"as measured {r:.4} ms, less {:.3} µs of event overhead{gaps_note}\">{ms:.4}</td>",
                (r - ms - gaps) * 1e3
            )
        }
        _ => format!("<td>{ms:.4}</td>"),
    }
}

/// The verdict on the same-call run, and for a point outside it, ncu's time of the engine's own
/// launches beside the engine's.
fn same_run_verdict_cell(p: &NcuPoint) -> String {
    let Some(s) = &p.same_run else {
        return verdict_cell(p.within).to_string();
    };
    match (s.ncu_engine_launches_ms, s.ratio_engine_launches) {
        (Some(ms), Some(r)) if !s.within => format!(
            "<td><strong>outside</strong><br><small>ncu on the engine's own launches: {ms:.4} ms; \
             engine ÷ that {r:.3}, {}</small></td>",
            if s.within_engine_launches == Some(true) {
                "within: on the engine's own launches (a run just after) ncu agrees with it"
            } else {
                "<strong>outside</strong>"
            }
        ),
        _ => verdict_cell(s.within).to_string(),
    }
}

fn verdict_cell(within: bool) -> &'static str {
    if within {
        "<td>within</td>"
    } else {
        "<td><strong>outside</strong></td>"
    }
}

/// A check that also timed the points with the engine in its own call: the verdict is on that run
/// (two timers, one machine, one time); the recordings' ratios stand beside it.
fn same_run_html(f: &NcuCheckFile, run: &SameRunInfo) -> String {
    let n = f.points.len();
    let within = f.points.iter().filter(|p| p.verdict()).count();
    let recorded_within = f.points.iter().filter(|p| p.within).count();
    let failed = f
        .points
        .iter()
        .filter(|p| p.same_run.as_ref().is_some_and(|s| s.outcome != "ok"))
        .count();
    let worst = f
        .points
        .iter()
        .filter_map(NcuPoint::verdict_ratio)
        .map(|r| (r - 1.0).abs())
        .fold(0.0f64, f64::max);
    let offset = f.event_offset.as_ref().map_or_else(String::new, |o| {
        let timings = f.points.iter().flat_map(|p| {
            std::iter::once(Subtracted::recorded(p))
                .chain(p.same_run.as_ref().map(Subtracted::same_call))
        });
        format!("; both less {}", overhead_phrase(o, timings))
    });
    let failed = if failed > 0 {
        format!(" ({failed} failed in the engine's run)")
    } else {
        String::new()
    };
    // Of the points outside, those where ncu on the engine's own launches agrees with the engine:
    // a difference of launch (the script's process and buffers), not of timing.
    let outside = n - within;
    let agree = f
        .points
        .iter()
        .filter(|p| !p.verdict())
        .filter(|p| {
            p.same_run
                .as_ref()
                .and_then(|s| s.within_engine_launches)
                .unwrap_or(false)
        })
        .count();
    let on_engine = if agree > 0 {
        format!(
            " Of the {outside} outside, {agree} {} within target against ncu on the engine's own \
             launches (a run just after): on the same launches the two timers agree.",
            if agree == 1 { "is" } else { "are" }
        )
    } else {
        String::new()
    };
    let spread = overhead_spread(f).unwrap_or_default();
    let mut out = format!(
        "<div class=\"gpulab-ncu-check\"><p><strong>{}</strong>: {within} of {n} points within target \
         against the engine timed in the same call on the same GPU{failed} (±{:.0} % for kernels of \
         {:.0} µs or more, ±{:.0} % below; largest deviation {:.1} %); against the handbook's \
         recordings, made in earlier runs (often on another machine): {recorded_within} of {n}{offset}.{on_engine}{spread}</p>\n\
         <table>\n<thead><tr><th>point</th><th>mode</th><th>launches</th><th>ncu (ms)</th>\
         <th>engine, recorded (ms)</th><th>÷ ncu</th><th>engine, this call (ms)</th><th>÷ ncu</th>\
         <th>target</th><th></th></tr></thead>\n<tbody>\n",
        escape(&f.gpu),
        f.targets.long * 100.0,
        f.targets.short_below_us,
        f.targets.short * 100.0,
        worst * 100.0
    );
    for p in &f.points {
        let same = match &p.same_run {
            Some(s) => match (s.engine_ms, s.ratio) {
                (Some(ms), Some(r)) => {
                    format!(
                        "{}<td>{r:.3}</td>",
                        corrected_cell(ms, s.engine_raw_ms, s.launch_gaps_ms)
                    )
                }
                _ => format!(
                    "<td colspan=\"2\" title=\"{}\">{}</td>",
                    escape(&s.failure_text()),
                    escape(&s.outcome)
                ),
            },
            None => "<td colspan=\"2\">not timed</td>".to_string(),
        };
        out.push_str(&format!(
            "<tr><td>{}</td>{}<td>{}</td><td>{:.4}</td>{}<td>{:.3}</td>{same}\
             <td>±{:.0} %</td>{}</tr>\n",
            point_label(p),
            mode_cell(f, p),
            p.launches,
            p.ncu_ms,
            corrected_cell(p.engine_ms, p.engine_raw_ms, p.launch_gaps_ms),
            p.ratio,
            p.target * 100.0,
            same_run_verdict_cell(p)
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    out.push_str(&provenance(
        f,
        &format!(
            "; the engine's run: <code>{}</code>, {} point(s) in {:.0} s",
            escape(&run.command),
            run.points_recorded,
            run.seconds
        ),
    ));
    out
}

/// Kernels under this time (ncu's, one launch) show how much the events' overhead varies by kernel.
const SPREAD_BELOW_MS: f64 = 0.025;

/// How much the events' overhead varies from kernel to kernel, which no correction of one value per
/// run can remove: over the single-launch points under [`SPREAD_BELOW_MS`] timed in the same call,
/// the engine's raw median less ncu's time, its range beside what was subtracted, and what half that
/// range is at the short-kernel bound of the targets. `None` with fewer than three such points.
fn overhead_spread(f: &NcuCheckFile) -> Option<String> {
    let (mut excess, mut subtracted) = (Vec::new(), Vec::new());
    for p in f
        .points
        .iter()
        .filter(|p| p.launches == 1 && p.ncu_ms < SPREAD_BELOW_MS)
    {
        let Some(s) = p.same_run.as_ref().filter(|s| s.outcome == "ok") else {
            continue;
        };
        if let Some(raw) = s.engine_raw_ms {
            excess.push((raw - p.ncu_ms) * 1e3);
            subtracted.extend(s.event_offset_ms.map(|d| d * 1e3));
        }
    }
    if excess.len() < 3 {
        return None;
    }
    let (lo, hi) = extent(excess.iter().copied())?;
    let corrected = match extent(subtracted) {
        Some((a, b)) if b - a >= 0.0005 => {
            format!(" (the correction subtracts one value per run, {a:.2}–{b:.2} µs)")
        }
        Some((a, _)) => format!(" (the correction subtracts {a:.2} µs)"),
        None => String::new(),
    };
    let bound = f.targets.short_below_us;
    Some(format!(
        " The events' overhead is not one number: over the {} single-launch kernels under {:.0} µs, \
         the engine's median as measured in the check's own call exceeds ncu's time by \
         {lo:.2}–{hi:.2} µs{corrected}. Half \
         that spread is {:.1} % of a {bound:.0} µs kernel, against its ±{:.0} % target.",
        excess.len(),
        SPREAD_BELOW_MS * 1e3,
        (hi - lo) / 2.0 / bound * 100.0,
        f.targets.long * 100.0
    ))
}

/// The smallest and the largest of `values`; `None` when there are none.
fn extent(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values.into_iter().fold(None, |span, x| match span {
        None => Some((x, x)),
        Some((lo, hi)) => Some((lo.min(x), hi.max(x))),
    })
}

/// What the check subtracted from one timing (a recorded median or the same call's).
struct Subtracted {
    /// The run's own empty kernel, when its overhead was subtracted.
    own_empty_kernel_ms: Option<f64>,
    /// The amount subtracted (absent in older checks: taken as subtracted).
    event_offset_ms: Option<f64>,
}

impl Subtracted {
    /// From the point's recorded median.
    fn recorded(p: &NcuPoint) -> Self {
        Subtracted {
            own_empty_kernel_ms: p.own_empty_kernel_ms,
            event_offset_ms: p.event_offset_ms,
        }
    }

    /// From the engine's median in the check's own call.
    fn same_call(s: &SameRunPoint) -> Self {
        Subtracted {
            own_empty_kernel_ms: s.own_empty_kernel_ms,
            event_offset_ms: s.event_offset_ms,
        }
    }
}

/// What the check subtracted from the engine's medians as the events' overhead, as the book does:
/// the calibrated offset, or, for the timings whose own run timed the empty kernel, that run's
/// empty kernel less ncu's; the calibrated offset is named beside a per-run range only when some
/// timing had it subtracted.
fn overhead_phrase(o: &OffsetUsed, timings: impl Iterator<Item = Subtracted>) -> String {
    let date = escape(&o.date[..o.date.len().min(10)]);
    let calibrated = format!("the events' {:.3} µs, calibrated {date}", o.offset_ms * 1e3);
    let (mut own, mut calibrated_used) = (Vec::new(), false);
    for t in timings {
        match t.own_empty_kernel_ms {
            Some(e) => own.push(e),
            None => calibrated_used |= t.event_offset_ms.is_none_or(|d| d > 0.0),
        }
    }
    let Some(ncu_ms) = o.ncu_ms else {
        return calibrated;
    };
    let Some((lo, hi)) = extent(own.iter().map(|e| (e - ncu_ms) * 1e3)) else {
        return calibrated;
    };
    let range = if hi - lo < 0.0005 {
        format!("{lo:.3} µs")
    } else {
        format!("{lo:.3}–{hi:.3} µs")
    };
    let fallback = if calibrated_used {
        format!(", or {calibrated}, where a run timed none (or an implausible one)")
    } else {
        String::new()
    };
    format!(
        "the events' overhead of each point's own run (its empty kernel less ncu's {:.3} µs: \
         {range}){fallback}",
        ncu_ms * 1e3
    )
}

/// The point's mode, with how ncu's caches were set in its tooltip (a multi-launch cold point is
/// flushed by the script once per run of its sequence, as the engine flushes once per sample).
fn mode_cell(f: &NcuCheckFile, p: &NcuPoint) -> String {
    if p.flushed_by_script {
        return format!(
            "<td title=\"ncu --cache-control none; the script flushes L2 once before each run of the \
             launches, as the engine does before each sample\">{}, flushed once</td>",
            escape(&p.mode)
        );
    }
    match f.cache_control.get(&p.mode) {
        Some(c) => format!(
            "<td title=\"ncu --cache-control {}\">{}</td>",
            escape(c),
            escape(&p.mode)
        ),
        None => format!("<td>{}</td>", escape(&p.mode)),
    }
}

fn provenance(f: &NcuCheckFile, more: &str) -> String {
    format!(
        "<p class=\"gpulab-provenance\">scripts/ncu_check.py at commit {}, {}, {}; \
         --clock-control {}, gpu__time_duration.sum, median of {} runs; kernels: {}; {:.0} s on the GPU{more}.</p>\n</div>\n",
        escape(f.commit.as_deref().unwrap_or("unknown")),
        escape(&f.date),
        escape(&f.ncu_version),
        escape(&f.clock_control),
        f.runs_per_point,
        escape(
            f.code
                .as_deref()
                .unwrap_or("compiled by the script with CuPy")
        ),
        f.seconds
    )
}

/// A check that compared ncu with the recordings only (checks before the same-call run).
fn recordings_only_html(f: &NcuCheckFile) -> String {
    let within = f.points.iter().filter(|p| p.within).count();
    let worst = f
        .points
        .iter()
        .map(|p| (p.ratio - 1.0).abs())
        .fold(0.0f64, f64::max);
    // With a calibration, the recorded median and its ratio come first, then the median as the book
    // shows it (less the event overhead) with the ratio the verdict is on.
    let offset = f.event_offset.as_ref();
    let (before, raw_heads) = match offset {
        Some(o) => (
            format!(
                " ({} before subtracting {})",
                f.points
                    .iter()
                    .filter(|p| p.within_raw.unwrap_or(p.within))
                    .count(),
                overhead_phrase(o, f.points.iter().map(Subtracted::recorded))
            ),
            "<th>engine as recorded (ms)</th><th>÷ ncu</th><th>less the event overhead (ms)</th>",
        ),
        None => (String::new(), "<th>engine (ms)</th>"),
    };
    let mut out = format!(
        "<div class=\"gpulab-ncu-check\"><p><strong>{}</strong>: {within} of {} points within target{before} \
         (±{:.0} % for kernels of {:.0} µs or more, ±{:.0} % below); largest deviation {:.1} %.</p>\n\
         <table>\n<thead><tr><th>point</th><th>mode</th><th>launches</th><th>ncu (ms)</th>\
         {raw_heads}<th>engine ÷ ncu</th><th>target</th><th></th></tr></thead>\n<tbody>\n",
        escape(&f.gpu),
        f.points.len(),
        f.targets.long * 100.0,
        f.targets.short_below_us,
        f.targets.short * 100.0,
        worst * 100.0
    );
    for p in &f.points {
        let mode = mode_cell(f, p);
        let raw = match (offset, p.engine_raw_ms, p.ratio_raw) {
            (Some(_), Some(ms), Some(r)) => format!("<td>{ms:.4}</td><td>{r:.3}</td>"),
            (Some(_), _, _) => "<td></td><td></td>".to_string(),
            (None, _, _) => String::new(),
        };
        out.push_str(&format!(
            "<tr><td>{}</td>{mode}<td>{}</td><td>{:.4}</td>{raw}<td>{:.4}</td><td>{:.3}</td>\
             <td>±{:.0} %</td>{}</tr>\n",
            point_label(p),
            p.launches,
            p.ncu_ms,
            p.engine_ms,
            p.ratio,
            p.target * 100.0,
            verdict_cell(p.within)
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    out.push_str(&provenance(f, ""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ncu_check::Targets;
    use std::collections::BTreeMap;

    fn point(ratio: f64, within: bool) -> NcuPoint {
        NcuPoint {
            experiment: "sgemm".into(),
            variant: "naive".into(),
            params: BTreeMap::from([("N".to_string(), serde_json::json!(2048))]),
            mode: "cold".into(),
            launches: 1,
            ncu_ms: 3.0,
            engine_ms: 3.0 * ratio,
            ratio,
            target: 0.02,
            within,
            engine_raw_ms: None,
            ratio_raw: None,
            within_raw: None,
            launch_gaps_ms: None,
            own_empty_kernel_ms: None,
            event_offset_ms: None,
            flushed_by_script: false,
            same_run: None,
        }
    }

    /// The block of one device, the H100, with its check `f`.
    fn h100_html(f: NcuCheckFile) -> String {
        ncu_check_html(&[DeviceCheck {
            slug: "nvidia-h100".into(),
            file: Some(f),
            unreadable: None,
        }])
    }

    /// A SYNTHETIC check of `points` on the H100's name.
    fn check(
        points: Vec<NcuPoint>,
        event_offset: Option<crate::results::ncu_check::OffsetUsed>,
    ) -> NcuCheckFile {
        NcuCheckFile {
            commit: Some("abc1234".into()),
            date: "2026-11-23T18:00:00Z".into(),
            ncu_version: "Version 2025.3.0.0".into(),
            gpu: "NVIDIA H100 80GB HBM3".into(),
            clock_control: "none".into(),
            cache_control: BTreeMap::from([("cold".to_string(), "all".to_string())]),
            runs_per_point: 7,
            targets: Targets {
                long: 0.02,
                short: 0.05,
                short_below_us: 10.0,
            },
            seconds: 61.0,
            code: None,
            event_offset,
            same_run: None,
            points,
        }
    }

    #[test]
    fn a_check_renders_every_point_with_its_verdict_and_provenance() {
        let f = check(vec![point(1.01, true), point(1.06, false)], None);
        let html = ncu_check_html(&[
            DeviceCheck {
                slug: "nvidia-h100".into(),
                file: Some(f),
                unreadable: None,
            },
            DeviceCheck {
                slug: "nvidia-h200".into(),
                file: None,
                unreadable: None,
            },
            DeviceCheck {
                slug: "nvidia-a100".into(),
                file: None,
                unreadable: Some("data/nvidia-a100/checks/ncu.json cannot be parsed: EOF".into()),
            },
        ]);
        assert!(html.contains("1 of 2 points within target"), "{html}");
        assert!(html.contains("largest deviation 6.0 %"), "{html}");
        assert!(html.contains("<code>sgemm/naive</code> N=2048"), "{html}");
        assert!(
            html.contains("<td title=\"ncu --cache-control all\">cold</td>"),
            "{html}"
        );
        assert!(html.contains("<td>1.010</td>") && html.contains("<strong>outside</strong>"));
        assert!(html.contains("commit abc1234") && html.contains("--clock-control none"));
        assert!(
            html.contains("kernels: compiled by the script with CuPy;"),
            "{html}"
        );
        assert!(html.contains(
            "<strong>nvidia-h200</strong>: the Nsight Compute check has not run yet on this GPU"
        ));
        assert!(html.contains(
            "<strong>nvidia-a100</strong>: its Nsight Compute check cannot be read \
             (data/nvidia-a100/checks/ncu.json cannot be parsed: EOF)."
        ));
        assert!(ncu_check_html(&[]).contains("has not run yet"));
    }

    #[test]
    fn a_calibrated_check_shows_the_recorded_and_the_corrected_ratio_and_both_counts() {
        let mut corrected = point(1.01, true);
        corrected.engine_raw_ms = Some(3.3);
        corrected.ratio_raw = Some(1.1);
        corrected.within_raw = Some(false);
        let offset = crate::results::ncu_check::OffsetUsed {
            offset_ms: 0.00096,
            date: "2026-11-24T01:54:37Z".into(),
            ncu_ms: None,
        };
        let f = check(vec![corrected], Some(offset));
        let html = h100_html(f);
        assert!(
            html.contains(
                "1 of 1 points within target (0 before subtracting the events' 0.960 µs, calibrated 2026-11-24)"
            ),
            "{html}"
        );
        assert!(
            html.contains("<th>engine as recorded (ms)</th><th>÷ ncu</th>"),
            "{html}"
        );
        assert!(
            html.contains("<td>3.3000</td><td>1.100</td><td>3.0300</td><td>1.010</td>"),
            "{html}"
        );
    }

    /// Regression (session 14's "not done"): once recordings carry their run's empty kernel, the
    /// headline named only the calibrated offset, though the check subtracted each run's own.
    #[test]
    fn a_check_of_per_run_overheads_names_them_with_their_range_and_the_fallback() {
        let mut own = point(1.0, true);
        own.own_empty_kernel_ms = Some(0.0028);
        let mut other = point(1.0, true);
        other.own_empty_kernel_ms = Some(0.0030);
        let calibrated = point(1.0, true);
        let offset = crate::results::ncu_check::OffsetUsed {
            offset_ms: 0.00134,
            date: "2026-11-24T01:55:46Z".into(),
            ncu_ms: Some(0.00147),
        };
        let html = h100_html(check(vec![own, other, calibrated], Some(offset.clone())));
        assert!(
            html.contains(
                "before subtracting the events' overhead of each point's own run (its empty kernel \
                 less ncu's 1.470 µs: 1.330–1.530 µs), or the events' 1.340 µs, calibrated \
                 2026-11-24, where a run timed none (or an implausible one))"
            ),
            "{html}"
        );
        // Every timing with its own run's empty kernel, or with nothing subtracted: no fallback.
        let mut nothing = point(1.0, true);
        nothing.event_offset_ms = Some(0.0);
        let mut own = point(1.0, true);
        own.own_empty_kernel_ms = Some(0.0028);
        let html = h100_html(check(vec![own.clone(), nothing], Some(offset.clone())));
        assert!(
            html.contains("(its empty kernel less ncu's 1.470 µs: 1.330 µs))"),
            "{html}"
        );
        // The same-call run's own values count too (the headline of a check with the engine in
        // the same call), beside the recordings'.
        let mut f = check(vec![own], Some(offset.clone()));
        f.same_run = Some(crate::results::ncu_check::SameRunInfo {
            command: "mdbook-gpulab record".into(),
            points_recorded: 1,
            seconds: 1.0,
        });
        f.points[0].same_run = Some(crate::results::ncu_check::SameRunPoint {
            outcome: "ok".into(),
            failure: None,
            engine_raw_ms: Some(3.004),
            engine_ms: Some(3.0),
            ratio: Some(1.0),
            within: true,
            launch_gaps_ms: None,
            own_empty_kernel_ms: Some(0.0045),
            event_offset_ms: Some(0.003),
            ncu_engine_launches_ms: None,
            ratio_engine_launches: None,
            within_engine_launches: None,
        });
        let html = h100_html(f);
        assert!(
            html.contains(
                "both less the events' overhead of each point's own run (its empty kernel less \
                 ncu's 1.470 µs: 1.330–3.030 µs)."
            ),
            "{html}"
        );
        // No point with its own run's empty kernel: the calibration alone, as before.
        let html = h100_html(check(vec![point(1.0, true)], Some(offset)));
        assert!(
            html.contains("before subtracting the events' 1.340 µs, calibrated 2026-11-24)"),
            "{html}"
        );
    }

    /// The misses of short kernels looked like noise; the spread of the events' overhead from
    /// kernel to kernel, which a correction of one value per run cannot remove, is now stated.
    #[test]
    fn the_spread_of_the_event_overhead_over_short_kernels_is_stated() {
        use crate::results::ncu_check::SameRunPoint;
        // A short single-launch point whose same-call raw median exceeds ncu's 10 µs by `excess_us`.
        let short = |excess_us: f64, offset_us: f64, launches: usize| {
            let mut p = point(1.0, true);
            p.ncu_ms = 0.010;
            p.launches = launches;
            p.same_run = Some(SameRunPoint {
                outcome: "ok".into(),
                failure: None,
                engine_raw_ms: Some(0.010 + excess_us * 1e-3),
                engine_ms: Some(0.010 + (excess_us - offset_us) * 1e-3),
                ratio: Some(1.0 + (excess_us - offset_us) / 10.0),
                within: true,
                launch_gaps_ms: None,
                own_empty_kernel_ms: None,
                event_offset_ms: Some(offset_us * 1e-3),
                ncu_engine_launches_ms: None,
                ratio_engine_launches: None,
                within_engine_launches: None,
            });
            p
        };
        let with_run = |points| {
            let mut f = check(points, None);
            f.same_run = Some(crate::results::ncu_check::SameRunInfo {
                command: "mdbook-gpulab record <scratch copy>".into(),
                points_recorded: 4,
                seconds: 9.0,
            });
            f
        };
        // A long point (3 ms) and a point of two launches are left out of the spread.
        let mut long = short(9.0, 1.2, 1);
        long.ncu_ms = 3.0;
        let points = vec![
            short(0.8, 1.2, 1),
            short(1.5, 1.3, 1),
            short(1.0, 1.2, 1),
            short(5.0, 1.2, 2),
            long,
        ];
        let html = h100_html(with_run(points.clone()));
        assert!(
            html.contains(
                "over the 3 single-launch kernels under 25 µs, the engine's median as measured in \
                 the check's own call exceeds ncu's time by 0.80–1.50 µs (the correction subtracts \
                 one value per run, 1.20–1.30 µs). Half that spread is 3.5 % of a 10 µs kernel, \
                 against its ±2 % target."
            ),
            "{html}"
        );
        // Two short kernels are too few to speak of a spread.
        let html = h100_html(with_run(points[1..].to_vec()));
        assert!(!html.contains("is not one number"), "{html}");
    }

    #[test]
    fn a_check_with_the_engine_in_the_same_call_gives_its_verdict_on_that_run() {
        use crate::results::ncu_check::{SameRunInfo, SameRunPoint};
        // Outside against its recording (made elsewhere), within against the same call.
        let mut moved = point(1.036, false);
        moved.same_run = Some(SameRunPoint {
            outcome: "ok".into(),
            failure: None,
            engine_raw_ms: Some(3.0318),
            engine_ms: Some(3.03),
            ratio: Some(1.01),
            within: true,
            launch_gaps_ms: None,
            own_empty_kernel_ms: None,
            event_offset_ms: None,
            ncu_engine_launches_ms: None,
            ratio_engine_launches: None,
            within_engine_launches: None,
        });
        // Outside against the script's launches, within against ncu on the engine's own launches.
        let mut launch = point(1.0, true);
        launch.same_run = Some(SameRunPoint {
            outcome: "ok".into(),
            failure: None,
            engine_raw_ms: Some(3.1109),
            engine_ms: Some(3.11),
            ratio: Some(1.0367),
            within: false,
            launch_gaps_ms: None,
            own_empty_kernel_ms: None,
            event_offset_ms: None,
            ncu_engine_launches_ms: Some(3.08),
            ratio_engine_launches: Some(1.0097),
            within_engine_launches: Some(true),
        });
        // Within against its recording, but the engine's run failed: outside.
        let mut failed = point(1.0, true);
        failed.flushed_by_script = true;
        failed.launches = 2;
        failed.launch_gaps_ms = Some(0.0007);
        failed.engine_raw_ms = Some(3.0016);
        failed.same_run = Some(SameRunPoint {
            outcome: "failed".into(),
            failure: Some(serde_json::json!({"kind": "mismatch", "message": "at 3"})),
            engine_raw_ms: None,
            engine_ms: None,
            ratio: None,
            within: false,
            launch_gaps_ms: None,
            own_empty_kernel_ms: None,
            event_offset_ms: None,
            ncu_engine_launches_ms: None,
            ratio_engine_launches: None,
            within_engine_launches: None,
        });
        let mut f = check(vec![moved, failed, launch], None);
        f.same_run = Some(SameRunInfo {
            command: "mdbook-gpulab record <scratch copy> --experiment sgemm".into(),
            points_recorded: 2,
            seconds: 35.0,
        });
        let html = h100_html(f);
        assert!(
            html.contains(
                "1 of 3 points within target against the engine timed in the same call on the same GPU \
                 (1 failed in the engine's run)"
            ),
            "{html}"
        );
        assert!(html.contains("largest deviation 3.7 %"), "{html}");
        assert!(
            html.contains("against the handbook's recordings, made in earlier runs (often on another machine): 2 of 3."),
            "{html}"
        );
        assert!(
            html.contains("<td>1.036</td><td title=\"as measured 3.0318 ms, less 1.800 µs of event overhead\">3.0300</td><td>1.010</td><td>±2 %</td><td>within</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td colspan=\"2\" title=\"mismatch: at 3\">failed</td><td>±2 %</td><td><strong>outside</strong></td>"),
            "{html}"
        );
        assert!(
            html.contains("<td title=\"as measured 3.0016 ms, less 0.900 µs of event overhead and 0.700 µs of gaps between its launches, which ncu's sum does not count\">3.0000</td>"),
            "{html}"
        );
        assert!(
            html.contains("<td><strong>outside</strong><br><small>ncu on the engine's own launches: 3.0800 ms; engine ÷ that 1.010, within: on the engine's own launches (a run just after) ncu agrees with it</small></td>"),
            "{html}"
        );
        assert!(
            html.contains(
                "Of the 2 outside, 1 is within target against ncu on the engine's own launches"
            ),
            "{html}"
        );
        assert!(
            html.contains("the script flushes L2 once before each run of the launches, as the engine does before each sample\">cold, flushed once</td>"),
            "{html}"
        );
        assert!(
            html.contains("the engine's run: <code>mdbook-gpulab record &lt;scratch copy&gt; --experiment sgemm</code>, 2 point(s) in 35 s"),
            "{html}"
        );
    }
}
