#!/usr/bin/env python3
"""The event-overhead calibration: what a pair of CUDA events adds to a launch beyond the
kernel's duration as Nsight Compute measures it (gpu__time_duration).

`mdbook-gpulab calibrate` times the empty kernel `gpulab_null` as cold points are timed, alone and
under ncu (the ncu check's settings); offset = events median - ncu median, and gap (from `calibrate
--launches 2`) = the time between two launches that ncu's sum of durations does not count. Both go
with their provenance to data/<slug>/checks/event_offset.json; the book subtracts them when it renders.

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
        # Two launches per sample: the gap between launches, which ncu's sum of durations does not count.
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
