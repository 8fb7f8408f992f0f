#!/usr/bin/env bash
# Nsight Compute on the engine's own launches of one point (`record --rerun` of a one-directive
# book under ncu): ncu's durations of KERNEL's first LAUNCHES beside the engine's median of that run.
#   scripts/ncu_engine_point.sh EXPERIMENT VARIANT 'AXES' KERNEL [LAUNCHES]
# PER_SAMPLE=n sums runs of n launches from the largest grid; CACHE_CONTROL=none leaves L2 to the engine.
set -euo pipefail
exp=$1 variant=$2 axes=$3 kernel=$4 launches=${5:-30}
per_sample=${PER_SAMPLE:-1} cache_control=${CACHE_CONTROL:-all}
bin=${GPULAB_BIN:-$(command -v mdbook-gpulab)}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$root/kernels" "$root/book.toml" "$tmp/"
mkdir -p "$tmp/book" "$tmp/data"
cat > "$tmp/book/SUMMARY.md" <<MD
# Summary

- [Point](point.md)
MD
cat > "$tmp/book/point.md" <<MD
# $exp / $variant

\`\`\`gpulab
experiment = "$exp"
variants   = ["$variant"]
axes       = $axes
table      = { rows = "ROWS_AXIS", columns = "variant", value = "time_ms" }
\`\`\`
MD
rows=$(python3 -c 'import re, sys; print(re.findall(r"(\w+)\s*=", sys.argv[1])[0])' "$axes")
sed -i "s/ROWS_AXIS/$rows/" "$tmp/book/point.md"
cd "$tmp"
"$ncu" --clock-control none --cache-control "$cache_control" --metrics gpu__time_duration.sum,launch__grid_size \
  --kernel-name "$kernel" --launch-count "$launches" --csv --print-units base \
  "$bin" record . --rerun > ncu.csv 2> record.log || { cat record.log ncu.csv | tail -30; exit 1; }
python3 - "$exp" "$per_sample" <<'PY'
import csv, io, json, statistics, sys, glob
rows = [r for r in csv.reader(io.StringIO(open("ncu.csv").read())) if len(r) > 5]
head = next(r for r in rows if "Metric Name" in r)
i_val, i_name, i_id = head.index("Metric Value"), head.index("Metric Name"), head.index("ID")
launch = {}
for r in rows[rows.index(head) + 1:]:
    launch.setdefault(r[i_id], {})[r[i_name]] = float(r[i_val].replace(",", ""))
launches = [launch[k] for k in sorted(launch, key=int)]
per = int(sys.argv[2])
if per == 1:
    us = [l["gpu__time_duration.sum"] / 1e3 for l in launches]
else:
    # One sample's launches start at the largest grid (the first pass) and take `per` launches.
    big = max(l["launch__grid_size"] for l in launches)
    starts = [i for i, l in enumerate(launches) if l["launch__grid_size"] == big]
    us = [sum(l["gpu__time_duration.sum"] for l in launches[i:i + per]) / 1e3
          for i in starts if i + per <= len(launches)]
    print(f"{len(launches)} launches, {len(us)} runs of {per} summed")
print(f"ncu on the engine's launches: {len(us)} launches; first {us[0]:.3f} us; median of the rest "
      f"{statistics.median(us[1:]):.3f} us (min {min(us[1:]):.3f}, max {max(us[1:]):.3f})")
for f in glob.glob(f"data/*/{sys.argv[1]}.json"):
    for p in json.load(open(f))["points"]:
        t = p.get("timing") or {}
        print(f"engine's events in the same run (under ncu): median {1e3 * t.get('median_ms', float('nan')):.3f} us, "
              f"{t.get('samples')} samples")
PY
