//! Stage two of directive parsing: checks a `RawDirective` against its experiment spec and
//! builds the `Directive`, with diagnostics that point into the chapter.

use super::model::*;
use super::raw::{OneOrMany, RawChart, RawDirective, RawMeasure, RawTable, ZipGroup};
use crate::claims::Claim;
use crate::diagnostic::{Diagnostic, did_you_mean, did_you_mean_or};
use crate::limits::{MAX_AXIS_VALUES, MAX_POINTS_PER_DIRECTIVE};
use crate::metrics::counters::{GROUPS, Group};
use crate::metrics::{
    BUILTINS, Baseline, PREVIOUS, RelativeMetric, STAT_SUFFIXES, Source, TIME_MS, builtin,
};
use crate::record::TimingMode;
use crate::source::{SourceFile, with_help};
use crate::spec::Experiment;
use crate::spec::metrics::{has_rate_formula, rate_formula};
use crate::spec::validate::param_value;
use crate::value::ParamValue;
use std::collections::BTreeSet;
use std::ops::Range;
use toml::Spanned;

/// Where the directive body sits in its chapter, for mapping spans.
pub struct BodyContext<'a> {
    pub file: &'a SourceFile,
    pub body_start: usize,
    /// Where each piece of the body sits in the chapter (see `Fence::pieces`).
    pub pieces: &'a [(usize, usize)],
    pub location: Location,
}

impl BodyContext<'_> {
    /// The chapter byte range of a byte range of the body.
    pub(crate) fn to_chapter(&self, r: Range<usize>) -> Range<usize> {
        super::fence::map_span(self.pieces, self.body_start, r)
    }
}

struct Checker<'a> {
    ctx: &'a BodyContext<'a>,
    diags: Vec<Diagnostic>,
}

impl Checker<'_> {
    fn span(&self, r: Range<usize>) -> Range<usize> {
        self.ctx.to_chapter(r)
    }
    fn err(
        &mut self,
        span: Range<usize>,
        message: impl Into<String>,
        label: &str,
        help: Option<String>,
    ) {
        let span = self.span(span);
        let d = with_help(self.ctx.file.error(span, message, label), help);
        self.diags.push(d);
    }
}

/// Names a table/chart field may use: axes and params, `variant`, metrics (with suffixes).
fn known_metrics(exp: &Experiment) -> BTreeSet<String> {
    let mut m: BTreeSet<String> = BUILTINS.iter().map(|b| b.name.to_string()).collect();
    m.extend(exp.metrics.custom.iter().map(|c| c.name.clone()));
    m
}

fn is_metric(name: &str, metrics: &BTreeSet<String>) -> bool {
    let (base, suffix) = name.split_once('.').unwrap_or((name, ""));
    metrics.contains(base)
        && (suffix.is_empty()
            || (builtin(base).is_some_and(|b| b.source == Source::Timing)
                && STAT_SUFFIXES.contains(&suffix)))
}

/// Checks a relative metric (`speedup:<variant>`, `speedup:previous`, `pct_of:<variant>`): the
/// prefix must be known and the baseline one of the directive's `variants`; `previous` needs at
/// least two of them.
fn check_relative(c: &mut Checker, n: &Names, name: &str, span: Range<usize>) {
    let (exp, variants) = (n.exp, &n.variants);
    let mut candidates: Vec<String> = Vec::new();
    for prefix in ["speedup", "pct_of"] {
        candidates.extend(variants.iter().map(|v| format!("{prefix}:{v}")));
        if variants.len() >= 2 {
            candidates.push(format!("{prefix}:{PREVIOUS}"));
        }
    }
    let suggest = |fallback: String| {
        did_you_mean(name, candidates.iter().map(String::as_str)).or(Some(fallback))
    };
    let Some(rel) = RelativeMetric::parse(name) else {
        let help = suggest(
            "relative metrics are `speedup:<variant>`, `speedup:previous` and `pct_of:<variant>`"
                .into(),
        );
        c.err(
            span,
            format!("`{name}` is not a metric of experiment `{}`", exp.name),
            "unknown name",
            help,
        );
        return;
    };
    match &rel.baseline {
        Baseline::Previous if variants.len() < 2 => c.err(
            span,
            format!("`{name}` needs at least two variants"),
            "one variant",
            Some(format!(
                "`{PREVIOUS}` compares each variant with the one before it in `variants`"
            )),
        ),
        Baseline::Previous => {}
        Baseline::Variant(v) if variants.contains(v) => {}
        Baseline::Variant(v) => {
            let help = if exp.variant(v).is_some() {
                Some(format!("add `{v}` to `variants` to compare with it"))
            } else {
                suggest(format!(
                    "this directive's variants: {}",
                    variants.join(", ")
                ))
            };
            c.err(
                span,
                format!("`{name}` compares with variant `{v}`, which this directive does not show"),
                "unknown baseline",
                help,
            );
        }
    }
}

