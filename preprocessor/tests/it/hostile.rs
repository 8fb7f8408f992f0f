//! Hostile input: limits checked before anything allocates, paths confined to the book, every
//! problem located. Each test is named after a defect found by fuzzing or by hand (issue 15).

use crate::common;

use common::BookCopy;
use mdbook_gpulab::workspace::Workspace;
use std::path::Path;
use std::time::{Duration, Instant};

/// The basic fixture book with a second spec, `wide`, that has two parameters (N and M).
fn book() -> BookCopy {
    let book = BookCopy::new("basic");
    let spec = book
        .read("kernels/scale/experiment.toml")
        .replace("N = 1048576", "N = 1048576\nM = 1");
    book.write("kernels/wide/experiment.toml", &spec);
    book.write(
        "kernels/wide/scale.cu",
        &book.read("kernels/scale/scale.cu"),
    );
    book
}

fn workspace(book: &BookCopy) -> Workspace {
    let md = mdbook_driver::MDBook::load(&book.root).unwrap();
    let config = mdbook_gpulab::config::Config::from_mdbook(&md.config, &md.root).unwrap();
    Workspace::new(&book.root, &md.config.book.src, config)
}

/// Every diagnostic of the chapter's directives, rendered; empty when all are valid.
fn errors_of(book: &BookCopy, chapter: &str) -> String {
    let ws = workspace(book);
    ws.scan_chapter("T", Path::new("t.md"), chapter)
        .iter()
        .filter_map(|f| f.parsed.as_ref().err())
        .flatten()
        .map(|d| d.render(false))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A chapter with one directive whose body is `body`; the fence opens on line 3.
fn chapter(body: &str) -> String {
    format!("# T\n\n```gpulab\n{body}\n```\n")
}

/// Errors of a one-directive chapter, which must be rejected within two seconds.
fn rejected(book: &BookCopy, body: &str) -> String {
    rejected_within(book, body, Duration::from_secs(2))
}

fn rejected_within(book: &BookCopy, body: &str, limit: Duration) -> String {
    let started = Instant::now();
    let errs = errors_of(book, &chapter(body));
    assert!(started.elapsed() < limit, "took {:?}", started.elapsed());
    assert!(!errs.is_empty(), "`{body}` should be rejected");
    errs
}

#[test]
fn two_axes_of_31623_values_do_not_allocate_a_billion_points() {
    let book = book();
    let errs = rejected(
        &book,
        "experiment = \"wide\"\naxes = { N = { range = [1, 31623] }, M = { range = [1, 31623] } }",
    );
    assert!(
        errs.contains("31623 values; an axis may have at most 10000"),
        "{errs}"
    );
    // Each axis within its limit, the product far over the directive's.
    let errs = rejected(
        &book,
        "experiment = \"wide\"\naxes = { N = { range = [1, 10000] }, M = { range = [1, 10000] } }",
    );
    assert!(errs.contains("make 200000000 points"), "{errs}");
    assert!(errs.contains("src/t.md:5:"), "located at the axes: {errs}");
}

#[test]
fn a_range_with_step_i64_max_terminates() {
    let book = book();
    // Two values (0 and i64::MAX): no wrapping loop, and both values are refused as lengths.
    let errs = rejected(
        &book,
        "experiment = \"scale\"\naxes = { N = { range = [0, 9223372036854775807, 9223372036854775807] } }",
    );
    assert!(errs.contains("N=0"), "{errs}");
    assert!(errs.contains("N=9223372036854775807"), "{errs}");
    let errs = rejected(
        &book,
        "experiment = \"scale\"\naxes = { N = { range = [-9223372036854775808, 9223372036854775807, 1] } }",
    );
    assert!(errs.contains("18446744073709551616 values"), "{errs}");
    let errs = rejected(
        &book,
        "experiment = \"scale\"\naxes = { N = { pow2 = [1, 9223372036854775807] } }",
    );
    assert!(
        errs.contains("N=2147483648"),
        "pow2 stops before overflowing: {errs}"
    );
}

#[test]
fn an_explicit_list_of_200000_values_is_limited() {
    let book = book();
    let list: Vec<String> = (1..=200_000).map(|i| i.to_string()).collect();
    // (parsing 200,000 TOML integers takes a few seconds in a debug build)
    let errs = rejected_within(
        &book,
        &format!(
            "experiment = \"scale\"\naxes = {{ N = [{}] }}",
            list.join(",")
        ),
        Duration::from_secs(30),
    );
    assert!(
        errs.contains("200000 values; an axis may have at most"),
        "{errs}"
    );
}

#[test]
fn negative_zero_and_huge_sizes_are_blamed_on_the_chapter_line() {
    let book = book();
    for (n, why) in [
        ("-5", "axis `N` has the negative value -5"),
        ("0", "0 is outside 1..="),
        ("1099511627776", "the buffers take 8796093022208 bytes"),
    ] {
        let errs = rejected(
            &book,
            &format!("experiment = \"scale\"\naxes = {{ N = [{n}] }}"),
        );
        assert!(errs.contains(why), "{n}: {errs}");
        assert!(
            errs.contains("src/t.md:5:"),
            "{n}: at the chapter's axis: {errs}"
        );
        // A negative value is refused at the axis itself, before any size is computed.
        assert!(
            n == "-5" || errs.contains("kernels/scale/experiment.toml:"),
            "{n}: names the spec line: {errs}"
        );
    }
}

#[test]
fn a_grid_that_overflows_is_refused() {
    let book = book();
    book.edit(
        "kernels/scale/experiment.toml",
        "grid = [\"ceil_div(N, 256)\"]",
        "grid = [\"N * N\"]",
    );
    let errs = rejected(&book, "experiment = \"scale\"\naxes = { N = [4294967296] }");
    assert!(errs.contains("grid `N * N`: integer overflow"), "{errs}");
}

#[test]
fn nan_timeouts_and_min_samples_over_max_samples_are_refused() {
    let book = book();
    let errs = rejected(
        &book,
        "experiment = \"scale\"\nmeasure = { timeout_s = nan, min_samples = 10, max_samples = 5 }",
    );
    assert!(errs.contains("`timeout_s = NaN` is not a finite"), "{errs}");
    assert!(
        errs.contains("`min_samples = 10` is more than `max_samples = 5`"),
        "{errs}"
    );
    let errs = rejected(
        &book,
        "experiment = \"scale\"\nmeasure = { timeout_s = -1.0 }",
    );
    assert!(errs.contains("must be more than 0 seconds"), "{errs}");
    let errs = rejected(&book, "experiment = \"scale\"\nbudget_s = 0.0");
    assert!(
        errs.contains("`budget_s = 0` must be more than 0"),
        "{errs}"
    );
}

#[test]
fn a_division_by_zero_in_a_spec_define_is_reported_once_at_the_spec_line() {
    let book = book();
    book.edit(
        "kernels/scale/experiment.toml",
        "kernel = \"scale\"\n",
        "kernel = \"scale\"\ndefines = { K = \"N / 0\" }\n",
    );
    let errs = rejected(
        &book,
        "experiment = \"scale\"\naxes = { N = [1, 2, 3, 4, 5] }",
    );
    assert_eq!(errs.matches("division by zero").count(), 1, "{errs}");
    assert!(errs.contains("(and 4 more point(s))"), "{errs}");
    assert!(
        errs.contains("help: define `K` = `N / 0` is at kernels/scale/experiment.toml:33"),
        "{errs}"
    );
    // With the spec's own defaults only, the spec line itself is blamed.
    let errs = rejected(&book, "experiment = \"scale\"");
    assert!(
        errs.contains("--> kernels/scale/experiment.toml:"),
        "{errs}"
    );
}

#[test]
fn a_bad_axis_value_is_blamed_on_the_chapter_not_the_spec() {
    let book = book();
    let errs = rejected(
        &book,
        "experiment = \"scale\"\naxes = { N = [1024, \"x\"] }",
    );
    assert!(errs.contains("--> src/t.md:5:"), "{errs}");
}

#[test]
fn experiment_names_that_leave_kernels_are_refused() {
    let book = book();
    for name in ["../../x", "/etc", "scale/../scale", ".hidden"] {
        let errs = rejected(&book, &format!("experiment = \"{name}\""));
        assert!(errs.contains("is not a plain name"), "{name}: {errs}");
        assert!(errs.contains("src/t.md:4:"), "{name}: {errs}");
    }
}

#[cfg(unix)]
#[test]
fn a_symlinked_experiment_toml_pointing_outside_is_not_read() {
    let book = book();
    let outside = tempfile::tempdir().unwrap();
    let spec = outside.path().join("experiment.toml");
    std::fs::write(&spec, book.read("kernels/scale/experiment.toml")).unwrap();
    std::fs::write(
        outside.path().join("scale.cu"),
        book.read("kernels/scale/scale.cu"),
    )
    .unwrap();
    std::fs::create_dir_all(book.path("kernels/evil")).unwrap();
    std::os::unix::fs::symlink(&spec, book.path("kernels/evil/experiment.toml")).unwrap();
    let errs = rejected(&book, "experiment = \"evil\"");
    assert!(errs.contains("resolves outside the book"), "{errs}");
    // A source symlinked to outside the book is refused at its spec line too.
    std::fs::remove_file(book.path("kernels/wide/scale.cu")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("scale.cu"),
        book.path("kernels/wide/scale.cu"),
    )
    .unwrap();
    let errs = rejected(&book, "experiment = \"wide\"");
    assert!(
        errs.contains("`scale.cu` is outside the book's folder"),
        "{errs}"
    );
    assert!(errs.contains("kernels/wide/experiment.toml:2:"), "{errs}");
}

#[test]
fn an_absolute_paper_path_is_refused_at_the_chapter_line() {
    let book = book();
    let errs = rejected(&book, "experiment = \"scale\"\npaper = \"/etc/passwd\"");
    assert!(errs.contains("invalid paper id"), "{errs}");
    assert!(errs.contains("src/t.md:5:"), "{errs}");
    let errs = rejected(&book, "experiment = \"scale\"\npaper = \"demo/../../x\"");
    assert!(errs.contains("invalid paper id"), "{errs}");
}

#[test]
fn an_unterminated_quote_in_a_paper_csv_fails_check_at_its_line() {
    let book = book();
    let csv = book.read("data/papers/demo/table1.csv") + "8192,\"naive,0.08\n";
    book.write("data/papers/demo/table1.csv", &csv);
    let errs = rejected(&book, "experiment = \"scale\"\npaper = \"demo/table1\"");
    assert!(errs.contains("table1.csv:9:"), "{errs}");
    assert!(errs.contains("src/t.md:5:"), "{errs}");
}

#[test]
fn source_dot_and_a_non_utf8_source_are_spec_errors() {
    let book = book();
    book.edit(
        "kernels/wide/experiment.toml",
        "source = \"scale.cu\"",
        "source = \".\"",
    );
    let errs = rejected(&book, "experiment = \"wide\"");
    assert!(errs.contains("`.` is not a file"), "{errs}");
    assert!(errs.contains("kernels/wide/experiment.toml:2:"), "{errs}");
    let book = self::book();
    std::fs::write(book.path("kernels/wide/scale.cu"), b"\xff\xfe not utf-8").unwrap();
    let errs = rejected(&book, "experiment = \"wide\"");
    assert!(errs.contains("`scale.cu` is not UTF-8 text"), "{errs}");
}

#[test]
fn an_unclosed_gpulab_fence_is_an_error() {
    let book = book();
    let errs = errors_of(&book, "# T\n\ntext\n\n```gpulab\nexperiment = \"scale\"\n");
    assert!(errs.contains("unclosed ```gpulab fence"), "{errs}");
    assert!(errs.contains("src/t.md:5:"), "{errs}");
}

#[test]
fn line_numbers_are_right_in_crlf_files_and_blockquotes() {
    let book = book();
    let bad = "experiment = \"scale\"\nvariants = [\"naiv\"]";
    for (name, md) in [
        (
            "crlf",
            format!(
                "# T\r\n\r\n```gpulab\r\n{}\r\n```\r\n",
                bad.replace('\n', "\r\n")
            ),
        ),
        (
            "blockquote",
            format!(
                "# T\n\n> ```gpulab\n> {}\n> ```\n",
                bad.replace('\n', "\n> ")
            ),
        ),
    ] {
        let errs = errors_of(&book, &md);
        assert!(errs.contains("no variant `naiv`"), "{name}: {errs}");
        assert!(errs.contains("src/t.md:5:"), "{name}: {errs}");
    }
}

#[test]
fn data_and_kernels_folders_outside_the_book_are_refused() {
    let book = book();
    let toml = book.read("book.toml") + "data = \"../elsewhere\"\n";
    book.write("book.toml", &toml);
    let md = mdbook_driver::MDBook::load(&book.root).unwrap();
    let err = mdbook_gpulab::config::Config::from_mdbook(&md.config, &md.root).unwrap_err();
    assert!(err.to_string().contains("`data`"), "{err}");
}

#[test]
fn the_whole_book_is_limited_too() {
    let book = book();
    // 11 directives of 20,000 points each: the eleventh takes the book past 200,000.
    let one = "```gpulab\nexperiment = \"scale\"\naxes = { N = { range = [1, 10000] } }\n```\n\n";
    let md = format!("# T\n\n{}", one.repeat(11));
    book.write("src/chapter.md", &md);
    let md_book = mdbook_driver::MDBook::load(&book.root).unwrap();
    let ws = workspace(&book);
    let found = mdbook_gpulab::preprocess::scan_book(&ws, &md_book.book);
    let invalid: Vec<String> = found
        .iter()
        .filter_map(|f| f.parsed.as_ref().err())
        .flatten()
        .map(|d| d.render(false))
        .collect();
    assert_eq!(invalid.len(), 1, "{invalid:?}");
    assert!(
        invalid[0].contains("take the book to 220000"),
        "{invalid:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_template_override_symlinked_outside_the_book_is_refused() {
    let book = book();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("error.hbs"), "{{message_html}}").unwrap();
    std::fs::create_dir_all(book.path("theme/gpulab")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("error.hbs"),
        book.path("theme/gpulab/error.hbs"),
    )
    .unwrap();
    let Err(err) = mdbook_gpulab::render::Templates::load(Some(&book.path("theme"))) else {
        panic!("a template outside the book was loaded");
    };
    assert!(err.to_string().contains("outside the book"), "{err}");
    // A real file there is used.
    std::fs::remove_file(book.path("theme/gpulab/error.hbs")).unwrap();
    book.write("theme/gpulab/error.hbs", "{{message_html}}");
    assert!(mdbook_gpulab::render::Templates::load(Some(&book.path("theme"))).is_ok());
}

#[cfg(unix)]
#[test]
fn a_recording_symlinked_outside_data_is_neither_read_nor_written() {
    let book = book();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("scale.json");
    let original = book.read("data/test-device/scale.json");
    std::fs::write(&target, &original).unwrap();
    std::fs::remove_file(book.path("data/test-device/scale.json")).unwrap();
    std::os::unix::fs::symlink(&target, book.path("data/test-device/scale.json")).unwrap();
    let data = mdbook_gpulab::record::DataDir::new(book.path("data"));
    let err = data.load("test-device", "scale").unwrap_err();
    assert!(err.to_string().contains("outside data/"), "{err}");
    let err = data.load("../x", "scale").unwrap_err();
    assert!(err.to_string().contains("not a plain name"), "{err}");
    let rec = mdbook_gpulab::record::store::parse_recording(Path::new("x"), &original).unwrap();
    let lock = data.lock().unwrap();
    assert!(data.merge_and_save(&lock, rec).is_err());
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        original,
        "untouched"
    );
}

/// Issue 36: every diagnostic kept its own copy of the chapter, so a 190 kB chapter whose one
/// directive names 20,000 unknown variants took 7.4 GB (and aborted under a 4 GiB limit). The
/// diagnostics now share the chapter and 20 are shown: the peak is a small book's.
#[test]
fn twenty_thousand_unknown_variants_do_not_take_gigabytes() {
    let book = BookCopy::new("basic");
    let names: Vec<String> = (0..20_000).map(|i| format!("\"v{i}\"")).collect();
    book.write(
        "src/chapter.md",
        &format!(
            "# T\n\n```gpulab\nexperiment = \"scale\"\nvariants = [{}]\naxes = {{ N = [1024] }}\n```\n",
            names.join(", ")
        ),
    );
    #[expect(
        clippy::zombie_processes,
        reason = "wait4 reaps it, and gives its peak memory"
    )]
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_mdbook-gpulab"))
        .args(["check", "--no-compile"])
        .arg(&book.root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and `pid` is our own child, not yet waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 1,
        "check ended with status {status}"
    );
    let peak_mb = usage.ru_maxrss / 1024;
    assert!(peak_mb < 200, "check peaked at {peak_mb} MB");
}
