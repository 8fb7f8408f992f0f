#!/usr/bin/env python3
"""A stand-in for Nsight Compute's `ncu` (set NCU to it): answers `--version`, "profiles" a worker
command line by reading its `--job` file and speaking the profiled worker's protocol itself (no
GPU, the worker is not started), and exports a raw CSV that `--import` prints back. NOTHING it
writes is a measurement: every value is made up from the launch's index.

Environment: FAKE_GPU_SLUG (default fake-gpu) names the device, as tests/support/fake_worker.py
does; FAKE_NCU_EXTRA_ROW=1 exports one launch more than the points made (a mapping error)."""
import json
import os
import re
import sys

args = sys.argv[1:]


def emit(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


if args == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler")
    print("Version 0.0.0.0 (fake, tests)")
    sys.exit(0)

if args and args[0] == "--import":
    with open(args[1]) as f:
        sys.stdout.write(f.read())
    sys.exit(0)


def after(flag):
    return args[args.index(flag) + 1]


report = after("--export") + ".ncu-rep"
metrics = after("--metrics").split(",")
kernels = re.fullmatch(r"regex:\^\((.*)\)\$", after("--kernel-name")).group(1).split("|")
with open(after("--job")) as f:
    job = json.load(f)
print("==PROF== Connected to process 1 (fake)")
emit({"device": {
    "slug": os.environ.get("FAKE_GPU_SLUG", "fake-gpu"), "name": "Fake GPU (tests)",
    "compute_capability": [9, 0], "sm_count": 1, "clock_mhz": 1, "l2_bytes": 1,
    "memory_bytes": 1, "cuda_version": "0.0", "nvrtc_version": "0.0", "fp32_peak_gflops": 1.0,
}})
rows = []
for i, p in enumerate(job["points"]):
    emit({"start": {"index": i}})
    kernel = kernels[0] if len(kernels) == 1 else "unknown"
    emit({"profiled": {"index": i, "kernel": kernel, "launches": 1, "error": None}})
    rows.append(kernel)
if os.environ.get("FAKE_NCU_EXTRA_ROW"):
    rows.append(rows[-1])
with open(report, "w") as f:
    f.write('"ID","Process ID","Process Name","Host Name","Kernel Name",'
            + ",".join('"%s"' % m for m in metrics) + "\n")
    f.write('"","","","",""' + ',""' * len(metrics) + "\n")
    for i, kernel in enumerate(rows):
        values = ",".join('"%d"' % (100 * (i + 1)) for _ in metrics)
        f.write('"%d","1","mdbook-gpulab","localhost","%s",%s\n' % (i, kernel, values))
print("==PROF== Disconnected from process 1 (fake)")
