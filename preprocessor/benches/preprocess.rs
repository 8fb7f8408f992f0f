//! Speed of preprocessing from recorded data: a synthetic book of 30 directives (each a 5×4
//! sweep with a table, a line chart and claims) run through the preprocessor, reported as the
//! median of several runs. `cargo bench` prints the figure; the target is well under a second on
//! the 2-core CI machine. The recording is synthetic (generated here, never written to `data/`).

use mdbook_gpulab::GpuLab;
use mdbook_gpulab::plan::{SourceCache, plan};
use mdbook_gpulab::record::{DeviceRecord, Outcome, Point, Recording, SCHEMA_VERSION, Timing};
use mdbook_gpulab::value::{Quantity, Unit};
use mdbook_preprocessor::Preprocessor;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Instant;

const DIRECTIVES: usize = 30;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("book.toml"),
        "[book]\ntitle = \"bench\"\nsrc = \"src\"\n[build]\nbuild-dir = \"out\"\n[preprocessor.gpulab]\n",
    );
    write(
        &root.join("kernels/scale/scale.cu"),
        "extern \"C\" __global__ void scale(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }\n",
    );
    let variants: String = (0..4)
        .map(|v| format!("[[variant]]\nname = \"v{v}\"\nkernel = \"scale\"\ngrid = [\"ceil_div(N, 256)\"]\nblock = [256]\nargs = [\"x\", \"y\", \"N\"]\n\n"))
        .collect();
    write(
        &root.join("kernels/scale/experiment.toml"),
        &format!(
            "title = \"Scale\"\nsource = \"scale.cu\"\n[params]\nN = 1024\n[[buffer]]\nname = \"x\"\ntype = \"f32\"\nlen = \"N\"\ninit = {{ random = [-1, 1] }}\n[[buffer]]\nname = \"y\"\ntype = \"f32\"\nlen = \"N\"\noutput = true\n[verify]\nreference = \"formula\"\nformula = \"2 * x[i]\"\ninputs = [\"x\"]\noutput = \"y\"\n[metrics]\nbytes = \"8*N\"\n{variants}"
        ),
    );
    let directive = "```gpulab\nexperiment = \"scale\"\naxes = { N = [1024, 4096, 16384, 65536, 262144] }\ntable = { rows = \"N\", columns = \"variant\", value = \"gbps\" }\nchart = { kind = \"line\", x = \"N\", y = \"gbps\", log_x = true }\nexpect = [\"v0.time_ms <= v3.time_ms\"]\nreproduces = \"bench:t\"\n```\n\n";
    let mut chapter = String::from("# Chapter\n\n");
    for _ in 0..DIRECTIVES {
        chapter.push_str(directive);
    }
    write(&root.join("src/chapter.md"), &chapter);
    write(
        &root.join("src/SUMMARY.md"),
        "# Summary\n\n- [Chapter](chapter.md)\n",
    );

    // A synthetic recording that matches every planned point (so nothing is stale).
    let md = mdbook_driver::MDBook::load(root).unwrap();
    let config = mdbook_gpulab::config::Config::default();
    let ws = mdbook_gpulab::workspace::Workspace::new(root, "src", config);
    let found = mdbook_gpulab::preprocess::scan_book(&ws, &md.book);
    let (d, exp) = found[0].parsed.as_ref().map_err(|_| "invalid").unwrap();
    let points: Vec<Point> = plan(d, exp, &SourceCache::default())
        .unwrap()
        .into_iter()
        .enumerate()
        .map(|(i, p)| Point {
            variant: p.variant,
            params: p.params,
            key: p.key.on("synthetic"),
            recorded_at: chrono::Utc::now(),
            commit: Some("synthetic".into()),
            tool_version: "bench".into(),
            outcome: Outcome::Ok,
            failure: None,
            timing: Some(Timing {
                median_ms: 0.01 * (i + 1) as f64,
                min_ms: 0.01,
                max_ms: 0.02,
                q1_ms: 0.01,
                q3_ms: 0.02,
                noise: 0.004,
                samples: 10,
                mode: mdbook_gpulab::record::TimingMode::Cold,
                throttled: false,
                ..Timing::default()
            }),
            metrics: BTreeMap::from([(
                "gbps".to_string(),
                Quantity {
                    value: 100.0 + i as f64,
                    unit: Unit::GigabytesPerSec,
                },
            )]),
            attributes: None,
            verification: None,
            provenance: None,
            run: None,
            counters: None,
        })
        .collect();
    let rec = Recording {
        schema: SCHEMA_VERSION,
        experiment: "scale".into(),
        device: DeviceRecord {
            slug: "synthetic".into(),
            name: "Synthetic benchmark device (not a measurement)".into(),
            compute_capability: (9, 0),
            sm_count: 132,
            clock_mhz: 1980,
            memory_clock_mhz: Some(2619),
            bus_width_bits: Some(5120),
            l2_bytes: 50 << 20,
            memory_bytes: 80 << 30,
            driver_version: None,
            cuda_version: "13.0".into(),
            nvrtc_version: "13.0".into(),
            theoretical_bandwidth_gbps: Some(3352.0),
            fp32_peak_gflops: 66908.0,
        },
        points,
    };
    write(
        &root.join("data/synthetic/scale.json"),
        &serde_json::to_string(&rec).unwrap(),
    );

    let ctx = mdbook_preprocessor::PreprocessorContext::new(
        root.to_path_buf(),
        md.config.clone(),
        "html".into(),
    );
    let mut lab = GpuLab::new();
    lab.overrides.mode = Some(mdbook_gpulab::config::Mode::Recorded);
    let mut times = Vec::new();
    for _ in 0..7 {
        let book = md.book.clone();
        let t = Instant::now();
        let out = lab.run(&ctx, book).unwrap();
        times.push(t.elapsed().as_secs_f64());
        let text = format!("{out:?}");
        assert_eq!(
            text.matches("<svg").count(),
            DIRECTIVES,
            "every directive renders its chart"
        );
        assert!(
            !text.contains("stale"),
            "the synthetic recording matches every point"
        );
    }
    times.sort_by(f64::total_cmp);
    println!(
        "preprocess {DIRECTIVES} directives from recorded data: median {:.1} ms (min {:.1} ms, 7 runs)",
        times[3] * 1e3,
        times[0] * 1e3
    );
}
