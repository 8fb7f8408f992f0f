//! The `mdbook-gpulab` binary as mdBook and people call it: `supports`, the stdin/stdout
//! preprocessor protocol, `build`, `check` and `list`, on copies of the fixture book. No GPU: the
//! fixture book is in `recorded` mode and `check` runs with `--no-compile`.

use crate::common;

use common::BookCopy;
use mdbook_preprocessor::book::{Book, BookItem};
use snapbox::cmd::{Command, cargo_bin};

fn bin() -> Command {
    Command::new(cargo_bin!("mdbook-gpulab"))
}

/// The row of `list --json` for the item `id`.
fn list_json_row(book: &BookCopy, id: &str) -> serde_json::Value {
    let assert = on(book, &["list", "--json"]).assert();
    let rows: serde_json::Value = serde_json::from_str(&stdout_of(assert.get_output())).unwrap();
    rows.as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("{id}"))
        .clone()
}

/// `mdbook-gpulab <args> <book root>`.
fn on(book: &BookCopy, args: &[&str]) -> Command {
    bin().args(args).arg(&book.root)
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `[context, book]` JSON mdBook writes to a preprocessor's stdin.
fn protocol_input(book: &BookCopy) -> String {
    let md = mdbook_driver::MDBook::load(&book.root).expect("loading the fixture book");
    let ctx = mdbook_preprocessor::PreprocessorContext::new(
        book.root.clone(),
        md.config.clone(),
        "html".to_string(),
    );
    serde_json::to_string(&(&ctx, &md.book)).unwrap()
}

#[test]
fn supports_html_only() {
    bin().args(["supports", "html"]).assert().code(0);
    bin().args(["supports", "latex"]).assert().code(1);
}

#[test]
fn protocol_answers_the_processed_book_on_stdout_only() {
    let book = BookCopy::new("basic");
    let input = protocol_input(&book);
    assert!(input.starts_with('['), "a 2-element JSON array");
    let assert = bin()
        .current_dir(&book.root)
        .stdin(input)
        .assert()
        .success();
    let out = assert.get_output();
    let stdout = stdout_of(out);
    // Nothing but the book on stdout: it parses as a whole, with no trailing text.
    let processed: Book = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout must be exactly one Book in JSON ({e}):\n{stdout}"));
    let mut chapters = 0;
    let mut with_results = 0;
    for item in processed.iter() {
        if let BookItem::Chapter(ch) = item {
            chapters += 1;
            assert!(
                !ch.content.contains("```gpulab"),
                "a gpulab fence survived in {}:\n{}",
                ch.name,
                ch.content
            );
            if ch.content.contains("class=\"gpulab") {
                with_results += 1;
            }
        }
    }
    assert_eq!(chapters, 2);
    assert_eq!(
        with_results, 2,
        "chapter and status page both get gpulab- HTML"
    );
    let chapter = processed
        .iter()
        .find_map(|i| match i {
            BookItem::Chapter(ch) if ch.name == "Scaling a vector" => Some(ch),
            _ => None,
        })
        .unwrap();
    assert!(chapter.content.contains("gpulab-table"));
    assert!(chapter.content.contains("<svg"));
    assert!(chapter.content.contains("gpulab-stale-badge"));
    // Diagnostics (the stale and missing recordings) went to stderr.
    let stderr = stderr_of(out);
    assert!(
        stderr.contains("chapter.md#3: experiment `copy` awaits a GPU run"),
        "{stderr}"
    );
    assert!(!stdout.contains("warning"), "{stdout}");
}

#[test]
fn protocol_rejects_garbage_on_stdin_without_panicking() {
    let assert = bin().stdin("not json").assert().code(1);
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("error: reading mdBook's input on stdin"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(assert.get_output().stdout.is_empty());
}

#[test]
fn build_recorded_writes_the_chapter() {
    let book = BookCopy::new("basic");
    let assert = on(&book, &["build", "--mode", "recorded"])
        .assert()
        .success();
    let stderr = stderr_of(assert.get_output());
    assert!(stderr.contains("built "), "{stderr}");
    let html = book.read("out/chapter.html");
    assert!(html.contains("gpulab-table"));
    assert!(html.contains("Synthetic Test GPU (not a measurement)"));
}

/// `--mode` is checked by clap against the modes `book.toml` accepts.
#[test]
fn build_rejects_an_unknown_mode_and_lists_the_modes() {
    let book = BookCopy::new("basic");
    let assert = on(&book, &["build", "--mode", "offline"]).assert().code(2);
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("invalid value 'offline'")
            && stderr.contains("[possible values: auto, recorded, live]"),
        "{stderr}"
    );
}

#[test]
fn build_strict_fails_on_stale_points_warns_on_failed_ones_and_names_the_chapter() {
    let book = BookCopy::new("basic");
    let assert = on(&book, &["build", "--strict"]).assert().failure();
    let stderr = stderr_of(assert.get_output());
    assert!(stderr.contains("--strict"), "{stderr}");
    // A failed point is a recorded outcome (shown as failed on the page): a warning, not a reason.
    assert!(!stderr.contains("chapter.md#1"), "{stderr}");
    let warned = on(&book, &["build"]).assert().success();
    let warned = stderr_of(warned.get_output());
    assert!(
        warned.contains("warning: chapter.md#1: some points of `scale` failed"),
        "{warned}"
    );
    assert!(
        stderr.contains("chapter.md#2: the recording of `scale` is stale"),
        "{stderr}"
    );
    // A pending experiment (never recorded) is not a reason to fail.
    assert!(!stderr.contains("`copy`"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The chapter of a student without a GPU: one new experiment with a claim, nothing recorded.
const PENDING_CHAPTER: &str = "# Scaling a vector\n\n```gpulab\nexperiment = \"copy\"\naxes = { N = [1024, 2048] }\nreproduces = \"demo:copy\"\nexpect = [\"naive.time_ms < 1\"]\n```\n";

#[test]
fn build_strict_passes_a_chapter_whose_new_experiment_awaits_a_gpu_run() {
    let book = BookCopy::new("basic");
    book.write("src/chapter.md", PENDING_CHAPTER);
    let assert = on(&book, &["build", "--strict", "--mode", "recorded"])
        .assert()
        .success();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("warning: chapter.md#1: experiment `copy` awaits a GPU run"),
        "{stderr}"
    );
    let html = book.read("out/chapter.html");
    assert!(html.contains("awaiting a GPU run"), "{html}");
    assert!(
        html.contains("<code>mdbook-gpulab run chapter.md#1</code>"),
        "{html}"
    );
    assert!(
        html.contains("<code>naive.time_ms &lt; 1</code> <span class=\"gpulab-claim-status\">not evaluated</span>"),
        "{html}"
    );
    let status = book.read("out/status.html");
    assert!(
        status.contains("gpulab-state-pending\">pending"),
        "{status}"
    );

    let assert = on(&book, &["list"]).assert().success();
    let stdout = stdout_of(assert.get_output());
    let row = stdout.lines().find(|l| l.starts_with("demo:copy")).unwrap();
    assert!(row.contains("pending"), "{stdout}");
}

#[test]
fn run_without_a_gpu_prints_the_recorded_table_and_the_pending_command() {
    let book = BookCopy::new("basic");
    let assert = bin()
        .args(["run", "chapter.md", "--recorded", "--dir"])
        .arg(&book.root)
        .assert()
        .success();
    let stdout = stdout_of(assert.get_output());
    assert!(stdout.contains("Scale a vector — chapter.md#1"), "{stdout}");
    assert!(
        stdout.contains("Synthetic Test GPU (not a measurement)"),
        "{stdout}"
    );
    // The recorded table: N down, variants across, a failed point shown as failed.
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("4096"))
        .unwrap();
    assert!(
        line.contains("0.0200") && line.contains("FAILED"),
        "{stdout}"
    );
    assert!(stdout.contains("0.0400 (stale)"), "{stdout}");
    assert!(
        stdout.contains("awaiting a GPU run: no recording yet; on a machine with an NVIDIA GPU run `mdbook-gpulab run chapter.md#3`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("does not hold: grid_stride.time_ms < naive.time_ms"),
        "{stdout}"
    );
}

#[test]
fn check_without_compile_passes_on_the_fixture() {
    let book = BookCopy::new("basic");
    let assert = on(&book, &["check", "--no-compile"]).assert().success();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains(
            "checked 4 directive(s), 2 experiment spec(s), 1 recording(s) and 0 calibration"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("error"), "{stderr}");
}

/// The `types` fixture book (one experiment per element-type and `reset` feature) passes `check`;
/// where NVRTC is installed (CI), its kernels compile too, `<cuda_fp16.h>` and `<cuda_bf16.h>`
/// included.
#[test]
fn check_passes_on_the_types_fixture_book() {
    let book = BookCopy::new("types");
    let assert = on(&book, &["check", "--no-compile"]).assert().success();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("checked 4 directive(s), 4 experiment spec(s)"),
        "{stderr}"
    );
    if !mdbook_gpulab::gpu::nvrtc_library_present() {
        eprintln!("SKIPPED compiling the types fixture: libnvrtc not found (CI installs it)");
        assert!(
            std::env::var("GPULAB_REQUIRE_NVRTC").is_err(),
            "GPULAB_REQUIRE_NVRTC is set but libnvrtc is missing"
        );
        return;
    }
    let assert = on(&book, &["check"]).assert().success();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("all 7 kernel build(s) compiled"),
        "{stderr}"
    );
}

/// The CGMA bug: a metric formula's integer division truncated silently. Metric `/` is now real
/// division, so `bytes_per_elem / 3` does not warn, but an explicit `div` that drops a remainder does.
#[test]
fn check_warns_where_integer_division_truncates_a_metric() {
    let book = BookCopy::new("basic");
    book.edit(
        "kernels/scale/experiment.toml",
        "bytes = \"8*N\"",
        "bytes = \"8*N\"\n[metrics.custom]\nratio = { expr = \"N / 3\", unit = \"\" }\nchunks = { expr = \"div(N, 3)\", unit = \"\" }",
    );
    let assert = on(&book, &["check", "--no-compile"]).assert().success();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("warning: scale variant `naive`: metric `chunks` truncates an integer division at N=1024: `div(N, 3)` is 1024 / 3 = 341.3333333333333, truncated to 341"),
        "{stderr}"
    );
    assert!(!stderr.contains("metric `ratio`"), "{stderr}");
}

