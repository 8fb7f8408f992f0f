#!/usr/bin/env bash
# Records shard K of N of a scratch copy of the book into OUT/data (the book is untouched):
#   scripts/fleet/record-shard.sh K N OUT [BOOK]   (GPULAB_BIN, RECORD_ARGS, TMPDIR)
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 K N OUT [BOOK]" >&2; exit 2; }
K=$1 N=$2 OUT=$3
BOOK=${4:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${GPULAB_BIN:-mdbook-gpulab}
# Provenance: the copy has no .git, so name the book's commit.
export GPULAB_COMMIT=${GPULAB_COMMIT:-$(git -C "$BOOK" rev-parse --short HEAD 2>/dev/null || true)}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/gpulab-shard-$K-of-$N.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
COPY=$SCRATCH/book
mkdir -p "$COPY"
cp -r "$BOOK/book.toml" "$BOOK/book" "$BOOK/kernels" "$BOOK/data" "$COPY"/
if [ -d "$BOOK/.cache" ]; then cp -r "$BOOK/.cache" "$COPY"/; fi
status=0
"$BIN" record "$COPY" --shard "$K/$N" ${RECORD_ARGS:-} || status=$?
# Whatever was recorded is kept, even when the run failed part-way: every file is complete.
mkdir -p "$OUT"
rm -rf "$OUT/data"
cp -r "$COPY/data" "$OUT/data"
exit $status
