//! Inline values: `{{#gpulab EXPERIMENT EXPRESSION [NAME=VALUE …]}}` in a chapter's prose, found
//! outside code and turned into a directive whose only points are the results its expression names.

use super::fence::{Fence, FenceKind};
use super::raw::{OneOrMany, RawDirective, RawTable};
use super::{Inline, Operand};
use crate::expr::Expr;
use crate::spec::Experiment;
use crate::value::{ParamValue, Unit};
use std::collections::BTreeMap;
use std::ops::Range;
use toml::Spanned;

/// What opens an inline value; `}}` closes it.
pub const OPEN: &str = "{{#gpulab";
const CLOSE: &str = "}}";
/// The option naming the device a result is read on.
const DEVICE: &str = "device";
/// The option naming the unit of a computed value.
const UNIT: &str = "unit";

/// What is wrong with an inline value: message, byte range in its body, label.
pub(crate) type Problem = (String, Range<usize>, &'static str);

/// The ranges of `markdown` that are code (spans and blocks) or raw HTML: no value is read there.
pub(crate) fn code_ranges(markdown: &str) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    Parser::new_ext(markdown, Options::all())
        .into_offset_iter()
        .filter(|(e, _)| {
            matches!(
                e,
                Event::Code(_)
                    | Event::Html(_)
                    | Event::InlineHtml(_)
                    | Event::Start(Tag::CodeBlock(_))
            )
        })
        .map(|(_, range)| range)
        .collect()
}

/// Every inline value of `markdown` outside code, in order: `block` is the whole `{{#gpulab …}}`,
/// `body` what follows `{{#gpulab`; one left open at the end of its paragraph is `unclosed`.
pub fn find_inline(markdown: &str) -> Vec<Fence> {
    let code = code_ranges(markdown);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = markdown[from..].find(OPEN).map(|i| i + from) {
        let body_start = at + OPEN.len();
        if let Some(r) = code.iter().find(|r| r.contains(&at)) {
            from = r.end.max(body_start);
            continue;
        }
        if !markdown[body_start..].starts_with(char::is_whitespace) {
            from = body_start;
            continue;
        }
        let rest = &markdown[body_start..];
        let close = rest.find(CLOSE).filter(|e| !rest[..*e].contains("\n\n"));
        let (body_end, block_end) = match close {
            Some(e) => (body_start + e, body_start + e + CLOSE.len()),
            None => {
                let end = body_start + rest.find('\n').unwrap_or(rest.len());
                (end, end)
            }
        };
        out.push(Fence {
            kind: FenceKind::Inline,
            block: at..block_end,
            body: markdown[body_start..body_end].to_string(),
            body_start,
            pieces: vec![(0, body_start)],
            unclosed: close.is_none(),
        });
        from = block_end;
    }
    out
}

/// The prose of `markdown`: its text outside code, raw HTML, fences and inline values, as ranges.
pub fn prose_ranges(markdown: &str) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Options, Parser};
    let mut skip: Vec<Range<usize>> = code_ranges(markdown)
        .into_iter()
        .chain(find_inline(markdown).into_iter().map(|f| f.block))
        .collect();
    skip.sort_by_key(|r| r.start);
    let mut out = Vec::new();
    for (event, range) in Parser::new_ext(markdown, Options::all()).into_offset_iter() {
        if !matches!(event, Event::Text(_)) {
            continue;
        }
        // A text event may hold an inline value (`{{…}}` is no markdown): keep what is around it.
        let mut start = range.start;
        for s in skip
            .iter()
            .filter(|s| s.start < range.end && s.end > range.start)
        {
            if s.start > start {
                out.push(start..s.start);
            }
            start = start.max(s.end);
        }
        if start < range.end {
            out.push(start..range.end);
        }
    }
    out
}

/// `NAME=VALUE` (a parameter, `device` or `unit`), with its parts' ranges.
pub(crate) struct Assign {
    name: Spanned<String>,
    value: Spanned<String>,
}

/// A result the expression names, before the spec is known.
pub(crate) struct RawOperand {
    var: String,
    variant: Spanned<String>,
    metric: Spanned<String>,
    /// Its own values (`copy[N=4096].gbps`).
    own: Vec<Assign>,
}

