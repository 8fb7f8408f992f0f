#!/usr/bin/env bash
# On a machine with two or more GPUs of one kind (e.g. nvidia-h200-x2): times the same
# regeneration (`record --rerun`) on one GPU (`--gpus 0`) and on all of them (`--gpus all`), one
# after the other in this call, each in a throwaway copy of the book (data/ is not touched), and
# prints both wall times and the speed-up. Both copies' data/ and logs go to $OUT.
#   EXPERIMENTS=a,b,c   only these experiments (default: all); pick a set that fits the time limit
#   ORDER=all-first      time --gpus all first (default: one GPU first)
set -uo pipefail
OUT=${OUT:-/tmp/gpulab-out}
mkdir -p "$OUT"
BIN=${BIN:-$PWD/.device-bin}
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PATH="$BIN:$PATH"
[ -z "${GPULAB_COMMIT:-}" ] && [ -f "$BIN/COMMIT" ] && export GPULAB_COMMIT=$(cat "$BIN/COMMIT")
nvidia-smi --query-gpu=index,name,clocks.sm --format=csv | tee "$OUT/fleet-gpus.txt"
only=()
[ -n "${EXPERIMENTS:-}" ] && only=(--experiment "$EXPERIMENTS")
run() { # name gpus
  local copy
  copy=$(mktemp -d)/book
  mkdir -p "$copy" && cp -r book.toml book kernels data "$copy"/
  local start=$(date +%s%N)
  mdbook-gpulab record "$copy" --rerun --gpus "$2" "${only[@]}" > "$OUT/fleet-$1.log" 2>&1
  local rc=$?
  local ms=$(( ($(date +%s%N) - start) / 1000000 ))
  tar czf "$OUT/fleet-$1-data.tgz" -C "$copy" data
  tail -n 3 "$OUT/fleet-$1.log"
  printf 'FLEET %-4s --gpus %-4s %8d ms (exit %d)\n' "$1" "$2" "$ms" "$rc" | tee -a "$OUT/fleet-timing.txt"
  eval "MS_$1=$ms"
}
if [ "${ORDER:-}" = all-first ]; then run all all; run one 0; else run one 0; run all all; fi
awk -v a="$MS_one" -v b="$MS_all" 'BEGIN { printf "FLEET speed-up %.2fx (one GPU %d ms, all GPUs %d ms)\n", a / b, a, b }' \
  | tee -a "$OUT/fleet-timing.txt"
