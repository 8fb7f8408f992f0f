//! Derived metrics are computed when the book renders, from the stored timing: the numbers the
//! recorder used to freeze into the files must come out the same (except where a formula was
//! fixed on purpose), and a formula fixed in the spec must change the page without a GPU.

use crate::common;

use common::BookCopy;
use mdbook_gpulab::record::{DataDir, Outcome};
use mdbook_gpulab::results::derive_metrics;
use std::path::Path;

/// Metrics whose formula was corrected after they were recorded: (experiment, metric, why).
const FIXED_ON_PURPOSE: &[(&str, &str, &str)] = &[(
    "matmul_szczepanski",
    "cgma",
    "integer `/` truncated CGMA (issue 13); metric formulas divide as reals now",
)];

/// Every stored derived metric of the repository's recordings, recomputed from the point's median
/// time, device and the current spec, matches the stored value to 1e-9 (relative).
#[test]
fn recorded_metrics_render_the_same_when_derived_from_timing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let data = DataDir::new(root.join("data"));
    let (mut compared, mut differ) = (0usize, Vec::new());
    for device in data.devices().unwrap() {
        for entry in std::fs::read_dir(root.join("data").join(&device)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let Some(stored) = data.load(&device, &name).unwrap() else {
                continue;
            };
            let exp = mdbook_gpulab::spec::load(&root, &root.join("kernels"), &name)
                .unwrap_or_else(|d| panic!("{name}: {}", d.len()));
            let mut derived = stored.clone();
            derive_metrics(&mut derived, &exp, None);
            for (s, d) in stored.points.iter().zip(&derived.points) {
                if s.outcome != Outcome::Ok {
                    assert!(d.metrics.is_empty(), "a failed point has no metrics");
                    continue;
                }
                for (metric, q) in &s.metrics {
                    if FIXED_ON_PURPOSE
                        .iter()
                        .any(|(e, m, _)| *e == name && m == metric)
                    {
                        continue;
                    }
                    compared += 1;
                    let now = d.metrics.get(metric).map(|q| (q.value, q.unit));
                    let same = now.is_some_and(|(v, u)| {
                        u == q.unit && (v - q.value).abs() <= 1e-9 * q.value.abs().max(1e-12)
                    });
                    if !same {
                        differ.push(format!(
                            "{device}/{name} {} {:?} {metric}: stored {} {:?}, derived {now:?}",
                            s.variant, s.params, q.value, q.unit
                        ));
                    }
                }
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {compared} differ:\n{}",
        differ.len(),
        differ[..differ.len().min(20)].join("\n")
    );
    eprintln!("{compared} stored metric values re-derived identically");
}

/// Fixing a metric formula in the spec changes the rendered number at once, from the same
/// recording: no GPU, no re-recording (the key does not include the formula).
#[test]
fn a_fixed_formula_renders_without_rerecording() {
    let book = BookCopy::new("basic");
    let build = |book: &BookCopy| {
        let mut md = mdbook_driver::MDBook::load(&book.root).unwrap();
        md.with_preprocessor(mdbook_gpulab::GpuLab::new());
        md.build().unwrap();
        book.read("out/chapter.html")
    };
    let before = build(&book);
    book.edit(
        "kernels/scale/experiment.toml",
        "bytes = \"8*N\"",
        "bytes = \"16*N\"",
    );
    let after = build(&book);
    assert_ne!(before, after, "the bandwidth doubles on the page");
    let stale = |html: &str| html.matches("gpulab-stale-mark").count();
    assert_eq!(stale(&before), stale(&after), "no point turned stale");
}