#[test]
fn check_reports_a_misspelled_key_with_location_caret_and_suggestion() {
    let book = BookCopy::new("basic");
    book.edit(
        "src/chapter.md",
        "axes = { N = [16384] }",
        "axs = { N = [16384] }",
    );
    let assert = on(&book, &["check", "--no-compile"]).assert().code(1);
    let stderr = stderr_of(assert.get_output());
    assert!(stderr.contains("unknown field `axs`"), "{stderr}");
    assert!(stderr.contains("src/chapter.md:21:1"), "{stderr}");
    assert!(stderr.contains("21 | axs = { N = [16384] }"), "{stderr}");
    assert!(stderr.contains("^^^"), "{stderr}");
    assert!(stderr.contains("did you mean `axes`?"), "{stderr}");
    assert!(stdout_of(assert.get_output()).is_empty());
}

#[test]
fn check_reports_an_unknown_variant_with_a_suggestion() {
    let book = BookCopy::new("basic");
    book.edit(
        "src/chapter.md",
        "reproduces = \"demo:bar\"\n",
        "reproduces = \"demo:bar\"\nvariants = [\"naive\", \"grid_strid\"]\n",
    );
    let assert = on(&book, &["check", "--no-compile"]).assert().code(1);
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("experiment `scale` has no variant `grid_strid`"),
        "{stderr}"
    );
    assert!(stderr.contains("src/chapter.md:24:22"), "{stderr}");
    assert!(stderr.contains("^^^^^^^^^^^^ unknown variant"), "{stderr}");
    assert!(stderr.contains("did you mean `grid_stride`?"), "{stderr}");
}

