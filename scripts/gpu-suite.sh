#!/usr/bin/env bash
# On the GPU machine: the GPU tests, `record`, the library anchors (STEPS, default tests,record,anchors;
# also counters, features, offset, ncu); data/ and the logs go to $OUT. Binaries: build-device-bin.sh.
set -uo pipefail
OUT=${OUT:-/tmp/gpulab-out}
mkdir -p "$OUT"
BIN=$PWD/.device-bin
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
[ -z "${GPULAB_COMMIT:-}" ] && [ -f "$BIN/COMMIT" ] && export GPULAB_COMMIT=$(cat "$BIN/COMMIT")
export PATH="$BIN:$PATH"
export GPULAB_BIN="$BIN/mdbook-gpulab"
STEPS=${STEPS:-tests,record,anchors}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/nvidia-smi.txt"
mdbook-gpulab devices | tee "$OUT/devices.txt"

if [[ $STEPS == *tests* ]]; then
  : > "$OUT/gpu-tests.log"
  for t in "$BIN"/tests/*; do
    echo "== $(basename "$t")" | tee -a "$OUT/gpu-tests.log"
    "$t" --ignored --test-threads=1 2>&1 | tee -a "$OUT/gpu-tests.log" | grep -E "^test |test result" 
  done
  echo "GPU TESTS: $(grep -c '\.\.\. ok$' "$OUT/gpu-tests.log") passed, $(grep -c '\.\.\. FAILED$' "$OUT/gpu-tests.log") failed"
fi

if [[ $STEPS == *record* ]]; then
  start=$(date +%s)
  mdbook-gpulab record . ${RECORD_ARGS:-} 2>&1 | tee "$OUT/record.log"
  echo "RECORD: $(( $(date +%s) - start )) s wall time for the whole handbook" | tee -a "$OUT/record.log"
fi

if [[ $STEPS == *anchors* ]]; then PYTHONUNBUFFERED=1 python3 scripts/library_anchors.py --out data 2>&1 | tee "$OUT/anchors.log"; fi

# STEPS=counters: `record --counters` under Nsight Compute ($NCU or PATH); its reports go to $OUT/ncu-reports.
if [[ $STEPS == *counters* ]]; then
  if [ -z "${NCU:-}" ] && ! command -v ncu >/dev/null; then
    for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
      [ -x "$c" ] && export NCU=$c && break
    done
  fi
  start=$(date +%s)
  mdbook-gpulab record . --counters ${COUNTER_ARGS:-} 2>&1 | tee "$OUT/counters.log"
  echo "COUNTERS: $(( $(date +%s) - start )) s wall time (timing pass of stale points + profiled pass)" | tee -a "$OUT/counters.log"
  cp -r .cache/gpulab/counters "$OUT/ncu-reports" 2>/dev/null || true
fi

# STEPS=features: the fixture books checked, recorded and built with --strict (look for `0 failed`, `ok`).
if [[ $STEPS == *features* ]]; then
  : > "$OUT/features.log"
  for FB in preprocessor/tests/fixtures/features-book preprocessor/tests/fixtures/types; do
    [ -f "$FB/book.toml" ] || { echo "FEATURES $FB: missing" | tee -a "$OUT/features.log"; continue; }
    name=$(basename "$FB")
    start=$(date +%s)
    echo "== $FB" | tee -a "$OUT/features.log"
    mdbook-gpulab check "$FB" --require-nvrtc 2>&1 | tee -a "$OUT/features.log"
    check=${PIPESTATUS[0]}
    mdbook-gpulab record "$FB" 2>&1 | tee "$OUT/features-$name-record.log" | tee -a "$OUT/features.log"
    if mdbook-gpulab build "$FB" --strict --mode recorded >> "$OUT/features.log" 2>&1; then strict=ok; else strict=FAILED; fi
    mdbook-gpulab list "$FB" >> "$OUT/features.log" 2>&1 || true
    tar czf "$OUT/features-$name-data.tgz" -C "$FB" data
    summary=$(grep -E '^recorded [0-9]+ point\(s\), [0-9]+ failed' "$OUT/features-$name-record.log" | tail -n 1)
    echo "FEATURES $name: ${summary:-no record summary (see features.log)}; check exit $check; strict build: $strict; $(( $(date +%s) - start )) s" | tee -a "$OUT/features.log"
  done
fi

# STEPS=offset: the event-overhead calibration, before the ncu check that uses it.
if [[ $STEPS == *offset* ]]; then PYTHONUNBUFFERED=1 python3 scripts/event_offset.py 2>&1 | tee "$OUT/event_offset.log"; fi

# STEPS=ncu: the Nsight Compute check of the recordings.
if [[ $STEPS == *ncu* ]]; then
  start=$(date +%s)
  PYTHONUNBUFFERED=1 python3 scripts/ncu_check.py 2>&1 | tee "$OUT/ncu.log"
  echo "NCU: $(( $(date +%s) - start )) s wall time" | tee -a "$OUT/ncu.log"
fi

tar czf "$OUT/data.tgz" data
mdbook-gpulab list . > "$OUT/list.txt" 2>&1 || true
tail -n 40 "$OUT/list.txt"
