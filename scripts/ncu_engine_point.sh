#!/usr/bin/env bash
# Nsight Compute on the engine's own launches of one point (issue 12: when the ncu check and the
# engine disagree, is it the timing or the launch?). Builds a one-chapter book in a temporary copy of
# this book with one directive (EXPERIMENT, VARIANT, AXES as TOML), runs `mdbook-gpulab record
# --rerun` on it under `ncu --metrics gpu__time_duration.sum` (the check's settings) for the first
# LAUNCHES launches of KERNEL, and prints ncu's durations beside the engine's median of that run.
#
#   scripts/ncu_engine_point.sh EXPERIMENT VARIANT 'AXES' KERNEL [LAUNCHES]
#   scripts/ncu_engine_point.sh local_memory direct '{ TOTAL = 67108864, ARR = 128 }' no_array
# On the GPU machine; mdbook-gpulab and ncu on PATH (or $GPULAB_BIN, $NCU).
set -euo pipefail
exp=$1 variant=$2 axes=$3 kernel=$4 launches=${5:-30}
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
"$ncu" --clock-control none --cache-control all --metrics gpu__time_duration.sum \
  --kernel-name "$kernel" --launch-count "$launches" --csv --print-units base \
  "$bin" record . --rerun > ncu.csv 2> record.log || { cat record.log ncu.csv | tail -30; exit 1; }
python3 - "$exp" <<'PY'
import csv, io, json, statistics, sys, glob
rows = [r for r in csv.reader(io.StringIO(open("ncu.csv").read())) if len(r) > 5]
head = next(r for r in rows if "Metric Name" in r)
i_val, i_name = head.index("Metric Value"), head.index("Metric Name")
us = [float(r[i_val].replace(",", "")) / 1e3 for r in rows if r[i_name] == "gpu__time_duration.sum"]
print(f"ncu on the engine's launches: {len(us)} launches; first {us[0]:.3f} us; median of the rest "
      f"{statistics.median(us[1:]):.3f} us (min {min(us[1:]):.3f}, max {max(us[1:]):.3f})")
for f in glob.glob(f"data/*/{sys.argv[1]}.json"):
    for p in json.load(open(f))["points"]:
        t = p.get("timing") or {}
        print(f"engine's events in the same run (under ncu): median {1e3 * t.get('median_ms', float('nan')):.3f} us, "
              f"{t.get('samples')} samples")
PY