#[test]
fn list_json_prints_the_reproduces_ids_and_states() {
    // The fixture book has no paper inventory: one row per `reproduces` id, marked so.
    let book = BookCopy::new("basic");
    let assert = on(&book, &["list", "--json"]).assert().success();
    let stdout = stdout_of(assert.get_output());
    let rows: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}:\n{stdout}"));
    let rows = rows.as_array().expect("a JSON array");
    let states: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap(),
                r["state"].as_str().unwrap(),
                r["recording"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            // a point of directive 1 failed verification
            ("demo:table1", "re-run (no inventory)", "failed"),
            ("demo:bar", "re-run (no inventory)", "stale"),
            ("demo:copy", "re-run (no inventory)", "pending"),
        ]
    );
    let first = &rows[0];
    assert_eq!(first["where"][0], "chapter.md#gpulab-scale-1");
    let claims = &first["claims"]["Synthetic Test GPU (not a measurement)"];
    assert_eq!(
        (claims["holding"].as_u64(), claims["total"].as_u64()),
        (Some(1), Some(2))
    );
    assert!(rows[2]["claims"].as_object().unwrap().is_empty());
}

#[test]
fn build_without_book_toml_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let assert = bin().arg("build").arg(dir.path()).assert().failure();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("has no book.toml: pass the book's root folder"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A corrupt recording used to stop the whole build (and `check` never read `data/`): now `check`
/// fails naming the file and line, the build shows an error box where its directives were and
/// keeps the rest, `--strict` fails, `list` exits non-zero, and the file is never rewritten.
#[test]
fn a_corrupt_recording_fails_check_and_strict_and_spoils_only_its_directives() {
    let book = BookCopy::new("basic");
    let corrupt = "{\"schema\": 1, \"experiment\": ";
    book.write("data/test-device/scale.json", corrupt);
    let assert = on(&book, &["check", "--no-compile"]).assert().failure();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("data/test-device/scale.json is not a valid recording")
            && stderr.contains("line 1 column"),
        "{stderr}"
    );

    let assert = on(&book, &["build", "--mode", "recorded"])
        .assert()
        .success();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains("data/test-device/scale.json is not a valid recording"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let html = book.read("out/chapter.html");
    assert!(
        html.contains("Unreadable data for this gpulab directive"),
        "{html}"
    );
    assert!(
        html.contains("awaiting a GPU run") || html.contains("gpulab-missing"),
        "the `copy` directive still renders: {html}"
    );
    // The unreadable directive keeps its code box, which the later ones on the page link to.
    assert!(html.contains("id=\"gpulab-scale-1-code\""), "{html}");
    assert!(html.contains("id=\"gpulab-scale-1-code-2\""), "{html}");
    assert!(html.contains("href=\"#gpulab-scale-1-code-2\""), "{html}");

    let assert = on(&book, &["build", "--mode", "recorded", "--strict"])
        .assert()
        .failure();
    assert!(stderr_of(assert.get_output()).contains("scale.json"));

    let assert = on(&book, &["list", "--json"]).assert().failure();
    let rows: serde_json::Value = serde_json::from_str(&stdout_of(assert.get_output())).unwrap();
    // The item rows of the directives that could be listed come first, then the unreadable ones.
    let unreadable: Vec<&serde_json::Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["state"] == "unreadable")
        .collect();
    assert!(!unreadable.is_empty(), "{rows:#}");
    assert!(
        unreadable[0]["errors"][0]
            .as_str()
            .unwrap()
            .contains("scale.json")
    );
    assert_eq!(
        book.read("data/test-device/scale.json"),
        corrupt,
        "never rewritten"
    );
}

