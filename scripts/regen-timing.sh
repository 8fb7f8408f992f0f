#!/usr/bin/env bash
# Times a full regeneration of the handbook (`record --rerun`) on the GPU machine without touching
# data/: records into a throwaway copy of the tree and archives that copy's data/ to $OUT for
# comparison (with each experiment's record log). EXPERIMENTS (space-separated; default: every experiment) picks which to re-run, so
# the work can be split over calls of at most 10 minutes.
set -uo pipefail
OUT=${OUT:-/tmp/gpulab-out}
BIN=$PWD/.device-bin
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PATH="$BIN:$PATH"
[ -z "${GPULAB_COMMIT:-}" ] && [ -f "$BIN/COMMIT" ] && export GPULAB_COMMIT=$(cat "$BIN/COMMIT")
COPY=$(mktemp -d)/book
mkdir -p "$COPY" && cp -r book.toml book kernels data "$COPY"/
EXPERIMENTS=${EXPERIMENTS:-$(ls data | grep -v papers | head -1 | xargs -I{} ls data/{} | sed 's/\.json$//')}
total=0
for e in $EXPERIMENTS; do
  start=$(date +%s%N)
  mdbook-gpulab record "$COPY" --rerun --experiment "$e" > "$COPY/data/regen-$e.log" 2>&1
  tail -1 "$COPY/data/regen-$e.log"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  total=$(( total + ms ))
  printf 'REGEN %-22s %8d ms\n' "$e" "$ms" | tee -a "$OUT/regen-times.txt"
  # Archived after every experiment, so that a call stopped at its time limit still returns what it recorded.
  tar czf "$OUT/regen-data.tgz" -C "$COPY" data
done
printf 'REGEN total %8d ms\n' "$total" | tee -a "$OUT/regen-times.txt"
