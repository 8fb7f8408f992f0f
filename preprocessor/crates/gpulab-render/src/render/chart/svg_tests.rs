//! Tests of `svg`.

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

#[test]
fn a_run_of_grid_lines_becomes_one_path_per_style() {
    let body = "<line opacity=\"0.07\" stroke=\"currentColor\" x1=\"1\" y1=\"2\" x2=\"1\" y2=\"9\" />\
                <line opacity=\"0.07\" stroke=\"currentColor\" x1=\"3\" y1=\"2\" x2=\"3\" y2=\"9\" />\
                <line opacity=\"0.16\" stroke=\"currentColor\" x1=\"0\" y1=\"0\" x2=\"5\" y2=\"0\" />\
                <text>N</text><line opacity=\"0.16\" stroke=\"currentColor\" x1=\"0\" y1=\"1\" x2=\"5\" y2=\"1\" /></svg>";
    assert_eq!(
        merge_lines(body),
        "<path fill=\"none\" opacity=\"0.07\" stroke=\"currentColor\" d=\"M1 2L1 9 M3 2L3 9\" />\
         <path fill=\"none\" opacity=\"0.16\" stroke=\"currentColor\" d=\"M0 0L5 0\" />\
         <text>N</text><path fill=\"none\" opacity=\"0.16\" stroke=\"currentColor\" d=\"M0 1L5 1\" /></svg>"
    );
    // A line without its ends is left as it is.
    assert_eq!(merge_lines("<line x1=\"1\" />"), "<line x1=\"1\" />");
}