#[test]
fn list_json_reports_invalid_directives_and_exits_non_zero() {
    let book = BookCopy::new("basic");
    book.edit(
        "src/chapter.md",
        "axes = { N = [16384] }",
        "axes = { N = [16384] }\nbudget_s = -1.0",
    );
    let assert = on(&book, &["list", "--json"]).assert().failure();
    let rows: serde_json::Value = serde_json::from_str(&stdout_of(assert.get_output())).unwrap();
    let invalid: Vec<&serde_json::Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["state"] == "invalid")
        .collect();
    assert_eq!(invalid.len(), 1, "{rows:#}");
    assert_eq!(invalid[0]["directive"], "chapter.md#2");
    assert_eq!(invalid[0]["experiment"], "scale");
    let error = invalid[0]["errors"][0].as_str().unwrap();
    assert!(
        error.contains("`budget_s = -1` must be more than 0"),
        "{error}"
    );
    assert!(error.contains("src/chapter.md:"), "{error}");
    // The plain listing fails too.
    on(&book, &["list"]).assert().failure();
}

#[test]
fn check_reports_an_unparsable_paper_csv_at_its_line() {
    let book = BookCopy::new("basic");
    let csv = book.read("data/papers/demo/table1.csv") + "8192,\"naive,0.08\n";
    book.write("data/papers/demo/table1.csv", &csv);
    let assert = on(&book, &["check", "--no-compile"]).assert().failure();
    let stderr = stderr_of(assert.get_output());
    assert!(stderr.contains("table1.csv:9:"), "{stderr}");
    assert!(stderr.contains("src/chapter.md:"), "{stderr}");
    // The build keeps the rest of the book and shows the error where the directive was.
    on(&book, &["build", "--mode", "recorded"])
        .assert()
        .success();
    let html = book.read("out/chapter.html");
    assert!(html.contains("Invalid gpulab directive"), "{html}");
    assert!(html.contains("gpulab-table"));
}

