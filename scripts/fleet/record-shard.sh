#!/usr/bin/env bash
# Records shard K of N of the handbook into OUT, leaving the book itself untouched:
#   scripts/fleet/record-shard.sh K N OUT [BOOK]
# The book (default: this repository) is copied to a scratch folder, `mdbook-gpulab record
# --shard K/N` runs there, and the copy's data/ is saved as OUT/data. Every shard thus starts
# from the same data/ (so all shards compute the same assignment) and no two jobs write one
# folder; `mdbook-gpulab merge OUT…` then folds the shards into the book's data/.
# Used by scripts/slurm/record-shard.sbatch and .github/workflows/record-fleet.yml.
# Environment: GPULAB_BIN (default: mdbook-gpulab on PATH), RECORD_ARGS (e.g. --rerun),
# TMPDIR (scratch; node-local disk is best).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 K N OUT [BOOK]" >&2
  exit 2
fi
K=$1 N=$2 OUT=$3
BOOK=${4:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${GPULAB_BIN:-mdbook-gpulab}
# Provenance: the copy has no .git, so name the book's commit.
if [ -z "${GPULAB_COMMIT:-}" ]; then
  GPULAB_COMMIT=$(git -C "$BOOK" rev-parse --short HEAD 2>/dev/null || true)
  export GPULAB_COMMIT
fi
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/gpulab-shard-$K-of-$N.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
COPY=$SCRATCH/book
mkdir -p "$COPY"
cp -r "$BOOK/book.toml" "$BOOK/book" "$BOOK/kernels" "$BOOK/data" "$COPY"/
# The compile cache, when the book has one, spares the shard its compiles.
if [ -d "$BOOK/.cache" ]; then cp -r "$BOOK/.cache" "$COPY"/; fi
status=0
"$BIN" record "$COPY" --shard "$K/$N" ${RECORD_ARGS:-} || status=$?
# Whatever was recorded is kept, even when the run failed part-way: every file is complete.
mkdir -p "$OUT"
rm -rf "$OUT/data"
cp -r "$COPY/data" "$OUT/data"
exit $status
