#!/usr/bin/env python3
"""Library anchors: what PyTorch and cuBLAS reach on this GPU, for the handbook's table of our best
kernels against them (book/part2/across-gpus.md, ```gpulab-anchors```).

Timed as the engine times: L2 flush before each sample, CUDA events, median of 20 after 3 warm-ups.
  copy        y.copy_(x), x = 1 GiB of float32 (268435456 elements)      bytes 2 x 1 GiB
  sum         x.sum(), the same 1 GiB                                     bytes 1 GiB
  transpose   y.copy_(x.t()), 16384 x 16384 float32                       bytes 2 x 1 GiB
  sgemm_4096  torch.mm, float32, TF32 disabled (cuBLAS SGEMM), N = 4096   flops 2 N^3
  sgemm_8192  the same at N = 8192
Each result is checked (copy/transpose exactly, sum and SGEMM against float64 references).

Writes data/<device-slug>/anchors/library.json with its provenance (step `anchors` of gpu-suite.sh):
    python3 scripts/library_anchors.py [--out data]
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys

import torch

SAMPLES = 20
WARMUP = 3
GIB_FLOATS = 2**30 // 4


def slug(name):
    """mdbook-gpulab's device slug: lowercase, each run of non-alphanumerics one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def commit():
    if os.environ.get("GPULAB_COMMIT", "").strip():
        return os.environ["GPULAB_COMMIT"].strip()
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        return out.stdout.strip() or None
    except (OSError, subprocess.CalledProcessError):
        return None


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return None


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def blas_library():
    """Which BLAS PyTorch's matmul uses (cuBLAS unless configured otherwise)."""
    try:
        return str(torch.backends.cuda.preferred_blas_library())
    except Exception:  # noqa: BLE001 - provenance is best effort, never fatal
        return None


def timed(op, flush):
    """Median and all samples (ms) of `op` after `flush`, with CUDA events."""
    for _ in range(WARMUP):
        op()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(SAMPLES):
        flush()
        start.record()
        op()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="data", help="the book's data folder (default: data)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("library_anchors.py: no CUDA GPU visible to PyTorch")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    props = torch.cuda.get_device_properties(0)
    flush_buf = torch.empty(2 * props.L2_cache_size, dtype=torch.uint8, device="cuda")

    def flush():
        flush_buf.fill_(1)

    results = {}

    def record(name, label, op, amount, unit, check):
        median, times = timed(op, flush)
        value = amount / (median / 1e3) / 1e9
        ok, detail = check()
        results[name] = {
            "label": label, "value": value, "unit": unit, "median_ms": median,
            "min_ms": min(times), "max_ms": max(times), "samples": len(times),
            "verified": ok, "check": detail,
        }
        print(f"{label:40} {median:9.4f} ms  {value:10.1f} {unit}  {'ok' if ok else 'WRONG: ' + detail}")

    # copy and sum: 1 GiB of float32
    x = torch.rand(GIB_FLOATS, device="cuda")
    y = torch.empty_like(x)
    record("copy", "PyTorch copy_ (1 GiB)", lambda: y.copy_(x), 2 * x.nbytes, "GB/s",
           lambda: (bool(torch.equal(x, y)), "y == x"))
    out = torch.empty((), device="cuda")
    record("sum", "PyTorch sum (1 GiB)", lambda: out.copy_(torch.sum(x)), x.nbytes, "GB/s",
           lambda: _close(out.item(), x.double().sum().item(), 1e-4))
    del x, y
    torch.cuda.empty_cache()

    # transpose 16384 x 16384
    n = 16384
    a = torch.rand((n, n), device="cuda")
    t = torch.empty_like(a)
    record("transpose", "PyTorch transpose copy (16384²)", lambda: t.copy_(a.t()), 2 * a.nbytes, "GB/s",
           lambda: (bool(torch.equal(t, a.t())), "t == a.T"))
    del a, t
    torch.cuda.empty_cache()

    # cuBLAS SGEMM without TF32
    for n in (4096, 8192):
        a = torch.rand((n, n), device="cuda")
        b = torch.rand((n, n), device="cuda")
        c = torch.empty((n, n), device="cuda")
        record(f"sgemm_{n}", f"cuBLAS SGEMM, no TF32 (N = {n})", lambda: torch.mm(a, b, out=c), 2 * n**3,
               "GFLOP/s", lambda: _sgemm_check(a, b, c))
        del a, b, c
        torch.cuda.empty_cache()

    name = torch.cuda.get_device_name(0)
    doc = {
        "schema": 1,
        "what": "library anchors (PyTorch, cuBLAS): not our kernels",
        "device": {"name": name, "slug": slug(name), "uuid": f"GPU-{props.uuid}" if getattr(props, "uuid", None) else None,
                   "l2_bytes": props.L2_cache_size, "sm_count": props.multi_processor_count},
        "provenance": {
            "commit": commit(),
            "recorded_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "script": "scripts/library_anchors.py",
            "driver_version": driver_version(),
            "cuda_runtime": torch.version.cuda,
            "torch_version": torch.__version__,
            "blas_library": blas_library(),
            "host_cpu": cpu_model(),
            "method": f"L2 flushed (write of 2 x L2) before each sample; CUDA events; median of {SAMPLES} after {WARMUP} warm-up runs; TF32 off",
        },
        "anchors": results,
    }
    folder = os.path.join(args.out, doc["device"]["slug"], "anchors")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "library.json")
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")
    if not all(r["verified"] for r in results.values()):
        sys.exit("library_anchors.py: a library result did not verify (see above)")


def _close(got, want, rel):
    err = abs(got - want) / max(1.0, abs(want))
    return err <= rel, f"relative error {err:.2e} (tolerance {rel:g})"


def _sgemm_check(a, b, c):
    """A 256-row slice against float64: a TF32 result (10-bit mantissa) misses the tolerance."""
    rows = slice(0, 256)
    ref = a[rows].double() @ b.double()
    err = ((c[rows].double() - ref).abs().max() / ref.abs().max()).item()
    return err <= 1e-5, f"max relative error {err:.2e} (tolerance 1e-05; TF32 gives ~1e-3)"


if __name__ == "__main__":
    main()