#[test]
fn build_renders_an_invalid_directive_as_an_error_box_unless_strict() {
    let book = BookCopy::new("basic");
    book.edit(
        "src/chapter.md",
        "axes = { N = [16384] }",
        "axs = { N = [16384] }",
    );
    let assert = on(&book, &["build", "--mode", "recorded"])
        .assert()
        .success();
    let stderr = stderr_of(assert.get_output());
    assert!(stderr.contains("did you mean `axes`?"), "{stderr}");
    let html = book.read("out/chapter.html");
    assert!(html.contains("Invalid gpulab directive"), "{html}");
    assert!(html.contains("unknown field `axs`"), "{html}");
    // The other directives still render.
    assert!(html.contains("gpulab-table"));

    let assert = on(&book, &["build", "--strict"]).assert().failure();
    let stderr = stderr_of(assert.get_output());
    assert!(stderr.contains("unknown field `axs`"), "{stderr}");
}

/// mdBook's stdin as captured from the real binary of `version`, with `root` pointing at `book`.
fn captured_input(version: &str, book: &BookCopy) -> String {
    let path = common::fixture("mdbook-input").join(format!("{version}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value[0]["root"] = serde_json::Value::String(book.root.display().to_string());
    value.to_string()
}

#[test]
fn mdbook_0_4_input_is_answered_with_sections() {
    let book = BookCopy::new("basic");
    let assert = bin()
        .current_dir(&book.root)
        .stdin(captured_input("0.4.52", &book))
        .assert()
        .success();
    let out: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert!(out.get("items").is_none(), "0.4 reads `sections`: {out}");
    assert!(out.get("__non_exhaustive").is_some(), "0.4's Book has it");
    let sections = out["sections"].as_array().expect("sections");
    assert_eq!(sections.len(), 2);
    let content = sections[0]["Chapter"]["content"].as_str().unwrap();
    assert!(content.contains("class=\"gpulab"), "{content}");
    assert!(!content.contains("```gpulab"), "{content}");
}

#[test]
fn mdbook_0_5_input_is_answered_with_items() {
    let book = BookCopy::new("basic");
    let assert = bin()
        .current_dir(&book.root)
        .stdin(captured_input("0.5.4", &book))
        .assert()
        .success();
    let processed: Book = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let rendered = processed
        .iter()
        .any(|item| matches!(item, BookItem::Chapter(ch) if ch.content.contains("class=\"gpulab")));
    assert!(rendered);
}

#[test]
fn mdbook_0_3_gets_one_line_naming_the_versions_that_work() {
    let book = BookCopy::new("basic");
    let input = captured_input("0.4.52", &book).replace("\"0.4.52\"", "\"0.3.7\"");
    let assert = bin().stdin(input).assert().code(1);
    let stderr = stderr_of(assert.get_output());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("works with mdBook 0.4.x") && stderr.contains("0.3.7"),
        "{stderr}"
    );
}

#[test]
fn build_says_it_used_recordings_and_how_many_directives_and_chapters() {
    let book = BookCopy::new("basic");
    let assert = on(&book, &["build", "--mode", "recorded"])
        .assert()
        .success();
    let stderr = stderr_of(assert.get_output());
    let line = stderr
        .lines()
        .find(|l| l.starts_with("gpulab: "))
        .unwrap_or_else(|| panic!("no summary line:\n{stderr}"));
    assert!(line.contains("ran no kernels (mode recorded)"), "{line}");
    let directives = std::fs::read_to_string(book.path("src/chapter.md"))
        .unwrap()
        .matches("```gpulab\n")
        .count();
    assert!(
        line.contains(&format!(
            "rendered {directives} directive(s) in 2 chapter(s)"
        )),
        "{line}"
    );
    assert!(!line.contains("invalid"), "{line}");

    // An invalid directive is rendered as an error box, and the summary says so.
    book.edit(
        "src/chapter.md",
        "experiment = \"copy\"\naxes = { N = [1024] }",
        "experiment = \"copy\"\naxes = { N = [1024] }\nbogus = 1",
    );
    let assert = on(&book, &["build", "--mode", "recorded"])
        .assert()
        .success();
    let stderr = stderr_of(assert.get_output());
    assert!(
        stderr.contains(&format!(
            "rendered {directives} directive(s) in 2 chapter(s), 1 of them invalid (shown as an error box)"
        )),
        "{stderr}"
    );
}

/// `devices = "all"`: `list --json` reports the claims of every device with a recording, each
/// evaluated on that device's data (a second device where the synthetic GPU ran 1000× slower).
#[test]
fn list_json_reports_claims_per_device() {
    let book = BookCopy::new("basic");
    let rec = book.read("data/test-device/scale.json");
    let mut second: serde_json::Value = serde_json::from_str(&rec).unwrap();
    second["device"]["slug"] = "second-device".into();
    second["device"]["name"] = "Second Synthetic GPU (not a measurement)".into();
    for p in second["points"].as_array_mut().unwrap() {
        // Every statistic, so that min ≤ median ≤ max still holds (a recording where it does
        // not is refused as corrupt).
        for stat in ["median_ms", "min_ms", "max_ms", "q1_ms", "q3_ms"] {
            if let Some(t) = p["timing"][stat].as_f64() {
                p["timing"][stat] = (t * 1000.0).into();
            }
        }
    }
    book.write(
        "data/second-device/scale.json",
        &serde_json::to_string_pretty(&second).unwrap(),
    );
    book.edit(
        "src/chapter.md",
        "axes = { N = [1024, 4096] }\ntitle = \"Scale: time and bandwidth\"\n",
        "axes = { N = [1024, 4096] }\ntitle = \"Scale: time and bandwidth\"\ndevices = \"all\"\n",
    );
    let row = list_json_row(&book, "demo:table1");
    let holding = |device: &str| row["claims"][device]["holding"].as_u64();
    // `naive.time_ms < 1` holds on the test device, not on the 1000× slower second one.
    assert_eq!(
        holding("Synthetic Test GPU (not a measurement)"),
        Some(1),
        "{row:#}"
    );
    assert_eq!(
        holding("Second Synthetic GPU (not a measurement)"),
        Some(0),
        "{row:#}"
    );
}

/// The GPU-only commands, on a machine without a GPU: `calibrate` and `launch-info --image` each
/// say why in one `error:` line and exit 1, and `launch-info` without `--image` still resolves the
/// launch (scripts/ncu_check.py uses it).
#[test]
fn calibrate_and_launch_info_image_say_there_is_no_gpu() {
    if mdbook_gpulab::gpu::driver_library_present() {
        eprintln!("SKIPPED: this machine has an NVIDIA driver; the GPU suite runs these commands");
        return;
    }
    let out = bin().arg("calibrate").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(
        err.starts_with("error:") && !err.contains("panicked"),
        "{err}"
    );

    let book = BookCopy::new("basic");
    let dir = book.root.display().to_string();
    let resolved = bin()
        .args(["launch-info", "copy", "naive", "N=1024", "--dir", &dir])
        .output()
        .unwrap();
    assert!(resolved.status.success(), "{}", stderr_of(&resolved));
    assert!(stdout_of(&resolved).contains("\"launches\""));

    let image = book.root.join("k.img");
    let out = bin()
        .args([
            "launch-info",
            "copy",
            "naive",
            "N=1024",
            "--dir",
            &dir,
            "--image",
        ])
        .arg(&image)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("--image needs a GPU"),
        "{}",
        stderr_of(&out)
    );
    assert!(!image.exists());
}

