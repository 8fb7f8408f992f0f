//! Tests of `mdbook_json`.

use super::*;

#[test]
fn versions_map_to_dialects() {
    assert_eq!(Dialect::of("0.4.52").unwrap(), Dialect::V04);
    assert_eq!(Dialect::of("0.4.0").unwrap(), Dialect::V04);
    assert_eq!(Dialect::of("0.5.4").unwrap(), Dialect::V05);
    assert_eq!(Dialect::of("0.5.0-beta.1").unwrap(), Dialect::V05);
}

#[test]
fn an_unsupported_mdbook_gets_one_line_naming_the_versions_that_work() {
    for v in ["0.3.7", "0.1.0", "1.0.0", "garbage"] {
        let msg = Dialect::of(v).unwrap_err().to_string();
        assert!(!msg.contains('\n'), "{msg}");
        assert!(msg.contains("0.4.x") && msg.contains("0.5.x"), "{msg}");
        assert!(msg.contains(v), "{msg}");
    }
}

#[test]
fn a_0_4_config_with_keys_0_5_rejects_is_still_read() {
    let input = r#"[{"root": "/b", "renderer": "html", "mdbook_version": "0.4.21",
        "config": {"book": {"title": "t", "src": "src", "multilingual": false},
                   "build": {"build-dir": "book"}, "custom": {"x": 1},
                   "preprocessor": {"gpulab": {}}}},
        {"sections": [], "__non_exhaustive": null}]"#;
    let (ctx, book, dialect) = parse(input).unwrap();
    assert_eq!(dialect, Dialect::V04);
    assert_eq!(ctx.config.book.title.as_deref(), Some("t"));
    assert!(book.items.is_empty());
    let out = to_json(&book, dialect).unwrap();
    assert_eq!(
        out,
        serde_json::json!({"sections": [], "__non_exhaustive": null})
    );
}
