//! Point problems (see `point_check`) turned into diagnostics, each reported once: at the
//! chapter's axis when a directive's value caused it, at the spec's line when the spec's own
//! values do.

use crate::diagnostic::Diagnostic;
use crate::directive::Directive;
use crate::plan::combinations;
use crate::point_check::{Problem, check_point};
use crate::source::SourceFile;
use crate::spec::Experiment;
use crate::value::ParamValue;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

/// Checks every point of `directive`; `axis_spans` locates each axis in the chapter `file`.
pub fn check_points(
    root: &Path,
    directive: &Directive,
    exp: &Experiment,
    file: &SourceFile,
    axis_spans: &[(String, Range<usize>)],
    max_buffer_bytes: u64,
) -> Vec<Diagnostic> {
    // (variant, what, expression) → first problem, its point's axes, and how many points have it.
    type Seen = BTreeMap<(String, String, String), (Problem, BTreeMap<String, ParamValue>, usize)>;
    let mut seen: Seen = BTreeMap::new();
    let combos = combinations(&directive.axes, &directive.zip);
    for vname in &directive.variants {
        let Some(variant) = exp.variant(vname) else {
            continue;
        };
        for axes in &combos {
            let mut params: BTreeMap<String, ParamValue> = exp.params.iter().cloned().collect();
            params.extend(axes.iter().map(|(k, v)| (k.clone(), v.clone())));
            for p in check_point(exp, variant, &params, max_buffer_bytes) {
                let key = (vname.clone(), p.what.clone(), p.expr.clone());
                seen.entry(key)
                    .and_modify(|e| e.2 += 1)
                    .or_insert((p, axes.clone(), 1));
            }
        }
    }
    let spec_shown = exp
        .dir
        .join("experiment.toml")
        .strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| exp.dir.join("experiment.toml"));
    let spec_text = std::fs::read_to_string(exp.dir.join("experiment.toml")).unwrap_or_default();
    let spec = SourceFile::new(spec_shown, spec_text.as_str());
    let mut out = Vec::new();
    for ((variant, _, _), (p, axes, count)) in seen {
        let spec_span = find_expr(&spec_text, &p.expr);
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
                            "variant `{variant}` at {at}: {} `{}`: {}{more}",
                            p.what, p.expr, p.message
                        ),
                        format!("this value of `{name}`"),
                    )
                    .with_help(format!(
                        "`{}` is defined at {}:{line}",
                        p.expr,
                        spec.path.display()
                    ));
                out.push(d);
            }
            None => out.push(spec.error(
                spec_span,
                format!(
                    "variant `{variant}`: {} `{}`: {}{more}",
                    p.what, p.expr, p.message
                ),
                "with the spec's parameter defaults",
            )),
        }
    }
    out
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
mod tests {
    use super::find_expr;

    #[test]
    fn expressions_are_found_where_they_are_a_value() {
        let t = "label = \"2048 threads\"\nblock = [2048]\nlen = \"N*N\"\n";
        assert_eq!(&t[find_expr(t, "2048")], "2048");
        assert_eq!(find_expr(t, "2048").start, t.find("[2048").unwrap() + 1);
        assert_eq!(&t[find_expr(t, "N*N")], "\"N*N\"");
        assert_eq!(find_expr(t, "missing"), 0..0);
    }
}