/// `list | head` panicked ("failed printing to stdout: Broken pipe", exit 101): a reader that
/// stops early now ends the command quietly, with the status of a command killed by SIGPIPE.
#[test]
fn output_into_a_closed_pipe_exits_quietly_not_with_a_panic() {
    let book = BookCopy::new("basic");
    // The reader is closed before the child starts, so its first write meets a closed pipe
    // however loaded the machine is (dropping it after `spawn` raced the child's output).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(cargo_bin!("mdbook-gpulab"))
        .arg("list")
        .arg(&book.root)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("running mdbook-gpulab list");
    let stderr = stderr_of(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}

/// `record --experiment nosuch --estimate` printed an empty table and exited 0.
#[test]
fn record_names_an_unknown_experiment_instead_of_doing_nothing() {
    let book = BookCopy::new("basic");
    let out = bin()
        .args(["record", "--experiment", "scael", "--estimate"])
        .current_dir(&book.root)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "`scael`: no directive of the book shows this experiment; did you mean `scale`?"
        ),
        "{stderr}"
    );
}

/// `run` on a misspelt chapter said "no gpulab directive in …", and on `#n` past the end "has no
/// directive #n" without saying how many there are.
#[test]
fn run_says_which_chapter_or_directive_does_not_exist() {
    let book = BookCopy::new("basic");
    let run = |target: &str| {
        let out = bin()
            .args(["run", target, "--recorded", "--dir"])
            .arg(&book.root)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
        stderr_of(&out)
    };
    let e = run("chaptr.md");
    assert!(
        e.contains("no chapter `chaptr.md` in the book")
            && e.contains("did you mean `chapter.md`?"),
        "{e}"
    );
    let e = run("chapter.md#99");
    assert!(
        e.contains("`chapter.md` has no directive #99: it has"),
        "{e}"
    );
}