/// What a directive's fields may name: its experiment's parameters and the variants, axes and
/// metrics it can show.
struct Names<'e> {
    exp: &'e Experiment,
    params: Vec<String>,
    variants: Vec<String>,
    /// The names of its valid axes.
    axes: Vec<String>,
    /// Axes whose values are invalid: they have their error, the fields naming them get none more.
    bad_axes: Vec<String>,
    metrics: BTreeSet<String>,
}

impl Names<'_> {
    /// Whether `name` is one of the directive's axes, valid or not.
    fn is_axis(&self, name: &str) -> bool {
        self.axes.iter().chain(&self.bad_axes).any(|a| a == name)
    }
}

/// Validates `raw` against `exp`. `paper_problem` loads `data/papers/<id>.csv` and says what is
/// wrong with it (missing, outside the book, unparsable), if anything.
pub fn validate(
    raw: RawDirective,
    exp: &Experiment,
    ctx: &BodyContext,
    paper_problem: &dyn Fn(&str) -> Option<String>,
) -> Result<Directive, Vec<Diagnostic>> {
    let mut c = Checker {
        ctx,
        diags: Vec::new(),
    };
    let variants = check_variants(&mut c, exp, raw.variants.as_ref());
    let params: Vec<String> = exp.params.iter().map(|(n, _)| n.clone()).collect();
    let (axes, bad_axes) = check_axes(&mut c, exp, &params, raw.axes.as_ref());
    let n = Names {
        exp,
        params,
        variants,
        axes: axes.iter().map(|a| a.name.clone()).collect(),
        bad_axes,
        metrics: known_metrics(exp),
    };
    let zip = check_zip(&mut c, &n, &axes, raw.zip.as_ref());
    if c.diags.is_empty() {
        let span = raw.axes.as_ref().map(|a| a.span()).unwrap_or(0..0);
        check_point_count(&mut c, &axes, &zip, n.variants.len(), span);
    }
    // Metrics shown or claimed, with where: counter metrics need their group declared.
    let mut used: Vec<(String, Range<usize>)> = Vec::new();
    let tables = check_tables(&mut c, &n, raw.table, &mut used);
    let charts = check_charts(&mut c, &n, raw.chart, &mut used);
    let paper = raw.paper.as_ref().map(|p| {
        if let Some(problem) = paper_problem(p.get_ref()) {
            c.err(
                p.span(),
                format!("paper table `{}`: {problem}", p.get_ref()),
                "here",
                None,
            );
        }
        p.get_ref().clone()
    });
    let paper_check = check_paper_check(&mut c, raw.paper_check, paper_problem);
    let reproduces = check_reproduces(&mut c, raw.reproduces);
    let expect = check_claims(&mut c, &n, raw.expect, &mut used);
    let devices = check_devices(&mut c, raw.devices.as_ref());
    let measure = raw
        .measure
        .map(|m| check_measure(&mut c, m))
        .unwrap_or_default();
    if let Some(b) = &raw.budget_s
        && let Some(why) = crate::limits::seconds_problem(*b.get_ref())
    {
        c.err(
            b.span(),
            format!("`budget_s = {}` {why}", b.get_ref()),
            "here",
            None,
        );
    }
    let counters = check_counters(&mut c, raw.counters.as_ref(), &used);
    check_derived(&mut c, &n, &used);

    if !c.diags.is_empty() {
        return Err(c.diags);
    }
    Ok(Directive {
        location: ctx.location.clone(),
        experiment: exp.name.clone(),
        variants: n.variants,
        axes,
        zip,
        title: raw.title.map(Spanned::into_inner),
        tables,
        charts,
        paper,
        paper_check,
        reproduces,
        expect,
        devices,
        measure,
        budget_s: raw.budget_s.map(Spanned::into_inner),
        counters,
        inline: None,
    })
}

