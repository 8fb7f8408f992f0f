//! Regression tests, each named after a bug we hit.

use crate::common;

use common::BookCopy;
use mdbook_gpulab::directive::fence::FenceKind;
use mdbook_gpulab::engine::Work;
use mdbook_gpulab::engine::recorder::job_groups;
use mdbook_gpulab::plan::{SourceCache, point_key};
use mdbook_gpulab::record::TimingMode::{Cold, Host, Hot};
use mdbook_gpulab::record::{Failure, FailureKind, Outcome, Point, Timing, TimingMode};
use mdbook_gpulab::results::needs_run;
use mdbook_gpulab::workspace::Workspace;
use std::collections::BTreeMap;
use std::path::Path;

const SPEC: &str = "kernels/scale/experiment.toml";

/// Every variant's key at the spec's default parameters, read fresh from the copy on disk.
fn keys(book: &BookCopy) -> BTreeMap<String, String> {
    let exp = mdbook_gpulab::spec::load(&book.root, &book.path("kernels"), "scale")
        .unwrap_or_else(|d| panic!("{}", d.iter().map(|d| d.render(false)).collect::<String>()));
    let params: BTreeMap<_, _> = exp.params.iter().cloned().collect();
    let sources = SourceCache::default();
    exp.variants
        .iter()
        .map(|v| {
            (
                v.name.clone(),
                point_key(&exp, v, &params, &sources).unwrap().on("dev"),
            )
        })
        .collect()
}

/// The keys of every point the book's directives plan (through the same path as the
/// preprocessor: `Workspace` + `scan_book` + `plan`), by (experiment, variant, N).
fn planned_keys(book: &BookCopy) -> BTreeMap<(String, String, String), String> {
    let md = mdbook_driver::MDBook::load(&book.root).unwrap();
    let config = mdbook_gpulab::config::Config::from_mdbook(&md.config, &md.root).unwrap();
    let ws = Workspace::new(&book.root, &md.config.book.src, config);
    let mut out = BTreeMap::new();
    for f in mdbook_gpulab::preprocess::scan_book(&ws, &md.book) {
        if f.fence.kind != FenceKind::Experiment {
            continue; // the status block
        }
        let (d, exp) = f.parsed.as_ref().unwrap_or_else(|d| {
            panic!("{}", d.iter().map(|d| d.render(false)).collect::<String>())
        });
        for p in mdbook_gpulab::plan::plan(d, exp, &ws.sources).unwrap() {
            let id = (
                exp.name.clone(),
                p.variant.clone(),
                p.params["N"].to_string(),
            );
            out.insert(id, p.key.on("dev"));
        }
    }
    out
}

#[test]
fn key_changes_when_a_spec_section_body_changes() {
    let book = BookCopy::new("basic");
    let before = keys(&book);
    let planned_before = planned_keys(&book);

    // Only the `tolerance` line under `[verify]` (a section body, not its header): every key.
    book.edit(SPEC, "tolerance = 1e-6", "tolerance = 1e-3");
    let after_verify = keys(&book);
    for (variant, key) in &before {
        assert_ne!(
            &after_verify[variant], key,
            "editing [verify] tolerance must change the key of `{variant}`"
        );
    }
    let planned_after = planned_keys(&book);
    assert_eq!(planned_before.len(), 7);
    for (point, key) in &planned_before {
        if point.0 == "scale" {
            assert_ne!(&planned_after[point], key, "{point:?}");
        } else {
            assert_eq!(
                &planned_after[point], key,
                "another experiment's key: {point:?}"
            );
        }
    }

    // Only one `[[variant]]`'s grid: that variant's key, and no other.
    book.edit(
        SPEC,
        r#"grid = ["SM_COUNT * 4"]"#,
        r#"grid = ["SM_COUNT * 8"]"#,
    );
    let after_grid = keys(&book);
    assert_ne!(after_grid["grid_stride"], after_verify["grid_stride"]);
    assert_eq!(after_grid["naive"], after_verify["naive"]);

    // A `[[buffer]]` body (its init): every key.
    book.edit(
        SPEC,
        "init = { random = [-1, 1] }",
        "init = { random = [0, 1] }",
    );
    let after_buffer = keys(&book);
    for (variant, key) in &after_grid {
        assert_ne!(&after_buffer[variant], key, "buffer init, `{variant}`");
    }

    // Sanity: the same text gives the same keys (nothing time- or path-dependent).
    assert_eq!(keys(&book), after_buffer);
}

