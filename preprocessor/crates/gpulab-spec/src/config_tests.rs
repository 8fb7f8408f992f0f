//! Tests of `config`.

use super::*;

/// Every key this tool lists as its own is read into the config (none is a leftover).
#[test]
fn every_own_key_is_a_config_field() {
    let values: &[(&str, &str)] = &[
        ("mode", "\"live\""),
        ("strict", "true"),
        ("device", "\"x\""),
        ("data", "\"d\""),
        ("kernels", "\"k\""),
        ("cache", "\"c\""),
        ("timeout_s", "9.5"),
        ("max_samples", "7"),
        ("min_samples", "3"),
        ("noise", "0.25"),
        ("budget_s", "8.5"),
        ("watchdog_s", "99.0"),
        ("max_buffer_bytes", "12345"),
    ];
    assert_eq!(values.len(), OWN_KEYS.len());
    let default = format!("{:?}", Config::default());
    for (key, value) in values {
        assert!(OWN_KEYS.contains(key), "{key}");
        let one: Config = toml::from_str(&format!("{key} = {value}")).unwrap();
        assert_ne!(format!("{one:?}"), default, "`{key}` is not read");
    }
}

/// The other way round: every field of the config is a listed key, so that adding a field
/// without listing it (which would make `book.toml`'s new key an "unknown key" error) fails
/// here. The field names come from the config's `Debug` form (all its fields are plain values).
#[test]
fn every_config_field_is_an_own_key() {
    let debug = format!("{:?}", Config::default());
    let body = debug
        .strip_prefix("Config { ")
        .and_then(|b| b.strip_suffix(" }"))
        .expect("the Debug form of a struct");
    let fields: Vec<&str> = body
        .split(", ")
        .filter_map(|part| part.split_once(": ").map(|(name, _)| name))
        .collect();
    assert_eq!(
        fields.len(),
        OWN_KEYS.len(),
        "{fields:?} against {OWN_KEYS:?}"
    );
    for f in fields {
        assert!(OWN_KEYS.contains(&f), "field `{f}` is not in OWN_KEYS");
    }
}

/// Regression (session 10): mdBook turns `MDBOOK_PREPROCESSOR__GPULAB__TIMEOUT_S=5` into the
/// key `timeout-s`, which was ignored (and, with the unknown-key check, refused).
#[test]
fn an_environment_override_with_dashes_is_read() {
    let c: Config = toml::from_str("timeout-s = 5.0\nmax-samples = 9").unwrap();
    assert_eq!((c.timeout_s, c.max_samples), (Some(5.0), Some(9)));
}

#[test]
fn an_unknown_key_is_named_with_the_nearest_known_one() {
    let problems = unknown_keys(
        [
            "command",
            "renderers",
            "stritc",
            "mode",
            "timeout-s",
            "max-samples",
        ]
        .into_iter(),
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("`stritc`"), "{problems:?}");
    assert!(problems[0].contains("strict"), "{problems:?}");
}

#[test]
fn folders_outside_the_book_and_broken_rules_are_refused() {
    assert!(Config::default().problems().is_empty());
    let c = Config {
        data: "../elsewhere".into(),
        kernels: "/abs".into(),
        timeout_s: Some(f64::NAN),
        min_samples: Some(9),
        max_samples: Some(3),
        budget_s: Some(-1.0),
        ..Config::default()
    };
    let p = c.problems();
    assert_eq!(p.len(), 5, "{p:?}");
}

/// `recorded` never looks for a GPU, `live` never asks, `auto` follows the answer.
#[test]
fn the_mode_decides_whether_kernels_run() {
    let asked = std::cell::Cell::new(0);
    let ask = |answer| {
        asked.set(asked.get() + 1);
        answer
    };
    assert!(!Mode::Recorded.runs_kernels(|| ask(true)));
    assert!(Mode::Live.runs_kernels(|| ask(false)));
    assert_eq!(asked.get(), 0);
    assert!(Mode::Auto.runs_kernels(|| ask(true)));
    assert!(!Mode::Auto.runs_kernels(|| ask(false)));
    assert_eq!(asked.get(), 2);
}

/// Issue 36: `cache = "data"` had every build write its cache and a `.gitignore` of `*` into
/// `data/`, so new recordings stayed out of git; `data = "."` was accepted too.
#[test]
fn folders_that_are_the_same_nested_or_the_root_are_refused() {
    let with = |data: &str, kernels: &str, cache: &str| {
        Config {
            data: data.into(),
            kernels: kernels.into(),
            cache: cache.into(),
            ..Config::default()
        }
        .problems()
    };
    assert!(with("data", "kernels", ".cache/gpulab").is_empty());
    assert!(with("./data", "kernels", "data-cache").is_empty());
    let p = with("data", "kernels", "data");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("`data = \"data\"` is the same folder as `cache"),
        "{p:?}"
    );
    let p = with("data", "kernels", "./data/cache");
    assert!(p[0].contains("is around `cache"), "{p:?}");
    let p = with(".", "kernels", ".cache");
    assert!(
        p[0].starts_with("`data = \".\"` is the book's root"),
        "{p:?}"
    );
}

/// Issue 36: an unknown `device` silently showed another GPU.
#[test]
fn an_unknown_device_is_named_with_the_known_ones() {
    let c = Config {
        device: Some("nvidia-h20".into()),
        ..Config::default()
    };
    let known = ["nvidia-h100".to_string(), "nvidia-h200".to_string()];
    let p = c.device_problem(&known).unwrap();
    assert!(p.contains("(it has: nvidia-h100, nvidia-h200)"), "{p}");
    assert!(p.contains("did you mean `nvidia-h200`?"), "{p}");
    assert_eq!(
        c.device_problem(&[]),
        None,
        "no recordings yet: any device may come"
    );
    assert_eq!(c.device_problem(&["nvidia-h20".to_string()]), None);
}

/// Issue 36: book.toml errors named no line.
#[test]
fn a_problem_names_its_line_of_book_toml() {
    let text =
        "[book]\ntitle = \"t\"\n\n[preprocessor.gpulab]\nmode = \"recorded\"\ncache = \"data\"\n";
    let problem = "`cache = \"data\"` is the same folder as `data = \"data\"`";
    assert_eq!(
        located(text, problem),
        format!("book.toml:6: [preprocessor.gpulab] {problem}")
    );
    assert_eq!(
        located(text, "`budget_s = -1` must be more than 0 seconds"),
        "book.toml [preprocessor.gpulab]: `budget_s = -1` must be more than 0 seconds"
    );
}
