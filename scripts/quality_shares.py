#!/usr/bin/env python3
"""Share of recorded GPU points above the noise target, at the sample cap and with fewer samples than
the minimum (not completed by the min-time rule), per device, at one or more git revisions of data/
(issue 12: before/after figures of a change to the measurement). Reads the recordings only.

    python3 scripts/quality_shares.py 0675937 HEAD
"""
import collections, json, subprocess, sys


def shares(rev, device):
    files = subprocess.check_output(["git", "ls-tree", "--name-only", rev, f"data/{device}/"], text=True).split()
    n, c = 0, collections.Counter()
    for f in files:
        if not f.endswith(".json"):
            continue
        rec = json.loads(subprocess.check_output(["git", "show", f"{rev}:{f}"]))
        for p in rec.get("points", []):
            t = p.get("timing")
            if not t or p.get("outcome") != "ok" or t.get("mode") == "host":
                continue
            n += 1
            target = t.get("noise_target") or 0.005
            c["above the noise target"] += t["noise"] > target
            c["at the sample cap"] += t.get("stop") == "max_samples"
            c["fewer samples than the minimum"] += (
                t["samples"] < (t.get("min_samples") or 10) and t.get("stop") not in ("converged", "min_time"))
    return n, c


def main(revs):
    root = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()
    devices = sorted({d.split("/")[1] for d in subprocess.check_output(
        ["git", "-C", root, "ls-tree", "-d", "--name-only", revs[-1], "data/"], text=True).split()
        if d.startswith("data/nvidia")})
    for device in devices:
        for rev in revs:
            n, c = shares(rev, device)
            if n == 0:
                continue
            parts = ", ".join(f"{k} {v} ({100 * v / n:.1f} %)" for k, v in sorted(c.items()))
            print(f"{device} @ {rev}: {n} GPU points; {parts}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["HEAD"])