/// The variants the directive selects (all of the spec's when it names none), each known.
fn check_variants(
    c: &mut Checker,
    exp: &Experiment,
    raw: Option<&Spanned<Vec<Spanned<String>>>>,
) -> Vec<String> {
    let all: Vec<String> = exp.variants.iter().map(|v| v.name.clone()).collect();
    let Some(list) = raw else { return all };
    let mut out = Vec::new();
    for v in list.get_ref() {
        if all.contains(v.get_ref()) {
            out.push(v.get_ref().clone());
        } else {
            let lead = format!("`{}` has", exp.name);
            let help = did_you_mean_or(v.get_ref(), all.iter().map(String::as_str), &lead);
            c.err(
                v.span(),
                format!("experiment `{}` has no variant `{}`", exp.name, v.get_ref()),
                "unknown variant",
                help,
            );
        }
    }
    if out.is_empty() && c.diags.is_empty() {
        c.err(list.span(), "no variants selected", "empty list", None);
    }
    out
}

/// The directive's axes, each a parameter of `exp` with valid values, and the names of those
/// whose values are invalid.
fn check_axes(
    c: &mut Checker,
    exp: &Experiment,
    params: &[String],
    raw: Option<&Spanned<indexmap::IndexMap<String, Spanned<toml::Value>>>>,
) -> (Vec<Axis>, Vec<String>) {
    let mut axes = Vec::new();
    let mut bad_axes: Vec<String> = Vec::new();
    for (name, value) in raw.map(|m| m.get_ref().iter()).into_iter().flatten() {
        if !params.contains(name) {
            let lead = format!("parameters of `{}`", exp.name);
            let help = did_you_mean_or(name, params.iter().map(String::as_str), &lead);
            c.err(
                value.span(),
                format!("`{name}` is not a parameter of experiment `{}`", exp.name),
                "unknown axis",
                help,
            );
            continue;
        }
        let negative = |v: &ParamValue| v.as_f64().is_some_and(|x| x < 0.0);
        match axis_values(value.get_ref()) {
            Ok(values) if values.iter().any(negative) => {
                bad_axes.push(name.clone());
                let v = values.iter().find(|v| negative(v)).map(ToString::to_string);
                c.err(
                    value.span(),
                    format!(
                        "axis `{name}` has the negative value {}",
                        v.unwrap_or_default()
                    ),
                    "negative",
                    Some(
                        "a parameter is a size, a count or an offset: give values of 0 or more"
                            .into(),
                    ),
                )
            }
            Ok(values) if !values.is_empty() => {
                // `B = "16x16"` defines `B_X` and `B_Y`: a spec parameter of that name would be
                // replaced silently at these points (the spec itself is checked the same way).
                if values.iter().any(|v| v.as_dim2().is_some())
                    && let Some(side) = ["X", "Y"]
                        .iter()
                        .map(|s| format!("{name}_{s}"))
                        .find(|d| params.contains(d))
                {
                    c.err(
                        value.span(),
                        format!(
                            "an \"AxB\" value of `{name}` defines `{name}_X` and `{name}_Y`, but `{side}` is a parameter of experiment `{}`: rename one of them",
                            exp.name
                        ),
                        &format!("shadows parameter `{side}`"),
                        None,
                    );
                }
                axes.push(Axis {
                    name: name.clone(),
                    values,
                })
            }
            Ok(_) => {
                bad_axes.push(name.clone());
                c.err(
                    value.span(),
                    format!("axis `{name}` has no values"),
                    "empty",
                    None,
                )
            }
            Err(msg) => {
                bad_axes.push(name.clone());
                c.err(
                    value.span(),
                    format!("invalid values for axis `{name}`: {msg}"),
                    "here",
                    None,
                )
            }
        }
    }
    (axes, bad_axes)
}

