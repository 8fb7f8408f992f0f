//! Point problems (see `point_check`) turned into diagnostics, each reported once: at the
//! chapter's axis when a directive's value caused it, at the spec's line when the spec's own
//! values do.

use crate::diagnostic::Diagnostic;
use crate::directive::Directive;
use crate::plan::combinations;
use crate::point_check::{Problem, check_point, check_requires};
use crate::source::SourceFile;
use crate::spec::Experiment;
use crate::value::ParamValue;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

/// Checks every point of `directive`; `axis_spans` locates each axis in the chapter `file`.
pub(crate) fn check_points(
    root: &Path,
    directive: &Directive,
    exp: &Experiment,
    file: &SourceFile,
    axis_spans: &[(String, Range<usize>)],
    max_buffer_bytes: u64,
) -> Vec<Diagnostic> {
    let seen = problems_by_expression(directive, exp, max_buffer_bytes);
    let spec_shown = exp
        .dir
        .join("experiment.toml")
        .strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| exp.dir.join("experiment.toml"));
    if seen.is_empty() {
        return Vec::new();
    }
    let spec_text = match read_spec(&exp.dir.join("experiment.toml"), &spec_shown) {
        Ok(text) => text,
        Err(d) => return vec![*d],
    };
    let spec = SourceFile::new(spec_shown, spec_text.as_str());
    let mut out = Vec::new();
    for ((variant, _, _), (p, axes, count)) in seen {
        let spec_span = find_expr_in_variant(&spec_text, &p.expr, &variant, &p.what);
        // A precondition's problem belongs to no variant.
        let who = |sep: &str| match variant.as_str() {
            "" => String::new(),
            v => format!("variant `{v}`{sep}"),
        };
        let (line, _) = crate::diagnostic::line_col(&spec_text, spec_span.start);
        let more = if count > 1 {
            format!(" (and {} more point(s))", count - 1)
        } else {
            String::new()
        };
        let axis = axis_spans.iter().find(|(name, _)| {
            p.vars
                .iter()
                .any(|v| v == name || v.starts_with(&format!("{name}_")))
        });
        match axis {
            Some((name, span)) => {
                let at = axes
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let d = file
                    .error(
                        span.clone(),
                        format!(
                            "{}at {at}: {} `{}`: {}{more}",
                            who(" "),
                            p.what,
                            p.expr,
                            p.message
                        ),
                        format!("this value of `{name}`"),
                    )
                    .with_help(format!(
                        "{} = `{}` is at {}:{line}",
                        p.what,
                        p.expr,
                        spec.path.display()
                    ));
                out.push(d);
            }
            None => out.push(spec.error(
                spec_span,
                format!("{}{} `{}`: {}{more}", who(": "), p.what, p.expr, p.message),
                "with the spec's parameter defaults",
            )),
        }
    }
    out
}

/// (variant, what, expression) → first problem, its point's axes, and how many points have it.
type Seen = BTreeMap<(String, String, String), (Problem, BTreeMap<String, ParamValue>, usize)>;

/// Every planned point's problems, grouped by the expression that has them.
fn problems_by_expression(directive: &Directive, exp: &Experiment, max_buffer_bytes: u64) -> Seen {
    let mut seen: Seen = BTreeMap::new();
    let mut note = |vname: &str, p: Problem, axes: &BTreeMap<String, ParamValue>| {
        let key = (vname.to_string(), p.what.clone(), p.expr.clone());
        seen.entry(key)
            .and_modify(|e| e.2 += 1)
            .or_insert((p, axes.clone(), 1));
    };
    for axes in &combinations(&directive.axes, &directive.zip) {
        let mut params: BTreeMap<String, ParamValue> = exp.params.iter().cloned().collect();
        params.extend(axes.iter().map(|(k, v)| (k.clone(), v.clone())));
        // A point the spec's preconditions refuse is reported once, not for each variant, and
        // its other problems (which the precondition explains) not at all.
        let broken = check_requires(exp, &params);
        if !broken.is_empty() {
            broken.into_iter().for_each(|p| note("", p, axes));
            continue;
        }
        for vname in &directive.variants {
            let Some(variant) = exp.variant(vname) else {
                continue;
            };
            for p in check_point(exp, variant, &params, max_buffer_bytes) {
                note(vname, p, axes);
            }
        }
    }
    seen
}

/// The spec's text, to locate the problems in; an error (rather than an empty text whose spans
/// point nowhere) when it can no longer be read.
fn read_spec(path: &Path, shown: &Path) -> Result<String, Box<Diagnostic>> {
    std::fs::read_to_string(path).map_err(|e| {
        Box::new(SourceFile::new(shown, "").error(
            0..0,
            format!(
                "cannot read {} to report its points' problems: {e}",
                shown.display()
            ),
            "",
        ))
    })
}

/// Where the expression of problem `what` is written in the spec: in the `[[buffer]]` table of
/// the buffer a length problem names, else in the table of `variant`, else anywhere.
fn find_expr_in_variant(text: &str, expr: &str, variant: &str, what: &str) -> Range<usize> {
    let buffer = what
        .strip_prefix("buffer `")
        .and_then(|r| r.strip_suffix("` length"));
    let table = match buffer {
        Some(name) => table_named(text, "buffer", name),
        None => table_named(text, "variant", variant),
    };
    if let Some(range) = table {
        let found = find_expr(&text[range.clone()], expr);
        if found != (0..0) {
            return range.start + found.start..range.start + found.end;
        }
    }
    find_expr(text, expr)
}

/// The byte range of the `[[kind]]` table whose `name = "…"` is `name` (up to the next header
/// that is not one of its sub-tables, `[kind.x]`).
fn table_named(text: &str, kind: &str, name: &str) -> Option<Range<usize>> {
    let header = format!("[[{kind}]]");
    let sub = format!("{kind}.");
    text.match_indices(&header).find_map(|(start, _)| {
        let rest = &text[start + header.len()..];
        let end = rest
            .match_indices("\n[")
            .map(|(e, _)| e)
            .find(|e| !rest[e + 1..].trim_start_matches('[').starts_with(&sub))
            .map_or(text.len(), |e| start + header.len() + e);
        let body = &text[start..end];
        let names_it = body.lines().any(|l| {
            l.split_once('=').is_some_and(|(k, v)| {
                k.trim() == "name" && v.trim().trim_matches(['"', '\'']) == name
            })
        });
        names_it.then_some(start..end)
    })
}

/// Where expression `expr` is written in the spec text: as a quoted string if possible, else as
/// a bare value (after `=`, `[` or `,`, so that a label mentioning the same text is skipped).
fn find_expr(text: &str, expr: &str) -> Range<usize> {
    for quoted in [format!("\"{expr}\""), format!("'{expr}'")] {
        if let Some(i) = text.find(&quoted) {
            return i..i + quoted.len();
        }
    }
    if expr.is_empty() {
        return 0..0;
    }
    let is_value = |i: usize| text[..i].trim_end().ends_with(['=', '[', ',']);
    text.match_indices(expr)
        .map(|(i, _)| i)
        .find(|i| is_value(*i))
        .map_or(0..0, |i| i..i + expr.len())
}

#[cfg(test)]
#[path = "point_diagnostics_tests.rs"]
mod tests;