#[test]
fn key_does_not_depend_on_where_the_book_lives() {
    let a = BookCopy::new("basic");
    let b = BookCopy::new("basic");
    assert_ne!(a.root, b.root);
    assert_eq!(keys(&a), keys(&b));
}

#[test]
fn key_changes_when_the_kernel_source_changes() {
    let book = BookCopy::new("basic");
    let before = keys(&book);
    book.edit(
        "kernels/scale/scale.cu",
        "y[i] = 2.0f * x[i];\n    }",
        "y[i] = x[i] + x[i];\n    }",
    );
    let after = keys(&book);
    assert_ne!(after["grid_stride"], before["grid_stride"]);
}

const TABLE_DIRECTIVE: &str = r#"experiment = "scale"
axes = { N = [1024, 4096] }
table = { rows = "N", columns = "variant", value = "time_ms" }
"#;

#[test]
fn table_in_directive_is_parsed() {
    // Stage one alone: the raw TOML body (`table` once failed inside an untagged enum).
    let raw = mdbook_gpulab::directive::raw::parse(TABLE_DIRECTIVE)
        .unwrap_or_else(|e| panic!("the raw directive must parse: {e}"));
    let tables = raw.table.expect("a table").into_inner().into_vec();
    assert_eq!(tables.len(), 1);
    assert_eq!(tables[0].rows.as_deref(), Some("N"));
    assert_eq!(tables[0].columns.as_deref(), Some("variant"));
    assert_eq!(tables[0].value.as_deref(), Some("time_ms"));

    // A list of tables parses too.
    let many = TABLE_DIRECTIVE.replace(
        r#"table = { rows = "N", columns = "variant", value = "time_ms" }"#,
        r#"table = [{ rows = "N", columns = "variant", value = "time_ms" }, { rows = "variant", columns = "N", value = "gbps" }]"#,
    );
    let raw = mdbook_gpulab::directive::raw::parse(&many).unwrap();
    assert_eq!(raw.table.unwrap().into_inner().into_vec().len(), 2);

    // And the whole path a chapter takes: fence → raw → validated directive.
    let book = BookCopy::new("basic");
    let md = mdbook_driver::MDBook::load(&book.root).unwrap();
    let config = mdbook_gpulab::config::Config::from_mdbook(&md.config, &md.root).unwrap();
    let ws = Workspace::new(&book.root, &md.config.book.src, config);
    let chapter = format!("# T\n\n```gpulab\n{TABLE_DIRECTIVE}```\n");
    let found = ws.scan_chapter("T", Path::new("t.md"), &chapter);
    assert_eq!(found.len(), 1);
    let (d, _) = found[0]
        .parsed
        .as_ref()
        .unwrap_or_else(|d| panic!("{}", d.iter().map(|d| d.render(false)).collect::<String>()));
    assert_eq!(d.tables.len(), 1);
    assert_eq!(
        (
            d.tables[0].rows.as_str(),
            d.tables[0].columns.as_str(),
            d.tables[0].value.as_str()
        ),
        ("N", "variant", "time_ms")
    );
}

#[test]
fn a_misspelled_table_field_is_reported_by_name() {
    // Untagged enums swallow field errors ("did not match any variant"); the message must still
    // name the offending key so the author can fix it.
    let body = TABLE_DIRECTIVE.replace("columns =", "colums =");
    let err = mdbook_gpulab::directive::raw::parse(&body)
        .expect_err("an unknown table field is an error");
    let msg = err.to_string();
    assert!(msg.contains("colums"), "{msg}");
}