/// The `zip` groups: each name an axis, the axes of a group of one length.
fn check_zip(
    c: &mut Checker,
    n: &Names,
    axes: &[Axis],
    raw: Option<&Spanned<Vec<ZipGroup>>>,
) -> Vec<Vec<String>> {
    let mut zip = Vec::new();
    for g in raw.map(|z| z.get_ref().as_slice()).unwrap_or_default() {
        let names: Vec<String> = g.get_ref().iter().map(|s| s.get_ref().clone()).collect();
        for name in g.get_ref() {
            if !n.is_axis(name.get_ref()) {
                c.err(
                    name.span(),
                    format!(
                        "`{}` in `zip` is not an axis of this directive",
                        name.get_ref()
                    ),
                    "not an axis",
                    None,
                );
            }
        }
        let lens: BTreeSet<usize> = axes
            .iter()
            .filter(|a| names.contains(&a.name))
            .map(|a| a.values.len())
            .collect();
        if lens.len() > 1 {
            c.err(
                g.span(),
                "zipped axes must have the same number of values",
                "lengths differ",
                None,
            );
        }
        zip.push(names);
    }
    zip
}

/// An error when the axes (and variants) make more than [`MAX_POINTS_PER_DIRECTIVE`] points.
fn check_point_count(
    c: &mut Checker,
    axes: &[Axis],
    zip: &[Vec<String>],
    variants: usize,
    span: Range<usize>,
) {
    let count = point_count(axes, zip, variants);
    if count.is_none_or(|n| n > MAX_POINTS_PER_DIRECTIVE) {
        let n = count.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string());
        c.err(
            span,
            format!(
                "these axes make {n} points; a directive may ask for at most {MAX_POINTS_PER_DIRECTIVE}"
            ),
            "too many points",
            Some("split the sweep over several directives, or use `zip` to pair axes".into()),
        );
    }
}

/// Checks a table's or chart's field: a metric (`want_metric`), else one of the directive's axes or
/// `variant` (a parameter it does not sweep has one value, so no point would carry it: the cells
/// would be dropped).
fn check_field(c: &mut Checker, n: &Names, name: &str, span: Range<usize>, want_metric: bool) {
    if want_metric && name.contains(':') {
        return check_relative(c, n, name, span);
    }
    let ok = if want_metric {
        is_metric(name, &n.metrics)
    } else {
        name == "variant" || n.is_axis(name)
    };
    if ok {
        return;
    }
    let (pool, what): (Vec<&str>, _) = if want_metric {
        (n.metrics.iter().map(String::as_str).collect(), "a metric")
    } else {
        let fields = n.axes.iter().map(String::as_str).chain(["variant"]);
        (fields.collect(), "an axis or `variant`")
    };
    if !want_metric && n.params.iter().any(|p| p == name) {
        c.err(
            span,
            format!(
                "`{name}` is a parameter of experiment `{}` but not an axis of this directive",
                n.exp.name
            ),
            "not an axis",
            Some(format!(
                "a parameter the directive does not sweep has one value, so it cannot label \
                 rows, columns or series; add it to `axes` (e.g. `axes = {{ {name} = [...] }}`) \
                 or use one of: {}",
                pool.join(", ")
            )),
        );
        return;
    }
    let help = did_you_mean_or(name, pool.iter().copied(), &format!("expected {what}"));
    c.err(
        span,
        format!("`{name}` is not {what} of experiment `{}`", n.exp.name),
        "unknown name",
        help,
    );
}

