//! HTML of the Nsight Compute check: per device, ncu's time of each point beside the engine's.

use super::html::escape;
use crate::results::event_offset::EventOffset;
use crate::results::extend;
use crate::results::ncu_check::{DeviceCheck, NcuCheckFile, NcuPoint, Row, SameRunInfo, Verdict};

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
    let rows = f.rows();
    match &f.same_run {
        Some(run) => same_run_html(f, &rows, run),
        None => recordings_only_html(f, &rows),
    }
}

/// A millisecond cell less the event overhead and gaps, with what was measured in its tooltip.
fn corrected_cell(v: &Verdict) -> String {
    let (r, ms, gaps) = (v.engine_raw_ms, v.engine_ms, v.gaps_ms);
    if r == ms {
        return format!("<td>{ms:.4}</td>");
    }
    let gaps_note = match gaps > 0.0 {
        true => format!(
            " and {:.3} µs of gaps between its launches, which ncu's sum does not count",
            gaps * 1e3
        ),
        false => String::new(),
    };
    format!(
        "<td title=\"as measured {r:.4} ms, less {:.3} µs of event overhead{gaps_note}\">{ms:.4}</td>",
        (r - ms - gaps) * 1e3
    )
}

/// The verdict on the same-call run, with ncu's time of the engine's own launches for one outside.
fn same_run_verdict_cell(row: &Row<'_>) -> String {
    let ms = row
        .point
        .same_run
        .as_ref()
        .and_then(|s| s.ncu_engine_launches_ms);
    match (ms, row.engine_launches) {
        (Some(ms), Some((r, within))) if !row.verdict() => format!(
            "<td class=\"gpulab-key\"><strong>outside</strong><br><small>ncu on the engine's own launches: {ms:.4} ms; \
             engine ÷ that {r:.3}, {}</small></td>",
            if within {
                "within: on the engine's own launches (a run just after) ncu agrees with it"
            } else {
                "<strong>outside</strong>"
            }
        ),
        _ => verdict_cell(row.verdict()).to_string(),
    }
}

/// The verdict column's head: second, after the point, so it is seen without scrolling sideways.
const VERDICT_HEAD: &str = "<th class=\"gpulab-key\">verdict</th>";

fn verdict_cell(within: bool) -> &'static str {
    if within {
        "<td class=\"gpulab-key\">within</td>"
    } else {
        "<td class=\"gpulab-key\"><strong>outside</strong></td>"
    }
}

