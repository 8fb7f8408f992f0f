#!/usr/bin/env python3
"""Compares two recordings of the same points, e.g. one GPU against `record --gpus all` (issue 11:
does a worker beside another GPU's worker time short kernels as one alone does?). For every cold
GPU point that verified in both, the ratio B/A of the medians and the difference B-A, in bins of
A's duration. Each side is a data/ folder or a .tgz of one (as scripts/gpu-suite.sh returns it).

    python3 scripts/compare_runs.py one-gpu-data.tgz gpus-all-data.tgz [--device nvidia-h200]
        [--as-shown] [--exclude EXPERIMENT ...]

--as-shown compares the medians as the book shows them: each side less the events' overhead the book
subtracts (its run's own empty kernel less the calibration's ncu time, else the calibrated offset,
by scripts/ncu_check.py's corrected_offset, with that side's data/<device>/checks/event_offset.json),
so that two hosts whose events cost differently can be compared. --exclude leaves an experiment out
(e.g. one a run did not re-record, whose points would compare equal).
"""
import argparse, json, pathlib, statistics, sys, tarfile, tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

BINS_US = [(0, 5), (5, 20), (20, 100), (100, 1000), (1000, float("inf"))]


def data_dir(path, scratch):
    """The data/ folder of `path`: a .tgz of data/ (unpacked into `scratch`), a book or data/."""
    p = pathlib.Path(path)
    if p.is_file():
        with tarfile.open(p) as t:
            try:
                t.extractall(scratch, filter="data")
            except TypeError:  # Python before 3.12 (and its backports) has no extraction filters
                t.extractall(scratch)
        return pathlib.Path(scratch) / "data"
    return p / "data" if (p / "data").is_dir() else p


def calibration(folder, device):
    """The side's event-overhead calibration (data/<device>/checks/event_offset.json), or None."""
    path = folder / device / "checks" / "event_offset.json"
    return json.loads(path.read_text()) if path.is_file() else None


def medians(folder, device, as_shown=False, exclude=()):
    """Each cold, verified GPU point's median in microseconds: as recorded, or (`as_shown`) less
    the events' overhead the book subtracts."""
    if not (folder / device).is_dir():
        found = sorted(d.name for d in folder.iterdir() if d.is_dir()) if folder.is_dir() else []
        raise SystemExit(f"{folder}: no recordings of {device} (devices there: {', '.join(found) or 'none'})")
    cal = calibration(folder, device) if as_shown else None
    if as_shown and cal is None:
        raise SystemExit(f"{folder}: --as-shown needs {device}/checks/event_offset.json")
    if as_shown:
        # Imported here: ncu_check needs Python 3.11 (tomllib), the plain comparison does not.
        from ncu_check import corrected_offset
    out = {}
    for f in sorted((folder / device).glob("*.json")):
        rec = json.loads(f.read_text())
        if rec.get("experiment") in exclude:
            continue
        for p in rec.get("points", []):
            t = p.get("timing")
            if p.get("outcome") != "ok" or not t or t.get("mode") != "cold":
                continue
            key = (rec["experiment"], p["variant"], json.dumps(p["params"], sort_keys=True))
            ms = t["median_ms"]
            if as_shown:
                ms -= corrected_offset(cal, {"engine_ms": ms, "min_ms": t.get("min_ms"),
                                             "clock": t.get("clock"),
                                             "runs_per_sample": t.get("runs_per_sample"),
                                             "empty_kernel_ms": t.get("empty_kernel_ms")})
            out[key] = ms * 1e3
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--device", default="nvidia-h200")
    ap.add_argument("--as-shown", action="store_true",
                    help="less the events' overhead the book subtracts, each side its own")
    ap.add_argument("--exclude", action="append", default=[], metavar="EXPERIMENT")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as sa, tempfile.TemporaryDirectory() as sb:
        a = medians(data_dir(args.a, sa), args.device, args.as_shown, args.exclude)
        b = medians(data_dir(args.b, sb), args.device, args.as_shown, args.exclude)
    both = [k for k in a if k in b]
    print(f"{len(both)} cold points verified in both ({len(a)} in A, {len(b)} in B: "
          f"{len(a) - len(both)} only in A, {len(b) - len(both)} only in B), {args.device}"
          + (", as the book shows them (less the events' overhead)" if args.as_shown else ", as recorded")
          + (f", without {', '.join(args.exclude)}" if args.exclude else ""))
    print(f"{'A duration':>14} {'points':>7} {'B/A median':>11} {'q1':>7} {'q3':>7} {'B-A median':>12}")
    for lo, hi in BINS_US:
        ks = [k for k in both if lo <= a[k] < hi]
        if len(ks) < 2:
            continue
        r = [b[k] / a[k] for k in ks]
        q = statistics.quantiles(r)
        d = statistics.median(b[k] - a[k] for k in ks)
        span = f"{lo:g}-{hi:g} us" if hi != float("inf") else f">= {lo:g} us"
        print(f"{span:>14} {len(ks):>7} {statistics.median(r):>11.3f} {q[0]:>7.3f} {q[2]:>7.3f} {d:>9.2f} us")


if __name__ == "__main__":
    main()