/// A section written as a TOML sub-table (`[variant.defines]`, `[verify.dims]`, `[buffer.init]`)
/// is part of its parent's key text too.
///
/// Bug (fixed): `spec::validate::section_text` ended a section at the next line starting with `[`,
/// so a sub-table's body never reached `common_key_text` / `Variant::key_text`, and editing it
/// left every key unchanged (a stale recording was shown as current).
#[test]
fn key_changes_when_a_spec_subtable_body_changes() {
    // `[variant.defines]` (applies to the last `[[variant]]`, grid_stride).
    let book = BookCopy::new("basic");
    let spec = book.read(SPEC) + "\n[variant.defines]\nFACTOR = \"2\"\n";
    book.write(SPEC, &spec);
    let exp = mdbook_gpulab::spec::load(&book.root, &book.path("kernels"), "scale").unwrap();
    let defines = &exp.variant("grid_stride").unwrap().defines;
    assert!(
        defines.iter().any(|(name, _)| name == "FACTOR"),
        "the sub-table reaches the model ({defines:?}), so it changes the compiled kernel"
    );
    let before = keys(&book);
    book.edit(SPEC, "FACTOR = \"2\"", "FACTOR = \"3\"");
    assert_ne!(
        keys(&book)["grid_stride"],
        before["grid_stride"],
        "[variant.defines]"
    );

    // `[verify.dims]`.
    let book = BookCopy::new("basic");
    book.edit(
        SPEC,
        "tolerance = 1e-6\n",
        "tolerance = 1e-6\n\n[verify.dims]\nn = \"N\"\n",
    );
    let before = keys(&book);
    book.edit(SPEC, "\nn = \"N\"", "\nn = \"N/2\"");
    assert_ne!(keys(&book), before, "[verify.dims]");

    // `[buffer.init]`.
    let book = BookCopy::new("basic");
    book.edit(
        SPEC,
        "init = { random = [-1, 1] }\n",
        "\n[buffer.init]\nrandom = [-1, 1]\n",
    );
    let before = keys(&book);
    book.edit(SPEC, "random = [-1, 1]", "random = [0, 1]");
    assert_ne!(keys(&book), before, "[buffer.init]");
}

/// Bug (fixed): the preprocessor passed `<book>/theme/gpulab` to `Templates::load`, which appends
/// `gpulab/` itself, so a book's own templates (`theme/gpulab/<name>.hbs`) were never used.
#[test]
fn theme_templates_override_the_built_in_ones() {
    let book = BookCopy::new("basic");
    book.write(
        "theme/gpulab/missing.hbs",
        "<div class=\"custom-missing\">no data for {{experiment}}</div>",
    );
    let mut md = mdbook_driver::MDBook::load(&book.root).expect("fixture loads");
    md.with_preprocessor(mdbook_gpulab::GpuLab::new());
    md.build().expect("fixture builds");
    let html = book.read("out/chapter.html");
    assert!(
        html.contains("custom-missing"),
        "the theme's missing.hbs was not used"
    );
}

fn planned(key: &str) -> mdbook_gpulab::plan::PlannedPoint {
    mdbook_gpulab::plan::PlannedPoint {
        variant: "naive".into(),
        params: BTreeMap::new(),
        axes: BTreeMap::new(),
        key: key.into(),
    }
}

/// The device the `needs_run` tests record on.
const DEV: &str = "dev";

fn recorded(key: &str, mode: Option<TimingMode>, failure: Option<FailureKind>) -> Point {
    let key = mdbook_gpulab::plan::PointKey::from(key).on(DEV);
    let mut p = Point::new("naive", &BTreeMap::new(), &key, None);
    if let Some(mode) = mode {
        p.timing = Some(Timing {
            median_ms: 1.0,
            min_ms: 1.0,
            max_ms: 1.0,
            q1_ms: 1.0,
            q3_ms: 1.0,
            noise: 0.0,
            samples: 10,
            mode,
            throttled: false,
            ..Timing::default()
        });
    }
    if let Some(kind) = failure {
        p.outcome = Outcome::Failed;
        p.failure = Some(Failure {
            kind,
            message: "no result after 8 s: the kernel hung".into(),
        });
    }
    p
}

/// A hung kernel cost its whole watchdog again on every `record` and every live build, because
/// timed-out points counted as never recorded.
#[test]
fn timed_out_point_is_not_rerun_by_every_record() {
    let hung = recorded("k1", None, Some(FailureKind::Timeout));
    assert!(!needs_run(Some(&hung), &planned("k1"), DEV, Cold));
    let crashed = recorded("k1", None, Some(FailureKind::Crash));
    assert!(!needs_run(Some(&crashed), &planned("k1"), DEV, Cold));
    // A change to the kernel or spec (a new key) does run it again.
    assert!(needs_run(Some(&hung), &planned("k2"), DEV, Cold));
    assert!(needs_run(None, &planned("k1"), DEV, Cold));
}

/// Switching a directive to `measure = { mode = "hot" }` kept showing the cold timing: the
/// measurement mode was not part of what makes a recording current.
#[test]
fn hot_directive_reruns_a_cold_recording() {
    let cold = recorded("k1", Some(Cold), None);
    assert!(needs_run(Some(&cold), &planned("k1"), DEV, Hot));
    assert!(!needs_run(Some(&cold), &planned("k1"), DEV, Cold));
    let hot = recorded("k1", Some(Hot), None);
    assert!(needs_run(Some(&hot), &planned("k1"), DEV, Cold));
    // CPU baselines are timed on the host whatever the directive asks.
    let host = recorded("k1", Some(Host), None);
    assert!(!needs_run(Some(&host), &planned("k1"), DEV, Hot));
}