/// The directive's tables (by default one: its first axis by variant), their fields checked and
/// the metrics they show added to `used`.
fn check_tables(
    c: &mut Checker,
    n: &Names,
    raw: Option<Spanned<OneOrMany<RawTable>>>,
    used: &mut Vec<(String, Range<usize>)>,
) -> Vec<TableSpec> {
    let first_axis = n.axes.first().cloned().unwrap_or_else(|| "variant".into());
    let span = raw.as_ref().map(|t| t.span()).unwrap_or(0..0);
    let mut tables = Vec::new();
    for t in raw.map(|t| t.into_inner().into_vec()).unwrap_or_default() {
        for (s, metric) in [(&t.rows, false), (&t.columns, false), (&t.value, true)] {
            if let Some(s) = s {
                check_field(c, n, s, span.clone(), metric);
            }
        }
        if let Some(v) = &t.value {
            used.push((v.clone(), span.clone()));
        }
        let columns = t.columns.unwrap_or_else(|| "variant".into());
        let key = t.key.unwrap_or_default();
        for k in key
            .iter()
            .filter(|k| columns == "variant" && !n.variants.contains(k))
        {
            c.err(
                span.clone(),
                format!(
                    "key column `{k}` is not a variant of experiment `{}`",
                    n.exp.name
                ),
                "unknown variant",
                did_you_mean_or(
                    k,
                    n.variants.iter().map(String::as_str),
                    "expected a variant",
                ),
            );
        }
        tables.push(TableSpec {
            rows: t.rows.unwrap_or_else(|| first_axis.clone()),
            columns,
            value: t.value.unwrap_or_else(|| TIME_MS.into()),
            title: t.title,
            key,
        });
    }
    if tables.is_empty() {
        tables.push(TableSpec {
            rows: first_axis,
            ..TableSpec::default()
        });
    }
    tables
}

/// The directive's charts, their kind and fields checked and the metrics they show added to
/// `used`.
fn check_charts(
    c: &mut Checker,
    n: &Names,
    raw: Option<Spanned<OneOrMany<RawChart>>>,
    used: &mut Vec<(String, Range<usize>)>,
) -> Vec<ChartSpec> {
    let span = raw.as_ref().map(|t| t.span()).unwrap_or(0..0);
    let mut charts = Vec::new();
    for ch in raw.map(|t| t.into_inner().into_vec()).unwrap_or_default() {
        let kind = match ch.kind.as_deref() {
            None | Some("line") => ChartKind::Line,
            Some("bar") => ChartKind::Bar,
            Some("heatmap") => ChartKind::Heatmap,
            Some(other) => {
                let help = did_you_mean(other, ["line", "bar", "heatmap"]);
                c.err(
                    span.clone(),
                    format!("unknown chart kind `{other}`"),
                    "expected line, bar or heatmap",
                    help,
                );
                ChartKind::Line
            }
        };
        check_field(c, n, &ch.x, span.clone(), false);
        let heat = kind == ChartKind::Heatmap;
        check_field(c, n, &ch.y, span.clone(), !heat);
        if !heat {
            used.push((ch.y.clone(), span.clone()));
        }
        if let Some(v) = &ch.value {
            used.push((v.clone(), span.clone()));
        }
        if let Some(s) = &ch.series {
            check_field(c, n, s, span.clone(), false);
        }
        if let Some(v) = &ch.value {
            check_field(c, n, v, span.clone(), true);
        } else if heat {
            c.err(
                span.clone(),
                "a heat map needs `value = \"<metric>\"`",
                "here",
                None,
            );
        }
        charts.push(ChartSpec {
            kind,
            x: ch.x,
            y: ch.y,
            series: ch.series.or_else(|| (!heat).then(|| "variant".to_string())),
            value: ch.value,
            log_x: ch.log_x,
            log_y: ch.log_y,
            title: ch.title,
        });
    }
    charts
}

/// The `paper_check` entries, each a `+`-joined list of paper tables that load.
fn check_paper_check(
    c: &mut Checker,
    raw: Option<Spanned<Vec<Spanned<String>>>>,
    paper_problem: &dyn Fn(&str) -> Option<String>,
) -> Vec<Vec<String>> {
    let mut paper_check = Vec::new();
    for entry in raw.map(Spanned::into_inner).unwrap_or_default() {
        let ids: Vec<String> = entry
            .get_ref()
            .split('+')
            .map(|id| id.trim().to_string())
            .collect();
        if ids.iter().any(String::is_empty) {
            c.err(
                entry.span(),
                format!("`{}` names an empty paper table", entry.get_ref()),
                "expected \"<paper>/<table>\" or \"<paper>/<table> + <paper>/<table>\"",
                None,
            );
            continue;
        }
        for id in &ids {
            if let Some(problem) = paper_problem(id) {
                c.err(
                    entry.span(),
                    format!("paper table `{id}`: {problem}"),
                    "here",
                    None,
                );
            }
        }
        paper_check.push(ids);
    }
    paper_check
}

