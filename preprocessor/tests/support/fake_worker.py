#!/usr/bin/env python3
"""A stand-in for `mdbook-gpulab worker` (set GPULAB_WORKER to it): speaks the worker protocol
without a GPU, so record, --shard, --gpus and merge are tested on CPU. Every point comes back ok
with a made-up timing; NOTHING it writes is a measurement.

Environment: FAKE_GPU_SLUG (default fake-gpu) names the device; FAKE_WORKER_LOG, when set, gets
one line per point run: `<CUDA_VISIBLE_DEVICES> <experiment> <variant> <params json>`;
FAKE_WORKER_BARRIER, when set to a folder, makes a worker with points wait for <folder>/go
after writing <folder>/started-<pid>; FAKE_WORKER_DELAY_S sleeps per point; FAKE_WORKER_HANG names
a variant whose kernel never finishes (logged, then silent until the supervisor kills it)."""
import datetime
import json
import os
import sys
import time


def emit(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


job = json.load(sys.stdin)
gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "-")
emit({"device": {
    "slug": os.environ.get("FAKE_GPU_SLUG", "fake-gpu"), "name": "Fake GPU (tests)",
    "compute_capability": [9, 0], "sm_count": 1, "clock_mhz": 1, "l2_bytes": 1,
    "memory_bytes": 1, "cuda_version": "0.0", "nvrtc_version": "0.0", "fp32_peak_gflops": 1.0,
}})
if not job["points"]:
    sys.exit(0)
barrier = os.environ.get("FAKE_WORKER_BARRIER")
if barrier:
    open(os.path.join(barrier, "started-%d" % os.getpid()), "w").close()
    while not os.path.exists(os.path.join(barrier, "go")):
        time.sleep(0.01)
delay = float(os.environ.get("FAKE_WORKER_DELAY_S", "0"))
log = os.environ.get("FAKE_WORKER_LOG")
for i, p in enumerate(job["points"]):
    emit({"start": {"index": i}})
    time.sleep(delay)
    if log:
        with open(log, "a") as f:
            f.write("%s %s %s %s\n" % (gpu, job["experiment"], p["variant"],
                                       json.dumps(p["params"], sort_keys=True, separators=(",", ":"))))
    if p["variant"] == os.environ.get("FAKE_WORKER_HANG"):
        emit({"kernel": {"running": True}})
        time.sleep(3600)
    emit({"point": {"index": i, "point": {
        "variant": p["variant"], "params": p["params"], "key": p["key"],
        "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "commit": job.get("commit"), "tool_version": "fake", "outcome": "ok",
        "timing": {"median_ms": 1.0, "min_ms": 1.0, "max_ms": 1.0, "q1_ms": 1.0, "q3_ms": 1.0,
                   "noise": 0.0, "samples": 1, "method": 2,
                   "mode": (p.get("rules") or job["rules"])["mode"]},
    }}})
