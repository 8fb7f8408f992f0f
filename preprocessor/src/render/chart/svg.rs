//! Finishing plotters' SVG for the page: theme colours, responsive size, one line.

use super::palette::FG_HEX;
use crate::render::RenderError;
use crate::render::html::escape;

/// Rewrites a plotters SVG: the foreground sentinel becomes `currentColor` (so text, axes and
/// grid follow the mdBook theme), fonts inherit from the page, the fixed size becomes a
/// `viewBox` at 100 % width, and newlines go (the SVG must sit inside one HTML block).
pub fn finish(raw: &str, label: &str) -> Result<String, RenderError> {
    let malformed = || RenderError::Chart("plotters produced no <svg> element".into());
    let start = raw.find("<svg").ok_or_else(malformed)?;
    let open_end = start + raw[start..].find('>').ok_or_else(malformed)?;
    let open = &raw[start..open_end];
    let width = attribute(open, "width").ok_or_else(malformed)?;
    let height = attribute(open, "height").ok_or_else(malformed)?;
    let body = raw[open_end + 1..]
        .replace('\n', "")
        .replace(FG_HEX, "currentColor")
        .replace(" font-family=\"sans-serif\"", "")
        .replace(" opacity=\"1\"", "");
    Ok(format!(
        "<svg class=\"gpulab-chart-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" \
         width=\"100%\" preserveAspectRatio=\"xMidYMid meet\" role=\"img\" aria-label=\"{}\" \
         style=\"max-width: {width}px; height: auto; font-family: inherit\">{body}",
        escape(label)
    ))
}

fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let from = tag.find(&key)? + key.len();
    let len = tag[from..].find('"')?;
    Some(&tag[from..from + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_header_and_colours() {
        let raw = "<svg width=\"720\" height=\"400\" viewBox=\"0 0 720 400\" xmlns=\"http://www.w3.org/2000/svg\">\n\
                   <text fill=\"#010203\" font-family=\"sans-serif\" opacity=\"1\">\nN\n</text>\n</svg>\n";
        let svg = finish(raw, "a \"chart\"").unwrap();
        assert!(svg.starts_with("<svg class=\"gpulab-chart-svg\""));
        assert!(svg.contains("viewBox=\"0 0 720 400\""));
        assert!(svg.contains("width=\"100%\""));
        assert!(svg.contains("aria-label=\"a &quot;chart&quot;\""));
        assert!(svg.contains("<text fill=\"currentColor\">N</text></svg>"));
        assert!(!svg.contains('\n'));
        assert!(finish("nothing", "x").is_err());
    }
}
