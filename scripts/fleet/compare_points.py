#!/usr/bin/env python3
"""Compares two data/ folders point by point for the given experiments (comma-separated, or
`all`): (device, experiment, variant, params) -> (key, outcome). Prints `SHARDS OK: ...` and exits 0
when both hold the same points with the same keys and outcomes; otherwise lists the differences
and exits 1. Used by scripts/fleet/two-shards.sh (tested by tests/fleet_scripts.rs)."""
import json
import pathlib
import sys


def points(data, only):
    out = {}
    for f in sorted(pathlib.Path(data).glob("*/*.json")):
        if f.parent.name in ("papers", "anchors"):
            continue
        try:
            rec = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        if "points" not in rec or (only and rec.get("experiment") not in only):
            continue
        for p in rec["points"]:
            ident = (rec["device"]["slug"], rec["experiment"], p["variant"],
                     json.dumps(p["params"], sort_keys=True))
            out[ident] = (p["key"], p["outcome"])
    return out


def main():
    single, merged, experiments = sys.argv[1], sys.argv[2], sys.argv[3]
    only = set() if experiments == "all" else set(experiments.split(","))
    a, b = points(single, only), points(merged, only)
    missing = sorted(set(a) - set(b))
    extra = sorted(set(b) - set(a))
    differ = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    for what, keys in (("missing from the merge", missing), ("only in the merge", extra),
                       ("key or outcome differs", differ)):
        for k in keys[:20]:
            print(f"SHARDS {what}: {k}")
    if not a:
        print("SHARDS FAILED: the single-process recording has no points")
        return 1
    if missing or extra or differ:
        print(f"SHARDS FAILED: {len(missing)} missing, {len(extra)} extra, {len(differ)} differ "
              f"(of {len(a)} points)")
        return 1
    exps = len({k[1] for k in a})
    print(f"SHARDS OK: the merge of two shards holds the single-process recording's {len(a)} points "
          f"of {exps} experiment(s), same keys and outcomes, none lost, none extra")
    return 0


if __name__ == "__main__":
    sys.exit(main())
