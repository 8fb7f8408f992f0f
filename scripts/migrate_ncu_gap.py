#!/usr/bin/env python3
"""One-shot migration (run once, then deleted): the calibration block of each data/*/checks/ncu.json
gets the gap between launches the check subtracted (`gap_ms`), recovered exactly from its rows'
`launch_gaps_ms` (a point of n launches, one run per sample, lost (n - 1) gaps), so that the book can
compute the check's verdicts from what it stored. Nothing measured changes."""
import glob, json

for path in sorted(glob.glob("data/*/checks/ncu.json")):
    text = open(path).read()
    f = json.loads(text)
    assert json.dumps(f, indent=1) + "\n" == text, path
    cal = f.get("event_offset")
    if cal is None or "gap_ms" in cal:
        continue
    sides = [(p["launches"], s) for p in f["points"] for s in (p, p.get("same_run") or {})
             if "launch_gaps_ms" in s]
    assert all(s.get("runs_per_sample", 1) == 1 for _, s in sides)
    gap = next(s["launch_gaps_ms"] for n, s in sides if n == 2)
    for n, s in sides:   # what ncu_check.py's launch_gaps computed with this gap
        assert max(0.0, gap) * (n * 1 - 1) / 1 == s["launch_gaps_ms"], (path, n, s["launch_gaps_ms"])
    cal["gap_ms"] = gap
    with open(path, "w") as out:
        json.dump(f, out, indent=1)
        out.write("\n")
    print(f"{path}: gap_ms {gap}")