/// The `reproduces` ids, each of the form `<paper>:<item>`.
fn check_reproduces(c: &mut Checker, raw: Option<Spanned<OneOrMany<String>>>) -> Vec<String> {
    let Some(r) = raw else { return Vec::new() };
    let span = r.span();
    r.into_inner()
        .into_vec()
        .into_iter()
        .filter(|id| {
            let ok = id
                .split_once(':')
                .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty());
            if !ok {
                c.err(
                    span.clone(),
                    format!("`{id}` is not a reproduction id"),
                    "expected \"<paper>:<item>\"",
                    None,
                );
            }
            ok
        })
        .collect()
}

/// The `expect` claims, parsed, each naming shown variants, known metrics and the directive's
/// axes; the metrics they claim are added to `used`.
fn check_claims(
    c: &mut Checker,
    n: &Names,
    raw: Option<Spanned<Vec<Spanned<String>>>>,
    used: &mut Vec<(String, Range<usize>)>,
) -> Vec<Claim> {
    let mut expect = Vec::new();
    for claim in raw.map(Spanned::into_inner).unwrap_or_default() {
        let parsed = match Claim::parse(claim.get_ref()) {
            Ok(parsed) => parsed,
            Err(e) => {
                let start = claim.span().start + 1 + e.offset;
                c.err(
                    start..start + e.len.max(1),
                    format!("invalid claim: {}", e.message),
                    "here",
                    None,
                );
                continue;
            }
        };
        for (variant, metric) in parsed.result_refs() {
            used.push((metric.clone(), claim.span()));
            if !n.variants.contains(&variant) {
                let help = did_you_mean(&variant, n.variants.iter().map(String::as_str));
                c.err(
                    claim.span(),
                    format!("claim names variant `{variant}`, which this directive does not show"),
                    "in this claim",
                    help,
                );
            } else if !is_metric(&metric, &n.metrics) {
                let help = did_you_mean(&metric, n.metrics.iter().map(String::as_str));
                c.err(
                    claim.span(),
                    format!("claim names unknown metric `{metric}`"),
                    "in this claim",
                    help,
                );
            }
        }
        for axis in parsed.axis_names() {
            if !n.is_axis(&axis) {
                let start = claim.span().start + 1 + parsed.span_of(&axis).map_or(0, |r| r.start);
                let help = did_you_mean(&axis, n.axes.iter().map(String::as_str)).or_else(|| {
                    Some(if n.axes.is_empty() {
                        "this directive has no axes".to_string()
                    } else {
                        format!("its axes: {}", n.axes.join(", "))
                    })
                });
                c.err(
                    start..start + axis.len(),
                    format!("claim names `{axis}`, which is not an axis of this directive"),
                    "not an axis",
                    help,
                );
            }
        }
        expect.push(parsed);
    }
    expect
}

/// The devices the directive shows: `"all"` or a device slug.
fn check_devices(c: &mut Checker, raw: Option<&Spanned<String>>) -> DeviceSelection {
    let Some(d) = raw else {
        return DeviceSelection::Default;
    };
    let slug = d.get_ref().as_str();
    if slug == "all" {
        return DeviceSelection::All;
    }
    // `ALL`, `""` or `../x` showed "awaiting a GPU run" although the data exist.
    if !crate::confine::is_plain_name(slug) || slug.eq_ignore_ascii_case("all") {
        c.err(
            d.span(),
            format!("`devices = \"{slug}\"` is neither \"all\" nor a device slug"),
            "here",
            Some(
                "write \"all\", or the folder name of a device under data/ (e.g. \"nvidia-h100-80gb-hbm3\")"
                    .into(),
            ),
        );
    }
    DeviceSelection::Slug(slug.to_string())
}