/// A check that also timed the points with the engine in its own call: the verdict is on that run.
fn same_run_html(f: &NcuCheckFile, rows: &[Row<'_>], run: &SameRunInfo) -> String {
    let n = rows.len();
    let within = rows.iter().filter(|r| r.verdict()).count();
    let recorded_within = rows.iter().filter(|r| r.recorded.within).count();
    let failed = rows
        .iter()
        .filter(|r| r.point.same_run.as_ref().is_some_and(|s| s.outcome != "ok"))
        .count();
    let worst = rows
        .iter()
        .filter_map(Row::verdict_ratio)
        .map(|r| (r - 1.0).abs())
        .fold(0.0f64, f64::max);
    let offset = f.event_offset.as_ref().map_or_else(String::new, |o| {
        let timings = rows
            .iter()
            .flat_map(|r| std::iter::once(&r.recorded).chain(&r.same_call));
        format!("; both less {}", overhead_phrase(o, timings))
    });
    let failed = match failed {
        0 => String::new(),
        n => format!(" ({n} failed in the engine's run)"),
    };
    // Points outside where ncu on the engine's own launches agrees: a difference of launch, not timing.
    let outside = n - within;
    let agree = rows
        .iter()
        .filter(|r| !r.verdict() && r.engine_launches.is_some_and(|(_, w)| w))
        .count();
    let on_engine = match agree {
        0 => String::new(),
        _ => format!(
            " Of the {outside} outside, {agree} {} within target against ncu on the engine's own \
             launches (a run just after): on the same launches the two timers agree.",
            if agree == 1 { "is" } else { "are" }
        ),
    };
    let spread = overhead_spread(f, rows).unwrap_or_default();
    let mut out = format!(
        "<div class=\"gpulab-ncu-check\"><p><strong>{}</strong>: {within} of {n} points within target \
         against the engine timed in the same call on the same GPU{failed} (±{:.0} % for kernels of \
         {:.0} µs or more, ±{:.0} % below; largest deviation {:.1} %); against the handbook's \
         recordings, made in earlier runs (often on another machine): {recorded_within} of {n}{offset}.{on_engine}{spread}</p>\n\
         <div class=\"gpulab-table-wrap\"><table>\n<thead><tr><th>point</th>{VERDICT_HEAD}<th>mode</th>\
         <th>launches</th><th>ncu (ms)</th><th>engine, recorded (ms)</th><th>÷ ncu</th>\
         <th>engine, this call (ms)</th><th>÷ ncu</th><th>target</th></tr></thead>\n<tbody>\n",
        escape(&f.gpu),
        f.targets.long * 100.0,
        f.targets.short_below_us,
        f.targets.short * 100.0,
        worst * 100.0
    );
    for row in rows {
        let p = row.point;
        let same = match (&p.same_run, &row.same_call) {
            (Some(_), Some(v)) => format!("{}<td>{:.3}</td>", corrected_cell(v), v.ratio),
            (Some(s), None) => format!(
                "<td colspan=\"2\" title=\"{}\">{}</td>",
                escape(&s.failure_text()),
                escape(&s.outcome)
            ),
            (None, _) => "<td colspan=\"2\">not timed</td>".to_string(),
        };
        out.push_str(&format!(
            "<tr><td>{}</td>{}{}<td>{}</td><td>{:.4}</td>{}<td>{:.3}</td>{same}\
             <td>±{:.0} %</td></tr>\n",
            point_label(p),
            same_run_verdict_cell(row),
            mode_cell(f, p),
            p.launches,
            p.ncu_ms,
            corrected_cell(&row.recorded),
            row.recorded.ratio,
            row.target * 100.0,
        ));
    }
    out.push_str("</tbody>\n</table></div>\n");
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

/// How much the events' overhead varies over the single-launch kernels under [`SPREAD_BELOW_MS`],
/// which no one value per run can remove; `None` with fewer than three such points.
fn overhead_spread(f: &NcuCheckFile, rows: &[Row<'_>]) -> Option<String> {
    let (mut excess, mut subtracted) = (Vec::new(), Vec::new());
    for row in rows
        .iter()
        .filter(|r| r.point.launches == 1 && r.point.ncu_ms < SPREAD_BELOW_MS)
    {
        if let Some(v) = &row.same_call {
            excess.push((v.engine_raw_ms - row.point.ncu_ms) * 1e3);
            subtracted.push(v.overhead_ms * 1e3);
        }
    }
    if excess.len() < 3 {
        return None;
    }
    let (lo, hi) = excess.iter().copied().fold(None, extend)?;
    let corrected = match subtracted.into_iter().fold(None, extend) {
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

/// What the check subtracted as the events' overhead: the calibrated offset, or each run's own empty
/// kernel less ncu's (the offset then named only where some timing used it).
fn overhead_phrase<'v>(o: &EventOffset, timings: impl Iterator<Item = &'v Verdict>) -> String {
    let date = escape(&o.date[..o.date.len().min(10)]);
    let calibrated = format!("the events' {:.3} µs, calibrated {date}", o.offset_ms * 1e3);
    let (mut own, mut calibrated_used) = (Vec::new(), false);
    for t in timings {
        match t.empty_kernel_ms {
            Some(e) => own.push(e),
            None => calibrated_used |= t.overhead_ms > 0.0,
        }
    }
    let Some((lo, hi)) = own.iter().map(|e| (e - o.ncu_ms) * 1e3).fold(None, extend) else {
        return calibrated;
    };
    let range = match hi - lo < 0.0005 {
        true => format!("{lo:.3} µs"),
        false => format!("{lo:.3}–{hi:.3} µs"),
    };
    let fallback = match calibrated_used {
        true => format!(", or {calibrated}, where a run timed none (or an implausible one)"),
        false => String::new(),
    };
    format!(
        "the events' overhead of each point's own run (its empty kernel less ncu's {:.3} µs: \
         {range}){fallback}",
        o.ncu_ms * 1e3
    )
}

/// The point's mode, with how ncu's caches were set in its tooltip.
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
fn recordings_only_html(f: &NcuCheckFile, rows: &[Row<'_>]) -> String {
    let within = rows.iter().filter(|r| r.recorded.within).count();
    let worst = rows
        .iter()
        .map(|r| (r.recorded.ratio - 1.0).abs())
        .fold(0.0f64, f64::max);
    // With a calibration, the raw median and its ratio come before the corrected one.
    let offset = f.event_offset.as_ref();
    let (before, raw_heads) = match offset {
        Some(o) => (
            format!(
                " ({} before subtracting {})",
                rows.iter().filter(|r| r.recorded.within_raw).count(),
                overhead_phrase(o, rows.iter().map(|r| &r.recorded))
            ),
            "<th>engine as recorded (ms)</th><th>÷ ncu</th><th>less the event overhead (ms)</th>",
        ),
        None => (String::new(), "<th>engine (ms)</th>"),
    };
    let mut out = format!(
        "<div class=\"gpulab-ncu-check\"><p><strong>{}</strong>: {within} of {} points within target{before} \
         (±{:.0} % for kernels of {:.0} µs or more, ±{:.0} % below); largest deviation {:.1} %.</p>\n\
         <div class=\"gpulab-table-wrap\"><table>\n<thead><tr><th>point</th>{VERDICT_HEAD}<th>mode</th>\
         <th>launches</th><th>ncu (ms)</th>{raw_heads}<th>engine ÷ ncu</th><th>target</th></tr></thead>\n\
         <tbody>\n",
        escape(&f.gpu),
        rows.len(),
        f.targets.long * 100.0,
        f.targets.short_below_us,
        f.targets.short * 100.0,
        worst * 100.0
    );
    for row in rows {
        let (p, v) = (row.point, &row.recorded);
        let raw = match offset {
            Some(_) => format!("<td>{:.4}</td><td>{:.3}</td>", v.engine_raw_ms, v.ratio_raw),
            None => String::new(),
        };
        out.push_str(&format!(
            "<tr><td>{}</td>{}{}<td>{}</td><td>{:.4}</td>{raw}<td>{:.4}</td><td>{:.3}</td>\
             <td>±{:.0} %</td></tr>\n",
            point_label(p),
            verdict_cell(v.within),
            mode_cell(f, p),
            p.launches,
            p.ncu_ms,
            v.engine_ms,
            v.ratio,
            row.target * 100.0,
        ));
    }
    out.push_str("</tbody>\n</table></div>\n");
    out.push_str(&provenance(f, ""));
    out
}

#[cfg(test)]
#[path = "ncu_check_tests.rs"]
mod tests;