/// The status table counted a claim that was not evaluated on a device as one that does not hold
/// ("2 of 3 hold" where one claim had no output there): only evaluated claims are counted.
#[test]
fn claims_not_evaluated_are_not_counted_as_failing() {
    let book = BookCopy::new("basic");
    book.edit(
        "src/chapter.md",
        "expect = [\"naive.time_ms < 1\", \"grid_stride.time_ms < naive.time_ms\"]",
        "expect = [\"naive.time_ms < 1\", \"grid_stride.time_ms < naive.time_ms\", \"naive.time_ms < 1 where N > 100000\"]",
    );
    let row = list_json_row(&book, "demo:table1");
    let claims = &row["claims"]["Synthetic Test GPU (not a measurement)"];
    assert_eq!(claims["total"].as_u64(), Some(2), "{row:#}");
}

/// Regression (session 10): a misspelt key in `[preprocessor.gpulab]` (`stritc = true`) was
/// silently ignored, so the book built without the option the author asked for.
#[test]
fn an_unknown_book_toml_key_fails_with_the_nearest_known_one() {
    let book = BookCopy::new("basic");
    let toml = book.read("book.toml");
    book.write(
        "book.toml",
        &toml.replace(
            "[preprocessor.gpulab]",
            "[preprocessor.gpulab]\nstritc = true",
        ),
    );
    for args in [
        &["check", "--no-compile"][..],
        &["build", "--mode", "recorded"],
    ] {
        let assert = on(&book, args).assert().failure();
        let stderr = stderr_of(assert.get_output());
        // Named with its line (issue 36): the line after the table's header.
        let line = 2 + toml
            .lines()
            .position(|l| l == "[preprocessor.gpulab]")
            .unwrap();
        assert!(
            stderr.contains(&format!(
                "book.toml:{line}: [preprocessor.gpulab] unknown key `stritc`; did you mean `strict`?"
            )),
            "{args:?}: {stderr}"
        );
    }
}

/// New-user audit (session 13): `mdbook-gpulab` typed in a terminal waited silently for mdBook's
/// JSON; now it prints the help. (`script` gives the command a terminal; it is in util-linux /
/// bsdutils, which every Debian and Ubuntu has.)
#[test]
fn bare_command_in_a_terminal_prints_the_help_instead_of_waiting() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!(
            "SKIPPED bare_command_in_a_terminal_…: no `script` command to give it a terminal"
        );
        return;
    }
    let bin = cargo_bin!("mdbook-gpulab");
    let started = std::time::Instant::now();
    let out = std::process::Command::new("timeout")
        .args(["10", "script", "-qec"])
        .arg(format!(
            "'{}'",
            bin.display().to_string().replace('\'', "'\\''")
        ))
        .arg("/dev/null")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let raw = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr_of(&out);
    // The help is coloured on a terminal: drop the escape sequences.
    let mut text = String::new();
    let mut in_escape = false;
    for c in raw.chars() {
        match (in_escape, c) {
            (false, '\u{1b}') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, c) => text.push(c),
        }
    }
    assert!(started.elapsed().as_secs() < 9, "it waited: {text}");
    assert!(text.contains("Usage: mdbook-gpulab"), "{text}");
    assert!(text.contains("reads the book as JSON on stdin"), "{text}");
}