/// All directives of an experiment ran with the first directive's `measure` rules: a second
/// directive asking for hot mode was recorded cold.
#[test]
fn directives_with_different_measure_rules_get_separate_jobs() {
    let book = BookCopy::new("faults");
    let md = mdbook_driver::MDBook::load(&book.root).unwrap();
    let config = mdbook_gpulab::config::Config::from_mdbook(&md.config, &md.root).unwrap();
    assert_eq!(config.watchdog_s, Some(8.0));
    let ws = Workspace::new(&book.root, &md.config.book.src, config);
    let work: Vec<Work> = mdbook_gpulab::preprocess::scan_book(&ws, &md.book)
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .map(|(d, exp)| Work {
            directive: d.clone(),
            experiment: exp.clone(),
            points: mdbook_gpulab::plan::plan(d, exp, &ws.sources).unwrap(),
        })
        .collect();
    assert_eq!(work.len(), 2, "the faults fixture has two directives");
    let groups = job_groups(&ws, &work);
    assert_eq!(groups.len(), 2, "{groups:#?}");
    assert!(groups[0].rules.mode == Cold && groups[0].points.len() == 14);
    assert!(groups[1].rules.mode == Hot && groups[1].points.len() == 1);
    assert_eq!(groups[1].points[0].variant, "good");
}

/// A book whose `kernels/` is a symlink to a shared folder rejected every source as "outside the
/// book's folder".
#[test]
fn kernels_folder_may_be_a_symlink() {
    let book = BookCopy::new("basic");
    let shared = tempfile::tempdir().unwrap();
    let target = shared.path().join("kernels");
    std::fs::rename(book.path("kernels"), &target).unwrap();
    std::os::unix::fs::symlink(&target, book.path("kernels")).unwrap();
    let exp = mdbook_gpulab::spec::load(&book.root, &book.path("kernels"), "scale");
    assert!(
        exp.is_ok(),
        "{}",
        exp.err()
            .unwrap()
            .iter()
            .map(|d| d.render(false))
            .collect::<String>()
    );
}

const KERNEL: &str = "kernels/scale/scale.cu";

/// Bug (fixed): a comment edit in a `.cu` file re-keyed every point of its experiment, marking a
/// whole chapter stale that nobody without a GPU could make current again. Keys hash the source
/// with comments and the amount of whitespace normalised away; code edits still re-key.
#[test]
fn comment_and_whitespace_edits_in_a_kernel_keep_keys() {
    let book = BookCopy::new("basic");
    let before = keys(&book);
    book.edit(
        KERNEL,
        "// Test fixture kernels",
        "/* A new header comment. */\n// Test fixture kernels (edited)",
    );
    book.edit(
        KERNEL,
        "    if (i < n)",
        "\n\n    // bounds check\n        if (i < n)",
    );
    assert_eq!(keys(&book), before, "comments and indentation");
    book.edit(
        KERNEL,
        "y[i] = 2.0f * x[i];\n    }",
        "y[i] = 3.0f * x[i];\n    }",
    );
    let after = keys(&book);
    // The file is the unit: both kernels live in it, so both re-key.
    assert_ne!(
        after["grid_stride"], before["grid_stride"],
        "a code edit re-keys"
    );
    assert_ne!(after["naive"], before["naive"]);
}