/// The directive's `measure` overrides: a known mode and limits within range.
fn check_measure(c: &mut Checker, raw: Spanned<RawMeasure>) -> MeasureOverrides {
    let span = raw.span();
    let m = raw.into_inner();
    let mode = m.mode.as_deref().and_then(|mode| match mode {
        "cold" => Some(TimingMode::Cold),
        "hot" => Some(TimingMode::Hot),
        other => {
            c.err(
                span.clone(),
                format!("unknown measure mode `{other}`"),
                "expected \"cold\" or \"hot\"",
                None,
            );
            None
        }
    });
    for problem in
        crate::limits::measure_problems(m.timeout_s, m.min_samples, m.max_samples, m.noise)
    {
        c.err(
            span.clone(),
            format!("invalid `measure`: {problem}"),
            "here",
            None,
        );
    }
    MeasureOverrides {
        timeout_s: m.timeout_s,
        max_samples: m.max_samples,
        min_samples: m.min_samples,
        noise: m.noise,
        mode,
    }
}

/// The directive's `counters` groups (each known, none twice), and an error for every metric
/// it shows or claims whose counter group it does not declare.
fn check_counters(
    c: &mut Checker,
    raw: Option<&Spanned<Vec<Spanned<String>>>>,
    used: &[(String, Range<usize>)],
) -> Vec<Group> {
    let mut groups = Vec::new();
    for name in raw.map(|r| r.get_ref().as_slice()).unwrap_or_default() {
        match Group::parse(name.get_ref()) {
            Some(g) if !groups.contains(&g) => groups.push(g),
            Some(_) => c.err(name.span(), "counter group named twice", "again", None),
            None => {
                let names = GROUPS.iter().map(|g| g.0);
                let help = did_you_mean_or(name.get_ref(), names, "counter groups");
                c.err(
                    name.span(),
                    format!("unknown counter group `{}`", name.get_ref()),
                    "unknown group",
                    help,
                );
            }
        }
    }
    let mut reported = BTreeSet::new();
    for (metric, span) in used {
        let base = metric.split('.').next().unwrap_or(metric);
        let Some(Source::Counters(g)) = builtin(base).map(|b| b.source) else {
            continue;
        };
        if groups.contains(&g) || !reported.insert(base.to_string()) {
            continue;
        }
        c.err(
            span.clone(),
            format!(
                "`{base}` comes from the hardware counters `{}`, which this directive does not declare",
                g.name()
            ),
            "counter metric",
            Some(format!(
                "add `counters = [\"{}\"]`; `mdbook-gpulab record --counters` then profiles the directive's points under Nsight Compute",
                g.name()
            )),
        );
    }
    groups
}

/// An error for every rate the directive shows or claims whose formula its experiment's spec
/// lacks (`gbps` and `pct_bw` need `bytes`, `gflops` and `pct_fp32` need `flops`): without it
/// the table and chart would stay empty after every GPU run.
/// A variant's own `metrics = { bytes = … }` counts too, when every variant shown sets it.
fn check_derived(c: &mut Checker, n: &Names, used: &[(String, Range<usize>)]) {
    let (exp, variants, metrics) = (n.exp, &n.variants, &n.metrics);
    let mut reported = BTreeSet::new();
    for (metric, span) in used {
        // A name that is no metric at all has its own error.
        if !is_metric(metric, metrics) {
            continue;
        }
        let base = metric.split('.').next().unwrap_or(metric);
        let Some(formula) = rate_formula(base) else {
            continue;
        };
        if variants.iter().all(|v| has_rate_formula(exp, v, formula))
            || !reported.insert(base.to_string())
        {
            continue;
        }
        let example = if formula == "bytes" { "2*N*4" } else { "2*N^3" };
        c.err(
            span.clone(),
            format!(
                "`{base}` is computed from the spec's `{formula}` formula, which experiment `{}` does not have",
                exp.name
            ),
            "no formula",
            Some(format!(
                "add `{formula} = \"…\"` under `[metrics]` in its experiment.toml (e.g. `{formula} = \"{example}\"`), or show `time_ms`"
            )),
        );
    }
}

