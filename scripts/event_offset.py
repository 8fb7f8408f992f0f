#!/usr/bin/env python3
"""The event-overhead calibration (issue 12): what a pair of CUDA events adds to a launch beyond the
kernel's duration as Nsight Compute measures it (gpu__time_duration).

The engine times a cold point as: L2 flush, blocking kernel, start event, the launch, stop event. For
a kernel of a few microseconds the events' own work is a visible part of that time (about 0.9 us on an
H100): kernels of 3-30 us read 3-30 % above ncu. This script measures that constant once per GPU on
a kernel that does nothing, on both sides, with the engine's own binary:

  1. `mdbook-gpulab calibrate` times the empty kernel `gpulab_null` exactly as cold points are timed
     (events) and prints the statistics;
  2. the same command runs under `ncu --metrics gpu__time_duration.sum --kernel-name gpulab_null`
     (--clock-control none, --cache-control all: as the ncu check) for ncu's duration of the kernel;
  3. offset = events median - ncu median, written with its provenance to
     data/<slug>/checks/event_offset.json (and the output to event_offset.log);
  4. `mdbook-gpulab calibrate --launches 2` (two launches back to back per sample): gap = its median
     - the one-launch median - ncu's duration of one launch, the time between two launches that a
     multi-launch point's events include and ncu's sum of durations does not.

The book subtracts the offset from the event times of that GPU's points when it renders them (the
recordings keep the raw times), and says so on every such number. The Nsight Compute check
(scripts/ncu_check.py) then tests on 41 real kernels whether one constant explains the difference.

Usage (on the GPU machine; the binary from $GPULAB_BIN or PATH, ncu from $NCU or PATH):
    python3 scripts/event_offset.py [--samples 400] [--ncu-runs 30]
"""
import argparse, csv, datetime, io, json, os, shutil, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = "gpulab_null"
METRIC = "gpu__time_duration.sum"


def tool(env, name, fallbacks=()):
    path = os.environ.get(env) or shutil.which(name)
    for f in fallbacks:
        if not path and os.path.exists(f):
            path = f
    if not path:
        sys.exit(f"event_offset: no `{name}` (set ${env} or put it on PATH)")
    return path


def calibrate(binary, samples, gpu, launches=1):
    out = subprocess.run([binary, "calibrate", "--gpu", str(gpu), "--samples", str(samples),
                          "--launches", str(launches)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"event_offset: `{binary} calibrate` failed:\n{out.stderr}")
    return json.loads(out.stdout)


def ncu_durations_ms(text):
    """gpu__time_duration of each gpulab_null launch (ms), from ncu's raw CSV page in base units (ns)."""
    rows = list(csv.reader(io.StringIO(text)))
    head_i = next(i for i, r in enumerate(rows) if METRIC in r)
    head = rows[head_i]
    col, name = head.index(METRIC), head.index("Kernel Name")
    out = []
    for r in rows[head_i + 1:]:
        if len(r) <= col or not r[name].startswith(KERNEL):
            continue   # the units row, other kernels
        try:
            out.append(float(r[col].replace(",", "")) / 1e6)
        except ValueError:
            continue
    return out


def commit(binary):
    c = os.environ.get("GPULAB_COMMIT")
    if c:
        return c
    f = os.path.join(os.path.dirname(os.path.abspath(binary)), "COMMIT")
    if os.path.exists(f):
        return open(f).read().strip()
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=400, help="event samples of the empty kernel")
    ap.add_argument("--ncu-runs", type=int, default=30, help="launches profiled under ncu (the first is dropped)")
    ap.add_argument("--gpu", type=int, default=0)
    ap.add_argument("--data", default=os.path.join(ROOT, "data"))
    args = ap.parse_args()
    binary = tool("GPULAB_BIN", "mdbook-gpulab", [os.path.join(ROOT, "target", "release", "mdbook-gpulab")])
    ncu = tool("NCU", "ncu", ["/usr/local/cuda/bin/ncu"])

    ev = calibrate(binary, args.samples, args.gpu)
    t = ev["events"]
    two = calibrate(binary, args.samples, args.gpu, launches=2)["events"]
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "null")
        cmd = [ncu, "--clock-control", "none", "--cache-control", "all", "--metrics", METRIC,
               "--kernel-name", KERNEL, "--export", rep, "--force-overwrite",
               binary, "calibrate", "--gpu", str(args.gpu), "--samples", str(args.ncu_runs)]
        prof = subprocess.run(cmd, capture_output=True, text=True)
        if prof.returncode != 0:
            sys.exit(f"event_offset: ncu failed:\n{prof.stdout[-2000:]}\n{prof.stderr[-2000:]}")
        text = subprocess.run([ncu, "--import", rep + ".ncu-rep", "--csv", "--page", "raw", "--print-units", "base"],
                              capture_output=True, text=True, check=True).stdout
    runs = ncu_durations_ms(text)
    if len(runs) < 3:
        sys.exit(f"event_offset: ncu profiled {len(runs)} launches of {KERNEL}; expected {args.ncu_runs + 1}")
    ncu_ms = statistics.median(runs[1:])
    version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    result = {
        "schema": 1,
        "tool": "scripts/event_offset.py",
        "commit": commit(binary),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "gpu": ev["gpu"],
        "slug": ev["slug"],
        "kernel": KERNEL,
        "ncu_version": version,
        "metric": METRIC,
        "clock_control": "none",
        "cache_control": "all",
        "events_ms": t["median_ms"],
        "events": t,
        "ncu_ms": ncu_ms,
        "ncu_runs_ms": runs[1:],
        "offset_ms": t["median_ms"] - ncu_ms,
        # Two launches back to back per sample: what the second adds beyond its own duration is the
        # gap between launches, which the events of a multi-launch point include and ncu's sum of
        # durations does not (the ncu check subtracts it per extra launch; the book does not).
        "events_two_launches_ms": two["median_ms"],
        "events_two_launches": two,
        "gap_ms": two["median_ms"] - t["median_ms"] - ncu_ms,
    }
    out_dir = os.path.join(args.data, ev["slug"], "checks")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "event_offset.json"), "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    lines = [
        f"event-overhead calibration on {ev['gpu']} ({ev['slug']}), {version}, commit {result['commit']}, {result['date']}",
        f"empty kernel {KERNEL}, one warp: events (engine, cold, {t['samples']} samples) median "
        f"{1e3 * t['median_ms']:.3f} us (IQR {1e3 * t['q1_ms']:.3f}-{1e3 * t['q3_ms']:.3f}); "
        f"ncu {METRIC} median {1e3 * ncu_ms:.3f} us over {len(runs) - 1} launches",
        f"offset (events - ncu): {1e3 * result['offset_ms']:.3f} us",
        f"two launches per sample: events median {1e3 * two['median_ms']:.3f} us (IQR {1e3 * two['q1_ms']:.3f}-"
        f"{1e3 * two['q3_ms']:.3f}, noise {100 * two['noise']:.1f} %, {two['samples']} samples, stopped: "
        f"{two.get('stop')}); gap between launches (two - one - ncu): {1e3 * result['gap_ms']:.3f} us",
    ]
    with open(os.path.join(out_dir, "event_offset.log"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
