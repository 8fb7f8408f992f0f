#!/usr/bin/env python3
"""How fast a full `record` of the handbook could be under today's measurement rules (issue 11).

For every recorded point, the time its kernel (or CPU baseline) itself ran while it was measured:
median x samples x runs per sample, plus the verification run where that run is not also the first
sample (the engine counts a cold run of at least FIRST_RUN_SAMPLE_MS = 100 ms as the first sample;
engine/measure.rs). Summed per experiment and split into the three lanes `record` runs:
  GPU lane             kernels and library calls, one GPU
  CPU, 1 thread        single-threaded CPU baselines, beside the GPU lane on a core of their own
  CPU, many threads    multi-threaded CPU baselines, alone, after the GPU lane
A lower bound for one GPU is max(GPU lane, CPU 1 thread) + CPU many threads: compiles, inputs,
references, comparisons, the L2 flush and blocking kernel before every cold sample and all other
overhead come on top. No GPU needed; reads data/<device>/*.json.

    python3 scripts/regen_bound.py                  # every device in data/
    python3 scripts/regen_bound.py nvidia-h200      # one device
    python3 scripts/regen_bound.py --root BOOK      # another book's data/
"""
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRST_RUN_SAMPLE_MS = 100.0


def point_ms(t):
    """Milliseconds the point's code ran while it was measured (the verification run included)."""
    median = t.get("median_ms") or 0.0
    if median != median:  # NaN
        return 0.0
    runs = t.get("runs_per_sample") or 1
    ms = median * (t.get("samples") or 0) * runs
    first_is_sample = t.get("mode") in ("cold", "host") and median >= FIRST_RUN_SAMPLE_MS
    return ms if first_is_sample else ms + median


def lane(t):
    cpu = t.get("cpu")
    if not cpu:
        return "gpu"
    m = re.search(r"(\d+) threads?", cpu)
    return "cpu1" if m and int(m.group(1)) == 1 else "cpuN"


def device_bound(root, slug):
    lanes = {"gpu": {}, "cpu1": {}, "cpuN": {}}
    for path in sorted(glob.glob(os.path.join(root, "data", slug, "*.json"))):
        with open(path) as f:
            rec = json.load(f)
        exp = rec.get("experiment", os.path.basename(path)[:-5])
        for p in rec.get("points", []):
            t = p.get("timing")
            if p.get("outcome") != "ok" or not t:
                continue
            per = lanes[lane(t)]
            per[exp] = per.get(exp, 0.0) + point_ms(t) / 1e3
    return lanes


def main():
    args = sys.argv[1:]
    root = ROOT
    if args[:1] == ["--root"] and len(args) >= 2:
        root, args = args[1], args[2:]
    slugs = args or sorted(
        d for d in os.listdir(os.path.join(root, "data"))
        if d != "papers" and glob.glob(os.path.join(root, "data", d, "*.json"))
    )
    for slug in slugs:
        lanes = device_bound(root, slug)
        total = {k: sum(v.values()) for k, v in lanes.items()}
        print(f"== {slug}: time the measured code itself ran (s)")
        for name, key in (("GPU lane", "gpu"), ("CPU, 1 thread", "cpu1"), ("CPU, many threads", "cpuN")):
            top = sorted(lanes[key].items(), key=lambda kv: -kv[1])[:3]
            shown = ", ".join(f"{e} {s:.0f}" for e, s in top)
            print(f"  {name:18} {total[key]:7.1f}   ({shown})")
        bound = max(total["gpu"], total["cpu1"]) + total["cpuN"]
        print(f"  one GPU, lower bound: max(GPU lane, CPU 1 thread) + CPU many threads = {bound:.0f} s")


if __name__ == "__main__":
    main()
