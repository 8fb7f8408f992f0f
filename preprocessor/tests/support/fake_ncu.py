#!/usr/bin/env python3
"""A stand-in for Nsight Compute's `ncu` (set NCU to it): answers `--version`, and "profiles" a
worker command line by reading its `--job` file and speaking the profiled worker's protocol itself
(no GPU; the worker is not started), then prints the results as ncu 2025.3 does with `--csv`: the
details layout, one line per launch and metric, after its ==PROF== lines. NOTHING it writes is a
measurement: every value is made up from the launch's index.

Environment: FAKE_GPU_SLUG (default fake-gpu) names the device, as tests/support/fake_worker.py
does; FAKE_NCU_EXTRA_ROW=1 prints one launch more than the points made (a mapping error)."""
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


def after(flag):
    return args[args.index(flag) + 1]


assert "--csv" in args
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
launches = []
for i, p in enumerate(job["points"]):
    emit({"start": {"index": i}})
    kernel = kernels[0] if len(kernels) == 1 else "unknown"
    emit({"profiled": {"index": i, "kernels": [kernel], "error": None}})
    launches.append(kernel)
if os.environ.get("FAKE_NCU_EXTRA_ROW"):
    launches.append(launches[-1])
print("==PROF== Disconnected from process 1 (fake)")
print('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
      '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
for i, kernel in enumerate(launches):
    for m in metrics:
        unit = "ns" if m.startswith("gpu__time") else ""
        print('"%d","1","mdbook-gpulab","localhost","%s","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0",'
              '"Command line profiler metrics","%s","%s","%s"' % (i, kernel, m, unit, "{:,}".format(100 * (i + 1))))
