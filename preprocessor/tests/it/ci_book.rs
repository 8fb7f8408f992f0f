//! CI's steps on the book (`scripts/ci/book.sh`: the Nsight Compute check's dry run, `check`, the
//! offline `--strict` build) run on a copy of the handbook with a new experiment that no GPU has
//! recorded yet: a student without a GPU must be able to land it.

use crate::common::{BookCopy, copy_dir};
use std::path::Path;
use std::process::Command;

const KERNEL: &str = r#"// z = a·x + y, one thread per element.
extern "C" __global__ void saxpy(const float* x, const float* y, float* z, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + y[i];
}
"#;

const SPEC: &str = r#"title  = "SAXPY: z = a·x + y"
source = "saxpy.cu"

[params]
N = 16777216
A = 2.0

[[buffer]]
name = "x"
type = "f32"
len  = "N"
init = { random = [-1, 1] }

[[buffer]]
name = "y"
type = "f32"
len  = "N"
init = { random = [-1, 1] }

[[buffer]]
name   = "z"
type   = "f32"
len    = "N"
output = true

[verify]
reference = "formula"
inputs    = ["x", "y"]
output    = "z"
formula   = "A * x[i] + y[i]"

[metrics]
bytes = "12*N"

[[variant]]
name   = "saxpy"
kernel = "saxpy"
grid   = ["ceil_div(N, 256)"]
block  = ["256"]
args   = ["x", "y", "z", { f32 = "A" }, "N"]
"#;

const CHAPTER: &str = r#"# SAXPY, new

```gpulab
experiment = "new_saxpy"
axes = { N = { pow2 = [1048576, 268435456] } }
table = { rows = "N", columns = "variant", value = "gbps" }
chart = { kind = "line", x = "N", y = "gbps", log_x = true }
expect = ["saxpy.pct_bw > 50 where N >= 67108864"]
```
"#;

/// Issue 35: every new experiment without a recording failed CI (the ncu check's dry run wanted a
/// checked point of it), which a student without a GPU cannot make. Also skipped: a checked point
/// whose experiment one device has not recorded.
#[test]
fn a_new_experiment_without_a_recording_passes_the_ci_book_steps() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let book = BookCopy::handbook();
    for part in ["data", "scripts", "theme"] {
        copy_dir(&repo.join(part), &book.path(part));
    }
    // The compile cache outlives the copy, so that `check` compiles only the new kernel next time.
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ci-book-cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::os::unix::fs::symlink(&cache, book.path(".cache")).unwrap();
    std::fs::remove_file(book.path("data/nvidia-h100-80gb-hbm3/latency.json")).unwrap();
    book.write("kernels/new_saxpy/saxpy.cu", KERNEL);
    book.write("kernels/new_saxpy/experiment.toml", SPEC);
    book.write("book/part2/new-saxpy.md", CHAPTER);
    book.edit(
        "book/SUMMARY.md",
        "- [What changed across GPUs]",
        "- [SAXPY, new](part2/new-saxpy.md)\n- [What changed across GPUs]",
    );
    let out = Command::new("bash")
        .arg(book.path("scripts/ci/book.sh"))
        .env("GPULAB_BIN", env!("CARGO_BIN_EXE_mdbook-gpulab"))
        // One architecture: CI's thirteen cost minutes, for a test of the steps around them.
        .env("GPULAB_CHECK_ARCH", "sm_90")
        .output()
        .expect("running bash");
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("new-saxpy.md#1: experiment `new_saxpy` awaits a GPU run"),
        "{log}"
    );
    let dry_run = book.read("target/ncu-dry-run.log");
    assert!(
        dry_run.contains("note: new_saxpy has no checked point; skipped until it is recorded"),
        "{dry_run}"
    );
    assert!(
        dry_run.contains("skipped, latency is not recorded on nvidia-h100-80gb-hbm3"),
        "{dry_run}"
    );
    let page = book.read("build-out/part2/new-saxpy.html");
    assert!(page.contains("awaiting a GPU run"), "{page}");
}