/// An inline value's text in parts (ranges into its body).
pub(crate) struct Parts {
    pub(crate) experiment: Spanned<String>,
    expr: Expr,
    expr_span: Range<usize>,
    operands: Vec<RawOperand>,
    /// The values every result shares, `device` and `unit`.
    shared: Vec<Assign>,
}

/// The whitespace-separated words of `text`, as ranges.
fn words(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

fn is_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `NAME=VALUE` at `range` of `text`, if it is one.
fn assign(text: &str, range: Range<usize>) -> Option<Assign> {
    let (name, value) = text[range.clone()].split_once('=')?;
    (is_name(name) && !value.is_empty() && !value.starts_with('=')).then(|| {
        let at = range.start + name.len() + 1;
        Assign {
            name: Spanned::new(range.start..at - 1, name.to_string()),
            value: Spanned::new(at..range.end, value.to_string()),
        }
    })
}

/// Splits an inline value's body: the experiment, the expression (each `name[…]` of it replaced
/// by an alias of the same length, so that spans still point into the body) and the trailing
/// `NAME=VALUE`s.
pub(crate) fn parse(body: &str) -> Result<Parts, Problem> {
    let words = words(body);
    let Some(first) = words.first().cloned() else {
        let usage = "an inline value names an experiment and a result: `{{#gpulab coalescing copy.gbps N=2048}}`";
        return Err((usage.into(), 0..body.len(), "empty"));
    };
    let mut last = words.len();
    while last > 1 && assign(body, words[last - 1].clone()).is_some() {
        last -= 1;
    }
    if last < 2 {
        let what = "expected an expression after the experiment, such as `copy.gbps`";
        return Err((what.into(), first, "no expression after this"));
    }
    let shared = words[last..]
        .iter()
        .filter_map(|r| assign(body, r.clone()))
        .collect();
    let expr_span = words[1].start..words[last - 1].end;
    let (text, qualified) = aliases(body, expr_span.clone())?;
    let at = expr_span.start;
    let expr = Expr::parse_real(&text).map_err(|e| {
        let start = at + e.offset;
        let end = (start + e.len.max(1)).min(body.len());
        (e.message.clone(), start.min(end)..end, "here")
    })?;
    let mut aliased: BTreeMap<String, (String, Vec<Assign>)> = qualified.into_iter().collect();
    let mut operands = Vec::new();
    for var in expr.variables() {
        let span = expr.variable_span(&var).unwrap_or(0..0);
        let span = at + span.start..at + span.end;
        let Some((head, metric)) = var.split_once('.') else {
            let what = format!("`{var}` names no result: write `variant.metric`, e.g. `copy.gbps`");
            return Err((what, span, "not a result"));
        };
        let (variant, own) = aliased
            .remove(head)
            .unwrap_or_else(|| (head.to_string(), Vec::new()));
        let metric_at = span.start + head.len() + 1;
        operands.push(RawOperand {
            variant: Spanned::new(span.start..span.start + variant.len(), variant),
            metric: Spanned::new(metric_at..span.end, metric.to_string()),
            var,
            own,
        });
    }
    Ok(Parts {
        experiment: Spanned::new(first.clone(), body[first].to_string()),
        expr,
        expr_span,
        operands,
        shared,
    })
}

/// An alias in an expression and what it stands for: a variant at values of its own.
type Alias = (String, (String, Vec<Assign>));

/// `span` of `body` with each `variant[NAME=VALUE,…]` replaced by an alias (`_0_____`) of the
/// same length, and what each alias stands for.
fn aliases(body: &str, span: Range<usize>) -> Result<(String, Vec<Alias>), Problem> {
    let mut text = body[span.clone()].to_string();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find('[').map(|i| i + from) {
        let start = text[..open]
            .char_indices()
            .rfind(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let Some(close) = text[open..].find(']').map(|i| i + open) else {
            let at = span.start + open;
            return Err(("`[` is not closed".into(), at..at + 1, "opened here"));
        };
        let variant = &text[start..open];
        if variant.is_empty() || text[..start].ends_with('.') {
            let at = span.start + open;
            let what = "`[…]` follows a variant: `copy[N=4096].gbps`";
            return Err((what.into(), at..at + 1, "no variant before this"));
        }
        let mut own = Vec::new();
        let mut at = span.start + open + 1;
        for part in text[open + 1..close].split(',') {
            let trimmed = part.trim();
            let lead = part.len() - part.trim_start().len();
            let range = at + lead..at + lead + trimmed.len();
            own.push(assign(body, range.clone()).ok_or_else(|| {
                let what = "expected `NAME=VALUE` (a parameter or `device`)";
                (what.to_string(), range, "here")
            })?);
            at += part.len() + 1;
        }
        let alias = format!("_{}", out.len());
        let alias = format!("{alias:_<width$}", width = close + 1 - start);
        out.push((alias.clone(), (variant.to_string(), own)));
        text.replace_range(start..=close, &alias);
        from = close + 1;
    }
    Ok((text, out))
}

/// A `NAME=VALUE` value as TOML reads it (`4096`, `1.5`, `"16x16"`), else as a string.
fn toml_value(text: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {text}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(text.to_string()))
}

fn toml_of(value: &ParamValue) -> toml::Value {
    match value {
        ParamValue::Int(i) => toml::Value::Integer(*i),
        ParamValue::Float(f) => toml::Value::Float(*f),
        ParamValue::Str(s) => toml::Value::String(s.clone()),
    }
}

/// The directive of an inline value (for `validate`, which checks its names against the spec)
/// and its expression: each operand reads its own values, else the shared ones, else the spec's
/// defaults; the directive's axes hold every value an operand reads.
pub(crate) fn build(parts: Parts, exp: &Experiment) -> Result<(RawDirective, Inline), Problem> {
    let (mut unit, mut device, mut shared) = (None, None, Vec::new());
    for a in parts.shared {
        match a.name.get_ref().as_str() {
            UNIT => unit = Some(parse_unit(&a.value)?),
            DEVICE => device = device_of(a.value.get_ref()),
            _ => shared.push(a),
        }
    }
    let mut operands = Vec::new();
    for op in parts.operands {
        let (values, own_device) = values_of(&shared, &op)?;
        operands.push((op, values, own_device.unwrap_or_else(|| device.clone())));
    }
    // A parameter one operand names and another does not: that one reads the spec's default.
    let named: BTreeMap<String, Range<usize>> = operands
        .iter()
        .flat_map(|(_, values, _)| values.iter().map(|(k, (_, s))| (k.clone(), s.clone())))
        .collect();
    for (name, default) in exp.params.iter().filter(|(n, _)| named.contains_key(n)) {
        for (_, values, _) in &mut operands {
            values
                .entry(name.clone())
                .or_insert_with(|| (toml_of(default), named[name].clone()));
        }
    }
    let raw = raw_directive(parts.experiment, parts.expr_span, &operands);
    let operands = operands
        .into_iter()
        .map(|(op, values, device)| Operand {
            var: op.var,
            variant: op.variant.into_inner(),
            metric: op.metric.into_inner(),
            params: values
                .into_iter()
                .filter_map(|(k, (v, _))| Some((k, crate::spec::validate::param_value(&v)?)))
                .collect(),
            device,
        })
        .collect();
    let inline = Inline {
        expr: parts.expr,
        operands,
        unit,
    };
    Ok((raw, inline))
}

/// An operand's values with their ranges, the shared ones and then its own, and its own `device=`.
type Values = BTreeMap<String, (toml::Value, Range<usize>)>;

fn values_of(
    shared: &[Assign],
    op: &RawOperand,
) -> Result<(Values, Option<Option<String>>), Problem> {
    let (mut values, mut own_device) = (Values::new(), None);
    for a in shared.iter().chain(&op.own) {
        match a.name.get_ref().as_str() {
            DEVICE => own_device = Some(device_of(a.value.get_ref())),
            UNIT => {
                let what = "`unit` applies to the whole value: write it after the expression";
                return Err((what.into(), a.name.span(), "here"));
            }
            name => {
                let v = toml_value(a.value.get_ref());
                let span = a.name.span().start..a.value.span().end;
                values.insert(name.to_string(), (v, span));
            }
        }
    }
    Ok((values, own_device))
}

/// The directive `validate` checks for an inline value: its operands' variants, values (as axes),
/// metrics (as tables, with the counter groups they read) and devices.
fn raw_directive(
    experiment: Spanned<String>,
    span: Range<usize>,
    operands: &[(RawOperand, Values, Option<String>)],
) -> RawDirective {
    let mut variants: Vec<Spanned<String>> = Vec::new();
    let mut tables: Vec<(String, Range<usize>)> = Vec::new();
    let mut axes: indexmap::IndexMap<String, Spanned<toml::Value>> = indexmap::IndexMap::new();
    for (op, values, _) in operands {
        if !variants.iter().any(|v| v.get_ref() == op.variant.get_ref()) {
            variants.push(op.variant.clone());
        }
        if !tables.iter().any(|(m, _)| m == op.metric.get_ref()) {
            tables.push((op.metric.get_ref().clone(), op.metric.span()));
        }
        record_axes(&mut axes, values);
    }
    let devices: Vec<&Option<String>> = operands.iter().map(|(_, _, d)| d).collect();
    let selection = match devices.first() {
        Some(Some(d)) if devices.iter().all(|x| x.as_ref() == Some(d)) => Some(d.clone()),
        Some(None) if devices.iter().all(|x| x.is_none()) => None,
        _ => Some("all".to_string()),
    };
    // A counter metric reads the hardware counters of its group: the value declares it.
    let mut counters: Vec<Spanned<String>> = Vec::new();
    for (m, at) in &tables {
        let base = m.split('.').next().unwrap_or(m);
        if let Some(crate::metrics::Source::Counters(g)) =
            crate::metrics::builtin(base).map(|b| b.source)
            && !counters.iter().any(|c| c.get_ref() == g.name())
        {
            counters.push(Spanned::new(at.clone(), g.name().to_string()));
        }
    }
    let table_span = match tables.as_slice() {
        [(_, at)] => at.clone(),
        _ => span.clone(),
    };
    RawDirective {
        experiment,
        variants: Some(Spanned::new(span.clone(), variants)),
        axes: (!axes.is_empty()).then(|| Spanned::new(span.clone(), axes)),
        table: Some(Spanned::new(
            table_span,
            OneOrMany::Many(tables.into_iter().map(|(m, _)| table(m)).collect()),
        )),
        devices: selection.map(|d| Spanned::new(span.clone(), d)),
        zip: None,
        title: None,
        chart: None,
        paper: None,
        paper_check: None,
        reproduces: None,
        expect: None,
        measure: None,
        budget_s: None,
        counters: (!counters.is_empty()).then(|| Spanned::new(span, counters)),
    }
}

/// The device a `device=` names: `this` is the page's own (the GPU at hand in a build that runs
/// kernels), as when none is named.
fn device_of(value: &str) -> Option<String> {
    (value != "this").then(|| value.to_string())
}

/// Adds `values` to the directive's axes: one value is a scalar, several a list.
fn record_axes(
    axes: &mut indexmap::IndexMap<String, Spanned<toml::Value>>,
    values: &BTreeMap<String, (toml::Value, Range<usize>)>,
) {
    for (name, (value, span)) in values {
        let entry = axes
            .entry(name.clone())
            .or_insert_with(|| Spanned::new(span.clone(), toml::Value::Array(Vec::new())));
        let span = entry.span();
        let mut list = match entry.get_ref() {
            toml::Value::Array(list) => list.clone(),
            one => vec![one.clone()],
        };
        if !list.contains(value) {
            list.push(value.clone());
        }
        *entry = Spanned::new(
            span,
            match <[_; 1]>::try_from(list) {
                Ok([one]) => one,
                Err(list) => toml::Value::Array(list),
            },
        );
    }
}

fn table(metric: String) -> RawTable {
    RawTable {
        rows: None,
        columns: None,
        value: Some(metric),
        title: None,
        key: None,
    }
}

/// `unit=%`, `unit=x`, `unit=GB/s`, …
fn parse_unit(value: &Spanned<String>) -> Result<Unit, Problem> {
    Unit::parse(value.get_ref()).ok_or_else(|| {
        let what = format!(
            "`{}` is not a unit: write `%`, `x`, `ms`, `s`, `GB/s`, `GFLOP/s`, `GIPS`, `FLOP/B` or `B`",
            value.get_ref()
        );
        (what, value.span(), "unknown unit")
    })
}

#[cfg(test)]
#[path = "inline_tests.rs"]
mod tests;