/// New-user audit (session 13): an invalid directive under `build --strict` printed
/// "error: building the book: error: …"; now its diagnostic alone, with its source lines.
#[test]
fn strict_build_prints_an_invalid_directive_once_without_contexts() {
    let book = BookCopy::new("basic");
    book.edit(
        "src/chapter.md",
        "axes = { N = [16384] }",
        "axes = { N = [16384] }\nvariants = [\"nosuch\"]",
    );
    let out = on(&book, &["build", "--strict"]).output().unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: experiment `scale` has no variant `nosuch`"),
        "{stderr}"
    );
    assert!(stderr.contains("--> src/chapter.md:"), "{stderr}");
    assert!(!stderr.contains("building the book"), "{stderr}");
}

/// New-user audit (session 13): the strict failure for a stale recording did not say how to fix
/// it, where the warning of a plain build does.
#[test]
fn strict_stale_error_says_how_to_record_again() {
    let book = BookCopy::new("basic");
    let out = on(&book, &["build", "--strict"]).output().unwrap();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("the recording of `scale` is stale (`mdbook-gpulab record` on a machine with an NVIDIA GPU records it again)"),
        "{stderr}"
    );
}

/// New-user audit (session 13): `record --estimate /path/to/book` took the path for a device and
/// said the current folder had no book.toml; `--estimate` with `--gpus` ignored `--gpus`.
#[test]
fn record_estimate_does_not_take_the_book_folder_for_a_device() {
    let book = BookCopy::new("basic");
    let out = bin()
        .args(["record", "--estimate"])
        .arg(&book.root)
        .output()
        .unwrap();
    let text = stdout_of(&out) + &stderr_of(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("predicted `record` on test-device"), "{text}");
    let out = on(&book, &["record", "--estimate", "--gpus", "0"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot be used with '--gpus"), "{stderr}");
}

/// New-user audit (session 13): a chapter left out of SUMMARY.md was silently ignored by `check`,
/// and `run` said it had no gpulab directive.
#[test]
fn a_chapter_missing_from_summary_is_named_by_check_and_run() {
    let book = BookCopy::new("basic");
    book.write(
        "src/orphan.md",
        "# Orphan\n\n```gpulab\nexperiment = \"copy\"\naxes = { N = [1024] }\n```\n",
    );
    let out = on(&book, &["check", "--no-compile"]).output().unwrap();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains(
            "warning: src/orphan.md has gpulab directives but is not listed in SUMMARY.md"
        ),
        "{stderr}"
    );
    let out = bin()
        .args(["run", "orphan.md"])
        .current_dir(&book.root)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("`orphan.md` is not listed in SUMMARY.md, so mdBook does not build it"),
        "{stderr}"
    );
}

/// New-user audit (session 13): `merge` of an empty or wrong folder reported "merged 0 point(s)"
/// and succeeded; recordings of experiments the book does not have were merged without a word.
#[test]
fn merge_names_a_folder_without_recordings_and_experiments_the_book_lacks() {
    let book = BookCopy::new("basic");
    let empty = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["merge", "--dir"])
        .arg(&book.root)
        .arg(empty.path())
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("holds no recordings"), "{stderr}");

    // A shard of another book: its experiment `other` is not this book's.
    let shard = tempfile::tempdir().unwrap();
    let device = shard.path().join("test-device");
    std::fs::create_dir_all(&device).unwrap();
    let text = book
        .read("data/test-device/scale.json")
        .replace("\"experiment\": \"scale\"", "\"experiment\": \"other\"");
    assert!(
        text.contains("\"experiment\": \"other\""),
        "the fixture's layout changed"
    );
    std::fs::write(device.join("other.json"), text).unwrap();
    let out = bin()
        .args(["merge", "--dir"])
        .arg(&book.root)
        .arg(shard.path())
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: this book has no experiment `other`"),
        "{stderr}"
    );
}

/// Review (session 13): `record --rerun ../book` took the book folder for an experiment name.
#[test]
fn record_rerun_does_not_take_the_book_folder_for_an_experiment() {
    let book = BookCopy::new("basic");
    let out = bin()
        .args(["record", "--rerun"])
        .arg(&book.root)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is a folder, not an experiment") && stderr.contains("--rerun`)"),
        "{stderr}"
    );
    // `--rerun` alone, run from a book's folder (whose book.toml the empty name must not find),
    // still means every experiment: the arguments are accepted (exit 1 is this machine's lack of a
    // GPU or of the experiment, not 2, a usage error).
    let out = bin()
        .args(["record", "--rerun", "--experiment", "nosuch"])
        .current_dir(&book.root)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("invalid value"), "{stderr}");
}
