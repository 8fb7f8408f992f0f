//! Finishing plotters' SVG for the page: theme colours, responsive size, grid lines merged, one line.

use super::palette::FG_HEX;
use crate::render::RenderError;
use crate::render::html::escape;

/// Rewrites a plotters SVG to follow the theme, at 100 % width, on one line (one HTML block).
pub(super) fn finish(raw: &str, label: &str) -> Result<String, RenderError> {
    let malformed = || RenderError::Chart("plotters produced no <svg> element".into());
    let start = raw.find("<svg").ok_or_else(malformed)?;
    let open_end = start + raw[start..].find('>').ok_or_else(malformed)?;
    let open = &raw[start..open_end];
    let width = attribute(open, "width").ok_or_else(malformed)?;
    let height = attribute(open, "height").ok_or_else(malformed)?;
    let body = merge_lines(
        &raw[open_end + 1..]
            .replace('\n', "")
            .replace(FG_HEX, "currentColor")
            .replace(" font-family=\"sans-serif\"", "")
            .replace(" opacity=\"1\"", ""),
    );
    Ok(format!(
        "<svg class=\"gpulab-chart-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" \
         width=\"100%\" preserveAspectRatio=\"xMidYMid meet\" role=\"img\" aria-label=\"{}\" \
         style=\"max-width: {width}px; height: auto; font-family: inherit\">{body}",
        escape(label)
    ))
}

/// Runs of `<line …/>` elements that differ only in their ends (a grid) become one `<path>` each.
fn merge_lines(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    // The style of the run being merged, and its path data.
    let mut run: Option<(String, String)> = None;
    let flush = |out: &mut String, run: &mut Option<(String, String)>| {
        if let Some((style, d)) = run.take() {
            out.push_str(&format!(
                "<path fill=\"none\"{style} d=\"{}\" />",
                d.trim_end()
            ));
        }
    };
    let mut rest = body;
    while let Some(at) = rest.find("<line ") {
        let Some(len) = rest[at..].find("/>") else {
            break;
        };
        let tag = &rest[at..at + len + 2];
        let line = parse_line(tag);
        let between = &rest[..at];
        if !between.is_empty() {
            flush(&mut out, &mut run);
            out.push_str(between);
        }
        match line {
            Some((style, ends)) => match &mut run {
                Some((s, d)) if *s == style => d.push_str(&ends),
                _ => {
                    flush(&mut out, &mut run);
                    run = Some((style, ends));
                }
            },
            None => {
                flush(&mut out, &mut run);
                out.push_str(tag);
            }
        }
        rest = &rest[at + len + 2..];
    }
    flush(&mut out, &mut run);
    out.push_str(rest);
    out
}

/// A `<line …/>` as its other attributes and its ends as path data; `None` when an end is missing.
fn parse_line(tag: &str) -> Option<(String, String)> {
    let inner = tag.strip_prefix("<line")?.strip_suffix("/>")?;
    let mut style = String::new();
    let mut ends = [None; 4];
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let eq = rest.find("=\"")?;
        let name = rest[..eq].trim();
        let value_len = rest[eq + 2..].find('"')?;
        let value = &rest[eq + 2..eq + 2 + value_len];
        match ["x1", "y1", "x2", "y2"].iter().position(|n| *n == name) {
            Some(i) => ends[i] = Some(value),
            None => style.push_str(&format!(" {name}=\"{value}\"")),
        }
        rest = rest[eq + 2 + value_len + 1..].trim_start();
    }
    let [x1, y1, x2, y2] = ends;
    Some((style, format!("M{} {}L{} {} ", x1?, y1?, x2?, y2?)))
}

fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let from = tag.find(&key)? + key.len();
    let len = tag[from..].find('"')?;
    Some(&tag[from..from + len])
}

#[cfg(test)]
#[path = "svg_tests.rs"]
mod tests;