/// Bug (fixed): keys hashed the spec's text, so a variant's label, blank lines between variants or
/// appending a variant (which moved the previous section's end) re-keyed points whose code and
/// inputs were unchanged. Keys hash the spec's meaning.
#[test]
fn presentation_edits_in_a_spec_keep_keys() {
    let book = BookCopy::new("basic");
    let before = keys(&book);
    book.edit(
        SPEC,
        "One thread per element",
        "One thread for each element",
    );
    book.edit(
        SPEC,
        "[[variant]]\nname = \"grid_stride\"",
        "\n\n# the fast one\n[[variant]]\nname = \"grid_stride\"",
    );
    book.edit(
        SPEC,
        "title = \"Scale a vector\"",
        "title = \"Scale a vector by two\"",
    );
    book.edit(SPEC, "bytes = \"8*N\"", "bytes = \"2 * 4 * N\"");
    book.edit(
        SPEC,
        "init = { random = [-1, 1] }\n",
        "\n[buffer.init]\nrandom = [-1, 1]\n",
    );
    book.edit(
        SPEC,
        "grid = [\"ceil_div(N, 256)\"]",
        "grid = [ \"ceil_div(N,256)\" ]",
    );
    let spec = book.read(SPEC)
        + "\n[[variant]]\nname = \"third\"\nkernel = \"scale\"\ngrid = [\"ceil_div(N, 128)\"]\nblock = [\"128\"]\nargs = [\"x\", \"y\", \"N\"]\n";
    book.write(SPEC, &spec);
    let after = keys(&book);
    assert_eq!(after["naive"], before["naive"]);
    assert_eq!(after["grid_stride"], before["grid_stride"]);
    assert_ne!(
        after["third"], after["naive"],
        "same kernel, another launch"
    );
    // What the run depends on still re-keys.
    book.edit(SPEC, "tolerance = 1e-6", "tolerance = 1e-5");
    assert_ne!(
        keys(&book)["naive"],
        before["naive"],
        "verification tolerance"
    );
}

/// A header the kernel `#include`s by quoted name is part of the key even when the spec does not
/// list it in `includes`.
#[test]
fn included_headers_are_keyed() {
    let book = BookCopy::new("basic");
    book.write("kernels/scale/factor.cuh", "#define FACTOR 2.0f\n");
    book.edit(
        KERNEL,
        "extern \"C\" __global__ void scale(",
        "#include \"factor.cuh\"\nextern \"C\" __global__ void scale(",
    );
    let before = keys(&book);
    book.write("kernels/scale/factor.cuh", "// two\n#define FACTOR 2.0f\n");
    assert_eq!(keys(&book), before, "a comment in the header");
    book.write("kernels/scale/factor.cuh", "#define FACTOR 3.0f\n");
    assert_ne!(keys(&book)["naive"], before["naive"]);
}

/// The same point keys differently per device: a recording copied into another device's folder
/// is stale there.
#[test]
fn keys_differ_per_device() {
    let a = BookCopy::new("basic");
    let exp = mdbook_gpulab::spec::load(&a.root, &a.path("kernels"), "scale").unwrap();
    let params: BTreeMap<_, _> = exp.params.iter().cloned().collect();
    let key = point_key(&exp, &exp.variants[0], &params, &SourceCache::default()).unwrap();
    assert_ne!(key.on("nvidia-h100-80gb-hbm3"), key.on("nvidia-h200"));
    assert_eq!(key.on("nvidia-h200"), key.on("nvidia-h200"));
}

/// Szczepański's CGMA printed 0 for versions 1–2 and 7/15/28–31 for versions 3–5: the metric
/// formulas ran with integer `/`. Metric formulas divide as reals now; the handbook's own spec gives
/// ≈ 1, ≈ BS and ≈ 2·BS, and `check` finds no truncating division in any of its metrics.
#[test]
fn szczepanski_cgma_is_not_truncated_by_integer_division() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let exp = mdbook_gpulab::spec::load(&root, &root.join("kernels"), "matmul_szczepanski")
        .unwrap_or_else(|d| panic!("{}", d.iter().map(|d| d.render(false)).collect::<String>()));
    let mut params: BTreeMap<String, mdbook_gpulab::value::ParamValue> =
        exp.params.iter().cloned().collect();
    params.insert("N".into(), mdbook_gpulab::value::ParamValue::Int(512));
    params.insert("BS".into(), mdbook_gpulab::value::ParamValue::Int(16));
    let vars = mdbook_gpulab::spec::metrics::point_vars(&params, None);
    let cgma = |variant: &str| {
        let v = exp.variant(variant).unwrap();
        let (_, e) = v.metrics.iter().find(|(n, _)| n == "cgma").unwrap();
        e.eval(&vars).unwrap().as_f64()
    };
    assert!((0.99..1.0).contains(&cgma("v1")), "{}", cgma("v1"));
    assert!((0.99..1.0).contains(&cgma("v2")), "{}", cgma("v2"));
    assert!((15.7..15.8).contains(&cgma("v3")), "{}", cgma("v3"));
    assert!((15.7..15.8).contains(&cgma("v4")), "{}", cgma("v4"));
    assert!((31.0..31.1).contains(&cgma("v5")), "{}", cgma("v5"));
    for v in &exp.variants {
        let t = mdbook_gpulab::spec::metrics::metric_truncations(&exp, &v.name, &params);
        assert!(t.is_empty(), "{}: {t:?}", v.name);
    }
}