/// Expands an axis value: a scalar, a list, `{ range = [a, b, step] }` or `{ pow2 = [lo, hi] }`.
/// Lengths are checked against [`MAX_AXIS_VALUES`] before anything is allocated, with arithmetic
/// that cannot overflow.
pub(crate) fn axis_values(v: &toml::Value) -> Result<Vec<ParamValue>, String> {
    let too_long = |n: String| format!("{n} values; an axis may have at most {MAX_AXIS_VALUES}");
    match v {
        toml::Value::Array(items) => {
            if items.len() > MAX_AXIS_VALUES {
                return Err(too_long(items.len().to_string()));
            }
            items
                .iter()
                .map(|i| param_value(i).ok_or_else(|| format!("`{i}` is not a number or string")))
                .collect()
        }
        toml::Value::Table(t) if t.len() == 1 => {
            let ints = |key: &str, n: usize| -> Result<Vec<i64>, String> {
                let arr = t
                    .get(key)
                    .and_then(|a| a.as_array())
                    .ok_or_else(|| format!("`{key}` needs a list"))?;
                let nums: Option<Vec<i64>> = arr.iter().map(|x| x.as_integer()).collect();
                match nums {
                    Some(v) if v.len() == n || (key == "range" && v.len() == 2) => Ok(v),
                    _ => Err(format!("`{key}` needs {n} integers")),
                }
            };
            if t.contains_key("range") {
                let r = ints("range", 3)?;
                let (from, to, step) = (r[0], r[1], *r.get(2).unwrap_or(&1));
                if step <= 0 || to < from {
                    return Err("range needs from <= to and a positive step".into());
                }
                // In i128: `to - from` of two i64 cannot overflow there.
                let count = (i128::from(to) - i128::from(from)) / i128::from(step) + 1;
                if count > MAX_AXIS_VALUES as i128 {
                    return Err(too_long(count.to_string()));
                }
                Ok((0..count as i64)
                    .map(|k| ParamValue::Int(from + k * step))
                    .collect())
            } else if t.contains_key("pow2") {
                let r = ints("pow2", 2)?;
                if r[0] <= 0 || r[1] < r[0] {
                    return Err("pow2 needs 0 < lo <= hi".into());
                }
                let mut out = Vec::new();
                let mut x = Some(r[0]);
                while let Some(v) = x.filter(|v| *v <= r[1]) {
                    out.push(ParamValue::Int(v));
                    x = v.checked_mul(2);
                }
                Ok(out)
            } else {
                let key = t.keys().next().map(String::as_str).unwrap_or_default();
                let hint = crate::diagnostic::did_you_mean(key, ["range", "pow2"])
                    .map(|h| format!(" ({h})"))
                    .unwrap_or_default();
                Err(format!(
                    "unknown key `{key}`{hint}: expected a list, {{ range = [from, to, step] }} or {{ pow2 = [lo, hi] }}"
                ))
            }
        }
        toml::Value::Table(t) => Err(format!(
            "a table of {} keys ({}): expected a list, {{ range = [from, to, step] }} or {{ pow2 = [lo, hi] }}",
            t.len(),
            t.keys()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        other => param_value(other)
            .map(|p| vec![p])
            .ok_or_else(|| "expected a number, a string or a list".into()),
    }
}

/// How many points `axes` (with `zip` groups advancing together) times `variants` make, or
/// `None` when the count overflows `u64`. Mirrors `plan::combinations` without building them.
pub fn point_count(axes: &[Axis], zip: &[Vec<String>], variants: usize) -> Option<u64> {
    let mut total: u64 = variants as u64;
    let mut seen: Vec<&str> = Vec::new();
    for axis in axes {
        if seen.contains(&axis.name.as_str()) {
            continue;
        }
        let members: Vec<&Axis> = match zip.iter().find(|g| g.contains(&axis.name)) {
            Some(g) => axes.iter().filter(|a| g.contains(&a.name)).collect(),
            None => vec![axis],
        };
        seen.extend(members.iter().map(|a| a.name.as_str()));
        let len = members.iter().map(|a| a.values.len()).min().unwrap_or(0);
        total = crate::limits::mul_count(total, len as u64)?;
    }
    Some(total)
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
